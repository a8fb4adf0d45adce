"""Tests for rally_keystone_perf.deploy.backends.rabbitmq (no RabbitMQ started)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from rally_keystone_perf.deploy import services
from rally_keystone_perf.deploy.backends import rabbitmq


def test_node_env_keeps_everything_in_its_folder_and_on_loopback(
    tmp_path: Path,
) -> None:
    node = rabbitmq.Node(
        "127.0.0.1", 21000, 21001, 21002, "ksp1@localhost", tmp_path, (21003, 21004)
    )
    env = node.env()
    assert env["RABBITMQ_NODE_IP_ADDRESS"] == env["ERL_EPMD_ADDRESS"] == "127.0.0.1"
    assert env["RABBITMQ_NODE_PORT"] == "21000"
    assert env["RABBITMQ_DIST_PORT"] == "21001"
    assert env["ERL_EPMD_PORT"] == "21002"
    assert env["RABBITMQ_NODENAME"] == "ksp1@localhost"
    assert (
        "inet_dist_use_interface {127,0,0,1}"
        in (env["RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS"])
    )
    files = [v for k, v in env.items() if k.endswith(("_FILE", "_BASE")) or k == "HOME"]
    assert len(files) == 8
    assert all(Path(v).is_relative_to(tmp_path) for v in files)


def test_pick_low_ports_are_free_distinct_and_below_the_ephemeral_range() -> None:
    ports = rabbitmq.pick_low_ports("127.0.0.1", 3)
    assert len(set(ports)) == 3
    assert all(p in rabbitmq.LOW_PORTS for p in ports)


def test_pick_low_ports_skips_a_port_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setattr(rabbitmq, "LOW_PORTS", range(port, port + 1))
        with pytest.raises(services.ServiceError, match="no 1 free ports"):
            rabbitmq.pick_low_ports("127.0.0.1", 1)


def test_plan_names_a_fresh_node(tmp_path: Path) -> None:
    ports = [21000, 21001, 21002, 21003, 21004]
    first = rabbitmq.plan("127.0.0.1", tmp_path, ports)
    second = rabbitmq.plan("127.0.0.1", tmp_path, ports)
    assert first.nodename != second.nodename
    assert first.nodename.endswith("@localhost")
    assert (first.amqp_port, first.epmd_port, first.ctl_ports) == (
        21000,
        21002,
        (21003, 21004),
    )


def test_pick_low_ports_leaves_out_the_excluded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rabbitmq, "LOW_PORTS", range(24000, 24003))
    assert sorted(rabbitmq.pick_low_ports("127.0.0.1", 2, {24001})) == [24000, 24002]


def test_write_files(tmp_path: Path) -> None:
    node = rabbitmq.Node(
        "127.0.0.1", 1, 2, 3, "n@localhost", tmp_path / "rabbit", (4, 5)
    )
    rabbitmq.write_files(node, "default_user = nova\n")
    assert (tmp_path / "rabbit" / "rabbitmq.conf").read_text() == (
        "default_user = nova\n"
    )
    assert (tmp_path / "rabbit" / "enabled_plugins").read_text() == "[].\n"
    for sub in ("home", "mnesia", "log"):
        assert (tmp_path / "rabbit" / sub).is_dir()


def test_missing_rabbitmq_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rabbitmq, "RABBIT_BIN", tmp_path)
    with pytest.raises(services.ServiceError, match="apt-get install rabbitmq-server"):
        rabbitmq.server_script()
