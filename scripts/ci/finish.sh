#!/usr/bin/env bash
# The job's verdict, after every report was written and posted: exit 2 when
# something could not be measured or compared, 1 when a threshold or a gate
# was missed, 0 otherwise. INCONCLUSIVE=fail also fails an inconclusive gate.
source "$(dirname "$0")/lib.sh"
thresholds="$(recorded thresholds)"; gates="$(recorded gates)"; compare_exit="$(recorded compare_exit)"
log "thresholds: ${thresholds:-not run}; gates: ${gates:-not run} (compare exit ${compare_exit:-none})"
if [ "$thresholds" = "error" ] || [ "${compare_exit:-0}" = "2" ]; then exit 2; fi
if [ "$thresholds" = "missed" ] || [ "${compare_exit:-0}" = "1" ]; then exit 1; fi
if [ "$gates" = "INCONCLUSIVE" ] && [ "${INCONCLUSIVE:-pass}" = "fail" ]; then exit 1; fi
exit 0
