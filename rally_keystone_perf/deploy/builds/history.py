"""A Keystone repository's history between two refs, as a bisect walks it.

The steps are the first-parent commits from good to bad (good first):
Gerrit merges each change onto Keystone's master, so the first parents are
the merges, and a step's subject and files are the merge's against its
first parent (``git log --first-parent --diff-merges=first-parent``).

:func:`check_range` refuses before any build: a folder that is not a git
repository of Keystone, a ref that names no commit, good that is not an
ancestor of bad. :func:`version_of` gives each step the version pbr would,
from the tag ``git describe`` finds; with no tag reachable (a shallow
clone, tags not fetched) pbr cannot version a build, and that is refused
with the reason. :func:`export` writes a commit's files into a folder, to
build from: a build from the repository itself (``git+file://``) needs
every object of its history, which a shallow clone or a mirror missing a
large file does not serve.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.deploy.options import LaunchError

_FIELDS = "%x1e%H%x1f%P%x1f%cI%x1f%s"  # record, sha, parents, date, subject
_DESCRIBED = re.compile(r"^(?P<tag>.+)-(?P<since>\d+)-g(?P<sha>[0-9a-f]+)$")


@dataclass(frozen=True)
class Commit:
    """One step of the history: a first-parent commit."""

    sha: str
    subject: str
    date: str  # the commit's date, ISO 8601
    files: tuple[str, ...]  # changed against its first parent


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo``; its output. LaunchError with git's own words."""
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True
    )
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise LaunchError(
            f"git {' '.join(args)} in {repo}: {said[-1] if said else 'failed'}"
        )
    return done.stdout


def commit_of(repo: Path, ref: str) -> str:
    """The commit ``ref`` names in ``repo``."""
    try:
        return git(
            repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"
        ).strip()
    except LaunchError:
        raise LaunchError(f"{repo}: no commit named {ref!r}") from None


def check_range(repo: Path, good: str, bad: str) -> tuple[str, str]:
    """Good's and bad's commits; LaunchError unless ``repo`` is a git
    repository holding Keystone at bad, both refs name commits and good is
    an ancestor of bad."""
    if not repo.is_dir():
        raise LaunchError(f"--repo {repo}: no such folder")
    try:
        git(repo, "rev-parse", "--git-dir")
    except LaunchError:
        raise LaunchError(f"--repo {repo}: not a git repository") from None
    good_sha, bad_sha = commit_of(repo, good), commit_of(repo, bad)
    if not _has(repo, bad_sha, "keystone/__init__.py"):
        raise LaunchError(
            f"--repo {repo}: not Keystone (no keystone/__init__.py at {bad})"
        )
    if good_sha == bad_sha:
        raise LaunchError(f"--good {good} and --bad {bad} are the same commit")
    ancestor = subprocess.run(
        ["git", "-C", str(repo), "merge-base", "--is-ancestor", good_sha, bad_sha]
    ).returncode
    if ancestor != 0:
        raise LaunchError(f"--good {good} is not an ancestor of --bad {bad}")
    return good_sha, bad_sha


def _has(repo: Path, sha: str, path: str) -> bool:
    found = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", f"{sha}:{path}"],
        capture_output=True,
    )
    return found.returncode == 0


def first_parents(repo: Path, good: str, bad: str) -> list[Commit]:
    """Good, then each first-parent commit after it up to bad, oldest
    first, with its subject, date and files against its first parent.

    :raises LaunchError: besides :func:`check_range`'s, good not on bad's
        first-parent line (a commit of a merged branch): the first step's
        parent would not be good.
    """
    good_sha, bad_sha = check_range(repo, good, bad)
    text = git(
        repo,
        *("log", "--first-parent", "--diff-merges=first-parent", "--name-only"),
        *("--reverse", f"--format={_FIELDS}", f"{good_sha}..{bad_sha}"),
    )
    found = [_commit(record) for record in text.split("\x1e") if record.strip()]
    if not found or found[0][1] != good_sha:
        raise LaunchError(
            f"--good {good} is not on --bad {bad}'s first-parent line (a commit "
            "of a merged branch): give the merge that brought it in, or a "
            "commit of the branch's own history"
        )
    start = git(repo, "log", "-1", f"--format={_FIELDS}", "--name-only", good_sha)
    return [_commit(start.split("\x1e", 1)[-1])[0], *(c for c, _ in found)]


