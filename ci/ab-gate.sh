#!/usr/bin/env bash
# A/B regression gate: measure two local Keystones on this machine in rounds
# taken in turns (rally-keystone-perf ab) and gate side B against side A
# (rally-keystone-perf gate AB_DIR). No stored baseline: both sides run here,
# now, so the machine's drift falls on both alike.
#
# usage: ci/ab-gate.sh [AB_OPTION...]
#   AB_OPTION  more options of `rally-keystone-perf ab`, each one argument
#              (e.g. "--b=--keystone-build /src/keystone"), after GATE_AB_ARGS
# environment:
#   GATE_OUT      output folder (default: ./gate-output): ab-*/, gate.txt,
#                 gate-junit.xml
#   GATE_TASK     task file each round runs (default: tasks/gate-tokens.json)
#   GATE_AB_ARGS  options of `rally-keystone-perf ab`: the shared launch
#                 options and each side's, e.g. "--b=--processes 1"
#                 (default: --password-hash-rounds 4 --rounds 8: an A/A)
#   GATE_ARGS     options of `rally-keystone-perf gate`
#                 (default: --max-regression 20%)
# exit codes: 0 passed, 2 B regressed or an SLA failed, 1 error (the rounds
#             could not say included), 130/143 interrupted
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  exit 0
fi
out="${GATE_OUT:-gate-output}"
task="${GATE_TASK:-$here/tasks/gate-tokens.json}"
read -r -a ab_args <<< "${GATE_AB_ARGS:---password-hash-rounds 4 --rounds 8}"
read -r -a gate_args <<< "${GATE_ARGS:---max-regression 20%}"
mkdir -p "$out"
ab_dir="$out/ab-$(date +%Y%m%d-%H%M%S)-$$"
rc=0
rally-keystone-perf ab --task "$task" --ab-dir "$ab_dir" --runs-dir "$out" \
  "${ab_args[@]}" "$@" || rc=$?
# 2 is an SLA failure: the gate reports it with the rest; anything else stops
if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then exit "$rc"; fi
rc=0
rally-keystone-perf gate "$ab_dir" --junit "$out/gate-junit.xml" \
  --out "$out/gate.txt" "${gate_args[@]}" || rc=$?
cat "$out/gate.txt"
exit "$rc"
