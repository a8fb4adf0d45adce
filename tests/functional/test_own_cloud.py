"""``run --os-cloud`` against a Keystone the test starts without the launcher.

The stand-in for someone else's cloud is :mod:`.standalone_keystone`: the
suite only gets its clouds.yaml. About 4 minutes in all.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from rally_keystone_perf.cli.common import EXIT_SLA
from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.layout.rundir import RunDir
from tests.functional.conftest import write_task
from tests.functional.standalone_keystone import StandaloneKeystone, standalone_keystone

SMOKE = Path(__file__).parents[2] / "tasks" / "smoke.json"
CLOUD = "standalone"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneKeystone]:
    """The stand-in Keystone, named ``standalone`` in its own clouds.yaml."""
    folder = tmp_path_factory.mktemp("standalone-keystone")
    with standalone_keystone(folder / "keystone") as keystone:
        yield keystone


def _env(keystone: StandaloneKeystone, folder: Path) -> dict[str, str]:
    """The environment of a user whose clouds.yaml names the stand-in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env["OS_CLIENT_CONFIG_FILE"] = str(keystone.clouds_yaml(folder / "clouds.yaml"))
    return env


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "rally_keystone_perf.cli", *args]


def _cli_run(
    keystone: StandaloneKeystone, folder: Path, argv: list[str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """The command run to its end as the cloud's user would, its output kept."""
    return subprocess.run(
        _cli(*argv),
        env=_env(keystone, folder),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _admin_headers(keystone: StandaloneKeystone) -> dict[str, str]:
    """A token of the stand-in's admin."""
    admin = keystone_v3.PasswordUser("admin", keystone.password, project_name="admin")
    body = keystone_v3.password_auth_body(admin)
    login = requests.post(f"{keystone.url}/v3/auth/tokens", json=body, timeout=30)
    return {"X-Auth-Token": login.headers["X-Subject-Token"]}


def _objects(keystone: StandaloneKeystone) -> dict[str, set[str]]:
    """Every user and project name in the stand-in, read as its admin."""
    headers = _admin_headers(keystone)
    found = {}
    for kind in ("users", "projects"):
        answer = requests.get(f"{keystone.url}/v3/{kind}", headers=headers, timeout=30)
        found[kind] = {item["name"] for item in answer.json()[kind]}
    return found


def _only_run(runs: Path) -> RunDir:
    (root,) = runs.glob("2*-external")
    return RunDir(root)


def test_smoke_on_own_cloud(cloud: StandaloneKeystone, tmp_path: Path) -> None:
    """The report's figures with the target on the config line, 0 objects left."""
    before = _objects(cloud)
    runs = tmp_path / "runs"
    argv = ["run", "--os-cloud", CLOUD, "--allow-writes", "--task", str(SMOKE)]
    argv += ["--server-log", str(cloud.log)]  # its access log, other clients' too
    done = _cli_run(cloud, tmp_path, [*argv, "--runs-dir", str(runs)], timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"target {cloud.url}/v3 (external)" in done.stdout
    assert "server side from its log, clock" in done.stdout
    assert "of other clients left out" in done.stderr
    # one request per timed action, as a local run counts them
    per_iteration = re.findall(
        r"^\| (keystone\.\w+) +\| +\d+ \| +(\S+) \|", done.stdout, re.M
    )
    assert len(per_iteration) >= 7, done.stdout
    assert {count for _, count in per_iteration} == {"1.00"}, per_iteration
    for action in ("create_token", "validate_token", "list_projects", "revoke_token"):
        assert f"keystone.{action}" in done.stdout
    assert "left on the target: 0 users, 0 projects" in done.stderr
    assert _objects(cloud) == before
    run = _only_run(runs)
    state = run.state()
    assert state.target is not None and state.target["api_version"].startswith("v3")
    assert state.target_sweep is not None and state.target_sweep["left"] == {
        "users": 0,
        "projects": 0,
    }
    for path in (run.state_file, run.logs / "rally.log"):  # no secret outside private/
        assert cloud.password not in path.read_text()


def test_writing_task_refused_without_allow_writes(
    cloud: StandaloneKeystone, tmp_path: Path
) -> None:
    """The plan printed, exit 1, nothing created, no run folder."""
    before = _objects(cloud)
    runs = tmp_path / "runs"
    done = _cli_run(
        cloud,
        tmp_path,
        ["run", "--os-cloud", CLOUD, "--task", str(SMOKE), "--runs-dir", str(runs)],
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "KeystonePerf.create_delete_user" in done.stderr  # the plan
    assert "--allow-writes" in done.stderr
    assert not runs.exists()
    assert _objects(cloud) == before


def test_boot_server_refused_before_any_load_on_a_cloud_without_nova(
    cloud: StandaloneKeystone, tmp_path: Path
) -> None:
    """The image, flavor and network are looked up first: no compute, exit 1."""
    before = _objects(cloud)
    task = SMOKE.parent / "boot-server-c5-quick.json"
    argv = ["run", "--os-cloud", CLOUD, "--allow-writes", "--task", str(task)]
    argv += ["--image", "cirros", "--network", "private"]
    done = _cli_run(
        cloud, tmp_path, [*argv, "--runs-dir", str(tmp_path / "runs")], timeout=120
    )
    assert done.returncode == 1, done.stderr
    assert "10 servers booted, each deleted in its iteration" in done.stderr
    assert "the cloud's catalog has no public compute endpoint" in done.stderr
    assert not (tmp_path / "runs").exists()
    assert _objects(cloud) == before


def _delete_users_task(path: Path) -> Path:
    workload = {
        "scenario": {"KeystonePerf.create_delete_user": {}},
        "runner": {"constant": {"times": 5000, "concurrency": 2}},
        "contexts": {"users": {"tenants": 2, "users_per_tenant": 1}},
    }
    return write_task(path, [workload])


def test_sigterm_mid_run_leaves_nothing(
    cloud: StandaloneKeystone, tmp_path: Path
) -> None:
    """SIGTERM during the load: exit 143, the partial report, 0 objects left."""
    before = _objects(cloud)
    task = _delete_users_task(tmp_path / "long.json")
    runs = tmp_path / "runs"
    proc = subprocess.Popen(
        _cli(
            "run",
            "--os-cloud",
            CLOUD,
            "--allow-writes",
            "--task",
            str(task),
            "--runs-dir",
            str(runs),
        ),
        env=_env(cloud, tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = _until_iterations(proc)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=180)
    err = seen + err
    assert proc.returncode == 143, err[-3000:]
    assert "keystone.create_user" in out  # the partial results are reported
    assert "left on the target: 0 users, 0 projects" in err
    assert _objects(cloud) == before


def test_the_target_failing_mid_run_fails_the_iterations_by_name(
    tmp_path: Path,
) -> None:
    """The target stopped during the load: the iterations after fail with the
    error named, the ones before keep their figures, the run ends by itself."""
    with standalone_keystone(tmp_path / "dying") as dying:
        tokens = {
            "scenario": {"KeystonePerf.create_token": {}},
            "runner": {"constant": {"times": 3000, "concurrency": 2}},
            "contexts": {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 1}},
        }
        task = write_task(tmp_path / "tokens.json", [tokens])
        argv = ["run", "--os-cloud", CLOUD, "--task", str(task)]
        proc = subprocess.Popen(
            _cli(*argv, "--runs-dir", str(tmp_path / "runs")),
            env=_env(dying, tmp_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        err = _until_iterations(proc)
        os.kill(dying.pid, signal.SIGTERM)
        out, rest = proc.communicate(timeout=300)
    err += rest
    assert proc.returncode == EXIT_SLA, err[-3000:]  # Rally's failure_rate SLA
    failed = re.search(r"errors: (\d+) of 3000 iterations failed", out)
    assert failed and 0 < int(failed.group(1)) < 3000, out[-3000:]
    assert "Connection refused" in out, out[-3000:]
    # the iterations before the stop are in the table beside the failed ones
    success = re.search(
        r"^\| keystone\.create_token .* (\d+\.\d)% \| +3000 \|", out, re.M
    )
    assert success and 0 < float(success.group(1)) < 100, out[-3000:]
    assert _only_run(tmp_path / "runs").state().status == "stopped"


def _until_iterations(proc: subprocess.Popen[str]) -> str:
    """The command's stderr until the load is under way (3 minutes at most)."""
    assert proc.stderr is not None
    deadline = time.monotonic() + 180
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "iterations done" in line or time.monotonic() > deadline:
            break
    return "".join(seen)


def _test_users(
    keystone: StandaloneKeystone, count: int, prefix: str
) -> list[dict[str, str]]:
    """Users the cloud's operator made for benchmarks, in a project of theirs."""
    headers = _admin_headers(keystone)
    url = f"{keystone.url}/v3"
    made_project = requests.post(
        f"{url}/projects",
        json={"project": {"name": prefix}},
        headers=headers,
        timeout=30,
    )
    assert made_project.status_code == 201, made_project.text
    project = made_project.json()["project"]
    (role,) = requests.get(
        f"{url}/roles", params={"name": "member"}, headers=headers, timeout=30
    ).json()["roles"]
    users = []
    for n in range(count):
        user = {"name": f"{prefix}-{n}", "password": f"secret-{n}-x"}
        made = requests.post(
            f"{url}/users", json={"user": user}, headers=headers, timeout=30
        ).json()["user"]
        requests.put(
            f"{url}/projects/{project['id']}/users/{made['id']}/roles/{role['id']}",
            headers=headers,
            timeout=30,
        ).raise_for_status()
        users.append(
            {
                "username": user["name"],
                "password": user["password"],
                "project_name": prefix,
            }
        )
    return users


def test_existing_users_make_a_validation_task_read_only(
    cloud: StandaloneKeystone, tmp_path: Path
) -> None:
    """--existing-users: no --allow-writes needed, nothing created; the load
    from a Locust worker, handed the target by the master."""
    users_file = tmp_path / "users.json"
    users_file.write_text(json.dumps(_test_users(cloud, 4, "perf")))
    before = _objects(cloud)
    validate = {
        "scenario": {"KeystonePerf.validate_token": {}},
        "runner": {"constant": {"times": 40, "concurrency": 2}},
        "contexts": {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 4}},
    }
    task = write_task(tmp_path / "validate.json", [validate])
    argv = ["run", "--os-cloud", CLOUD, "--existing-users", str(users_file)]
    argv += ["--engine", "locust", "--workers", "1", "--server-log", str(cloud.log)]
    done = _cli_run(
        cloud,
        tmp_path,
        [*argv, "--task", str(task), "--runs-dir", str(tmp_path / "runs")],
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "the 4 existing users given (none created)" in done.stderr
    assert "keystone.validate_token" in done.stdout
    assert _objects(cloud) == before
    run = _only_run(tmp_path / "runs")
    assert list((run.results / "engine").glob("*.json"))  # Locust's workload
    # the worker's requests carry the run's User-Agent: its log lines count
    assert (run.state().target_server_log or {}).get("matched", 0) > 0
    assert "secret-0-x" not in (run.logs / "rally.log").read_text()


def test_ab_with_the_cloud_as_side_a(cloud: StandaloneKeystone, tmp_path: Path) -> None:
    """ab --a '--os-cloud': the cloud against a Keystone started here, in
    rounds taken in turns; nothing created on the cloud."""
    before = _objects(cloud)
    validate = {
        "scenario": {"KeystonePerf.validate_token": {}},
        "runner": {"constant": {"times": 20, "concurrency": 1}},
        "contexts": {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 1}},
    }
    task = write_task(tmp_path / "validate.json", [validate])
    folder = tmp_path / "ab"
    argv = ["ab", "--task", str(task), "--rounds", "2", "--ab-dir", str(folder)]
    argv += [f"--a=--os-cloud {CLOUD}", "--b=--password-hash-rounds 4"]
    done = _cli_run(
        cloud, tmp_path, [*argv, "--runs-dir", str(tmp_path / "runs")], timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    state = json.loads((folder / "ab.json").read_text())
    assert state["sides"]["a"]["options"]["target"] == f"{cloud.url}/v3 (external)"
    assert state["sides"]["a"]["run"].endswith("-external")
    assert len([r for r in state["rounds"] if len(r["reports"]) == 2]) == 2
    assert f"target {cloud.url}/v3 (external)" in done.stdout
    assert _objects(cloud) == before


def test_matrix_on_own_cloud(cloud: StandaloneKeystone, tmp_path: Path) -> None:
    """matrix --os-cloud: the task files' cells, the combined table, resumable."""
    users_file = tmp_path / "users.json"
    users_file.write_text(json.dumps(_test_users(cloud, 4, "matrix")))
    before = _objects(cloud)
    argv = ["matrix", "--os-cloud", CLOUD, "--existing-users", str(users_file)]
    argv += ["--tasks", "validate-token-serial", "--runs-dir", str(tmp_path / "runs")]
    done = _cli_run(cloud, tmp_path, argv, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{cloud.url}/v3 (external)" in done.stdout  # the combined table
    assert "KeystonePerf.validate_token" in done.stdout
    assert "1 of 1 cells done" in done.stderr
    again = _cli_run(cloud, tmp_path, argv, timeout=300)
    assert again.returncode == 0 and "resuming: 1 of 1 cells are done" in again.stderr
    assert _objects(cloud) == before


def test_capacity_on_own_cloud_shows_its_bound_first(
    cloud: StandaloneKeystone, tmp_path: Path
) -> None:
    """capacity --os-cloud: the plan names the search's rates and most
    iterations before any request; one short step, met; nothing left."""
    before = _objects(cloud)
    listing = {
        "scenario": {"KeystonePerf.list_projects": {}},
        "runner": {"constant": {"times": 1}},  # replaced per step
        "contexts": {"keystone_perf_tokens": {}},
    }
    task = write_task(tmp_path / "list.json", [listing])
    argv = ["capacity", "--os-cloud", CLOUD, "--task", str(task)]
    argv += ["--slo", "p95<5s", "--start-rate", "3", "--max-rate", "3"]
    argv += ["--step-seconds", "4", "--repeats", "1"]
    done = _cli_run(
        cloud, tmp_path, [*argv, "--runs-dir", str(tmp_path / "runs")], timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    plan, _, rest = done.stderr.partition("target answers")
    assert "the ramp at 3 a second, never above 3 a second (--max-rate)" in plan
    assert "at most 30 steps: at most 360 iterations in all" in plan
    assert "capacity step 1: 3.0/s" in rest and "capacity step 2" not in rest
    assert "sustained: 3.0/s, every rate tried met it" in done.stdout
    run = _only_run(tmp_path / "runs")
    assert (run.root / "capacity.html").is_file()
    assert _objects(cloud) == before
