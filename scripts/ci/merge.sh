#!/usr/bin/env bash
# Merges the shard report sets into EVAL_DIR/merged/all with the thresholds
# applied again and a JUnit file (a test case per eval case and per metric
# threshold). Records thresholds=met|missed; exits 0 even when a threshold is
# missed, so the comparison and the PR comment still run (finish.sh decides).
source "$(dirname "$0")/lib.sh"
n="${1:?usage: merge.sh N [--history FILE]}"; shift
sets=()
for i in $(seq 1 "$n"); do sets+=("$EVAL_DIR/shards/s$i"); done
mkdir -p "$EVAL_DIR/merged"
code=0
# shellcheck disable=SC2086
"$INQUIRY" merge "${sets[@]}" --out "$EVAL_DIR/merged" --name all --junit "$EVAL_DIR/merged/junit.xml" \
  ${MERGE_ARGS:-} "$@" || code=$?
case "$code" in
  0) record thresholds met ;;
  1) record thresholds missed ;;
  *) record thresholds error; log "merge failed (exit $code)"; exit "$code" ;;
esac
log "merged $n shards: thresholds $(recorded thresholds)"
