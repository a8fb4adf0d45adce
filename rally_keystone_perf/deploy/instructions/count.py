"""Count a task's workloads under callgrind, one side (one Keystone build).

For each workload of the task, :mod:`.replay` runs under ``valgrind
--tool=callgrind`` with instrumentation off until its warm-up is done; each
counted segment's dump (``callgrind.<workload>.out.N``) gives its total.
Instructions per iteration are the median over the segments, per request
that divided by the requests an iteration sends. The process's environment
is fixed (``PYTHONHASHSEED``) so the same build gives the same count.

Beside the layouts, one more replay of the workload runs outside valgrind,
on its own fresh copy of the database, and counts the SQL statements
Keystone sends, by kind (:mod:`.statements`): the listener's work then adds
nothing to the instructions. On request (``profile``) one more native
replay traces each Python function's calls and lines (:mod:`.calls`):
where a count's difference went.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import statistics
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NoReturn

from rally_keystone_perf.deploy import logtail, services
from rally_keystone_perf.deploy.builds import runtime
from rally_keystone_perf.deploy.instructions import (
    markers,
    parallel,
    recipes,
    replay,
    site,
    statements,
)
from rally_keystone_perf.deploy.keystone.config import config_files
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir

Progress = Callable[[str], None]
HASH_SEED = "0"  # dicts and sets iterate in one order on every count
# The same code counts up to ~1% more or less when the process's memory
# sits elsewhere: an environment 16 bytes longer moved a validation's count
# by +0.7% (hash collisions of objects keyed by address, the type attribute
# cache). Each layout pads the environment by another length; both sides
# get the same pads and the figure is their mean.
LAYOUT_ENV = "KEYSTONE_PERF_LAYOUT"
LAYOUT_STEP = 37  # bytes of padding more per layout
USERS_CONTEXT = "keystone_perf_users"
# bcrypt's rounds past which a workload hashing a password every iteration
# is not counted: at Keystone's default of 12 a token takes about 10 s under
# valgrind (18 tokens a layout), nearly all in the hash's C code
MOST_HASH_ROUNDS = 6
_TOTALS = re.compile(rb"^totals:\s*(\d+)", re.MULTILINE)
_TRIGGER = re.compile(rb"^desc: Trigger: Client Request: (segment-\d+)", re.MULTILINE)


@dataclass(frozen=True)
class CountPlan:
    """How each workload is counted: ``layouts`` replays (each a memory
    layout of its own, :func:`layout_env`), ``at_once`` of them together;
    each replay's uncounted warm-up iterations, then ``segments`` counted
    segments of ``iterations`` iterations."""

    warm_up: int = 10
    segments: int = 2
    iterations: int = 4
    layouts: int = 4
    at_once: int = 2


@dataclass(frozen=True)
class WorkloadCount:
    """One workload's count: per iteration and per request, every layout's
    segments."""

    position: int
    scenario: str
    requests_per_iteration: float  # a mix's: its operations' weighted mean
    per_iteration: float  # the mean over the layouts of their median segment
    layouts: list[list[int]]  # per layout, each segment's total instructions
    iterations: int  # per segment
    statements: dict[str, float]  # per iteration, by kind (statements.KINDS)

    @property
    def per_request(self) -> float:
        return self.per_iteration / self.requests_per_iteration

    @property
    def statements_per_request(self) -> dict[str, float]:
        """SQL statements per request, by kind."""
        per = self.requests_per_iteration
        return {kind: n / per for kind, n in self.statements.items()}

    @property
    def spread(self) -> float:
        """(largest - smallest) / median of the layouts' figures."""
        figures = [statistics.median(segments) for segments in self.layouts]
        middle = statistics.median(figures)
        return (max(figures) - min(figures)) / middle if middle else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "per_request": self.per_request,
            "spread": round(self.spread, 6),
            "statements_per_request": self.statements_per_request,
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


