#!/usr/bin/env bash
# Builds the pull-request comment (EVAL_DIR/comment.md) from the comparison
# and the thresholds, and posts it as one sticky comment (updated in place on
# later pushes, found by its marker) when running on a pull request with a
# token and the gh CLI. Anywhere else it only writes the file and says why.
source "$(dirname "$0")/lib.sh"
marker='<!-- inquiry-eval-comment -->'
out="$EVAL_DIR/comment.md"
{
  echo "$marker"
  echo "## inquiry eval"
  echo
  echo "- thresholds: **$(recorded thresholds)** (merged run, \`thresholds.json\`)"
  echo "- gates against the baseline: **$(recorded gates)**"
  if [ -n "${GITHUB_SERVER_URL:-}" ] && [ -n "${GITHUB_REPOSITORY:-}" ] && [ -n "${GITHUB_RUN_ID:-}" ]; then
    echo "- run, report sets and JUnit: ${GITHUB_SERVER_URL}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}"
  fi
  echo
  if [ -f "$EVAL_DIR/compare.md" ]; then cat "$EVAL_DIR/compare.md"; fi
} > "$out"
log "comment body: $out"
if [ "${GITHUB_EVENT_NAME:-}" != "pull_request" ]; then log "not a pull request: comment not posted"; exit 0; fi
if [ -z "${GITHUB_TOKEN:-}" ] || ! command -v gh >/dev/null 2>&1; then log "no token or gh CLI: comment not posted"; exit 0; fi
pr="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pull_request"]["number"])' "${GITHUB_EVENT_PATH:?}")"
existing="$(gh api "repos/$GITHUB_REPOSITORY/issues/$pr/comments" --paginate \
  --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | head -n 1)"
if [ -n "$existing" ]; then
  gh api -X PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$existing" -F "body=@$out" >/dev/null
  log "updated comment $existing on #$pr"
else
  gh api -X POST "repos/$GITHUB_REPOSITORY/issues/$pr/comments" -F "body=@$out" >/dev/null
  log "posted a comment on #$pr"
fi
