"""``bisect``: bad input refused before any build; a search on a small
repository whose builds and counts are faked, its page written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.cli import bisect_commands
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.run import bisect
from tests.unit.deploy.builds.keystone_repo import git, make_repo
from tests.unit.run import fake_counts


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "keystone")


@pytest.fixture
def faked(monkeypatch: pytest.MonkeyPatch, repo: Path) -> dict[str, Any]:
    """Valgrind there; each commit built at once and counted: 100M
    instructions a validation, 103M from the merge of the topic on."""
    monkeypatch.setattr(bisect_commands.instructions, "check_countable", _nothing)
    seen: dict[str, Any] = {"counted": [], "dearer": git(repo, "rev-parse", "master~1")}
    dearer = {seen["dearer"], git(repo, "rev-parse", "master")}
    monkeypatch.setattr(bisect.prepare, "prepare", lambda d, echo: d)

    def cost(options: Any) -> float:
        return 103e6 if Path(options.keystone_build).name in dearer else 100e6

    monkeypatch.setattr(
        bisect.count, "count_side", fake_counts.count_side(cost, seen["counted"])
    )
    return seen


def _nothing(*args: Any) -> None:
    return None


def _argv(repo: Path, tmp_path: Path, *more: str) -> list[str]:
    return [
        *("bisect", "--repo", str(repo), "--good", "29.0.0", "--bad", "master"),
        *("--runs-dir", str(tmp_path / "runs"), "--bisect-dir", str(tmp_path / "b")),
        *("--build-cache", str(tmp_path / "builds")),
        *more,
    ]


def test_the_merge_that_made_validation_dearer_is_named(
    repo: Path, tmp_path: Path, faked: dict[str, Any], capsys: pytest.CaptureFixture
) -> None:
    argv = _argv(repo, tmp_path, "--action", "validate_token")
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert f'{faked["dearer"][:12]} (Merge "Topic") is the first step past' in out
    page = json.loads((tmp_path / "b" / "bisect-page.json").read_text())
    assert page["culprit"]["files"] == [
        "keystone/common/sql.py",
        "keystone/common/utils.py",
    ]
    assert page["culprit"]["changes"]["KeystonePerf.validate_token"]["ratio"] == (
        pytest.approx(1.03)
    )
    assert {"KeystonePerf.validate_token"} == {s["workload"] for s in page["steps"]}
    (first,) = page["culprit"]["functions"]["KeystonePerf.validate_token"]
    assert first == {
        "function": fake_counts.PROVIDER,
        "calls": [1.0, 1.0],
        "lines": [25.0, 25.75],
    }
    for suffix in ("md", "html"):
        assert faked["dearer"][:12] in (tmp_path / "b" / f"bisect.{suffix}").read_text()
    # each step counted was built from its commit's files, beside the builds
    exported = tmp_path / "builds" / "commits" / faked["dearer"]
    assert (exported / "keystone" / "common" / "sql.py").is_file()


def test_the_same_command_resumes_without_counting_again(
    repo: Path, tmp_path: Path, faked: dict[str, Any]
) -> None:
    assert cli.main(_argv(repo, tmp_path, "--max-steps", "2")) == 0
    assert len(faked["counted"]) == 2
    assert cli.main(_argv(repo, tmp_path)) == 0
    assert len(faked["counted"]) == len(set(faked["counted"])) == 4


@pytest.mark.parametrize(
    ("more", "said"),
    [
        (("--good", "nope"), "no commit named 'nope'"),
        (("--good", "master", "--bad", "29.0.0"), "not an ancestor"),
        (("--keystone-build", "keystone"), "give --repo, --good and --bad"),
        (("--action", "list_users"), "the task has no KeystonePerf.list_users"),
        (("--build-deps", "release"), "a commit has no release day"),
    ],
)
def test_bad_input_is_refused_before_any_build(
    repo: Path,
    tmp_path: Path,
    faked: dict[str, Any],
    capsys: pytest.CaptureFixture,
    more: tuple[str, ...],
    said: str,
) -> None:
    assert cli.main(_argv(repo, tmp_path, *more)) == 1
    assert said in capsys.readouterr().err
    assert not faked["counted"] and not (tmp_path / "b").exists()


def test_no_valgrind_is_refused_before_any_build(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    def no_valgrind(*args: Any) -> None:
        raise LaunchError("valgrind is not installed; instruction counts need it")

    monkeypatch.setattr(bisect_commands.instructions, "check_countable", no_valgrind)
    assert cli.main(_argv(repo, tmp_path)) == 1
    assert "valgrind is not installed" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()


def test_a_repository_without_tags_is_refused(
    repo: Path, tmp_path: Path, faked: dict[str, Any], capsys: Any
) -> None:
    git(repo, "tag", "-d", "29.0.0")
    argv = _argv(repo, tmp_path)
    argv[argv.index("29.0.0")] = "master~3"
    assert cli.main(argv) == 1
    assert "no tag is reachable" in capsys.readouterr().err


@pytest.fixture
def days(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """keystone==28.0.0 released 2025-10-01; each day's build faked: the
    libraries of 2025-10-04 on cost 3% more, SQLAlchemy updated that day."""
    monkeypatch.setattr(bisect_commands.instructions, "check_countable", _nothing)
    monkeypatch.setattr(
        bisect_commands.bisect_history.resolve,
        "resolve",
        lambda spec: type("R", (), {"version": "28.0.0"})(),  # its version alone
    )
    monkeypatch.setattr(
        bisect_commands.bisect_history.dated,
        "release_date",
        lambda version: "2025-10-01T12:00:00Z",
    )
    seen: dict[str, Any] = {"counted": []}
    monkeypatch.setattr(bisect.prepare, "prepare", lambda d, echo: d)
    monkeypatch.setattr(bisect, "_libraries", lambda options: _day_libraries(options))

    def cost(options: Any) -> float:
        return 103e6 if options.build_deps >= "2025-10-04" else 100e6

    monkeypatch.setattr(
        bisect.count, "count_side", fake_counts.count_side(cost, seen["counted"])
    )
    return seen


def _day_libraries(options: Any) -> dict[str, str]:
    newer = options.build_deps >= "2025-10-04"
    return {"keystone": "28.0.0", "SQLAlchemy": "2.0.44" if newer else "2.0.43"}


def _day_argv(tmp_path: Path, first: str, last: str) -> list[str]:
    return [
        *("bisect", "--keystone-build", "keystone==28.0.0"),
        *("--deps-good", first, "--deps-bad", last, "--action", "validate_token"),
        *("--runs-dir", str(tmp_path / "runs"), "--bisect-dir", str(tmp_path / "b")),
    ]


def test_the_day_a_library_update_made_validation_dearer_is_named(
    tmp_path: Path, days: dict[str, Any], capsys: pytest.CaptureFixture
) -> None:
    assert cli.main(_day_argv(tmp_path, "2025-10-02", "2025-10-09")) == 0
    out = capsys.readouterr().out
    assert "2025-10-04 (libraries as of 2025-10-04) is the first step past" in out
    assert "its libraries changed: SQLAlchemy 2.0.43 -> 2.0.44" in out
    page = json.loads((tmp_path / "b" / "bisect-page.json").read_text())
    assert page["culprit"]["libraries"] == [
        {"name": "SQLAlchemy", "before": "2.0.43", "after": "2.0.44"}
    ]
    assert days["counted"][:2] == ["2025-10-02", "2025-10-09"]


@pytest.mark.parametrize(
    ("first", "last", "said"),
    [
        ("2025-10-01", "2025-10-09", "uploaded to PyPI on 2025-10-01"),
        ("2025-10-09", "2025-10-02", "is not after --deps-good"),
    ],
)
def test_bad_days_are_refused_before_any_build(
    tmp_path: Path,
    days: dict[str, Any],
    capsys: pytest.CaptureFixture,
    first: str,
    last: str,
    said: str,
) -> None:
    assert cli.main(_day_argv(tmp_path, first, last)) == 1
    assert said in capsys.readouterr().err and not days["counted"]


def test_days_with_build_deps_are_refused(
    tmp_path: Path, days: dict[str, Any], capsys: pytest.CaptureFixture
) -> None:
    argv = [*_day_argv(tmp_path, "2025-10-02", "2025-10-09"), "--build-deps", "release"]
    assert cli.main(argv) == 1
    assert "each step sets the libraries' day" in capsys.readouterr().err


def test_both_histories_at_once_are_refused(
    repo: Path, tmp_path: Path, days: dict[str, Any], capsys: Any
) -> None:
    argv = _argv(repo, tmp_path, "--deps-good", "2025-10-02")
    assert cli.main(argv) == 1
    assert "give --repo, --good and --bad" in capsys.readouterr().err
