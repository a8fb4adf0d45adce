"""``releases``: bad input refused before anything is installed; a release
left out is named and the others measured; an interrupt is partial."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.cli import release_commands
from rally_keystone_perf.deploy.options import LaunchError
from tests.unit.run import fake_sides


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Nothing installed nor looked up: every build ready, PyPI not asked."""
    monkeypatch.setattr(
        release_commands.preflight, "check_requirements", lambda r: None
    )
    failing: dict[str, Any] = {"install": set()}

    def prepare(deployment: Any, echo: Any) -> Any:
        if deployment.options.keystone_build in failing["install"]:
            raise LaunchError("pip said: no matching distribution")
        return deployment

    monkeypatch.setattr(release_commands.releases_run.prepare, "prepare", prepare)
    monkeypatch.setattr(
        release_commands.releases_run,
        "latest_releases",
        lambda: ["27.0.0", "28.0.0", "29.0.0", "30.0.0"],
    )
    failing["counted"] = []

    def count_releases(folder: Path, ready: Any, *rest: Any) -> dict[str, Any]:
        failing["counted"].append(list(ready))
        return {"failed": {}}

    monkeypatch.setattr(release_commands, "_counting", lambda *a: True)
    monkeypatch.setattr(release_commands.instructions, "count_releases", count_releases)
    return failing


def test_a_keystone_build_is_refused(
    quiet: dict, capsys: pytest.CaptureFixture
) -> None:
    argv = ["releases", "--keystone-build", "keystone==27.0.0"]
    assert cli.main(argv) == 1
    assert "drop --keystone-build" in capsys.readouterr().err


def test_clusters_are_refused(quiet: dict, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["releases", "--nodes", "2"]) == 1
    assert "one node each" in capsys.readouterr().err


def test_one_release_is_refused(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["releases", "--releases", "27.0.0"])
    assert "two releases or more" in capsys.readouterr().err


def test_the_libraries_default_to_each_releases_own() -> None:
    args = cli.build_parser().parse_args(["releases"])
    assert args.build_deps == "release"
    assert cli.build_parser().parse_args(["run"]).build_deps == "suite"


def test_a_release_left_out_is_named_and_an_interrupt_keeps_the_page_partial(
    quiet: dict,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    quiet["install"] = {"keystone==28.0.0"}
    seen = fake_sides.install(monkeypatch)
    seen["interrupt_at"] = 2  # round 1's second release
    argv = ["releases", "--runs-dir", str(tmp_path)]
    assert cli.main(argv) == 130
    out, err = capsys.readouterr()
    assert "release 28.0.0 left out: it does not install" in err
    assert "left out: 28.0.0 (does not install): pip said: no matching" in out
    assert "ours: 0 rounds (partial: 0 of 3) taken in turns" in out
    assert seen["log"][0] == "study:releases config:27.0.0 round:1"
    folder = tmp_path / "releases-quick"
    for name in ("rounds.json", "releases.md", "releases.html", "releases.svg"):
        assert (folder / name).is_file(), name


def test_counting_is_skipped_with_the_reason_unless_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def missing(*args: Any) -> None:
        raise LaunchError("valgrind is not installed (apt-get install valgrind)")

    monkeypatch.setattr(release_commands.instructions, "check_countable", missing)
    task = release_commands.TaskFile.load(
        release_commands.paths.tasks_dir() / "releases-quick.json"
    )
    assert release_commands._counting(None, {}, task) is False
    assert "instruction counts skipped: valgrind is not installed" in (
        capsys.readouterr().err
    )
    assert release_commands._counting(False, {}, task) is False
    with pytest.raises(LaunchError, match="apt-get install valgrind"):
        release_commands._counting(True, {}, task)
    monkeypatch.setattr(
        release_commands.instructions, "check_countable", lambda *a: None
    )
    assert release_commands._counting(None, {}, task) is True
    assert (
        cli.build_parser().parse_args(["releases", "--no-instructions"]).instructions
        is False
    )


def test_the_releases_are_counted_after_their_rounds(
    quiet: dict,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    fake_sides.install(monkeypatch)
    pages: list = []
    monkeypatch.setattr(release_commands, "_page", lambda *a: pages.append(a))
    monkeypatch.setattr(release_commands, "_write", lambda *a: None)
    argv = ["releases", "--releases", "29.0.0,30.0.0", "--rounds", "2"]
    assert cli.main([*argv, "--runs-dir", str(tmp_path)]) == 0
    assert quiet["counted"] == [["29.0.0", "30.0.0"]]
    assert pages[0][-1] == tmp_path / "releases-quick"  # the page reads the counts
