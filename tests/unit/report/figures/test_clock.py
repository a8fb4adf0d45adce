"""Tests for report.figures.clock: a copied server log's clock offset."""

from __future__ import annotations

import math
import random

import pytest

from rally_keystone_perf.report.figures import clock

T0 = 1_764_077_000.0


def starts(seed: int, count: int, low: float, high: float) -> list[float]:
    """``count`` client starts, each ``low`` to ``high`` s after the previous."""
    rng = random.Random(seed)
    found, at = [], T0
    for _ in range(count):
        at += rng.uniform(low, high)
        found.append(at)
    return found


def others(seed: int, client: list[float], offset: float, count: int) -> list[float]:
    """``count`` unrelated server starts from 15 min before to 15 min after."""
    rng = random.Random(seed + 1000)
    return [
        rng.uniform(client[0] + offset - 900, client[-1] + offset + 900)
        for _ in range(count)
    ]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("offset", [3600.4, -7199.7, 0.6])
def test_truncated_stamps_with_other_requests_within_a_second(
    seed: int, offset: float
) -> None:
    client = starts(seed, 120, 0.2, 2.5)
    server = [math.floor(c + offset) for c in client]  # whole-second stamps
    found = clock.align(server + others(seed, client, offset, 20), client)
    assert found is not None
    assert found.offset == pytest.approx(offset, abs=1.0)
    assert (found.matched, found.of) == (120, 120)


@pytest.mark.parametrize("seed", range(3))
def test_exact_stamps_give_the_offset(seed: int) -> None:
    client = starts(seed, 60, 2.2, 6.0)
    server = [c - 7200.3 for c in client]
    found = clock.align(server + others(seed, client, -7200.3, 20), client)
    assert found is not None
    assert found.offset == pytest.approx(-7200.3, abs=0.05)


def test_exact_stamps_of_a_dense_load_with_a_narrow_tolerance() -> None:
    client = starts(1, 300, 0.01, 0.2)
    server = [c + 3600.4 for c in client]
    found = clock.align(server, client, tolerance=0.005)
    assert found is not None
    assert found.offset == pytest.approx(3600.4, abs=0.05)


def test_server_order_does_not_matter() -> None:
    client = starts(2, 80, 0.5, 3.0)
    server = [math.floor(c + 42.7) for c in client]
    reverse = clock.align(list(reversed(server)), list(reversed(client)))
    assert reverse == clock.align(server, client)


def test_one_request_each() -> None:
    assert clock.align([1005.0], [1000.0]) == clock.Alignment(5.0, 1, 1)


def test_sample_of_many_client_starts() -> None:
    client = starts(3, 500, 0.5, 2.0)
    server = [c + 10.0 for c in client]
    found = clock.align(server, client)
    assert found is not None
    assert found.of == clock.SAMPLE
    assert found.matched == clock.SAMPLE


def test_server_missing_some_lines() -> None:
    client = starts(4, 100, 2.2, 5.0)
    server = [c + 3.0 for c in client[::2]]  # half the lines lost
    found = clock.align(server, client)
    assert found is not None
    assert found.offset == pytest.approx(3.0, abs=0.05)
    assert (found.matched, found.of) == (50, 100)


@pytest.mark.parametrize(
    ("server", "client"), [([], []), ([], [1000.0]), ([1000.0], [])]
)
def test_no_data_is_none(server: list[float], client: list[float]) -> None:
    assert clock.align(server, client) is None


def test_line() -> None:
    assert clock.Alignment(3600.24, 190, 200).line() == (
        "server clock +3600.2 s from this machine's "
        "(190 of 200 of the run's requests lined up)"
    )
    assert clock.Alignment(-0.46, 3, 4).line().startswith("server clock -0.5 s ")
    assert clock.Alignment(0.0, 1, 1).line().startswith("server clock +0.0 s ")
