"""A Keystone source tree to change: the installed release's sdist, in git.

For a build that differs from the installed Keystone by a known change (the
A/B calibration's slowed Keystone, the tests' marked one): pip downloads the
sdist of the installed version from the package index, it is unpacked and
committed into a new git repository (tag ``<version>``), and the caller
changes it and builds it as a checkout or as ``git+file://...@ref``. pbr
takes the version from the sdist's PKG-INFO, so no upstream history is needed.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from importlib import metadata
from pathlib import Path

from rally_keystone_perf.deploy.builds.resolve import PIP_QUIET, pip_tail
from rally_keystone_perf.deploy.options import LaunchError

AUTHOR = ("-c", "user.name=rally-keystone-perf", "-c", "user.email=perf@localhost")


def installed_version() -> str:
    """The version of the Keystone installed beside the suite."""
    return metadata.version("keystone")


def make_checkout(dest: Path, version: str | None = None) -> Path:
    """A git repository at ``dest`` holding Keystone ``version``'s sdist."""
    version = version or installed_version()
    with tempfile.TemporaryDirectory(prefix="ksp-sdist-") as scratch:
        archive = _download(Path(scratch), version)
        dest.mkdir(parents=True)
        with tarfile.open(archive) as tar:
            top = tar.getnames()[0].split("/")[0]
            tar.extractall(scratch, filter="data")
        for item in (Path(scratch) / top).iterdir():
            item.rename(dest / item.name)
    git(dest, "init", "-q", "-b", "master")
    git(dest, "add", "-A")
    commit(dest, f"keystone {version} (sdist)")
    git(dest, "tag", version)
    return dest


def _download(folder: Path, version: str) -> Path:
    log = folder / "pip.log"
    argv = [
        *(sys.executable, "-m", "pip", "download", *PIP_QUIET, "--no-deps"),
        *("--no-binary", ":all:", "-d", str(folder), f"keystone=={version}"),
    ]
    with log.open("wb") as out:
        code = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT).returncode
    archives = list(folder.glob("keystone-*.tar.gz"))
    if code != 0 or not archives:
        raise LaunchError(
            f"downloading Keystone {version}'s source failed (pip exit {code}):\n"
            f"{pip_tail(log)}"
        )
    return archives[0]


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo``; its output. LaunchError when it fails."""
    done = subprocess.run(
        ["git", "-C", str(repo), *AUTHOR, *args], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise LaunchError(f"git {' '.join(args)} in {repo}: {done.stderr.strip()}")
    return done.stdout.strip()


def commit(repo: Path, message: str) -> str:
    """Commit everything in ``repo``; the new commit's id."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")
