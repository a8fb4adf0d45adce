"""A cluster on a real machine: 2 Keystone nodes behind haproxy on one MariaDB."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
from pathlib import Path

import pytest
import requests

from rally_keystone_perf import cli
from rally_keystone_perf.deploy import launcher
from rally_keystone_perf.deploy.cluster import network
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.tracing import traces_file
from rally_keystone_perf.report import api
from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.readers import access_log
from rally_keystone_perf.report.readers.rally_json import load_report
from tests.functional.conftest import (
    FAST_HASH_ROUNDS,
    admin_client,
    cli_options,
    require_mode,
    retimed_task,
    run_bundled_task,
    run_processes,
    write_task,
)

# alone on the machine: fault windows in seconds; network namespaces
pytestmark = [pytest.mark.functional, pytest.mark.serial]


def _workload(name: str, extra: dict) -> dict:
    return {
        "scenario": {name: {}},
        "runner": {"constant": {"times": 20, "concurrency": 4}},
        "contexts": {"users": {"tenants": 1, "users_per_tenant": 2}, **extra},
        "sla": {"failure_rate": {"max": 0}},
    }


def _links() -> str:
    return subprocess.run(
        ["ip", "-o", "link", "show"], capture_output=True, text=True
    ).stdout


def _namespaces() -> str:
    return subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True
    ).stdout


def _token_on(address: str, port: int, run: RunDir) -> str:
    """A token issued by one node itself, not through haproxy."""
    secret = json.loads(run.admin_secret.read_text())
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {
                    "user": {
                        "name": secret["username"],
                        "domain": {"id": "default"},
                        "password": secret["password"],
                    }
                },
            },
            "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
        }
    }
    answer = requests.post(
        f"http://{address}:{port}/v3/auth/tokens", json=body, timeout=30
    )
    assert answer.status_code == 201
    return answer.headers["X-Subject-Token"]


@pytest.mark.parametrize(
    ("mode", "db", "expected_db", "trace"),
    [
        # a cluster's SQLite becomes one MariaDB; each node's spans traced
        ("uwsgi", "sqlite", "mysql", ["--trace", "sample:0.5"]),
        ("apache", "postgresql", "postgresql", []),  # seed 001's nodes and database
    ],
)
def test_two_nodes_behind_haproxy(
    tmp_path: Path,
    runs_dir: Path,
    capsys,
    mode: str,
    db: str,
    expected_db: str,
    trace: list[str],
) -> None:
    chosen = ["--mode", mode, "--db", db, *trace]
    require_mode(cli_options(["--nodes", "2", *chosen]))
    task = write_task(
        tmp_path / "cluster.json",
        [
            _workload("KeystonePerf.create_token", {}),
            _workload("KeystonePerf.validate_token", {"keystone_perf_tokens": {}}),
        ],
    )
    runs = runs_dir / f"cluster-{mode}"  # Apache's www-data reaches it
    argv = ["run", "--task", str(task), "--nodes", "2", "--keep-running", *chosen]
    argv += ["--password-hash-rounds", str(FAST_HASH_ROUNDS), "--runs-dir", str(runs)]
    code = cli.main(argv)
    out = capsys.readouterr().out
    (root,) = runs.glob("2*")
    run = RunDir(root)
    state = run.state()
    net = network.Network.from_json(state.cluster["network"])
    try:
        assert code == 0  # failure_rate max 0 in both workloads
        (report,) = run.results.glob("cluster-*.json")
        for workload in load_report(report):
            assert len(workload.iterations) == 20
            assert not [it for it in workload.iterations if it.error]
        assert state.options["nodes"] == 2 and state.options["db"] == expected_db
        assert "| nodes" in out or " nodes " in out
        for node in ("node1", "node2"):  # haproxy spread the load over both
            lines = (run.logs / node / "access.log").read_text().splitlines()
            assert len(lines) > 5, node
        ports = state.cluster["ports"]
        token = _token_on(net.node_addresses[0], ports[0], run)
        validated = requests.get(
            f"http://{net.node_addresses[1]}:{ports[1]}/v3/auth/tokens",
            headers={"X-Auth-Token": token, "X-Subject-Token": token},
            timeout=30,
        )
        assert validated.status_code == 200  # node 1's token, node 2's keys
        assert admin_client(run)[1]  # and through haproxy
    finally:
        launcher.stop(run)
    if trace:
        _traced_per_node(run)
    assert not run_processes(run), "server processes were left running"
    for name in net.namespaces:
        assert name is None or name not in _namespaces()
    assert net.bridge is None or net.bridge not in _links()


def _traced_per_node(run: RunDir) -> None:
    """Both nodes' spans are in the run's traces, each named by its node, and
    the report gives each node's median (``--trace sample:0.5``)."""
    with gzip.open(traces_file(run), "rt") as stream:
        kept = [json.loads(line)["events"] for line in stream]
    assert len(kept) == 20  # half of each workload's 20 iterations
    hosts = {e["info"]["host"] for events in kept for e in events}
    assert hosts == {"node1", "node2"}
    for workload in _report_json(run)["workloads"]:
        found = workload["server"]["traces"]
        assert found["found"] == found["sampled"] == 10
        per_node = {h["host"]: h for h in found["hosts"]}
        assert set(per_node) == {"node1", "node2"}
        assert sum(h["count"] for h in per_node.values()) >= 10
        for node in per_node.values():
            assert node["median"]["server"] > 0


