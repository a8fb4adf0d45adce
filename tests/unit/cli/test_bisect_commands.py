"""``bisect``: bad input refused before any build; a search on a small
repository whose builds and counts are faked, its page written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.cli import bisect_commands
from rally_keystone_perf.deploy.instructions import count
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.run import bisect
from tests.unit.deploy.builds.keystone_repo import git, make_repo


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

    def count_side(folder: Path, options: Any, specs: Any, *rest: Any) -> Any:
        sha = options.keystone_build.rsplit("@", 1)[1]
        seen["counted"].append(sha)
        cost = 103e6 if sha in dearer else 100e6
        found = [
            count.WorkloadCount(
                n, s["scenario"], 1.0, cost, [[1, 1]], 4, {"read": 64.0}
            )
            for n, s in enumerate(specs)
        ]
        return count.SideCount(found, {})

    def profile_side(folder: Path, options: Any, *rest: Any) -> dict[int, Path]:
        sha = options.keystone_build.rsplit("@", 1)[1]
        folder.mkdir(parents=True, exist_ok=True)
        functions = {
            "keystone/token/provider.py:Manager.validate_token": [
                4,
                300 if sha in dearer else 200,
            ],
            "keystone/common/sql/core.py:session_for_read": [
                12 if sha in dearer else 8,
                40,
            ],
        }
        out = folder / "profile-0.json"
        out.write_text(json.dumps({"iterations": 4, "functions": functions}))
        return {0: out}

    monkeypatch.setattr(bisect.count, "count_side", count_side)
    monkeypatch.setattr(bisect.count, "profile_side", profile_side)
    return seen


def _nothing(*args: Any) -> None:
    return None


def _argv(repo: Path, tmp_path: Path, *more: str) -> list[str]:
    return [
        *("bisect", "--repo", str(repo), "--good", "29.0.0", "--bad", "master"),
        *("--runs-dir", str(tmp_path / "runs"), "--bisect-dir", str(tmp_path / "b")),
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
    (first, *_) = page["culprit"]["functions"]["KeystonePerf.validate_token"]
    assert first == {
        "function": "keystone/token/provider.py:Manager.validate_token",
        "calls": [1.0, 1.0],
        "lines": [50.0, 75.0],
    }
    for suffix in ("md", "html"):
        assert faked["dearer"][:12] in (tmp_path / "b" / f"bisect.{suffix}").read_text()


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
        (("--keystone-build", "keystone"), "drop --keystone-build"),
        (("--action", "list_users"), "the task has no KeystonePerf.list_users"),
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
