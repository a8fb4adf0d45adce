"""The report page's traced iterations: their table and waterfalls."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rally_keystone_perf.report import api
from rally_keystone_perf.report.readers import tracing as traces
from rally_keystone_perf.report.writers.html import tracing as waterfall
from tests.unit.report import traced as t
from tests.unit.report.writers.test_html import (
    assert_valid_page,
    svgs,
    text_tables,
)

NASTY_SQL = 'SELECT "a" FROM <b>t</b> WHERE x = 1 & y'


def _item(events: list[dict]) -> traces.TracedIteration:
    found = traces.spans(events)
    return traces.TracedIteration(7, 0.012, "x", traces.breakdown(found), tuple(found))


def test_each_nesting_level_is_a_lane() -> None:
    found = traces.spans(t.validation("x", sql=2))
    assert waterfall.depths(found) == {
        "w": 0,  # the request
        "p": 1,  # the policy check under it
        "d0": 2,  # the statement inside the policy check
        "c": 1,
        "d1": 1,
        "t": 1,
    }


def test_a_bar_per_span_coloured_by_category_with_what_it_did() -> None:
    events = t.validation("x", sql=2)
    events[2]["info"]["db"]["statement"] = NASTY_SQL
    (svg,) = svgs(waterfall.waterfall(_item(events)))
    bars = list(svg.iter("rect"))
    assert len(bars) == 6  # wsgi, policy, 2 statements, cache, token
    titles = [bar.findtext("title") or "" for bar in bars]
    assert f"db: 1.00 ms. {NASTY_SQL}" in titles  # escaped, parsed back
    assert "cache: 0.50 ms. cache get: miss" in titles
    colours = {bar.get("fill") for bar in bars}
    assert colours == {
        waterfall.CATEGORY_COLORS[c]
        for c in ("rest", "policy", "sql", "cache", "token")
    }
    xs = [float(bar.get("x") or 0) for bar in bars]
    widths = [float(bar.get("width") or 0) for bar in bars]
    wsgi = xs[0], xs[0] + widths[0]
    assert all(
        wsgi[0] <= x and x + w <= wsgi[1] + 0.01
        for x, w in zip(xs, widths, strict=True)
    )
    title = svg.findtext("title") or ""
    assert title == "iteration #7: 12.0 ms on the client, 10.0 ms in Keystone"


def test_a_huge_trace_draws_its_first_spans_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(waterfall, "MAX_SPANS", 3)
    (svg,) = svgs(waterfall.waterfall(_item(t.validation("x", sql=2))))
    assert len(list(svg.iter("rect"))) == 3
    assert "the first 3 of 6 spans" in (svg.findtext("title") or "")


def test_an_iteration_without_spans_has_no_waterfall() -> None:
    item = _item(t.validation("x"))
    empty = traces.TracedIteration(1, 0.1, "x", item.breakdown)
    assert waterfall.waterfall(empty) == ""


def test_the_page_has_the_traced_table_and_a_waterfall_per_slow_one(
    tmp_path: Path,
) -> None:
    report = t.traced_run(tmp_path)
    out = io.StringIO()
    api.report([report], out, "html")
    page = assert_valid_page(out.getvalue())
    table = io.StringIO()
    api.report([report], table, "table")
    traced = [tab for tab in page.tables if tab.caption.startswith("slowest traced")]
    (expected,) = [
        (header, rows)
        for header, rows in text_tables(table.getvalue())
        if header[0] == "iteration"
    ]
    assert len(traced) == 1 and (traced[0].header, traced[0].rows) == expected
    plots = svgs(out.getvalue())
    titles = [svg.findtext("title") or "" for svg in plots]
    waterfalls = [title for title in titles if title.startswith("iteration #")]
    assert [w.split(":")[0] for w in waterfalls] == ["iteration #3", "iteration #4"]
    text = "".join(page.text)
    assert "bottleneck: " in text and "tracing cost: " in text
