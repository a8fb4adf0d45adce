"""The report page's overview, distributions, load profile, failures and
input task (blocks.shape, blocks.overview)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rally_keystone_perf.report.figures import run_labels
from tests.unit.report import runs as r
from tests.unit.report.writers.test_html import Page, assert_valid_page, svgs


def _page(tmp_path: Path) -> str:
    r.make_run(
        tmp_path,
        "one",
        [
            r.workload(r.gauss(1, 0.4, 30), concurrency=2, errors=(3, 7)),
            r.workload(r.gauss(2, 0.2, 30), concurrency=4, position=1),
        ],
        r.state(),
    )
    return r.write_report(run_labels.load_reports([tmp_path / "one"]), "html")


def _titles(out: str) -> list[str]:
    return [svg.findtext("title") or "" for svg in svgs(out)]


def test_the_overview_links_every_workload_to_its_section(tmp_path: Path) -> None:
    out = _page(tmp_path)
    page = assert_valid_page(out)
    overview = page.tables[0]
    assert overview.caption == "overview"
    assert [row[2] for row in overview.rows] == ["2", "4"]  # the concurrency
    assert [row[4] for row in overview.rows] == ["93.3%", "100.0%"]  # success
    links = re.findall(r'<a href="#([^"]+)">', out)
    assert links == ["w1-1", "w1-2"]
    for anchor in links:
        assert f'id="{anchor}"' in out


def test_a_histogram_and_a_cdf_per_action_failed_marked(tmp_path: Path) -> None:
    titles = _titles(_page(tmp_path))
    for name in ("keystone.create_token", "total"):
        assert sum(t.startswith(f"{name}: durations of 30 calls") for t in titles) == 2
        assert sum(t.startswith(f"{name}: share of calls") for t in titles) == 2
    first = next(
        s
        for s in svgs(_page(tmp_path))
        if "durations of" in (s.findtext("title") or "")
    )
    fills = {rect.get("fill") for rect in first.iter("rect")}
    assert len(fills) == 2  # successful and failed bars


def test_the_load_profile_and_the_levels(tmp_path: Path) -> None:
    out = _page(tmp_path)
    titles = _titles(out)
    assert titles.count("load profile: iterations in flight") == 2
    assert titles.count("load profile: successful iterations per second") == 2
    # one configuration at concurrency 2 and 4: latency against concurrency
    assert "<h2>latency vs concurrency</h2>" in out


def test_failures_grouped_and_the_input_task(tmp_path: Path) -> None:
    out = _page(tmp_path)
    page = Page(out)
    (failures,) = [t for t in page.tables if t.caption.startswith("failures")]
    assert failures.rows == [["HttpError", "2", "3.0", "7.0", "database is locked"]]
    tasks = re.findall(r"<pre>(.*?)</pre>", out, re.S)
    assert len(tasks) == 2
    asked = json.loads(tasks[0].replace("&quot;", '"'))
    assert asked["runner"] == {"constant": {"times": 30, "concurrency": 2}}
    assert "KeystonePerf.create_token" in asked["scenario"]


def test_a_workload_on_clusters_of_two_sizes_against_nodes(tmp_path: Path) -> None:
    for nodes in (1, 2):
        state = r.state()
        state["options"]["nodes"] = nodes
        r.make_run(
            tmp_path,
            f"n{nodes}",
            [r.workload(r.gauss(nodes, 0.4 / nodes, 20), concurrency=8)],
            state,
        )
    out = r.write_report(
        run_labels.load_reports([tmp_path / "n1", tmp_path / "n2"]), "html"
    )
    page = assert_valid_page(out)
    assert "<h2>latency and throughput vs nodes</h2>" in out
    (table,) = [t for t in page.tables if t.caption.startswith("vs nodes: ")]
    assert [row[0] for row in table.rows] == ["1", "2"]
    titles = _titles(out)
    assert sum(t.endswith(": latency vs nodes") for t in titles) == 1
    assert sum(t.endswith(": throughput vs nodes") for t in titles) == 1