def _commit(record: str) -> tuple[Commit, str]:
    """A commit of ``git log``'s record, and its first parent's sha."""
    head, _, names = record.partition("\n")
    sha, parents, date, subject = head.split("\x1f", 3)
    files = tuple(line for line in names.splitlines() if line.strip())
    return Commit(sha, subject, date, files), (parents.split() or [""])[0]


def version_of(repo: Path, sha: str) -> str:
    """The version pbr gives a build of ``sha``: its tag, or the next
    patch release's dev version N commits after it (``29.0.1.dev12``).

    :raises LaunchError: no tag reachable from ``sha`` (a shallow clone, or
        tags not fetched): pbr has nothing to version it by.
    """
    try:
        described = git(
            repo, "describe", "--tags", "--long", "--match", "[0-9]*", sha
        ).strip()
    except LaunchError:
        shallow = git(repo, "rev-parse", "--is-shallow-repository").strip()
        why = "the repository is shallow" if shallow == "true" else "no tag"
        raise LaunchError(
            f"{repo}: no tag is reachable from {sha[:12]} ({why}); pbr takes "
            "Keystone's version from its tags: fetch them (git fetch --tags, "
            "or --unshallow) and bisect again"
        ) from None
    parts = _DESCRIBED.match(described)
    if parts is None:
        raise LaunchError(f"{repo}: git describe gave {described!r}, not a version")
    tag, since = parts["tag"], int(parts["since"])
    if since == 0:
        return tag
    release = [int(n) for n in re.findall(r"\d+", tag)[:3]] + [0, 0, 0]
    major, minor, patch = release[:3]
    return f"{major}.{minor}.{patch + 1}.dev{since}"


def export(repo: Path, sha: str, parent: Path) -> Path:
    """The files of commit ``sha`` in ``parent/<sha>``, written once.

    ``git archive`` reads the commit's own tree only, so it works where a
    clone fails: a shallow repository (a fetch from it is refused, "shallow
    roots are not allowed to be updated") or one lacking an object of its
    older history. The folder is a git repository of one commit holding
    those files, for pbr to list them, without the tags: its build takes
    its version from ``PBR_VERSION`` (:func:`version_of`).

    :raises LaunchError: git cannot write the commit's files.
    """
    folder = parent / sha
    if folder.is_dir():  # written whole or not at all: renamed into place
        return folder
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", sha], capture_output=True
    )
    if archive.returncode != 0:
        said = archive.stderr.decode(errors="replace").strip().splitlines()
        raise LaunchError(
            f"git archive {sha[:12]} in {repo}: {said[-1] if said else 'failed'}"
        )
    parent.mkdir(parents=True, exist_ok=True)
    partial = parent / f".{sha}-{os.getpid()}"
    try:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as files:
            files.extractall(partial, filter="data")
        _one_commit(partial, sha)
        partial.rename(folder)
    finally:  # a failed write leaves nothing half done behind
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def _one_commit(folder: Path, sha: str) -> None:
    """Make ``folder`` a git repository of one commit holding its files:
    pbr lists a package's files with ``git ls-files`` (without git, a build
    leaves out every data file, alembic.ini among them, and with pbr's
    pyproject build, whole packages)."""
    author = (
        "-c",
        "user.name=rally-keystone-perf",
        "-c",
        "user.email=bisect@localhost",
    )
    for args in (
        ("init", "-q"),
        ("add", "-A"),
        (*author, "commit", "-q", "--no-verify", "-m", f"the files of {sha}"),
    ):
        git(folder, *args)
