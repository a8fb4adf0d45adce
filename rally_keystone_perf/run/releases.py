"""``releases``: Keystone releases side by side, measured in rounds taken in turns.

Each release is a Keystone build (:mod:`rally_keystone_perf.deploy.builds`):
``keystone==X.Y.Z`` installed once into a venv of its own, by default with
the libraries PyPI offered on its release day (``--build-deps release``).
Every release that installs is started, all side by side, and measured in
rounds taken in turns (:mod:`.study_rounds`: the rounds, their state file
and resume are a study's). A release that cannot be installed, or whose
Keystone does not start, is named with the reason (pip's or the server
log's tail) and the others are still measured.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from rally_keystone_perf.deploy.builds import dated, prepare
from rally_keystone_perf.deploy.instructions import count
from rally_keystone_perf.deploy.options import Deployment, LaunchError
from rally_keystone_perf.layout.rounds_state import RoundsState
from rally_keystone_perf.run import rounds, study_rounds
from rally_keystone_perf.run.matrix import MatrixError
from rally_keystone_perf.tasks.model import TaskFile

Echo = Callable[[str], None]
LATEST = 4  # releases measured by default: the last four series' first
SEED = "releases"  # the rounds' tag and state name (study:releases)
_FILE = re.compile(r"^keystone-(\d+)\.(\d+)\.(\d+)(?:-|\.tar\.gz$)")


def latest_releases(
    count: int = LATEST, fetch: dated.Fetch = dated.fetch_simple_json
) -> list[str]:
    """The first release (X.0.0) of each of the ``count`` newest Keystone
    series on PyPI, oldest first."""
    try:
        page = fetch(dated.SIMPLE_URL)
    except OSError as exc:
        raise LaunchError(
            f"PyPI's index of keystone did not answer ({exc}); name the "
            "releases (--releases 27.0.0,28.0.0)"
        ) from None
    majors = set()
    for item in page.get("files", []):
        match = _FILE.match(str(item.get("filename", "")))
        if match and match.group(2) == match.group(3) == "0":
            majors.add(int(match.group(1)))
    chosen = sorted(majors)[-count:]
    if not chosen:
        raise LaunchError("PyPI lists no Keystone release (X.0.0)")
    return [f"{major}.0.0" for major in chosen]


def release_list(text: str) -> list[str]:
    """``--releases``: versions, comma-separated, put in version order."""
    words = [word.strip() for word in text.split(",") if word.strip()]
    try:
        versions = sorted({Version(word) for word in words})
    except InvalidVersion as exc:
        raise ValueError(f"not a Keystone version: {exc}") from None
    if len(versions) < 2:
        raise ValueError("name two releases or more (27.0.0,30.0.0)")
    return [str(v) for v in versions]


@dataclass(frozen=True)
class Failure:
    """A release not measured: at which stage, and why (a log's tail)."""

    release: str
    stage: str  # "install" or "start"
    reason: str


@dataclass
class ReleasesRun:
    """What the rounds left: the state, the codes and the releases left out."""

    state: RoundsState | None = None
    codes: list[int] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


def installed(
    deployments: Mapping[str, Deployment], echo: Echo
) -> tuple[dict[str, Deployment], list[Failure]]:
    """Each release's build installed (or from its cache) before any start;
    those that fail are left out, with pip's tail."""
    ready, failures = {}, []
    for label, deployment in deployments.items():
        try:
            ready[label] = prepare.prepare(deployment, echo)
        except LaunchError as exc:
            echo(f"release {label} left out: it does not install")
            failures.append(Failure(label, "install", str(exc)))
    return ready, failures


@dataclass(frozen=True)
class Plan:
    """The releases' deployments and task files, and how to run the rounds."""

    folder: Path
    deployments: Mapping[str, Deployment]
    tasks: Sequence[TaskFile]
    rounds: int
    restart: bool = False
    recorded: Mapping[str, dict[str, object]] = field(default_factory=dict)


def measure(plan: Plan, echo: Echo) -> ReleasesRun:
    """The rounds of every release that starts; one that does not is left
    out (the server log's tail) and the rounds begin again without it."""
    result = ReleasesRun()
    left = dict(plan.deployments)
    restart = plan.restart
    while len(left) >= 2:
        recorded = {label: dict(plan.recorded[label]) for label in left}
        state = study_rounds.open_state(
            plan.folder, recorded, 1.0, plan.rounds, restart
        )
        rounds_plan = study_rounds.RoundsPlan(
            plan.folder, SEED, left, dict.fromkeys(left, plan.tasks), plan.rounds
        )
        try:
            result.codes += study_rounds.run_rounds(rounds_plan, state, echo)
        except rounds.SideError as exc:
            if exc.side not in left or state.complete_rounds():
                raise  # rounds of it are done: kept, not measured without it
            echo(f"release {exc.side} left out: its Keystone does not start")
            result.failures.append(Failure(exc.side, "start", exc.reason))
            left.pop(exc.side)
            restart = True  # no round done: the others' rounds begin anew
            continue
        result.state = state
        return result
    names = ", ".join(f.release for f in result.failures) or "none"
    raise MatrixError(
        f"fewer than two releases to measure (left out: {names}); "
        + "; ".join(f"{f.release} ({f.stage}): {f.reason}" for f in result.failures)
    )


# how each release's workloads are counted: as an A/B's, 4 memory layouts a
# workload. 2 took 160 s a release instead of about 260, but their spread
# reached 1.5% (27.0.0 to 30.0.0, 2026-11-28): too wide to call a 1% change
COUNT_PLAN = count.CountPlan()


def build_spec(version: str) -> str:
    """A release's ``--keystone-build``: ``keystone==27.0.0``."""
    return f"keystone=={version}"