def _report_json(run: RunDir) -> dict:
    """The run's report in the JSON format (the server view included)."""
    stream = io.StringIO()
    api.write_report(run_labels.load_reports([run.root]), stream, "json")
    return json.loads(stream.getvalue())["reports"][0]


def _group_of(pid: int) -> str:
    """The cpu cgroup a process is in (v1 ``cpu`` line, or v2's ``0::``)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(",") or controllers == "":
            return path
    return ""


KILL_AT, START_AT = 8, 18  # seconds into the load


def test_a_node_killed_and_restarted_mid_run(tmp_path: Path, capsys) -> None:
    """The bundled fault task on 2 nodes, each host and the database held to
    one CPU: failures only in haproxy's detection window, none after the
    restart, node 2 back in its namespace and cgroup; nothing left. On a
    shorter clock than the bundled 60 s (CI's time): node 2 killed at 8 s,
    started at 18 s, failures allowed at 8-18 s, 36 s of load."""
    options = ["--nodes", "2", "--node-cpus", "1", "--db-cpus", "1"]
    name = "cluster-node-fault.json"
    task = retimed_task(name, tmp_path, 36, [KILL_AT, START_AT], [KILL_AT, START_AT])
    code, run = run_bundled_task(name, options, tmp_path / "runs", task)
    capsys.readouterr()
    state = run.state()
    groups = state.cpu_quota["groups"]
    try:
        assert code == 0  # the failure_window SLA: failures only at 8-18 s
        (report,) = run.results.glob("cluster-node-fault-*.json")
        (workload,) = json.loads(report.read_text())["tasks"][0]["subtasks"][0][
            "workloads"
        ]
        hooks = [h["results"][0] for h in workload["hooks"]]
        assert [h["status"] for h in hooks] == ["success", "success"], hooks
        faults = [json.loads(line) for line in (run.logs / "faults.jsonl").open()]
        assert [(f["action"], f["target"]) for f in faults] == [
            ("kill", "node2"),
            ("start", "node2"),
        ]
        served = access_log.read_requests(run.logs / "node2" / "access.log")
        tokens = [r for r in served if r.method == "POST"]
        # node 2 served before it was killed, and again after its restart
        assert [r for r in tokens if r.start < faults[0]["started"]]
        assert [r for r in tokens if r.start > faults[1]["finished"]]
        pids = run.state().services
        killed = " ".join(faults[0]["done"])
        assert f"node2-uwsgi (pid {state.services['node2-uwsgi']})" not in killed
        for name, pid in pids.items():  # every node process in its host's group
            host = name.split("-", 1)[0]
            if host.startswith("node"):
                assert _group_of(pid) == "/" + Path(groups[host]).name, name
        assert _group_of(pids["mariadb"]) == "/" + Path(groups["db"]).name
        # every failure is in haproxy's log or one it closed silently
        failed = sum(1 for it in workload["data"] if it["error"])
        tiers = _report_json(run)["workloads"][0]["server"]["cluster"]
        logged = tiers["backends"][-1]["errors"]
        assert logged + tiers["silent_closes"] == failed, (logged, failed)
        # each fault when the task planned it (Rally's time trigger)
        into_load = [h["started_at"] - workload["start_time"] for h in hooks]
        assert KILL_AT - 1 < into_load[0] < KILL_AT + 2, into_load
        assert START_AT - 1 < into_load[1] < START_AT + 2, into_load
    finally:
        launcher.stop(run)
    assert not run_processes(run), "server processes were left running"
    assert not [g for g in groups.values() if Path(g).exists()], "cgroups left"
