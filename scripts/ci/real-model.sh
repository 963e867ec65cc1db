#!/usr/bin/env bash
# The real-model job: the eval subset with a real model, the provider chosen
# as the original harness chose it. Anthropic's API when ANTHROPIC_API_KEY is
# set (it wins when both are), else Amazon Bedrock when AWS_BEARER_TOKEN_BEDROCK
# is set (region AWS_REGION, default eu-central-1), else "skipped: no key"
# and exit 0 (forks and clones without secrets).
#   ANTHROPIC_MODEL_ID   default claude-sonnet-4-5
#   BEDROCK_MODEL_ID     default eu.anthropic.claude-sonnet-4-5-20250929-v1:0 (an EU inference profile)
# Exit: inquiry eval's, with 1 (a missed threshold or gate) reported but not failing the job.
source "$(dirname "$0")/lib.sh"
if [ -n "${ANTHROPIC_API_KEY:-}" ]; then
  provider="anthropic"
  model="anthropic:${ANTHROPIC_MODEL_ID:-claude-sonnet-4-5}"
  extra=()
elif [ -n "${AWS_BEARER_TOKEN_BEDROCK:-}" ]; then
  provider="bedrock"
  model="bedrock:${BEDROCK_MODEL_ID:-eu.anthropic.claude-sonnet-4-5-20250929-v1:0}"
  extra=(--region "${AWS_REGION:-eu-central-1}")
else
  echo "skipped: no key (set the ANTHROPIC_API_KEY secret, or AWS_BEARER_TOKEN_BEDROCK for Amazon Bedrock, to run the subset with a real model)"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then echo "real model: skipped: no key" >> "$GITHUB_STEP_SUMMARY"; fi
  exit 0
fi
log "provider: $provider, model: $model ${extra[*]}"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then echo "real model: $provider ($model ${extra[*]})" >> "$GITHUB_STEP_SUMMARY"; fi
status=0
"$INQUIRY" eval --subset --model "$model" "${extra[@]}" --out "$EVAL_DIR" --name real-model || status=$?
if [ "$status" -eq 1 ]; then
  log "the real-model subset missed a threshold or gate (exit 1); see $EVAL_DIR/real-model"
  exit 0
fi
exit "$status"
