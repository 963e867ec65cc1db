#!/usr/bin/env bash
# On main only: makes the merged run the new baseline in DATA_DIR (a checkout
# of the `eval-data` branch, which also holds history.jsonl, appended by
# `merge.sh N --history DATA_DIR/history.jsonl`). The workflow commits DATA_DIR
# to eval-data, not to main: main's branch protection stays intact and no pull
# request is opened for every merge. scripts/ci/baseline.sh DATA_DIR
source "$(dirname "$0")/lib.sh"
data="${1:?usage: baseline.sh DATA_DIR}"
mkdir -p "$data"
rm -rf "$data/baseline.new"
cp -R "$EVAL_DIR/merged/all" "$data/baseline.new"
rm -rf "$data/baseline"
mv "$data/baseline.new" "$data/baseline"
log "baseline replaced in $data/baseline"
