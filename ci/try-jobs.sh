#!/usr/bin/env bash
# Try the ready-made gate jobs on this machine as their CI runs them on first
# use: a fresh workspace, no stored baseline, nothing installed beforehand.
#
# usage: ci/try-jobs.sh [github|zuul|both]   (default: both)
#   github  the GitHub Actions workflow's run: steps, in order, with its env
#           (ci/github/keystone-perf-gate.yml); checkout and setup-python are
#           done here: copies of the repositories and a venv of python3
#   zuul    the Zuul run playbook with ansible-playbook -c local
#           (ci/playbooks/gate-run.yaml), the job's vars, the projects' checkouts
#           where Zuul would put them under a home of its own
# Keystone's repository (the change under test) is the installed release's
# sdist committed in git (tag <version>) plus one commit changing a comment:
# the change and its base, as a pull request or a Zuul change has them.
# environment:
#   TRY_DIR   workspace (default: /tmp/keystone-perf-try-jobs; emptied first)
# exit codes: the GitHub steps': 0 passed, 2 regressed, 1 error; the
#             playbook's, ansible-playbook's (0 passed, 2 a task failed);
#             both: the last failing one
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
which_jobs="${1:-both}"
case "$which_jobs" in
  github|zuul|both) ;;
  -h|--help)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 0 ;;
  *) echo "error: github, zuul or both, not $which_jobs" >&2; exit 1 ;;
esac
ws="${TRY_DIR:-/tmp/keystone-perf-try-jobs}"
rm -rf "$ws" && mkdir -p "$ws" && chmod 755 "$ws"
py="${PYTHON:-python3}"

# a Keystone repository: the release (base) and a change on top of it
"$py" -m venv "$ws/tools"
"$ws/tools/bin/pip" install -q "$here" pyyaml ansible-core
"$ws/tools/bin/python" - "$ws/keystone" <<'PY'
import sys
from pathlib import Path
from rally_keystone_perf.deploy.builds import source
repo = Path(sys.argv[1])
source.make_checkout(repo)
readme = repo / "README.rst"
readme.write_text(readme.read_text() + "\n.. a change under test\n")
print("change", source.commit(repo, "A change under test (a comment)"))
PY

github() {
  local gh="$ws/github"
  mkdir -p "$gh"
  git clone -q "$ws/keystone" "$gh/keystone"          # actions/checkout
  git clone -q "$here" "$gh/rally-keystone-perf"       # actions/checkout
  "$py" -m venv "$gh/python" && PATH="$gh/python/bin:$PATH"  # setup-python
  export GITHUB_WORKSPACE="$gh" GITHUB_STEP_SUMMARY="$gh/summary.md"
  export KEYSTONE_PERF_REPO=local/rally-keystone-perf  # the repository variable
  export KEYSTONE_PERF_BUILD_CACHE="$gh/build-cache"   # a runner's empty cache
  BASE_SHA="$(git -C "$gh/keystone" rev-parse HEAD~1)"
  export BASE_SHA
  # the workflow's env, its expressions filled in as GitHub would
  eval "$("$ws/tools/bin/python" - "$here/ci/github/keystone-perf-gate.yml" \
          "$gh" "$BASE_SHA" <<'PY'
import shlex, sys, yaml
workflow = yaml.safe_load(open(sys.argv[1]))
filled = {
    "${{ github.workspace }}": sys.argv[2],
    "${{ github.event.pull_request.base.sha }}": sys.argv[3],
}
for name, value in workflow["env"].items():
    for expression, text in filled.items():
        value = str(value).replace(expression, text)
    assert "${{" not in value, (name, value)
    print(f"export {name}={shlex.quote(value)}")
PY
)"
  local step=0 rc=0
  while IFS= read -r -d '' script; do
    step=$((step + 1))
    echo "--- github step $step" >&2
    (cd "$gh" && bash -eo pipefail -c "$script") || { rc=$?; break; }
  done < <("$ws/tools/bin/python" - "$here/ci/github/keystone-perf-gate.yml" <<'PY'
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["jobs"]["gate"]["steps"]
for step in steps:
    if "run" in step and "always()" not in str(step.get("if", "")):
        sys.stdout.write(step["run"] + "\0")
PY
)
  echo "github workflow: exit $rc" >&2
  return "$rc"
}

zuul() {
  local home="$ws/zuul-home"
  mkdir -p "$home/src/opendev.org/openstack" "$home/src/opendev.org/x"
  git clone -q "$ws/keystone" "$home/src/opendev.org/openstack/keystone"
  git clone -q "$here" "$home/src/opendev.org/x/rally-keystone-perf"
  "$ws/tools/bin/python" - "$here/ci/zuul.d/jobs.yaml" "$ws/zuul-vars.yaml" <<'PY'
import sys, yaml
(job,) = yaml.safe_load(open(sys.argv[1]))
variables = dict(job["job"]["vars"])
variables["zuul"] = {"projects": {
    f"opendev.org/{name}": {"src_dir": f"src/opendev.org/{name}"}
    for name in job["job"]["required-projects"]
}}
yaml.safe_dump(variables, open(sys.argv[2], "w"))
PY
  local rc=0 become=()
  # a node without sudo (this machine as root): become through su instead
  command -v sudo >/dev/null || become=(-e ansible_become_method=su)
  # a node's own PATH and Python, as Zuul's nodes have them (not this
  # machine's pyenv)
  HOME="$home" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "$ws/tools/bin/ansible-playbook" "${become[@]}" \
    -e ansible_python_interpreter=/usr/bin/python3 -c local -i localhost, \
    -e "@$ws/zuul-vars.yaml" -e "ansible_user_dir=$home" \
    "$here/ci/playbooks/gate-run.yaml" || rc=$?
  echo "zuul playbook: exit $rc" >&2
  return "$rc"
}

rc=0
if [ "$which_jobs" != zuul ]; then (github) || rc=$?; fi
if [ "$which_jobs" != github ]; then (zuul) || rc=$?; fi
exit "$rc"
