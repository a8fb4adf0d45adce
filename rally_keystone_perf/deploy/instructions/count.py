"""Count a task's workloads under callgrind, one side (one Keystone build).

For each workload of the task, :mod:`.replay` runs under ``valgrind
--tool=callgrind`` with instrumentation off until its warm-up is done; each
counted segment's dump (``callgrind.<workload>.out.N``) gives its total.
Instructions per iteration are the median over the segments, per request
that divided by the requests an iteration sends. The process's environment
is fixed (``PYTHONHASHSEED``) so the same build gives the same count.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy import logtail, services
from rally_keystone_perf.deploy.builds import runtime
from rally_keystone_perf.deploy.instructions import markers, recipes, replay, site
from rally_keystone_perf.deploy.keystone.config import config_files
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.deploy.rundir import RunDir

Progress = Callable[[str], None]
HASH_SEED = "0"  # dicts and sets iterate in one order on every count
USERS_CONTEXT = "keystone_perf_users"
_TOTALS = re.compile(rb"^totals:\s*(\d+)", re.MULTILINE)
_TRIGGER = re.compile(rb"^desc: Trigger: Client Request: (segment-\d+)", re.MULTILINE)


@dataclass(frozen=True)
class CountPlan:
    """How long each workload's replay is: uncounted warm-up iterations,
    then ``segments`` counted segments of ``iterations`` iterations."""

    warm_up: int = 10
    segments: int = 4
    iterations: int = 4


@dataclass(frozen=True)
class WorkloadCount:
    """One workload's count: per iteration and per request, every segment's."""

    position: int
    scenario: str
    requests_per_iteration: int
    per_iteration: float  # the median over the segments
    segments: list[int]  # each segment's total instructions
    iterations: int  # per segment

    @property
    def per_request(self) -> float:
        return self.per_iteration / self.requests_per_iteration

    @property
    def spread(self) -> float:
        """(largest - smallest) / median of the segments' totals."""
        middle = statistics.median(self.segments)
        return (max(self.segments) - min(self.segments)) / middle if middle else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "per_request": self.per_request,
            "spread": round(self.spread, 6),
        }


def valgrind() -> Path:
    """Debian's valgrind; :class:`LaunchError` with the install hint if absent."""
    found = shutil.which("valgrind")
    if found is None:
        raise LaunchError(
            "valgrind is not installed; instruction counts need it "
            "(apt-get install valgrind)"
        )
    return Path(found)


def _pool_size(contexts: dict[str, Any]) -> tuple[int, int]:
    """The ``keystone_perf_users`` context's projects and users per project."""
    config = recipes.context_config(contexts, USERS_CONTEXT)
    return int(config.get("tenants", 1)), int(config.get("users_per_tenant", 1))


def workload_specs(workloads: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the replay needs of each workload; :class:`recipes.RecipeError`
    for a scenario with no recipe (checked before anything runs)."""
    specs = []
    for workload in workloads:  # TaskFile.workloads(): Rally's v2 form
        name, args = workload["name"], workload.get("args")
        recipes.recipe(name)
        contexts = dict(workload.get("contexts") or {})
        specs.append(
            {
                "scenario": name,
                "args": dict(args or {}),
                "contexts": contexts,
                "pool": _pool_size(contexts),
                "users": _pool_size(contexts)[0] * _pool_size(contexts)[1],
            }
        )
    return specs


def segment_totals(folder: Path, stem: str) -> dict[str, int]:
    """``segment-N`` -> its total, from the dumps ``<stem>.out.*``."""
    totals = {}
    for dump in folder.glob(f"{stem}.out.*"):
        text = dump.read_bytes()
        trigger, total = _TRIGGER.search(text), _TOTALS.search(text)
        if trigger and total:
            totals[trigger.group(1).decode()] = int(total.group(1))
    return totals


def _replay_argv(
    site: RunDir, spec_file: Path, library: Path, plan: CountPlan, stem: str
) -> list[str]:
    files = [a for f in config_files(site) for a in ("--config-file", str(f))]
    return [
        f"--callgrind-out-file={site.results / stem}.out",
        "-m",
        "rally_keystone_perf.deploy.instructions.replay",
        *files,
        "--pool",
        str(site.user_pool),
        "--admin-secret",
        str(site.admin_secret),
        "--workload",
        str(spec_file),
        "--markers",
        str(library),
        "--warm-up",
        str(plan.warm_up),
        "--segments",
        str(plan.segments),
        "--iterations",
        str(plan.iterations),
    ]


def count_workload(
    site: RunDir,
    options: LaunchOptions,
    position: int,
    spec: dict[str, Any],
    library: Path,
    plan: CountPlan,
) -> WorkloadCount:
    """Replay one workload under callgrind in ``site``; its count."""
    stem = f"callgrind.{position}"
    spec_file = site.results / f"workload-{position}.json"
    spec_file.write_text(json.dumps(spec, indent=2))
    argv = _replay_argv(site, spec_file, library, plan, stem)
    python = str(runtime.python(options))
    command = [
        str(valgrind()),
        "--tool=callgrind",
        "--instr-atstart=no",
        "--collect-atstart=no",
        argv[0],
        python,
        *argv[1:],
    ]
    env = {
        **services.QUIET_WARNINGS,
        **runtime.environment(site, options),
        "PYTHONHASHSEED": HASH_SEED,
    }
    log = site.logs / f"replay-{position}.log"
    code = services.run_logged(command, log, env=env)
    totals = segment_totals(site.results, stem)
    wanted = [replay.SEGMENT.format(n) for n in range(1, plan.segments + 1)]
    if code != 0 or set(wanted) - set(totals):
        raise LaunchError(
            f"counting {spec['scenario']} failed (exit {code}); last lines of "
            f"its logs:\n{logtail.log_tails(site, (log.name, 'keystone.log'))}"
        )
    segments = [totals[name] for name in wanted]
    requests = recipes.requests_per_iteration(spec["scenario"])
    return WorkloadCount(
        position,
        spec["scenario"],
        requests,
        statistics.median(segments) / plan.iterations,
        segments,
        plan.iterations,
    )


def count_side(
    folder: Path,
    options: LaunchOptions,
    specs: list[dict[str, Any]],
    plan: CountPlan,
    progress: Progress,
) -> list[WorkloadCount]:
    """Prepare an in-process Keystone in ``folder`` and count every workload.

    ``options``: a count's (:func:`.site.count_options`), build prepared.
    """
    valgrind()
    library = markers.build(folder.parent / "markers")
    size = (
        max((spec["pool"][0] for spec in specs), default=1),
        max((spec["pool"][1] for spec in specs), default=1),
    )
    keystone = site.prepare_site(folder, options, size, progress)
    counts = []
    for position, spec in enumerate(specs):
        progress(f"{folder.name}: counting {spec['scenario']} under callgrind")
        found = count_workload(keystone, options, position, spec, library, plan)
        progress(
            f"{folder.name}: {spec['scenario']}: {found.per_request / 1e6:.2f}M "
            f"instructions per request (segments within {found.spread:.2%})"
        )
        counts.append(found)
    return counts
