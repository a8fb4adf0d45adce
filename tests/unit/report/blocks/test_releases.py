"""The releases page: tables within 120 columns, the left-out releases, the plot."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from rally_keystone_perf.report.figures import releases as figures
from rally_keystone_perf.report.figures.study import Measured
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.run.releases import Failure

TOKENS = "keystone.create_token"


def _page() -> figures.ReleasesPage:
    per_round = [
        {
            (v, 4, TOKENS): Measured(
                v,
                4,
                {"median": m, "p95": m, "success": 1.0, "count": 150.0},
                30.0,
                4,
                None,
            )
            for v, m in (("27.0.0", 0.1 * k), ("28.0.0", 0.12 * k))
        }
        for k in (1.0, 1.3, 1.1)
    ]
    versions = ["27.0.0", "28.0.0", "29.0.0"]
    measured = versions[:2]
    from rally_keystone_perf.report.figures.study_rounds import combined

    return figures.ReleasesPage(
        "Keystone releases (quick)",
        versions,
        figures.release_rows(measured, combined(per_round), 4),
        figures.pair_rows(measured, per_round),
        [Failure("29.0.0", "install", "pip said: no matching distribution")],
        ("ours: 3 rounds taken in turns",),
    )


def test_the_text_page_names_every_release_and_the_one_left_out() -> None:
    out = io.StringIO()
    registry.writer(registry.RELEASES, "table")(_page(), out)
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "| create_token   | 27.0.0  |  0.113 |" in text
    assert "28.0.0 vs 27.0.0" in text and "slower by 20% (95% CI +20% to +20%)" in text
    assert "left out: 29.0.0 (does not install): pip said: no matching" in text


def test_the_plot_is_a_standalone_svg_of_the_medians() -> None:
    out = io.StringIO()
    registry.writer(registry.RELEASES, "svg")(_page(), out)
    root = ET.fromstring(out.getvalue())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "create_token" in out.getvalue()


def test_markdown_and_html_pages() -> None:
    markdown, html = io.StringIO(), io.StringIO()
    registry.writer(registry.RELEASES, "markdown")(_page(), markdown)
    registry.writer(registry.RELEASES, "html")(_page(), html)
    assert "| create_token | 28.0.0 |" in markdown.getvalue()
    assert html.getvalue().startswith("<!DOCTYPE html>") and "<svg" in html.getvalue()
