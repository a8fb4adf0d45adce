"""CPU quotas per host: each node's processes and the database in a cgroup.

``--node-cpus C`` and ``--db-cpus C`` give every Keystone node (its server
processes and its memcached, as on a real controller) and the database a
CPU bandwidth quota of ``C`` CPUs, so that on one small machine the curve
of throughput against nodes stops growing where a tier saturates, as on
seed 001's hosts. The machine's cgroup version decides the file:

- v2 (unified): ``cpu.max`` = ``"<C * period> <period>"`` in a child of the
  cgroup root (the ``cpu`` controller enabled in the root's
  ``cgroup.subtree_control``);
- v1: ``cpu.cfs_quota_us`` = ``C * cpu.cfs_period_us`` in a child of the
  ``cpu`` hierarchy.

A process joins its group *before* it executes (:func:`exec_prefix`: a shell
writes its own pid to ``cgroup.procs``, then execs the server), so every
worker it forks is counted from the first instruction. :func:`remove` takes
the groups away once their processes have stopped; run.json records them
(``cpu_quota``) so that ``down`` and the next run remove what a killed run
left.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout.rundir import RunDir

ROOT = Path("/sys/fs/cgroup")
PERIOD_US = 100_000  # the kernel's default CFS period (100 ms), kept as it is
MIN_CPUS = 0.01  # the kernel refuses a quota under 1 ms per period
JOIN = 'echo $$ > "$0" && exec "$@"'  # sh -c JOIN procs_file argv...
DB_GROUP = "db"


class CgroupError(Exception):
    """A CPU quota cannot be set up here; the message says why."""


@dataclass
class CpuQuota:
    """What :func:`create` made: the quotas asked for and each group's folder.

    ``groups`` maps a host (``node1``, ``node2``, ..., ``db`` or Galera's
    ``galera1`` ...) to its cgroup folder; ``node`` and ``db`` are the
    quotas in CPUs of each node and each database host (None: no quota).
    """

    version: str
    node: float | None
    db: float | None
    groups: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The run.json form (``cpu_quota``)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CpuQuota:
        """Read :meth:`to_json`'s form back."""
        return cls(**data)

    def prefix(self, host: str) -> list[str]:
        """The argv prefix that runs a command in ``host``'s group (or none)."""
        folder = self.groups.get(host)
        return [] if folder is None else exec_prefix(Path(folder))


def host_prefix(run: RunDir, host: str) -> list[str]:
    """The argv prefix that puts a process of ``host`` (``node2``, ``db``) in
    its group, from run.json's ``cpu_quota`` ([] without a quota)."""
    recorded = run.state().cpu_quota
    return [] if not recorded else CpuQuota.from_json(recorded).prefix(host)


def hierarchy(root: Path = ROOT) -> tuple[str, Path]:
    """The cgroup version and the folder new CPU groups are made in.

    :raises CgroupError: no cgroup filesystem, or no CPU controller in it.
    """
    if (root / "cgroup.controllers").is_file():
        if "cpu" not in (root / "cgroup.controllers").read_text().split():
            raise CgroupError(f"{root}: the cgroup v2 cpu controller is not available")
        return "v2", root
    if (root / "cpu" / "cpu.cfs_quota_us").is_file():
        return "v1", root / "cpu"
    raise CgroupError(
        f"no cgroup CPU controller under {root} (neither cgroup v2's "
        "cgroup.controllers nor v1's cpu/cpu.cfs_quota_us)"
    )


def check_room(version: str, parent: Path, cpus: float) -> None:
    """``parent`` can hold groups of up to ``cpus`` CPUs (before any is made).

    v2: a cgroup other than the root (a container's, whose root is its own
    cgroup) may enable controllers for its children only while it holds no
    process itself (the kernel answers EBUSY). v1: a child's quota may not
    exceed its parent's (EINVAL), e.g. a container started with ``--cpus``.

    :raises CgroupError: what the kernel would refuse, and what to do.
    """
    if version == "v2":
        control = (parent / "cgroup.subtree_control").read_text().split()
        is_root = not (parent / "cgroup.type").exists()  # only the root lacks it
        if "cpu" not in control and not is_root and members(parent):
            raise CgroupError(
                f"{parent} holds processes and has no cpu controller for its "
                "children, and cgroup v2 lets it enable one only when empty "
                "(a container: move its processes to a child group first, e.g. "
                f"mkdir {parent}/init && for p in $(cat {parent}/cgroup.procs); "
                f"do echo $p > {parent}/init/cgroup.procs; done)"
            )
        return
    quota = int((parent / "cpu.cfs_quota_us").read_text())
    if quota > 0:
        period = int((parent / "cpu.cfs_period_us").read_text())
        if cpus > quota / period:
            raise CgroupError(
                f"a quota of {cpus:g} CPUs is more than {parent}'s own "
                f"{quota / period:g}, which the kernel refuses for a child group"
            )