def layout_env(layout: int) -> dict[str, str]:
    """The environment of replay layout ``layout`` (see :data:`LAYOUT_ENV`)."""
    return {LAYOUT_ENV: "x" * (layout * LAYOUT_STEP)}


def _callgrind(stem: Path) -> list[str]:
    """valgrind's part of a counted replay's command, dumping ``<stem>.out.N``."""
    return [
        str(valgrind()),
        "--tool=callgrind",
        "--instr-atstart=no",
        "--collect-atstart=no",
        f"--callgrind-out-file={stem}.out",
    ]


def _replay(
    site_dir: RunDir,
    options: LaunchOptions,
    spec_file: Path,
    library: Path,
    plan: CountPlan,
    stem: str,
    native: tuple[str, Path] | None = None,
) -> parallel.Command:
    """The command of one replay under callgrind, dumping ``<stem>.out.N``;
    with ``native`` (``("--statements", FILE)`` or ``("--profile", FILE)``),
    outside valgrind, counting into ``FILE``."""
    files = [*config_files(site_dir), site.replay_config(site_dir, stem)]
    argv = [
        *([] if native else _callgrind(site_dir.results / stem)),
        str(runtime.python(options)),
        *("-m", "rally_keystone_perf.deploy.instructions.replay"),
        *[a for f in files for a in ("--config-file", str(f))],
        *("--pool", str(site_dir.user_pool)),
        *("--admin-secret", str(site_dir.admin_secret)),
        *("--workload", str(spec_file), "--markers", str(library)),
        *("--warm-up", str(plan.warm_up), "--segments", str(plan.segments)),
        *("--iterations", str(plan.iterations)),
        *([native[0], str(native[1])] if native else []),
    ]
    env = {
        **services.QUIET_WARNINGS,
        **runtime.environment(site_dir, options),
        "PYTHONHASHSEED": HASH_SEED,
    }
    return parallel.Command(argv, env, site_dir.logs / f"{stem}.log")


def profile_file(site_dir: RunDir, position: int) -> Path:
    """Where :func:`count_workload` with ``profile`` writes a workload's
    profile of Python functions (:mod:`.calls`)."""
    return site_dir.results / f"profile-{position}.json"


def count_workload(
    site_dir: RunDir,
    options: LaunchOptions,
    position: int,
    spec: dict[str, Any],
    library: Path,
    plan: CountPlan,
    profile: bool = False,
) -> WorkloadCount:
    """Replay one workload under callgrind in ``site_dir``, once per layout,
    and once natively for its SQL statements; with ``profile``, once more
    natively with its Python functions traced (:func:`profile_file`, left
    absent when that replay fails: the count stands without it): in the
    same batch, so it takes no wave of its own where the layouts leave a
    core free. Its count; :class:`LaunchError` with the failed replay's log
    tail."""
    spec_file = site_dir.results / f"workload-{position}.json"
    spec_file.write_text(json.dumps(spec, indent=2))
    stems = [f"replay-{position}-{layout}" for layout in range(plan.layouts)]
    commands = []
    for layout, stem in enumerate(stems):
        command = _replay(site_dir, options, spec_file, library, plan, stem)
        commands.append(
            dataclasses.replace(command, env={**command.env, **layout_env(layout)})
        )
    native = [("--statements", site_dir.results / f"statements-{position}.json")]
    if profile:
        native.append(("--profile", profile_file(site_dir, position)))
    for flag, out in native:
        commands.append(
            _replay(site_dir, options, spec_file, library, plan, out.stem, (flag, out))
        )
    codes = parallel.run_all(commands, plan.at_once)
    sql_code = codes[len(stems)]
    if sql_code != 0 or not native[0][1].exists():
        _failed(site_dir, spec, native[0][1].stem, sql_code)
    if profile and codes[-1] != 0:  # the count stands without its profile
        profile_file(site_dir, position).unlink(missing_ok=True)
    wanted = [replay.SEGMENT.format(n) for n in range(1, plan.segments + 1)]
    layouts = []
    for stem, code in zip(stems, codes, strict=False):
        totals = segment_totals(site_dir.results, stem)
        if code != 0 or set(wanted) - set(totals):
            _failed(site_dir, spec, stem, code)
        layouts.append([totals[name] for name in wanted])
    figures = [statistics.median(segments) / plan.iterations for segments in layouts]
    return WorkloadCount(
        position,
        spec["scenario"],
        recipes.requests_per_iteration(spec["scenario"], spec.get("args")),
        statistics.mean(figures),
        layouts,
        plan.iterations,
        statements.per_iteration(native[0][1], plan.iterations),
    )


