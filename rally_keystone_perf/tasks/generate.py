"""The bundled task files under ``tasks/<mode>/``, generated from one table.

Every deployment mode gets one Rally task file (format v2, JSON) per
scenario, level the seeds used and size:

=========================================  ==========================  ======
scenario                                   levels                      seed
=========================================  ==========================  ======
``KeystonePerf.create_token``              4, 16, 32                   000
``KeystonePerf.create_delete_user``        10                          002
``KeystonePerf.list_projects``             10..100 step 10,            003
                                           200..1000 step 100
``KeystonePerf.create_delete_user``,       serial (one at a time)      001
``KeystonePerf.create_token``,
``KeystonePerf.validate_token``
``KeystonePerf.create_token``,             throughput at 8 (req/s)     001
``KeystonePerf.list_revocation_events``
``KeystonePerf.list_role_assignments``,    4                           none
``KeystonePerf.list_auth_projects``,
``KeystonePerf.get_catalog``
=========================================  ==========================  ======

Also at concurrency 4, no seed: ``KeystonePerf.authenticate_application_credential``
and three variants of ``KeystonePerf.validate_token`` (application-credential
tokens; a service validating as keystonemiddleware does, with and without
``allow_expired``), each its own file name (``validate-token-service-c4-quick.json``),
and ``KeystonePerf.create_token`` scoped to the user's domain and to the
system (``create-token-domain-scope-c4-quick.json``,
``create-token-system-scope-c4-quick.json``), and ``KeystonePerf.mix``
with a validation-heavy weighting (``mix-c4-quick.json``). These plans, of
no seed, are in :mod:`.cloud_plans`.

A file is ``<scenario>-<level>-<size>.json``, the level ``c<N>``
(``create-token-c16-quick.json``), ``serial`` for seed 001's sequential
tests (Rally's ``serial`` runner: ``create-token-serial-quick.json``) and
``throughput-c8`` for its requests-per-second table
(``list-revocation-events-throughput-c8-full.json``); seed 001's plans are in
:mod:`.seed001_tasks`, the plans' common shape in :mod:`.seed_plans`.

``full`` is the seeds' own size (10000 token creations with a users context
of 12 tenants x 512 users; 100 create/delete cycles; 120 s per project-list
level, as siege ran; seed 001's 100 items in a row and 20 s of load);
``quick`` runs in about a minute on a 2-core machine. Each file says its
size in its description and tags (``size:quick``), and names its scenario,
level (``concurrency:1`` for ``serial``), mode and seed in tags so reports
can label it. ``rally-keystone-perf tasks --check`` fails when a checked-in
file differs from what this module generates; ``--write`` regenerates them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy import modes
from rally_keystone_perf.tasks import seed001_tasks
from rally_keystone_perf.tasks.cloud_plans import LOGINS, MIX, READS, SCOPES
from rally_keystone_perf.tasks.seed_plans import ScenarioPlan

SIZES = ("quick", "full")
FAILURE_RATE = {"failure_rate": {"max": 0}}


@dataclass(frozen=True)
class TaskSpec:
    """One task file: a scenario at a level, for a mode, in a size."""

    mode: str
    slug: str  # file-name form of the scenario
    scenario: str
    concurrency: int
    size: str
    seed: str
    level: str  # file-name form of the level: c16, serial, throughput-c8

    @property
    def path(self) -> Path:
        """Where the file lives under ``tasks/``."""
        return Path(self.mode) / f"{self.slug}-{self.level}-{self.size}.json"


class CreateToken(ScenarioPlan):
    """Seed 000: 10000 token creations, 12 x 512 users, concurrency 4/16/32."""

    def runner(self, concurrency: int, size: str) -> dict[str, Any]:
        times = 10000 if size == "full" else 100
        return {"constant": {"times": times, "concurrency": concurrency}}

    def contexts(self, size: str) -> dict[str, Any]:
        # keystone_perf_users: Rally's users context, or the run's user pool
        if size == "full":  # the seed's 6144 users
            return {"keystone_perf_users": {"tenants": 12, "users_per_tenant": 512}}
        return {"keystone_perf_users": {"tenants": 4, "users_per_tenant": 4}}

    def size_note(self, size: str) -> str:
        if size == "full":
            return (
                "10000 times with 12 tenants x 512 users, as seed 000 ran (taken "
                "from the run's user pool when there is one: rally-keystone-perf "
                "run creates it in under a minute)"
            )
        return "100 times with 4 tenants x 4 users (seed 000: 10000 x 6144 users)"


class CreateDeleteUser(ScenarioPlan):
    """Seed 002: 100 create/delete cycles at concurrency 10."""

    def runner(self, concurrency: int, size: str) -> dict[str, Any]:
        times = 100 if size == "full" else 30
        return {"constant": {"times": times, "concurrency": concurrency}}

    def contexts(self, size: str) -> dict[str, Any]:
        return {"users": {"tenants": 1, "users_per_tenant": 1}}

    def size_note(self, size: str) -> str:
        if size == "full":
            return "100 times, as seed 002 ran"
        return "30 times (seed 002: 100)"


class ListProjects(ScenarioPlan):
    """Seed 003: siege for 120 s per level, 10..100 and 100..1000."""

    def runner(self, concurrency: int, size: str) -> dict[str, Any]:
        duration = 120 if size == "full" else 20
        return {
            "constant_for_duration": {
                "duration": duration,
                "concurrency": concurrency,
            }
        }

    def contexts(self, size: str) -> dict[str, Any]:
        # none: the listing is the admin's and needs no user. Rally's users
        # context (2 projects, as the seed had) cost 11-13 s of setup and
        # cleanup per level, a fifth of a quick study 003; the listing then
        # holds Keystone's one admin project instead of the seed's two
        return {}

    def size_note(self, size: str) -> str:
        if size == "full":
            return "120 s of load, as seed 003's siege ran"
        return "20 s of load (seed 003: 120 s per level)"


PLANS: tuple[ScenarioPlan, ...] = (
    CreateToken(
        "create-token",
        "KeystonePerf.create_token",
        "000",
        (4, 16, 32),
        "Token creation: one POST /v3/auth/tokens per iteration",
    ),
    CreateDeleteUser(
        "create-delete-user",
        "KeystonePerf.create_delete_user",
        "002",
        (10,),
        "User create and delete: POST /v3/users, DELETE /v3/users/{id}",
    ),
    ListProjects(
        "list-projects",
        "KeystonePerf.list_projects",
        "003",
        (*range(10, 101, 10), *range(200, 1001, 100)),
        "Project list with a pre-issued token: one GET /v3/projects per iteration",
    ),
    *seed001_tasks.PLANS,
    *READS,
    *LOGINS,
    *SCOPES,
    MIX,
)


def specs() -> Iterator[tuple[TaskSpec, ScenarioPlan]]:
    """Every (spec, plan), modes in the order of the one list of modes."""
    for mode in modes.KEYSTONE_MODES:
        for plan in PLANS:
            for concurrency in plan.levels:
                for size in SIZES:
                    yield (
                        TaskSpec(
                            mode,
                            plan.slug,
                            plan.scenario,
                            concurrency,
                            size,
                            plan.seed,
                            plan.level_name(concurrency),
                        ),
                        plan,
                    )


def task_document(spec: TaskSpec, plan: ScenarioPlan) -> dict[str, Any]:
    """The Rally v2 task of one spec."""
    tags = [
        plan.slug,
        f"concurrency:{spec.concurrency}",
        f"size:{spec.size}",
        f"mode:{spec.mode}",
    ]
    tags += [f"seed:{spec.seed}"] if spec.seed else []
    seed = f", seed {spec.seed}" if spec.seed else ""
    title = f"{spec.scenario} {plan.level_title(spec.concurrency)}"
    note = f"{plan.note} " if plan.note else ""
    return {
        "version": 2,
        "title": f"{title} ({spec.mode}, {spec.size})",
        "description": (
            f"Size: {spec.size}. {plan.summary}{seed}, "
            f"{plan.level_text(spec.concurrency)}; {plan.size_note(spec.size)}. "
            f"{note}For Keystone in {spec.mode} mode (rally-keystone-perf run "
            f"--mode {spec.mode}). "
            "Generated by rally-keystone-perf tasks --write; do not edit."
        ),
        "tags": tags,
        "subtasks": [
            {
                "title": title,
                "tags": tags[:2],
                "workloads": [
                    {
                        "scenario": {spec.scenario: plan.args()},
                        "runner": plan.runner(spec.concurrency, spec.size),
                        "contexts": plan.contexts(spec.size),
                        "sla": FAILURE_RATE,
                    }
                ],
            }
        ],
    }


def render(document: dict[str, Any]) -> str:
    """The checked-in text of a task document."""
    return json.dumps(document, indent=2) + "\n"


def generated() -> dict[Path, str]:
    """Every generated file's path (relative to ``tasks/``) and text."""
    return {spec.path: render(task_document(spec, plan)) for spec, plan in specs()}


def check(tasks_dir: Path) -> list[str]:
    """Problems: generated files missing or different, stale files left over."""
    expected = generated()
    problems = []
    for relative, text in expected.items():
        path = tasks_dir / relative
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif path.read_text() != text:
            problems.append(f"{path}: differs from the generator's output")
    for mode in modes.KEYSTONE_MODES:
        for path in sorted((tasks_dir / mode).glob("*.json")):
            if path.relative_to(tasks_dir) not in expected:
                problems.append(f"{path}: not generated (stale?)")
    return problems


def write(tasks_dir: Path) -> int:
    """Write every generated file (removing stale ones); the number written."""
    expected = generated()
    for mode in modes.KEYSTONE_MODES:
        for path in (tasks_dir / mode).glob("*.json"):
            if path.relative_to(tasks_dir) not in expected:
                path.unlink()
    for relative, text in expected.items():
        path = tasks_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return len(expected)
