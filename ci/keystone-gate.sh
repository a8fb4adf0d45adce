#!/usr/bin/env bash
# Regression gate job: start the local Keystone that is installed (the change
# under test), run the quick token tasks through Rally, and gate the result
# against a baseline report. Used by the Zuul job, the GitHub Actions workflow
# and this project's own .ci/run.
#
# usage: ci/keystone-gate.sh [--make-baseline] BASELINE
#   BASELINE         a Rally JSON report (rally-keystone-perf gate --help)
#   --make-baseline  run the tasks and write their report to BASELINE instead
#                    of gating (how a stored baseline is refreshed)
# environment:
#   GATE_OUT        output folder (default: ./gate-output): runs/, gate.txt,
#                   gate-junit.xml
#   GATE_TASK       task file (default: tasks/gate-tokens.json)
#   GATE_RUN_ARGS   extra options of `rally-keystone-perf run`
#                   (default: --processes 2 --threads 1)
#   GATE_ARGS       extra options of `rally-keystone-perf gate`
#                   (default: --max-regression 10%)
# exit codes: 0 passed (or baseline written), 2 regressed or an SLA failed,
#             1 error, 130 interrupted
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
make_baseline=0
if [ "${1:-}" = "--make-baseline" ]; then make_baseline=1; shift; fi
if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  [ $# -eq 1 ] && exit 0 || exit 1
fi
baseline="$1"
out="${GATE_OUT:-gate-output}"
task="${GATE_TASK:-$here/tasks/gate-tokens.json}"
read -r -a run_args <<< "${GATE_RUN_ARGS:---processes 2 --threads 1}"
read -r -a gate_args <<< "${GATE_ARGS:---max-regression 10%}"
if [ "$make_baseline" = 0 ] && [ ! -f "$baseline" ]; then
  echo "error: baseline report $baseline does not exist" \
       "(make one with: $0 --make-baseline $baseline)" >&2
  exit 1
fi
mkdir -p "$out"
runs="$out/runs-$(date +%Y%m%d-%H%M%S)-$$"
rc=0
rally-keystone-perf run --task "$task" --runs-dir "$runs" "${run_args[@]}" \
  || rc=$?
# 2 is an SLA failure: the gate reports it with the rest; anything else stops
if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then exit "$rc"; fi
report=$(ls "$runs"/current/results/*.json)
if [ "$make_baseline" = 1 ]; then
  if [ "$rc" != 0 ]; then
    echo "error: an SLA failed; not storing this run as a baseline" >&2
    exit 2
  fi
  mkdir -p "$(dirname "$baseline")"
  cp "$report" "$baseline"
  echo "baseline written: $baseline (from $report)" >&2
  exit 0
fi
rally-keystone-perf gate "$report" --baseline "$baseline" \
  --junit "$out/gate-junit.xml" --out "$out/gate.txt" "${gate_args[@]}" \
  || rc=$?
cat "$out/gate.txt"
echo "JUnit XML: $out/gate-junit.xml" >&2
exit "$rc"
