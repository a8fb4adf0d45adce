"""A bisect's page in numbers and words, from bisect.json as written."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout import state_files
from rally_keystone_perf.layout.bisect import BISECT_FILE, BISECT_VERSION, PROFILES
from rally_keystone_perf.report.figures import bisect
from rally_keystone_perf.report.readers import bisect as reader
from rally_keystone_perf.report.writers import registry

VALIDATE = "KeystonePerf.validate_token"


def _count(instructions: float) -> dict[str, Any]:
    return {
        "instructions": instructions,
        "spread": 0.001,
        "statements": {"read": 64.0, "write": 0.0, "transaction": 2.0},
    }


def _write(folder: Path, costs: dict[int, float | None], conclusion: dict) -> Path:
    """A record of 8 steps, ``costs`` those counted (None: skipped)."""
    steps = [
        {
            "id": f"c{n}" + "0" * 38,
            "subject": f"Change {n}",
            "date": "2026",
            "files": [],
        }
        for n in range(8)
    ]
    outcomes = {
        str(n): {"skipped": "does not build: pip"}
        if cost is None
        else {"workloads": {VALIDATE: _count(cost)}}
        for n, cost in costs.items()
    }
    record = {
        "version": BISECT_VERSION,
        "repo": "/src/keystone",
        "identity": {"threshold": 0.01},
        "steps": steps,
        "workloads": [VALIDATE],
        "outcomes": outcomes,
        "order": list(costs),
        "conclusion": {"moves": [], "skipped": [], "changes": [], **conclusion},
    }
    state_files.write_json(folder / BISECT_FILE, record)
    return folder


def _page(folder: Path) -> bisect.BisectPage:
    return bisect.bisect_page(reader.load(folder))


def test_nothing_to_find_says_so(tmp_path: Path) -> None:
    page = _page(_write(tmp_path, {0: 100.0, 7: 100.5}, {"status": "nothing to find"}))
    assert page.said.startswith("nothing to find: c70000000000 is within 1%")
    assert page.culprit is None


def test_a_culprit_among_skipped_steps_names_them(tmp_path: Path) -> None:
    conclusion = {
        "status": "among skipped steps",
        "last_within": 3,
        "first_past": 5,
        "skipped": [4],
    }
    costs = {0: 100.0, 7: 103.0, 3: 100.0, 5: 103.0, 4: None}
    page = _page(_write(tmp_path, costs, conclusion))
    assert "c50000000000 or one of the 1 steps before it" in page.said
    assert [s.index for s in page.among] == [4]
    roles = [r.role for r in page.rows]
    assert roles == ["good", "counted", "skipped", "counted", "bad"]


def test_an_unfinished_search_says_what_is_left(tmp_path: Path) -> None:
    conclusion = {"status": "unfinished", "last_within": 0, "first_past": 7}
    page = _page(_write(tmp_path, {0: 100.0, 7: 103.0}, conclusion))
    assert "6 steps between" in page.said and "same command" in page.said


def test_two_changes_are_reported_as_such(tmp_path: Path) -> None:
    conclusion = {
        "status": "found",
        "last_within": 2,
        "first_past": 3,
        "changes": [[2, 3], [3, 7]],
    }
    costs = {0: 100.0, 7: 103.0, 3: 106.0, 2: 100.0}
    page = _page(_write(tmp_path, costs, conclusion))
    out = io.StringIO()
    registry.write(registry.BISECT, page, out, "markdown")
    assert "the counted steps show 2 changes, not one" in out.getvalue()
    assert (
        page.culprit is not None
        and page.culprit.not_profiled == "no profile kept for c20000000000"
    )


def test_a_culprit_within_the_threshold_of_its_parent_is_a_drift(
    tmp_path: Path,
) -> None:
    conclusion = {
        "status": "found",
        "last_within": 2,
        "first_past": 3,
        "changes": [[4, 7]],
    }
    costs = {0: 100.0, 7: 104.0, 2: 100.6, 3: 101.1, 4: 101.2}
    page = _page(_write(tmp_path, costs, conclusion))
    assert page.drifted
    out = io.StringIO()
    registry.write(registry.BISECT, page, out, "markdown")
    text = " ".join(out.getvalue().split())
    assert "a drift: c30000000000 is within the least change that counts of" in text
    assert "further apart: c40000000000 to c70000000000" in text


def test_only_the_culprits_and_its_parents_profiles_are_read(tmp_path: Path) -> None:
    conclusion = {"status": "found", "last_within": 2, "first_past": 3}
    costs = {0: 100.0, 7: 103.0, 3: 103.0, 2: 100.0}
    folder = _write(tmp_path, costs, conclusion)
    loop = "keystone/api/auth.py:_loop"
    for n in costs:
        calls = {loop: [float(n >= 3), 25.0 * (n >= 3)]}
        state_files.write_json(
            folder / PROFILES / f"c{n}{'0' * 38}.json", {VALIDATE: calls}
        )
    record = reader.load(folder)
    assert [s.index for s in record.steps if s.profile is not None] == [2, 3]
    page = bisect.bisect_page(record)
    assert page.culprit is not None
    (first,) = page.culprit.functions[VALIDATE]
    assert (first.name, first.calls) == (loop, (0.0, 1.0))


def test_top_changes_rank_by_lines_then_calls() -> None:
    before = {"a": (1.0, 10.0), "b": (2.0, 10.0), "c": (1.0, 5.0), "gone": (1.0, 3.0)}
    after = {"a": (1.0, 30.0), "b": (4.0, 10.0), "c": (1.0, 5.0), "new": (1.0, 8.0)}
    found = bisect.top_changes(before, after)
    assert [f.name for f in found] == ["a", "new", "gone", "b"]
    assert found[0].more_lines == 20 and found[3].more_calls == 2
    assert len(bisect.top_changes(before, after, most=2)) == 2
