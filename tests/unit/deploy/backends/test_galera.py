"""Tests for deploy.cluster.galera: its members' commands (nothing started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.deploy.backends import galera
from rally_keystone_perf.deploy.cluster import network
from rally_keystone_perf.layout.rundir import RunDir


@pytest.fixture
def run(tmp_path: Path) -> RunDir:
    folder = RunDir(tmp_path / "r")
    folder.create()
    return folder


def _netns() -> network.Network:
    addresses = ["198.18.4.31", "198.18.4.32", "198.18.4.33"]
    namespaces: list[str | None] = ["ksp1g1", "ksp1g2", "ksp1g3"]
    return network.Network(
        "netns", "198.18.4.1", ["198.18.4.11"], ["ksp1n1"], "ksp1br", None,
        addresses, namespaces,
    )  # fmt: skip


def test_members_in_namespaces_use_mariadbs_ports(run: RunDir) -> None:
    members = galera.members(run, _netns())
    assert [m.name for m in members] == ["galera1", "galera2", "galera3"]
    assert members[1].ports == {"mysql": 3306, "wsrep": 4567, "ist": 4568, "sst": 4444}
    assert members[2].prefix == ("ip", "netns", "exec", "ksp1g3")


def test_members_on_loopback_get_ports_of_their_own(run: RunDir) -> None:
    net = network.loopback(1, "no namespaces", db_members=3)
    members = galera.members(run, net)
    assert [m.address for m in members] == ["127.0.0.21", "127.0.0.22", "127.0.0.23"]
    assert all(len(set(m.ports.values())) == 4 for m in members)
    assert all(m.prefix == () for m in members)


def test_every_member_lists_the_whole_cluster(run: RunDir) -> None:
    members = galera.members(run, _netns())
    args = galera.wsrep_args(members[1], members, Path("/usr/lib/galera/x.so"))
    cluster = "198.18.4.31:4567,198.18.4.32:4567,198.18.4.33:4567"
    assert f"--wsrep-cluster-address=gcomm://{cluster}" in args
    assert "--wsrep-node-address=198.18.4.32:4567" in args
    assert "--wsrep-sst-receive-address=198.18.4.32:4444" in args
    assert "--wsrep-new-cluster" not in args  # the bootstrap adds it, once
    assert "--binlog-format=ROW" in args and "--innodb-autoinc-lock-mode=2" in args


def test_member_argv_runs_in_its_namespace(run: RunDir, tmp_path: Path) -> None:
    members = galera.members(run, _netns())
    exes = {
        "mariadbd": Path("/usr/sbin/mariadbd"),
        "libgalera_smm.so": Path("/usr/lib/galera/libgalera_smm.so"),
    }
    argv = galera.member_argv(run, members[0], members, exes, tmp_path)
    assert argv[:5] == ["ip", "netns", "exec", "ksp1g1", "/usr/sbin/mariadbd"]
    assert f"--datadir={run.db / 'galera1'}" in argv
    assert f"--socket={tmp_path / 'galera1.sock'}" in argv
    assert "--bind-address=198.18.4.31" in argv
