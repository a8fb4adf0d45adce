"""A small Keystone-like git repository for the history's and bisect's tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

AUTHOR = ("-c", "user.name=t", "-c", "user.email=t@localhost")


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo``; its output (the test fails when git does)."""
    done = subprocess.run(
        ["git", "-C", str(repo), *AUTHOR, *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def commit(repo: Path, path: str, text: str, subject: str) -> str:
    """Write ``text`` to ``path`` and commit it; the commit's sha."""
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject)
    return git(repo, "rev-parse", "HEAD")


def make_repo(repo: Path) -> Path:
    """master: release 29.0.0, a change, a merged topic branch, a change."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "master")
    commit(repo, "keystone/__init__.py", "", "Initial")
    git(repo, "tag", "29.0.0")
    git(repo, "tag", "zed-eom")
    commit(repo, "keystone/token/provider.py", "a = 1\n", "Cache the provider")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, "keystone/common/sql.py", "b = 1\n", "Topic one")
    commit(repo, "keystone/common/utils.py", "c = 1\n", "Topic two")
    git(repo, "checkout", "-q", "master")
    git(repo, "merge", "-q", "--no-ff", "-m", 'Merge "Topic"', "topic")
    commit(repo, "README.rst", "r\n", "Docs")
    return repo
