"""One sampled process tree: its cumulative CPU and its memory (psutil).

A :class:`Target` names some root processes; each :meth:`Target.sample`
reads every live process of their trees and returns one row (timestamp,
cumulative CPU seconds, total RSS, processes read). A process that exits
keeps counting with the last CPU it was read with, so the CPU column never
loses what a process spent before it was gone.

A target that counts *reaped* children (``reaped=True``, the load
generator's tree) reads each process's CPU with what its finished children
spent (Linux's ``cutime``/``cstime``: the children it has waited for), and
forgets a process gone from /proc whose parent is still in the tree: gone
means waited for, so the parent, read again then, holds it in full,
including the CPU it spent after the last sample. That is what a tree
whose processes end with the load needs (Rally's forked runner processes,
Locust's master and workers): their last half second of work would
otherwise be lost at the load's end.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import psutil

Row = tuple[float, float, int, int]
Lookup = Callable[[str], int | None]  # a service's pid as run.json has it now
Children = Mapping[int, list[psutil.Process]]  # pid -> its children
Key = tuple[int, float]  # (pid, create time): one process, whatever reuses its pid


class Reading(NamedTuple):
    """One process read: its key, CPU seconds, RSS bytes and parent's pid."""

    key: Key
    cpu: float
    rss: int
    ppid: int


class Target:
    """Some root processes, by name, and their trees: the rows of one CSV.

    Without ``lookup`` a root that is gone ends the target (:meth:`sample`
    returns None). With it, a root that is gone is looked up by its name
    again and followed to its new pid; until there is one, the target's rows
    count without it.
    """

    def __init__(
        self,
        out_csv: Path,
        roots: Mapping[str, int | None],
        lookup: Lookup | None = None,
        reaped: bool = False,
    ) -> None:
        self.out_csv = Path(out_csv)
        self.error: str | None = None  # why this target ended, if it did
        self._pids = dict(roots)  # name -> pid (None: not started yet)
        self._procs: dict[str, psutil.Process] = {}
        self._lookup = lookup
        self._reaped = reaped  # count finished children through their parent
        self._last: dict[Key, float] = {}  # cumulative CPU seconds as last read
        self._parents: dict[Key, int] = {}  # the parent's pid as last read
        self._finished = 0.0  # CPU seconds of processes that have exited
        self._gone = ""  # why the last root looked for was not found

    def sample(self, children: Children | None = None) -> Row | None:
        """One row (timestamp, cpu s, rss bytes, processes); None when ended.

        ``children``: :func:`children_map`'s (made now when not given).
        """
        if children is None:
            children = children_map()
        tree = []
        for name in self._pids:
            root = self._root(name)
            if root is None and self._lookup is None:
                self.error = self._gone
                return None
            if root is not None:
                tree += [root, *descendants(root.pid, children)]
        now = time.time()
        rss, count = self._count(tree)
        if not count and self._lookup is None:
            pids = ", ".join(map(str, self._pids.values()))
            self.error = f"process {pids} could not be read"
            return None
        return round(now, 6), round(self._cpu(), 3), rss, count

    def _root(self, name: str) -> psutil.Process | None:
        """The live root process ``name`` (followed to a new pid when looked up)."""
        proc = self._procs.get(name)
        if proc is not None and _alive(proc):
            return proc
        pid = self._pids[name]
        if self._lookup is not None:
            pid = self._lookup(name) or pid  # restarted: run.json has its new pid
        if not pid:
            self._gone = f"{name} has not started"
            return None
        if proc is not None and proc.pid == pid:
            self._gone = f"process {pid} has exited"
            return None  # still the one that exited
        try:
            proc = psutil.Process(pid)
        except psutil.Error as exc:
            self._gone = f"process {pid}: {type(exc).__name__}"
            return None
        self._pids[name], self._procs[name] = pid, proc
        if not _alive(proc):
            self._gone = f"process {pid} has exited"
            return None
        return proc

    def _count(self, tree: Iterable[psutil.Process]) -> tuple[int, int]:
        """Record the CPU of every process read; (total RSS, processes read)."""
        seen: set[Key] = set()
        procs: dict[int, psutil.Process] = {}
        rss = count = 0
        for proc in tree:
            procs[proc.pid] = proc
            read = _read(proc, self._reaped)
            if read is None:
                continue
            seen.add(read.key)
            self._record(read)
            rss += read.rss
            count += 1
        self._forget_exited(seen, procs)
        return rss, count

    def _record(self, read: Reading) -> None:
        self._last[read.key] = max(read.cpu, self._last.get(read.key, 0.0))
        self._parents[read.key] = read.ppid

    def _forget_exited(self, seen: set[Key], procs: Mapping[int, Any]) -> None:
        """Move the processes not read any more out of the live count.

        One that is gone keeps counting with its last value, unless it is
        counted as reaped: then its parent, still in the tree, holds it in
        full (a process gone from /proc has been waited for) and is read
        again now, in case it was read before it waited.
        """
        unseen = [k for k in self._last if k not in seen]
        if self._reaped:
            reaped = [k for k in unseen if self._parents.get(k) in procs]
            for pid in {self._parents[k] for k in reaped}:
                read = _read(procs[pid], reaped=True)
                if read is not None:
                    self._record(read)
            for key in reaped:
                del self._last[key], self._parents[key]
        for key in [k for k in unseen if k in self._last and k[0] not in procs]:
            self._finished += self._last.pop(key)  # gone: counts with its last
            self._parents.pop(key, None)

    def _cpu(self) -> float:
        return self._finished + sum(self._last.values())


def children_map() -> Children:
    """Every process's children, from one pass over the process table.

    One pass for every tree of a sample (``Process.children`` makes one per
    root).
    """
    children: Children = collections.defaultdict(list)
    for proc in psutil.process_iter(["ppid"]):
        ppid = proc.info.get("ppid")
        if ppid is not None:
            children[ppid].append(proc)
    return children


def descendants(pid: int, children: Children) -> list[psutil.Process]:
    """The children of ``pid``, theirs, and so on."""
    found: list[psutil.Process] = []
    stack, seen = [pid], {pid}
    while stack:
        for child in children.get(stack.pop(), []):
            if child.pid not in seen:
                seen.add(child.pid)
                found.append(child)
                stack.append(child.pid)
    return found


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _read(proc: Any, reaped: bool = False) -> Reading | None:
    """One process's reading (CPU with its reaped children's when ``reaped``);
    None if it cannot be read."""
    try:
        with proc.oneshot():
            times = proc.cpu_times()
            cpu = float(times.user + times.system)
            if reaped:
                cpu += float(times.children_user + times.children_system)
            key = (proc.pid, proc.create_time())
            return Reading(key, cpu, int(proc.memory_info().rss), int(proc.ppid()))
    except psutil.Error:  # NoSuchProcess, ZombieProcess, AccessDenied
        return None
