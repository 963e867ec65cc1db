# Shared by the scripts in scripts/ci/ (sourced, not run). Each script is one
# step of .github/workflows/eval.yml and runs the same way on a laptop:
#   INQUIRY      the binary (default: target/release/inquiry)
#   EVAL_DIR     where shard, merged and comparison outputs go (default: eval-ci)
#   EVAL_ARGS    extra `inquiry eval` flags for every shard (e.g. "--subset")
#   GATE_ARGS    gates for the comparison (default: --max-drop 0.02 --critical-all-runs)
# GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are written when set, as on GitHub.
set -euo pipefail
INQUIRY="${INQUIRY:-target/release/inquiry}"
EVAL_DIR="${EVAL_DIR:-eval-ci}"
GATE_ARGS="${GATE_ARGS:---max-drop 0.02 --critical-all-runs}"
log() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }
# Records key=value for later steps (GITHUB_OUTPUT) and for finish.sh (EVAL_DIR/status).
record() {
  mkdir -p "$EVAL_DIR"
  printf '%s=%s\n' "$1" "$2" >> "$EVAL_DIR/status"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; fi
}
# Reads a recorded value (the last one wins); empty when absent.
recorded() {
  [ -f "$EVAL_DIR/status" ] || return 0
  { grep "^$1=" "$EVAL_DIR/status" || true; } | tail -n 1 | cut -d= -f2-
}