def check_cpus(flag: str, cpus: float | None) -> None:
    """``cpus`` is a quota the kernel takes and this machine can give.

    :raises CgroupError: below 0.01 CPU or above the machine's CPU count.
    """
    if cpus is None:
        return
    count = os.cpu_count() or 1
    if not MIN_CPUS <= cpus <= count:
        raise CgroupError(
            f"{flag} {cpus:g}: a quota is {MIN_CPUS:g} to {count} CPUs "
            "(this machine's count)"
        )


def create(
    tag: str,
    quotas: dict[str, float | None],
    root: Path = ROOT,
) -> CpuQuota:
    """One group per host of ``quotas`` (``{"node1": 0.25, "db": 0.5}``).

    Hosts whose quota is None get no group. Processes join their group as
    root (cgroup v2 lets only the owner of the common ancestor move a
    process): a server that runs as another user drops to it afterwards
    (PostgreSQL: :mod:`..backends.postgresql`).

    :raises CgroupError: what failed (groups made before it are removed).
    """
    version, parent = hierarchy(root)
    nodes = [q for h, q in quotas.items() if h.startswith("node") and q is not None]
    databases = [  # the server, or each Galera member (galera1 ...)
        q for h, q in quotas.items() if not h.startswith("node") and q is not None
    ]
    made = CpuQuota(
        version, nodes[0] if nodes else None, databases[0] if databases else None
    )
    try:
        if version == "v2":
            _enable_cpu_controller(parent)
        for host, cpus in quotas.items():
            if cpus is None:
                continue
            folder = parent / f"ksp{tag}-{host}"
            folder.mkdir()
            made.groups[host] = str(folder)
            _set_quota(version, folder, cpus)
    except OSError as exc:
        remove(made)
        raise CgroupError(f"cannot set up a CPU quota in {parent}: {exc}") from None
    return made


def _enable_cpu_controller(parent: Path) -> None:
    """v2: children of ``parent`` get the cpu controller (``+cpu``)."""
    control = parent / "cgroup.subtree_control"
    if "cpu" not in control.read_text().split():
        control.write_text("+cpu")


def _set_quota(version: str, folder: Path, cpus: float) -> None:
    """Write ``cpus`` as the group's CFS bandwidth (quota per period)."""
    if version == "v2":
        (folder / "cpu.max").write_text(f"{round(cpus * PERIOD_US)} {PERIOD_US}")
        return
    (folder / "cpu.cfs_period_us").write_text(str(PERIOD_US))
    (folder / "cpu.cfs_quota_us").write_text(str(round(cpus * PERIOD_US)))


def exec_prefix(folder: Path) -> list[str]:
    """``sh -c`` that joins ``folder``'s group, then execs the command after it.

    The pid stays the same through the exec: run.json records the server.
    """
    return ["sh", "-c", JOIN, str(folder / "cgroup.procs")]


def members(folder: Path) -> list[int]:
    """The pids in a group now (none when it is gone)."""
    try:
        text = (folder / "cgroup.procs").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split()]


def cpu_stat(folder: Path) -> dict[str, int]:
    """The group's ``cpu.stat`` counters ({} when it is gone).

    Both versions count ``nr_periods`` and ``nr_throttled``: the periods in
    which the group used its whole quota (v1 adds ``throttled_time`` in ns,
    v2 ``throttled_usec`` and ``usage_usec``).
    """
    try:
        lines = (folder / "cpu.stat").read_text().splitlines()
    except OSError:
        return {}
    return {k: int(v) for k, v in (line.split() for line in lines if line)}


def kill_members(quota: CpuQuota) -> list[int]:
    """SIGKILL what is still in the groups; the pids signalled.

    After the run's recorded processes stopped, a member is one run.json
    never knew of (started by a hook restart interrupted before it was
    recorded): it would keep its group, and the machine's CPU, busy.
    """
    killed = []
    for folder in map(Path, quota.groups.values()):
        for pid in members(folder):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            killed.append(pid)
    return killed


def remove(quota: CpuQuota, wait: float = 5.0) -> list[str]:
    """Remove the groups (their processes must have stopped); the ones left.

    A group whose last process is still exiting is retried for ``wait``
    seconds. Best effort and idempotent: what is already gone is skipped.
    """
    left = []
    for folder in map(Path, quota.groups.values()):
        if not _rmdir(folder, wait):
            left.append(str(folder))
    return left


def _rmdir(folder: Path, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while True:
        try:
            folder.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)
