"""The bisect's search on simulated histories with a known cost per step."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rally_keystone_perf.run import bisect_search as search
from rally_keystone_perf.run.bisect_search import Cost, Outcome, Skip

VALIDATE = "KeystonePerf.validate_token"


def _cost(instructions: float, queries: float = 64.0) -> Cost:
    return Cost({VALIDATE: instructions}, {VALIDATE: queries})


def _history(costs: Sequence[float | None], queries: float = 64.0) -> list[Outcome]:
    """A step per cost; None: a step that does not build."""
    return [Skip("does not build") if c is None else _cost(c, queries) for c in costs]


def _run(
    history: Sequence[Outcome],
    known: dict[int, Outcome] | None = None,
    most: int | None = None,
) -> tuple[search.Conclusion, list[int]]:
    counted: list[int] = []

    def measure(index: int) -> Outcome:
        counted.append(index)
        return history[index]

    outcomes = {} if known is None else known
    found = search.search(len(history), measure, outcomes, 0.01, most)
    return found, counted


@pytest.mark.parametrize("culprit", range(1, 16))
def test_sixteen_steps_find_the_culprit_in_at_most_six_counts(culprit: int) -> None:
    history = _history([100.0 if i < culprit else 103.0 for i in range(16)])
    found, counted = _run(history)
    assert found.status == search.FOUND
    assert (found.last_within, found.first_past) == (culprit - 1, culprit)
    assert len(counted) <= 6 and counted[:2] == [0, 15]


def test_bad_within_the_threshold_of_good_is_nothing_to_find() -> None:
    found, counted = _run(_history([100.0, 104.0, 100.5]))
    assert found.status == search.NOTHING and counted == [0, 2]


def test_a_cheaper_bad_is_bisected_the_other_way() -> None:
    found, _ = _run(_history([100.0, 100.2, 95.0, 95.1, 94.8]))
    assert found.status == search.FOUND and found.first_past == 2
    assert found.moves[0].measure == search.INSTRUCTIONS


def test_one_more_query_is_a_move_even_with_the_same_instructions() -> None:
    history = [_cost(100.0), _cost(100.0), _cost(100.1, 65.0), _cost(100.0, 65.0)]
    found, _ = _run(history)
    assert [m.measure for m in found.moves] == [search.QUERIES]
    assert found.status == search.FOUND and found.first_past == 2


def test_a_skipped_middle_step_is_passed_over_for_its_neighbour() -> None:
    history = _history([100.0, 100.0, 100.0, None, 100.0, 103.0, 103.0])
    found, counted = _run(history)
    assert counted[:4] == [0, 6, 3, 2]
    assert found.status == search.FOUND and found.first_past == 5
    assert found.last_within == 4 and list(found.skipped) == []


def test_a_culprit_hidden_among_skipped_steps_names_them_all() -> None:
    history = _history([100.0, 100.0, None, None, 103.0, 103.0])
    found, _ = _run(history)
    assert found.status == search.AMONG_SKIPPED
    assert (found.last_within, found.first_past) == (1, 4)
    assert list(found.skipped) == [2, 3]


def test_good_that_does_not_build_ends_the_search() -> None:
    found, counted = _run(_history([None, 100.0, 103.0]))
    assert found.status == search.ENDS_FAILED and counted == [0, 2]


def test_a_cost_that_goes_up_then_down_shows_two_changes() -> None:
    found, counted = _run(_history([100.0, 100.0, 100.0, 106.0, 106.0, 103.0, 103.0]))
    assert found.status == search.FOUND and found.first_past == 3
    assert found.changes == [(2, 3), (3, 6)]


def test_a_cost_that_went_the_other_way_first_shows_two_changes() -> None:
    found, _ = _run(_history([100.0, 96.0, 96.0, 96.0, 103.0, 103.0]))
    assert found.status == search.FOUND and found.first_past == 4
    assert len(found.changes) == 2


def test_one_change_shows_one() -> None:
    found, _ = _run(_history([100.0] * 5 + [103.0] * 3))
    assert found.changes == [(4, 5)]


def test_a_drift_past_the_threshold_shows_where_the_change_is() -> None:
    # the cost creeps down 0.4% a step, then drops 3%: the first step past
    # 1% from good is a creep of 0.4% from its parent, not a change; the
    # change past 1% lies between two steps the search counted
    costs = [100.0, 99.6, 99.2, 98.8, 98.4, 98.0, 95.0]
    found, _ = _run(_history(costs))
    assert found.status == search.FOUND and found.first_past == 3
    assert (found.last_within, found.first_past) not in found.changes
    assert found.changes == [(3, 6)]  # counted: 0, 6, 3, 2


def _spread(instructions: float, spread: float) -> Cost:
    return Cost({VALIDATE: instructions}, {VALIDATE: 64.0}, {VALIDATE: spread})


def test_a_change_within_the_layouts_spread_is_not_a_move() -> None:
    # +0.9% with layouts 1.6% apart: what the layouts alone move a count
    assert search.moved(_spread(100.0, 0.016), _spread(100.9, 0.013), 0.005) == []
    (move,) = search.moved(_spread(100.0, 0.016), _spread(96.2, 0.011), 0.005)
    assert move.floor == 0.016 and search.least(move, 0.005) == 0.016
    assert search.least(move, 0.02) == 0.02
    # a step 0.5% from good is not past a spread of 1.6%, one 3.7% is
    assert search.is_past(_spread(99.5, 0.006), [move], 0.005) is False
    assert search.is_past(_spread(96.3, 0.015), [move], 0.005) is True


def test_the_search_passes_over_a_drift_within_the_spread() -> None:
    # the library bisect of 2026-11-29: a creep of 0.5% (within the
    # layouts' 1.6%) then -4%: the culprit is the -4% step, not the creep
    costs = [100.0, 99.8, 99.6, 99.5, 99.5, 95.5, 96.2]
    history: list[Outcome] = [_spread(c, 0.016) for c in costs]
    found, _ = _run(history)
    assert found.status == search.FOUND
    assert (found.last_within, found.first_past) == (4, 5)
    assert found.changes == [(4, 5)]


def test_neighbours_are_apart_past_the_threshold_either_way() -> None:
    moves = search.moved(_cost(100.0), _cost(103.0), 0.01)
    assert not search.apart(_cost(100.0), _cost(100.5), moves, 0.01)
    assert search.apart(_cost(103.0), _cost(101.5), moves, 0.01)
    assert not search.apart(_cost(100.0), Cost({}, {}), moves, 0.01)
    queries = search.moved(_cost(100.0), _cost(100.0, 65.0), 0.01)
    assert search.apart(_cost(100.0), _cost(100.0, 65.0), queries, 0.01)


def test_a_stopped_search_resumes_from_the_outcomes_it_kept() -> None:
    history = _history([100.0 if i < 11 else 102.0 for i in range(16)])
    known: dict[int, Outcome] = {}
    first, counted_first = _run(history, known, most=3)
    assert first.status == search.UNFINISHED and len(known) == 3
    found, counted_after = _run(history, known)
    assert found.status == search.FOUND and found.first_past == 11
    assert not set(counted_first) & set(counted_after)
    _, alone = _run(history)
    assert counted_first + counted_after == alone


def test_a_step_without_a_moved_measure_is_passed_over() -> None:
    good, bad = _cost(100.0), _cost(103.0)
    moves = search.moved(good, bad, 0.01)
    assert search.is_past(Cost({}, {}), moves, 0.01) is None
    assert search.is_past(_cost(102.0), moves, 0.01) is True
    history = [good, _cost(100.0), Cost({}, {}), _cost(103.0), bad]
    found, counted = _run(history)
    assert found.status == search.AMONG_SKIPPED and list(found.skipped) == [2]
