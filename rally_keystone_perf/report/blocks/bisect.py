"""The ``bisect`` page as a document: the conclusion, the culprit against
the step before it with its files, every step counted, the changes the
steps show, and (HTML) each workload's instructions over good's by step.

Written as text, markdown, JSON (:func:`data`) and HTML by the renderers
(:mod:`rally_keystone_perf.report.writers.render`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rally_keystone_perf.report.blocks.model import (
    Blank,
    Block,
    Document,
    Heading,
    Lines,
    Plot,
    Series,
    Table,
    columns,
)
from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.figures.bisect import (
    BisectPage,
    Culprit,
    percent,
    short,
)

MISSING = "-"
STEP_COLUMNS = columns(
    "step:general; id:text; subject:text; workload:text",
    "instructions:millions; of good:fixed3; queries:general; role:text",
)
CULPRIT_COLUMNS = columns(
    "workload:text; before:millions; after:millions; ratio:fixed3",
    "queries:difference; verdict:text",
)
LIBRARY_COLUMNS = columns("library:text; before:text; after:text")
FUNCTION_COLUMNS = columns(
    "function:text; calls before:general; calls after:general",
    "lines before:general; lines after:general; lines more:difference",
)
EXPLAINED_FUNCTIONS = (
    "where the cost went: each Python function's calls and the lines it ran "
    "itself, per iteration, traced in a native replay of the same workload "
    "at the culprit and at the step before it (exact, the same every run); "
    "the functions whose lines changed most first; C functions (hashes, "
    "SQLAlchemy's C parts) are not traced: their cost shows in their Python "
    "callers' calls"
)
# what a step is, by history (run/bisect_plan.py's COMMITS, DAYS)
STEPS = {
    "commits": "each step is a build of one commit of the first-parent history "
    "(the suite's libraries beside it unless --build-deps says otherwise)",
    "days": "each step is the one Keystone build with the libraries PyPI had "
    "at the start of a day (uv's --exclude-newer): what changed at a day was "
    "uploaded the day before",
}
AXES = {"commits": "step (first-parent commits, good = 0)", "days": "day (good = 0)"}
EXPLAINED = (
    "{steps}, counted as ab --instructions counts: instructions per request "
    "of Keystone in one process under callgrind (the mean of its memory "
    "layouts), queries (SQL reads and writes) per request in a replay "
    "outside valgrind; a step is "
    "past when a measure that moved from good to bad is past the threshold "
    "from good's, the way bad went (instructions: {threshold}, or the "
    "layouts' spread at good and bad when larger; queries: "
    "half a query per request); the culprit is the first step past whose step "
    "before it is not"
)


def step_table(page: BisectPage) -> Table:
    """Every step counted, in the history's order, a row per workload."""
    rows: list[Sequence[object]] = []
    for row in page.rows:
        step = row.step
        role = f"skipped: {step.skipped}" if step.skipped else row.role
        rows.append(
            [step.index, short(step), step.subject[:48], row.workload]
            + [row.instructions, row.ratio, row.queries, role]
        )
    return Table(STEP_COLUMNS, rows, "the steps counted")


def culprit_blocks(culprit: Culprit) -> list[Block]:
    """The culprit's commit, its files, and its cost against the step before."""
    step = culprit.step
    rows = []
    for name, found in culprit.changes:
        before = (culprit.before.counts or {}).get(name)
        after = (step.counts or {}).get(name)
        rows.append(
            [name, before.per_request if before else None]
            + [after.per_request if after else None, found.ratio, found.queries]
            + [verdicts.describe(found.verdict, subject="")]
        )
    files = ", ".join(step.files[:12]) + (" ..." if len(step.files) > 12 else "")
    return [
        Heading(f"the culprit: {step.id}"),
        Lines(
            [
                f"{step.subject} ({step.date})",
                f"files: {files or 'none'}",
                f"against the step before it, {short(culprit.before)}:",
            ]
        ),
        Table(CULPRIT_COLUMNS, rows, "the culprit against the step before it"),
        *library_blocks(culprit),
        *function_blocks(culprit),
    ]


def library_blocks(culprit: Culprit) -> list[Block]:
    """The libraries whose versions changed at the culprit, if any."""
    if not culprit.libraries:
        return []
    rows = [
        [name, old or "(absent)", new or "(absent)"]
        for name, old, new in culprit.libraries
    ]
    caption = f"libraries changed from {short(culprit.before)}"
    return [Blank(), Heading(caption, 4), Table(LIBRARY_COLUMNS, rows, caption)]


