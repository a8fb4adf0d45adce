"""A server log copied from someone else's Keystone, into an ``--os-cloud`` run.

``run --os-cloud --server-log FILE`` (or ``report RUN --server-log FILE``
once the log is copied) keeps the log's lines of this run's requests (their
User-Agent names the run; a format without User-Agents keeps every line and
says so), lines their clock up with this machine's on the run's own
requests (:mod:`.figures.clock`), and writes them as the run's
``logs/access.log`` in the suite's own format, so that the report's
server-side table and gap read it as they read a local run's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.client import atomics, lean_http
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.figures import clock, windows
from rally_keystone_perf.report.readers import server_log
from rally_keystone_perf.report.readers.access_log import ServerRequest
from rally_keystone_perf.report.readers.rally_json import ReportError, load_report

ROUTED = set(atomics.ROUTES.values())
TOLERANCE = 1.5  # seconds: a whole-second stamp plus the offset's own error
EDGE = 0.001  # s: a context's request put just outside the load window


@dataclass(frozen=True)
class ServerLogImport:
    """What was taken from the copied log."""

    formats: list[str]
    lines: int  # request lines in the file
    kept: int  # this run's
    other_clients: int | None  # None: the format does not name clients
    alignment: clock.Alignment

    def lines_out(self) -> list[str]:
        """What the command prints."""
        others = (
            "its format names no client: every request counted, other clients' too"
            if self.other_clients is None
            else f"{self.other_clients} of other clients left out"
        )
        return [
            f"server log ({', '.join(self.formats)}): {self.kept} of {self.lines} "
            f"requests are this run's; {others}",
            self.alignment.line(),
        ]


@dataclass(frozen=True)
class Timed:
    """A workload's load window and its timed requests' starts per route."""

    start: float
    end: float
    routes: dict[str, list[float]]


def _timed(run: RunDir) -> list[Timed]:
    """Each workload's window and routed atomic actions' starts (this
    machine's clock), in time order."""
    found = []
    for path in sorted(run.results.glob("*.json")):
        for workload in load_report(path):
            if not workload.iterations:
                continue
            routes: dict[str, list[float]] = {}
            for iteration in workload.iterations:
                for action in iteration.atomic_actions:
                    route = atomics.ROUTES.get(action.get("name", ""))
                    if route is not None:
                        routes.setdefault(route, []).append(float(action["started_at"]))
            start, end = windows.load_window(workload)
            found.append(Timed(start, end, {r: sorted(t) for r, t in routes.items()}))
    return found


def _pinned(
    kept: list[ServerRequest], offset: float, timed: list[Timed]
) -> list[ServerRequest]:
    """The requests on this machine's clock; each timed one at its atomic
    action's start.

    A log stamps whole seconds (Apache's ``%t``): shifted by the offset
    alone, a request near a workload's first or last second would fall on
    the wrong side of its load window. Per workload and route, the logged
    requests near the window are the timed ones plus the contexts' just
    before or after the load: of the splits of those extra ones between the
    front and the back, the one that lines the rest up best with the timed
    starts wins; the timed take their action's start, the extra ones are
    put outside the window, the others keep the shifted stamp.
    """
    shifted = [r.start - offset for r in kept]
    starts = list(shifted)
    for work in timed:
        for route, times in work.routes.items():
            near = sorted(
                (
                    k
                    for k, r in enumerate(kept)
                    if r.route == route
                    and work.start - TOLERANCE <= shifted[k] <= work.end + TOLERANCE
                ),
                key=shifted.__getitem__,
            )
            extra = len(near) - len(times)
            if extra < 0:  # lines missing from the log: leave them be
                continue
            front = min(
                range(extra + 1),
                key=lambda f: sum(
                    abs(shifted[near[f + i]] - t) for i, t in enumerate(times)
                ),
            )
            for i, t in enumerate(times):
                starts[near[front + i]] = t
            for k in near[:front]:
                starts[k] = min(shifted[k], work.start - EDGE)
            for k in near[front + len(times) :]:
                starts[k] = max(shifted[k], work.end + EDGE)
    return [dataclasses.replace(r, start=t) for r, t in zip(kept, starts, strict=True)]


def _theirs(logged: list[server_log.LoggedRequest], run: RunDir) -> list[ServerRequest]:
    """The run's requests: by User-Agent when the format logs one."""
    if all(line.agent is None for line in logged):
        return [line.request for line in logged]
    name = f"{lean_http.USER_AGENT}/{run.root.name}"
    return [r.request for r in logged if r.agent and _first(r.agent) == name]


def _first(agent: str) -> str:
    """A User-Agent's first product (a proxy may append its own)."""
    words = agent.split()
    return words[0] if words else ""


def _write(path: Path, requests: Iterable[ServerRequest]) -> None:
    """The requests as the suite's servers log them."""
    with open(path, "w") as stream:
        for r in requests:
            start, micros = round(r.start * 1e6), round(r.server_time * 1e6)
            stream.write(f"{start} {r.method} {r.path} {r.status} {micros} {r.pid}\n")


def import_server_log(run_root: Path, log: Path) -> ServerLogImport:
    """Take ``log``'s lines of the run into ``run_root``'s ``logs/access.log``.

    :raises ReportError: not an ``--os-cloud`` run, no request line in a
        known format, none of the run's requests in the log.
    """
    run = RunDir(run_root)
    if not isinstance(run.state().target, dict):
        raise ReportError(f"{run_root}: --server-log is for runs with --os-cloud")
    logged = list(server_log.read(log))
    if not logged:
        raise ReportError(
            f"{log}: no request line of a known format (Apache combined with %D, "
            "haproxy's httplog, uwsgi's default)"
        )
    kept = _theirs(logged, run)
    routed = [r.start for r in kept if r.route in ROUTED]
    timed = _timed(run)
    client = [t for work in timed for times in work.routes.values() for t in times]
    alignment = clock.align(routed, client)
    if alignment is None:
        raise ReportError(f"{log}: none of this run's requests is in it")
    _write(run.access_log, _pinned(kept, alignment.offset, timed))
    has_agents = any(line.agent is not None for line in logged)
    found = ServerLogImport(
        formats=sorted({line.kind for line in logged}),
        lines=len(logged),
        kept=len(kept),
        other_clients=len(logged) - len(kept) if has_agents else None,
        alignment=alignment,
    )
    run.write_state(
        target_server_log={
            "file": str(log),
            "formats": found.formats,
            "lines": found.lines,
            "kept": found.kept,
            "other_clients": found.other_clients,
            "offset": alignment.offset,
            "matched": alignment.matched,
            "of": alignment.of,
        }
    )
    return found
