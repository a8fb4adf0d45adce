"""``report --trends``: the CLI around :mod:`..report.figures.trends`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from tests.unit.report import runs as r


def _runs(root: Path) -> Path:
    for name in ("one", "two"):
        r.make_run(root, name, [r.workload(r.gauss(5, 0.2), concurrency=4)], r.state())
    return root


def test_trends_of_a_runs_folder(tmp_path: Path, capsys) -> None:
    runs = _runs(tmp_path / "runs")
    assert cli.main(["report", "--trends", str(runs), "--format", "json"]) == 0
    (trend,) = json.loads(capsys.readouterr().out)["trends"]
    assert [p["gate"] for p in trend["points"]] == ["first run", "PASS"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--combined"], "error: --trends and --combined: choose one"),
        (["--format", "csv"], "error: unknown format 'csv'"),
    ],
)
def test_trends_refuses_what_it_cannot_write(
    tmp_path: Path, capsys, extra: list[str], message: str
) -> None:
    runs = _runs(tmp_path / "runs")
    assert cli.main(["report", "--trends", str(runs), *extra]) == 1
    assert capsys.readouterr().err.startswith(message)


def test_trends_of_a_folder_without_reports(tmp_path: Path, capsys) -> None:
    assert cli.main(["report", "--trends", str(tmp_path)]) == 1
    assert "no Rally reports under it" in capsys.readouterr().err


def test_help_names_trends(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["report", "--help"])
    assert "--trends" in capsys.readouterr().out
