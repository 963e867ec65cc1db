#!/usr/bin/env bash
# One shard of the suite: scripts/ci/shard.sh I N
# Writes EVAL_DIR/shards/sI (a report set) and EVAL_DIR/shards/junit-I.xml.
# A missed threshold (exit 1) is not this step's failure: merge applies the
# thresholds to the whole run. Exit 2 (a data or infrastructure error) is.
source "$(dirname "$0")/lib.sh"
i="${1:?usage: shard.sh I N}"; n="${2:?usage: shard.sh I N}"
mkdir -p "$EVAL_DIR/shards"
code=0
# shellcheck disable=SC2086
"$INQUIRY" eval --shard "$i/$n" --out "$EVAL_DIR/shards" --name "s$i" \
  --junit "$EVAL_DIR/shards/junit-$i.xml" ${EVAL_ARGS:-} || code=$?
log "shard $i/$n: exit $code"
case "$code" in 0|1) exit 0 ;; *) exit "$code" ;; esac
