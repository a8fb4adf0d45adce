"""Tests for rally_keystone_perf.deploy.nova.stack (nothing started)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.nova import config as nova_config
from rally_keystone_perf.deploy.nova import manage
from rally_keystone_perf.deploy.nova import stack as nova_stack
from rally_keystone_perf.layout.rundir import RunDir

PASSWORDS = ("SERVICE-PW", "DB-PW", "RABBIT-PW")


def _plan() -> dict[str, Any]:
    return {
        "host": "127.0.0.1",
        "region": "RegionOne",
        "ports": {api.name: 20000 + i for i, api in enumerate(nova_config.APIS)},
        "rabbit": {
            "amqp_port": 21000,
            "dist_port": 21001,
            "epmd_port": 21002,
            "nodename": "ksp1@localhost",
            "ctl_ports": [21003, 21004],
        },
        "computes": 2,
        "service_password": PASSWORDS[0],
        "db_password": PASSWORDS[1],
        "rabbit_password": PASSWORDS[2],
    }


def test_prepare_registers_the_catalog_from_a_private_spec(
    run: RunDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, Any]] = []

    def fake_run(run_: RunDir, log: str, argv: list[str], what: str, env: Any) -> str:
        spec = Path(argv[argv.index("--spec") + 1])
        assert stat.S_IMODE(spec.stat().st_mode) == 0o600
        seen.append(json.loads(spec.read_text()))
        assert not [a for a in argv if "PW" in a or seen[0]["password"] in a]
        return ""

    monkeypatch.setattr(manage, "run_logged", fake_run)
    conf = run.conf / "keystone.conf"
    plan = nova_stack.prepare(run, "127.0.0.1", [conf], "RegionOne", lambda _: None)
    (spec,) = seen
    assert spec["password"] == plan["service_password"]
    assert {s["type"] for s in spec["services"]} == {
        "compute",
        "placement",
        "image",
        "network",
    }
    assert not (run.private / "service-catalog.json").exists()
    saved = run.private / nova_stack.STACK_JSON
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert json.loads(saved.read_text()) == plan
    rabbit = plan["rabbit"]
    rabbit_ports = [rabbit[k] for k in ("amqp_port", "dist_port", "epmd_port")]
    every = [*plan["ports"].values(), *rabbit_ports, *rabbit["ctl_ports"]]
    assert len(set(every)) == len(nova_config.APIS) + 5  # one pick, no repeats


def test_memory_counts_the_run_processes(run: RunDir) -> None:
    run.write_state(services={"me": os.getpid(), "gone": 2**22 + 1})
    megabytes, count = nova_stack.memory_mb(run)
    assert count >= 1 and megabytes > 1


@pytest.mark.parametrize("computes", [0, nova_config.MAX_COMPUTES + 1])
def test_prepare_refuses_a_bad_compute_count(run: RunDir, computes: int) -> None:
    conf = [run.conf / "keystone.conf"]
    with pytest.raises(nova_config.StackError, match="fake computes"):
        nova_stack.prepare(run, "127.0.0.1", conf, "R", lambda _: None, computes)


def test_start_services_starts_one_nova_compute_per_host(
    run: RunDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: dict[str, list[str]] = {}

    def fake_start(run_: RunDir, name: str, argv: list[str], tier: str) -> str:
        assert tier == nova_stack.TIER  # stopped together
        started[name] = argv
        return name

    monkeypatch.setattr(nova_stack.services, "start", fake_start)
    procs = nova_stack.start_services(run, _plan())
    assert set(procs) == set(started)
    computes = sorted(n for n in started if n.startswith("nova-compute"))
    assert computes == ["nova-compute-1", "nova-compute-2"]
    assert started["nova-compute-2"][-1].endswith("nova/compute-2.conf")
    assert {"nova-conductor", "nova-scheduler", "nova-api", "neutron-api"} <= set(
        started
    )