def function_blocks(culprit: Culprit) -> list[Block]:
    """Per workload, the Python functions whose cost changed most."""
    if culprit.not_profiled:
        return [Lines([f"where the cost went: not profiled ({culprit.not_profiled})"])]
    blocks: list[Block] = []
    for name, functions in culprit.functions.items():
        rows = [[f.name, *f.calls, *f.lines, f.more_lines] for f in functions]
        caption = f"where the cost went: {name}"
        blocks += [Blank(), Heading(caption, 4), Table(FUNCTION_COLUMNS, rows, caption)]
    return [*blocks, Lines([EXPLAINED_FUNCTIONS])] if blocks else []


def plots(page: BisectPage) -> list[Plot]:
    """Each workload's instructions over good's, and its queries more than
    good's, by step in the history."""
    figures = (
        ("instructions per request over good's", "over good", "ratio"),
        ("queries per request more than good's", "queries more", "more_queries"),
    )
    return [
        Plot(title, AXES.get(page.record.history, "step"), axis, _series(page, field))
        for title, axis, field in figures
    ]


def _series(page: BisectPage, field: str) -> list[Series]:
    found = []
    for color, name in enumerate(page.record.workloads):
        points = [
            (float(row.step.index), float(getattr(row, field)))
            for row in page.rows
            if row.workload == name and getattr(row, field) is not None
        ]
        found.append(Series(name.removeprefix("KeystonePerf."), points, color))
    return found


def _change_lines(page: BisectPage) -> list[str]:
    pairs = "; ".join(f"{short(a)} to {short(b)}" for a, b in page.changes)
    if page.drifted and page.culprit is not None:
        culprit = page.culprit
        return [
            f"a drift: {short(culprit.step)} is within the least change that "
            f"counts of {short(culprit.before)}; the cost crossed it by smaller "
            "steps. The counted steps further apart: "
            f"{pairs or 'none'}; bisect them with their own --good and --bad"
        ]
    if len(page.changes) < 2:
        return []
    return [
        f"the counted steps show {len(page.changes)} changes, not one: {pairs}; "
        "this bisect followed the first step past the threshold: bisect the "
        "others with their own --good and --bad"
    ]


def document(page: BisectPage) -> Document:
    """The page: the conclusion, the culprit, the steps, the plot, the notes."""
    record = page.record
    title = f"bisect {short(page.good)}..{short(page.bad)} ({record.repo})"
    blocks: list[Block] = [Lines([page.said], strong=True)]
    blocks += _among(page)
    if page.culprit is not None:
        blocks += [*culprit_blocks(page.culprit), Blank()]
    blocks += [step_table(page), *plots(page)]
    steps = STEPS.get(record.history, "each step is a build")
    explained = EXPLAINED.format(steps=steps, threshold=percent(record.threshold))
    notes = [*_change_lines(page), explained]
    return Document(title, (*blocks, Lines(notes)), data=data(page))


def _among(page: BisectPage) -> list[Block]:
    if not page.among:
        return []
    return [
        Lines(
            [
                f"could not be counted: {short(s)} {s.subject}: {s.skipped}"
                for s in page.among
            ]
        )
    ]


def data(page: BisectPage) -> dict[str, Any]:
    """The page as JSON: the conclusion, the culprit, every step counted."""
    culprit = page.culprit
    return {
        "status": page.status,
        "said": page.said,
        "repo": page.record.repo,
        "threshold": page.record.threshold,
        "good": page.good.id,
        "bad": page.bad.id,
        "culprit": None
        if culprit is None
        else {
            "commit": culprit.step.id,
            "subject": culprit.step.subject,
            "date": culprit.step.date,
            "files": list(culprit.step.files),
            "before": culprit.before.id,
            "changes": {
                name: {"ratio": found.ratio, "queries": found.queries}
                for name, found in culprit.changes
            },
            "functions": {
                name: [
                    {"function": f.name, "calls": list(f.calls), "lines": list(f.lines)}
                    for f in functions
                ]
                for name, functions in culprit.functions.items()
            },
            "not_profiled": culprit.not_profiled,
            "libraries": [
                {"name": name, "before": old, "after": new}
                for name, old, new in culprit.libraries
            ],
        },
        "among_skipped": [s.id for s in page.among],
        "changes": [[a.id, b.id] for a, b in page.changes],
        "steps": [
            {
                "index": row.step.index,
                "commit": row.step.id,
                "workload": row.workload,
                "instructions": row.instructions,
                "queries": row.queries,
                "of_good": row.ratio,
                "role": row.role,
                "skipped": row.step.skipped,
            }
            for row in page.rows
        ],
    }
