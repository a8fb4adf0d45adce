"""CPU quota groups on a cgroup tree made of plain folders (v1 and v2)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.cluster import cgroups
from rally_keystone_perf.layout.rundir import RunDir


def v1_tree(root: Path) -> Path:
    (root / "cpu").mkdir(parents=True)
    (root / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    return root


def v2_tree(root: Path, controllers: str = "cpuset cpu io memory pids") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("memory\n")
    return root


def test_v1_groups_get_a_cfs_quota_per_host(tmp_path: Path) -> None:
    root = v1_tree(tmp_path)
    quota = cgroups.create("ab12", {"node1": 0.25, "node2": 0.25, "db": 0.5}, root=root)
    assert quota.version == "v1" and quota.node == 0.25 and quota.db == 0.5
    node2 = root / "cpu" / "kspab12-node2"
    assert quota.groups["node2"] == str(node2)
    assert (node2 / "cpu.cfs_period_us").read_text() == "100000"
    assert (node2 / "cpu.cfs_quota_us").read_text() == "25000"
    assert (root / "cpu" / "kspab12-db" / "cpu.cfs_quota_us").read_text() == "50000"


def test_galera_members_are_database_hosts(tmp_path: Path) -> None:
    root = v1_tree(tmp_path)
    hosts = {"node1": 0.25, "galera1": 0.5, "galera2": 0.5, "galera3": 0.5}
    quota = cgroups.create("ab12", hosts, root=root)
    assert quota.node == 0.25 and quota.db == 0.5  # not taken for a node's
    assert sorted(quota.groups) == ["galera1", "galera2", "galera3", "node1"]
    member = root / "cpu" / "kspab12-galera3" / "cpu.cfs_quota_us"
    assert member.read_text() == "50000"


def test_v2_enables_the_cpu_controller_and_writes_cpu_max(tmp_path: Path) -> None:
    root = v2_tree(tmp_path)
    quota = cgroups.create("ab12", {"node1": 0.5, "db": None}, root=root)
    assert quota.version == "v2" and quota.db is None
    assert set(quota.groups) == {"node1"}  # no quota, no group
    assert (root / "cgroup.subtree_control").read_text() == "+cpu"
    assert (root / "kspab12-node1" / "cpu.max").read_text() == "50000 100000"


def test_no_cpu_controller_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(cgroups.CgroupError, match="no cgroup CPU controller"):
        cgroups.hierarchy(tmp_path)
    with pytest.raises(cgroups.CgroupError, match="cpu controller is not available"):
        cgroups.hierarchy(v2_tree(tmp_path / "v2", "memory pids"))


def test_a_failure_removes_the_groups_made_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = v1_tree(tmp_path)
    (root / "cpu" / "kspab12-node2").mkdir()  # taken: node2's mkdir fails
    removed: list[dict[str, str]] = []
    monkeypatch.setattr(cgroups, "remove", lambda q: removed.append(dict(q.groups)))
    with pytest.raises(cgroups.CgroupError, match="cannot set up a CPU quota"):
        cgroups.create("ab12", {"node1": 1.0, "node2": 1.0}, root=root)
    assert removed == [{"node1": str(root / "cpu" / "kspab12-node1")}]


def test_quotas_out_of_bounds_are_refused() -> None:
    cgroups.check_cpus("--node-cpus", None)
    cgroups.check_cpus("--node-cpus", 0.25)
    with pytest.raises(cgroups.CgroupError, match="--node-cpus 0.001"):
        cgroups.check_cpus("--node-cpus", 0.001)
    with pytest.raises(cgroups.CgroupError, match="--db-cpus 1000"):
        cgroups.check_cpus("--db-cpus", 1000)


def test_the_prefix_joins_the_group_before_exec(tmp_path: Path) -> None:
    quota = cgroups.CpuQuota("v1", 0.25, None, {"node1": str(tmp_path)})
    procs = tmp_path / "cgroup.procs"
    prefix = quota.prefix("node1")
    assert prefix == ["sh", "-c", cgroups.JOIN, str(procs)]
    assert quota.prefix("node2") == []  # no group: nothing to join
    out = subprocess.run(
        [*prefix, "sh", "-c", "echo $$"], capture_output=True, text=True, check=True
    ).stdout
    assert procs.read_text().split() == out.split()  # the same pid, exec'd


def test_host_prefix_reads_run_json(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.create()
    assert cgroups.host_prefix(run, "db") == []
    quota = cgroups.CpuQuota("v2", None, 0.5, {"db": "/sys/fs/cgroup/kspab12-db"})
    run.write_state(cpu_quota=quota.to_json())
    assert (
        cgroups.host_prefix(run, "db")[-1] == "/sys/fs/cgroup/kspab12-db/cgroup.procs"
    )


def test_remove_reports_what_it_could_not_remove(tmp_path: Path) -> None:
    empty, busy = tmp_path / "empty", tmp_path / "busy"
    empty.mkdir()
    busy.mkdir()
    (busy / "cgroup.procs").write_text("123\n")  # a plain folder with a file
    quota = cgroups.CpuQuota("v1", 1.0, None, {"node1": str(empty), "node2": str(busy)})
    assert cgroups.remove(quota, wait=0) == [str(busy)]
    assert not empty.exists()
    assert cgroups.remove(quota, wait=0) == [str(busy)]  # idempotent
    assert cgroups.members(busy) == [123] and cgroups.members(empty) == []


def test_cpu_stat_reads_the_counters(tmp_path: Path) -> None:
    (tmp_path / "cpu.stat").write_text("nr_periods 20\nnr_throttled 19\n")
    assert cgroups.cpu_stat(tmp_path) == {"nr_periods": 20, "nr_throttled": 19}
    assert cgroups.cpu_stat(tmp_path / "gone") == {}


def test_kill_members_ends_what_run_json_never_recorded(tmp_path: Path) -> None:
    stray = subprocess.Popen(["sleep", "60"])
    (tmp_path / "cgroup.procs").write_text(f"{stray.pid}\n999999999\n")
    quota = cgroups.CpuQuota("v1", 1.0, None, {"node1": str(tmp_path)})
    assert cgroups.kill_members(quota) == [stray.pid]
    assert stray.wait(5) == -9


def test_a_container_s_busy_v2_group_is_refused_before_anything(
    tmp_path: Path,
) -> None:
    root = v2_tree(tmp_path)  # the real root: no cgroup.type, may enable
    (root / "cgroup.procs").write_text("1\n42\n")
    cgroups.check_room("v2", root, 0.5)
    (root / "cgroup.type").write_text("domain\n")  # a container's own group
    with pytest.raises(cgroups.CgroupError, match="holds processes") as err:
        cgroups.check_room("v2", root, 0.5)
    assert f"mkdir {root}/init" in str(err.value)
    (root / "cgroup.subtree_control").write_text("cpu memory\n")  # enabled
    cgroups.check_room("v2", root, 0.5)


def test_a_v1_quota_above_the_parent_s_is_refused(tmp_path: Path) -> None:
    parent = v1_tree(tmp_path) / "cpu"
    cgroups.check_room("v1", parent, 2.0)  # -1: the parent has no quota
    (parent / "cpu.cfs_quota_us").write_text("150000\n")  # docker --cpus 1.5
    (parent / "cpu.cfs_period_us").write_text("100000\n")
    cgroups.check_room("v1", parent, 1.5)
    with pytest.raises(cgroups.CgroupError, match="more than .* own 1.5"):
        cgroups.check_room("v1", parent, 2.0)
