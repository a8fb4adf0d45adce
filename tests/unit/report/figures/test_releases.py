"""Releases in rounds: each pair's ratio of medians, its interval, a verdict."""

from __future__ import annotations

import pytest

from rally_keystone_perf.report.figures import releases, verdicts
from rally_keystone_perf.report.figures.study import Measured
from rally_keystone_perf.report.readers.instructions import (
    InstructionCounts,
    SideCount,
)

TOKENS = "keystone.create_token"


def _row(release: str, median: float, action: str = TOKENS) -> Measured:
    figures = {"median": median, "p95": median * 2, "success": 1.0, "count": 150.0}
    return Measured(release, 4, figures, 4 / median, 4, None)


def _rounds(*medians: tuple[float, float]) -> list[dict]:
    """Rounds of (27.0.0, 28.0.0) token medians at concurrency 4."""
    return [
        {
            ("27.0.0", 4, TOKENS): _row("27.0.0", old),
            ("28.0.0", 4, TOKENS): _row("28.0.0", new),
        }
        for old, new in medians
    ]


def test_a_newer_release_slower_in_every_round_is_slower() -> None:
    # the machine slowed 40% in round 2: both alike, the ratio stays 1.2x
    per_round = _rounds((0.10, 0.12), (0.14, 0.168), (0.10, 0.12))
    rows = releases.pair_rows(["27.0.0", "28.0.0"], per_round)
    tokens = next(row for row in rows if row.action == TOKENS)
    assert tokens.ratio == pytest.approx(1.2)
    assert tokens.drift == pytest.approx(0.4)
    assert tokens.verdict.call == verdicts.SLOWER
    said = verdicts.describe(tokens.verdict, subject="")
    assert said == "slower by 20% (95% CI +20% to +20%)"
    others = [row for row in rows if row.action != TOKENS]
    assert {verdicts.describe(row.verdict) for row in others} == {"not measured"}
    assert not any(row.verdict.measurable for row in others)


def test_rounds_that_disagree_are_not_measurable() -> None:
    per_round = _rounds((0.10, 0.12), (0.12, 0.10), (0.10, 0.11))
    (tokens, *_) = releases.pair_rows(["27.0.0", "28.0.0"], per_round)
    assert tokens.low is not None and tokens.low < 1 < tokens.high
    assert tokens.verdict.call == verdicts.NOT_MEASURABLE
    said = verdicts.describe(tokens.verdict)
    assert said.startswith("not measurable: the rounds disagree (spread ")


def test_rounds_that_agree_bound_the_difference() -> None:
    per_round = _rounds((0.10, 0.101), (0.12, 0.119), (0.10, 0.1005))
    (tokens, *_) = releases.pair_rows(["27.0.0", "28.0.0"], per_round)
    assert tokens.verdict.call == verdicts.NO_DIFFERENCE
    assert verdicts.describe(tokens.verdict).startswith("no difference larger than")


def test_each_release_has_a_row_per_action_measured_or_not() -> None:
    ours = {("27.0.0", 4, TOKENS): _row("27.0.0", 0.1)}
    rows = releases.release_rows(["27.0.0", "28.0.0"], ours, 4)
    assert len(rows) == 2 * len(releases.ACTIONS)
    assert rows[0].ours is ours[("27.0.0", 4, TOKENS)] and rows[1].ours is None
    assert releases.level_of([ours]) == 4 and releases.level_of([]) is None


def _counts(per_request: dict[str, float], failed: dict[str, str] | None = None):
    """Counts of validate_token per release, 0.3% layouts' spread, one
    read more per validation in each newer release."""
    sides = {
        release: {
            1: SideCount(
                "KeystonePerf.validate_token",
                value,
                0.003,
                {"read": 64.0 + n, "write": 0.0, "transaction": 64.0},
            )
        }
        for n, (release, value) in enumerate(per_request.items())
    }
    return InstructionCounts(
        sides, {"password_hash_rounds": 4}, failed or {}, {"layouts": 2}, {}
    )


def test_a_pair_is_judged_by_its_instructions_past_the_spread() -> None:
    counts = _counts({"27.0.0": 240e6, "28.0.0": 245.04e6, "29.0.0": 245.5e6})
    found = releases.release_counts(["27.0.0", "28.0.0", "29.0.0"], counts)
    assert found is not None and found.layouts == 2 and found.hash_rounds == 4
    validate = [p for p in found.pairs if p.action == "keystone.validate_token"]
    older, newer = validate
    assert older.ratio == pytest.approx(1.021) and older.queries == 1
    assert verdicts.describe(older.verdict, subject="") == (
        "costs 2.1% more instructions (layouts within 0.3%)"
    )
    # +0.19%: within the least margin a count calls (1%)
    assert newer.verdict.call == verdicts.NO_DIFFERENCE
    assert "no difference in instructions larger than 1.0%" in verdicts.describe(
        newer.verdict
    )
    tokens = [p for p in found.pairs if p.action == TOKENS]
    assert {verdicts.describe(p.verdict) for p in tokens} == {"not counted"}
    assert releases.release_counts(["27.0.0"], None) is None


def test_a_release_cheaper_by_its_count_is_faster() -> None:
    counts = _counts({"27.0.0": 250e6, "28.0.0": 240e6})
    found = releases.release_counts(["27.0.0", "28.0.0"], counts)
    assert found is not None
    (validate,) = [p for p in found.pairs if p.action == "keystone.validate_token"]
    assert validate.verdict.call == verdicts.FASTER
    assert verdicts.describe(validate.verdict, subject="28.0.0") == (
        "28.0.0 costs 4.0% fewer instructions (layouts within 0.3%)"
    )
