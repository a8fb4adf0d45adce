"""A Keystone repository's first-parent history, on small repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.builds import history
from rally_keystone_perf.deploy.options import LaunchError

AUTHOR = ("-c", "user.name=t", "-c", "user.email=t@localhost")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *AUTHOR, *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _commit(repo: Path, path: str, text: str, subject: str) -> str:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", subject)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """master: release 29.0.0, a change, a merged topic branch, a change."""
    repo = tmp_path / "keystone"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "master")
    _commit(repo, "keystone/__init__.py", "", "Initial")
    _git(repo, "tag", "29.0.0")
    _git(repo, "tag", "zed-eom")
    _commit(repo, "keystone/token/provider.py", "a = 1\n", "Cache the provider")
    _git(repo, "checkout", "-q", "-b", "topic")
    _commit(repo, "keystone/common/sql.py", "b = 1\n", "Topic one")
    _commit(repo, "keystone/common/utils.py", "c = 1\n", "Topic two")
    _git(repo, "checkout", "-q", "master")
    _git(repo, "merge", "-q", "--no-ff", "-m", 'Merge "Topic"', "topic")
    _commit(repo, "README.rst", "r\n", "Docs")
    return repo


def test_first_parents_are_the_merges_with_their_files(repo: Path) -> None:
    steps = history.first_parents(repo, "29.0.0", "master")
    assert [s.subject for s in steps] == [
        "Initial",
        "Cache the provider",
        'Merge "Topic"',
        "Docs",
    ]
    assert steps[2].files == ("keystone/common/sql.py", "keystone/common/utils.py")
    assert steps[1].files == ("keystone/token/provider.py",)
    assert steps[-1].sha == _git(repo, "rev-parse", "master")
    assert steps[0].date[:2] == "20"


def test_versions_come_from_the_numbered_tags(repo: Path) -> None:
    assert history.version_of(repo, _git(repo, "rev-parse", "29.0.0")) == "29.0.0"
    assert history.version_of(repo, _git(repo, "rev-parse", "master")) == (
        "29.0.1.dev5"  # every commit since the tag, as pbr counts
    )


def test_no_tag_reachable_is_refused_with_the_reason(repo: Path) -> None:
    _git(repo, "tag", "-d", "29.0.0")
    with pytest.raises(LaunchError, match="no tag is reachable.*git fetch --tags"):
        history.version_of(repo, _git(repo, "rev-parse", "master"))


@pytest.mark.parametrize(
    ("good", "bad", "said"),
    [
        ("29.0.0", "nope", "no commit named 'nope'"),
        ("master", "29.0.0", "not an ancestor"),
        ("topic", "topic", "the same commit"),
    ],
)
def test_bad_ranges_are_refused(repo: Path, good: str, bad: str, said: str) -> None:
    with pytest.raises(LaunchError, match=said):
        history.check_range(repo, good, bad)


def test_a_repository_that_is_not_keystone_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "nova"
    other.mkdir()
    _git(other, "init", "-q", "-b", "master")
    _commit(other, "nova/__init__.py", "", "Initial")
    _commit(other, "nova/a.py", "", "Two")
    with pytest.raises(LaunchError, match="not Keystone"):
        history.check_range(other, "master~1", "master")
    with pytest.raises(LaunchError, match="not a git repository"):
        history.check_range(tmp_path, "a", "b")
