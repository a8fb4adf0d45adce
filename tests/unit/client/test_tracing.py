from __future__ import annotations

from typing import Any

import pytest
from osprofiler import _utils as osprofiler_utils
from osprofiler import profiler, web

from rally_keystone_perf.client import tracing


@pytest.mark.parametrize("fraction", [1.0, 0.5, 0.1, 0.25, 0.03])
@pytest.mark.parametrize("count", [1, 7, 100, 333])
def test_sampling_traces_the_share_asked_spread_evenly(
    fraction: float, count: int
) -> None:
    picked = [i for i in range(1, count + 1) if tracing.sampled(i, fraction)]
    assert abs(len(picked) - count * fraction) <= 1
    if count >= 100 and fraction >= 0.1:  # no long gap, no crowd
        gaps = [b - a for a, b in zip(picked, picked[1:], strict=False)]
        assert max(gaps) <= 2 / fraction and min(gaps) >= 0.5 / fraction


@pytest.mark.parametrize("fraction", [0.5, 1 / 3, 0.25, 0.1])
@pytest.mark.parametrize("nodes", [2, 3, 4])
def test_sampling_does_not_line_up_with_a_round_robin(
    fraction: float, nodes: int
) -> None:
    """haproxy sends iteration i to node i mod n: each node gets its share of
    the traced ones (a stride of 2 would trace one node of two only)."""
    picked = [i for i in range(1, 601) if tracing.sampled(i, fraction)]
    shares = [sum(1 for i in picked if i % nodes == k) for k in range(nodes)]
    assert min(shares) >= len(picked) / nodes / 2, shares


def _context(iteration: int, sample: float = 1.0) -> dict[str, Any]:
    return {
        tracing.CONTEXT_NAME: {"sample": sample, "hmac_key": "k3y"},
        "iteration": iteration,
        "owner_id": "w",
    }


def test_a_sampled_iteration_signs_its_headers_with_the_key() -> None:
    trace_id = tracing.begin(_context(1))
    headers = tracing.headers()
    assert trace_id and headers
    data = osprofiler_utils.signed_unpack(
        headers[web.X_TRACE_INFO], headers[web.X_TRACE_HMAC], ["k3y"]
    )
    assert data is not None and data["base_id"] == trace_id
    assert profiler.get() is None  # nothing left behind in this thread


def test_an_unsampled_iteration_drops_the_previous_headers() -> None:
    assert tracing.begin(_context(1, 0.5)) is None  # iteration 1 of 2: not traced
    assert tracing.begin(_context(2, 0.5)) is not None
    assert tracing.headers()
    assert tracing.begin(_context(3, 0.5)) is None
    assert tracing.headers() is None


def test_no_context_no_trace() -> None:
    assert tracing.begin({"iteration": 1}) is None
    assert tracing.headers() is None


def test_the_output_is_rally_openstacks() -> None:
    output = tracing.output({"iteration": 4, "owner_id": "w"}, "abc")
    assert output["title"] == "OSProfiler Trace-ID"
    assert output["chart_plugin"] == "OSProfiler"
    assert output["data"]["trace_id"] == "abc" and output["data"]["iteration"] == 4


@pytest.mark.parametrize(
    "output",
    [
        None,
        {},
        {"complete": "x"},
        {"complete": [{"title": "other", "data": {"trace_id": "a"}}]},
        {"complete": [{"title": tracing.OUTPUT_TITLE, "data": {"trace_id": 3}}]},
        {"complete": ["junk"]},
    ],
)
def test_no_trace_id_in_other_outputs(output: Any) -> None:
    assert tracing.trace_id(output) is None


def test_the_trace_id_reads_back() -> None:
    output = {"complete": [tracing.output({"iteration": 1}, "abc")]}
    assert tracing.trace_id(output) == "abc"
