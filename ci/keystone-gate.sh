#!/usr/bin/env bash
# Regression gate job for a Keystone change: build the change and its base,
# measure both on this machine in rounds taken in turns
# (rally-keystone-perf ab, ci/ab-gate.sh) and gate the change against the
# base (rally-keystone-perf gate AB_DIR). Works on first use: no stored
# baseline, since both sides run here, now. Used by the Zuul job and the
# GitHub Actions workflow (ci/zuul.d, ci/github).
#
# usage: ci/keystone-gate.sh --change SPEC [--base SPEC]
#        ci/keystone-gate.sh --baseline FILE | --make-baseline FILE
#   --change SPEC         the Keystone under test: a checkout's folder (its
#                         uncommitted changes included), git+URL@REF or a pip
#                         requirement (rally-keystone-perf run --help:
#                         --keystone-build)
#   --base SPEC           what the change is compared with: the target
#                         branch (git+file:///src/keystone@<base commit>) or
#                         a release (default: keystone, the last release on
#                         the package index)
#   --baseline FILE       instead: one run of the installed Keystone gated
#                         against a stored Rally report (for those who keep
#                         one; it measures the machine as much as the code)
#   --make-baseline FILE  run once and write that report
# environment:
#   GATE_OUT       output folder (default: ./gate-output)
#   GATE_TASK      task file (default: tasks/gate-tokens.json)
#   GATE_AB_ARGS   options of `rally-keystone-perf ab` (A/B; default:
#                  --password-hash-rounds 4 --rounds 8)
#   GATE_RUN_ARGS  options of `rally-keystone-perf run` (baseline; default:
#                  --processes 2 --threads 1)
#   GATE_COUNT     --change: auto (default), yes or no: count each side's
#                  instructions and SQL statements per request after its
#                  rounds (ab --instructions: valgrind and a C compiler,
#                  about 2.5 minutes more a side) and gate on them too;
#                  auto counts when valgrind and gcc are installed and says
#                  so when they are not
#   GATE_ARGS      options of `rally-keystone-perf gate` (default:
#                  --change: --max-regression 5% --gate-on
#                  median,cpu,instructions,statements when counted (1% more
#                  instructions, no query more), else --gate-on median,cpu:
#                  the median and the server's CPU per iteration judged
#                  together, which holds beside load that comes and goes;
#                  --baseline: --max-regression 10%)
# exit codes: 0 passed (or baseline written), 2 regressed or an SLA failed,
#             1 error, 130/143 interrupted
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}
change="" base="keystone" baseline="" make_baseline=0
while [ $# -gt 0 ]; do
  case "$1" in
    --change) change="${2:?--change needs a build spec}"; shift 2 ;;
    --base) base="${2:?--base needs a build spec}"; shift 2 ;;
    --baseline) baseline="${2:?--baseline needs a file}"; shift 2 ;;
    --make-baseline) baseline="${2:?--make-baseline needs a file}"
                     make_baseline=1; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown argument $1" >&2; usage >&2; exit 1 ;;
  esac
done
if [ -n "$change" ] && [ -n "$baseline" ]; then
  echo "error: --change gates against its base; --baseline against a file:" \
       "give one" >&2
  exit 1
fi
counting() {
  case "${GATE_COUNT:-auto}" in
    yes) return 0 ;;
    no) return 1 ;;
    auto)
      if command -v valgrind > /dev/null && command -v gcc > /dev/null; then
        return 0
      fi
      echo "instruction counts skipped: valgrind and gcc are not both" \
           "installed (apt-get install valgrind build-essential); gating on" \
           "the median and the server's CPU (GATE_COUNT=no silences this)" >&2
      return 1 ;;
    *) echo "error: GATE_COUNT is auto, yes or no, not ${GATE_COUNT}" >&2
       exit 1 ;;
  esac
}
if [ -n "$change" ]; then
  if counting; then
    export GATE_AB_ARGS="${GATE_AB_ARGS:---password-hash-rounds 4 --rounds 8} --instructions"
    export GATE_ARGS="${GATE_ARGS:---max-regression 5% --gate-on median,cpu,instructions,statements}"
  else
    export GATE_ARGS="${GATE_ARGS:---max-regression 5% --gate-on median,cpu}"
  fi
  # each side's build spec quoted for the side's own option parser
  exec bash "$here/ci/ab-gate.sh" \
    "--a=--keystone-build $(printf '%q' "$base")" \
    "--b=--keystone-build $(printf '%q' "$change")"
fi
if [ -z "$baseline" ]; then
  echo "error: give --change SPEC (A/B against its base) or --baseline FILE" >&2
  usage >&2
  exit 1
fi
export GATE_ARGS="${GATE_ARGS:---max-regression 10%}"
out="${GATE_OUT:-gate-output}"
task="${GATE_TASK:-$here/tasks/gate-tokens.json}"
read -r -a run_args <<< "${GATE_RUN_ARGS:---processes 2 --threads 1}"
read -r -a gate_args <<< "$GATE_ARGS"
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