def _failed(site_dir: RunDir, spec: dict[str, Any], stem: str, code: int) -> NoReturn:
    """:class:`LaunchError`: a replay failed, with its logs' last lines."""
    logs = (f"{stem}.log", "keystone.log")
    raise LaunchError(
        f"counting {spec['scenario']} failed (exit {code}); last lines "
        f"of its logs:\n{logtail.log_tails(site_dir, logs)}"
    )


@dataclass
class SideCount:
    """One side's counts: its workloads counted, and why the others were not
    (by position)."""

    workloads: list[WorkloadCount]
    not_counted: dict[int, str]
    profiles: dict[int, Path] = dataclasses.field(default_factory=dict)


def not_counted(spec: dict[str, Any], options: LaunchOptions) -> str | None:
    """Why a workload is not counted with these options; None: it is."""
    rounds = options.password_hash_rounds or 0
    if rounds > MOST_HASH_ROUNDS and recipes.hashes(spec["scenario"], spec["args"]):
        return (
            f"each iteration hashes a password at {rounds} bcrypt rounds (about "
            "10 s under valgrind at 12); counted up to "
            f"--password-hash-rounds {MOST_HASH_ROUNDS}"
        )
    return None


def _fresh_site(
    folder: Path,
    options: LaunchOptions,
    specs: list[dict[str, Any]],
    progress: Progress,
) -> tuple[RunDir, Path]:
    """An in-process Keystone's site in ``folder``, made afresh (users or
    writes left by an earlier count would change what this one counts),
    its pool sized for every workload; and the markers' library."""
    shutil.rmtree(folder, ignore_errors=True)
    library = markers.build(folder.parent / "markers")
    size = (
        max((spec["pool"][0] for spec in specs), default=1),
        max((spec["pool"][1] for spec in specs), default=1),
    )
    return site.prepare_site(folder, options, size, progress), library


def count_side(
    folder: Path,
    options: LaunchOptions,
    specs: list[dict[str, Any]],
    plan: CountPlan,
    progress: Progress,
    profile: bool = False,
) -> SideCount:
    """Prepare an in-process Keystone in ``folder`` and count every workload
    these options let it count (:func:`not_counted`); with ``profile``,
    each one's Python functions too (:func:`count_workload`).

    ``options``: a count's (:func:`.site.count_options`), build prepared.
    """
    valgrind()
    keystone, library = _fresh_site(folder, options, specs, progress)
    counts = SideCount([], {})
    for position, spec in enumerate(specs):
        skipped = not_counted(spec, options)
        if skipped:
            progress(f"{folder.name}: {spec['scenario']} not counted: {skipped}")
            counts.not_counted[position] = skipped
            continue
        progress(
            f"{folder.name}: counting {spec['scenario']} under callgrind "
            f"({plan.layouts} memory layouts, {plan.at_once} at a time)"
        )
        found = count_workload(
            keystone, options, position, spec, library, plan, profile
        )
        if profile and profile_file(keystone, position).exists():
            counts.profiles[position] = profile_file(keystone, position)
        progress(
            f"{folder.name}: {spec['scenario']}: {found.per_request / 1e6:.2f}M "
            f"instructions per request (layouts within {found.spread:.2%})"
        )
        counts.workloads.append(found)
    return counts
