"""A Keystone repository's first-parent history, on small repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.deploy.builds import history
from rally_keystone_perf.deploy.options import LaunchError
from tests.unit.deploy.builds.keystone_repo import commit, git, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "keystone")


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
    assert steps[-1].sha == git(repo, "rev-parse", "master")
    assert steps[0].date[:2] == "20"


def test_versions_come_from_the_numbered_tags(repo: Path) -> None:
    assert history.version_of(repo, git(repo, "rev-parse", "29.0.0")) == "29.0.0"
    assert history.version_of(repo, git(repo, "rev-parse", "master")) == (
        "29.0.1.dev5"  # every commit since the tag, as pbr counts
    )


def test_no_tag_reachable_is_refused_with_the_reason(repo: Path) -> None:
    git(repo, "tag", "-d", "29.0.0")
    with pytest.raises(LaunchError, match="no tag is reachable.*git fetch --tags"):
        history.version_of(repo, git(repo, "rev-parse", "master"))


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


def test_good_off_bads_first_parent_line_is_refused(repo: Path) -> None:
    # "Topic one" is an ancestor of master, but through the merge's second
    # parent: the merge's first parent is "Cache the provider", not good
    with pytest.raises(LaunchError, match="not on --bad master's first-parent"):
        history.first_parents(repo, "topic~1", "master")


def test_a_repository_that_is_not_keystone_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "nova"
    other.mkdir()
    git(other, "init", "-q", "-b", "master")
    commit(other, "nova/__init__.py", "", "Initial")
    commit(other, "nova/a.py", "", "Two")
    with pytest.raises(LaunchError, match="not Keystone"):
        history.check_range(other, "master~1", "master")
    with pytest.raises(LaunchError, match="not a git repository"):
        history.check_range(tmp_path, "a", "b")


def test_a_commit_of_a_shallow_clone_is_exported_to_build(
    repo: Path, tmp_path: Path
) -> None:
    # a clone of one commit: fetching from it is refused ("shallow roots"),
    # so its builds are made from the commit's files
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    sha = git(shallow, "rev-parse", "HEAD")
    folder = history.export(shallow, sha, tmp_path / "commits")
    assert folder == tmp_path / "commits" / sha
    assert (folder / "keystone" / "common" / "sql.py").read_text() == "b = 1\n"
    # a repository of one commit holding them, for pbr's git ls-files
    assert (
        git(folder, "ls-files", "keystone/common")
        == "keystone/common/sql.py\nkeystone/common/utils.py"
    )
    assert git(folder, "rev-list", "--count", "HEAD") == "1"
    # written once: a later bisect finds it without asking git
    assert history.export(tmp_path / "gone", sha, tmp_path / "commits") == folder


def test_a_commit_git_cannot_write_out_is_refused(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="git archive 0000000000"):
        history.export(repo, "0" * 40, tmp_path / "commits")
    assert not (tmp_path / "commits").exists()


def test_a_failed_write_leaves_no_half_written_folder(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(folder: Path, sha: str) -> None:
        raise LaunchError("git commit failed")

    monkeypatch.setattr(history, "_one_commit", refuse)
    with pytest.raises(LaunchError, match="git commit failed"):
        history.export(repo, git(repo, "rev-parse", "master"), tmp_path / "commits")
    assert list((tmp_path / "commits").iterdir()) == []
