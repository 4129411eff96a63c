#!/usr/bin/env bash
# Step 2 of the cargo-golden action (action.yml): run the cases. `golden`
# itself writes what GitHub shows (annotations on its output, the report in
# $GITHUB_STEP_SUMMARY) and the step's outputs `status`, `out-dir` and
# `run-id` ($GITHUB_OUTPUT); this script adds `exit-code`, and fails the
# step with golden's exit code when INPUT_FAIL is `true`.
#
# Environment: INPUT_CONFIG, INPUT_ARGS (whitespace-separated words),
# INPUT_FAIL, GITHUB_OUTPUT.
set -uo pipefail
args=()
if [ -n "${INPUT_CONFIG:-}" ]; then
  args+=(--config "$INPUT_CONFIG")
fi
read -r -a extra <<<"${INPUT_ARGS:-}"
golden "${args[@]}" "${extra[@]}"
code=$?
echo "exit-code=$code" >>"$GITHUB_OUTPUT"
if [ "$code" -ne 0 ] && [ "${INPUT_FAIL:-true}" = true ]; then
  exit "$code"
fi
exit 0
