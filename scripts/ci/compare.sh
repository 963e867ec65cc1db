#!/usr/bin/env bash
# Compares the merged run with the baseline: scripts/ci/compare.sh BASELINE
# Writes EVAL_DIR/compare.md (Markdown for the PR comment), compare.json and
# compare-junit.xml (a test case per gate), appends the Markdown to the step
# summary, records gates=<verdict> and compare_exit=<code>. Runs whatever the
# thresholds said; exits 0 so the comment is posted (finish.sh decides).
source "$(dirname "$0")/lib.sh"
base="${1:?usage: compare.sh BASELINE}"
if [ ! -e "$base/report.json" ]; then
  log "no baseline at $base; nothing to compare"
  record gates no-baseline
  printf '_No baseline report at `%s`: nothing to compare._\n' "$base" > "$EVAL_DIR/compare.md"
  exit 0
fi
code=0
# shellcheck disable=SC2086
"$INQUIRY" compare "$base" "$EVAL_DIR/merged/all" $GATE_ARGS --summary-md "$EVAL_DIR/compare.md" \
  --junit "$EVAL_DIR/compare-junit.xml" --json > "$EVAL_DIR/compare.json" || code=$?
verdict="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("verdict","ERROR"))' "$EVAL_DIR/compare.json" 2>/dev/null || echo ERROR)"
record gates "$verdict"
record compare_exit "$code"
log "comparison with $base: $verdict (exit $code)"
