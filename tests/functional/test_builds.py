"""Keystone builds against real servers: a changed checkout, and a spec
that does not resolve, refused before any load (an A/B of two git refs:
``test_instructions``, whose A/B is one).

The builds come from the installed Keystone's sdist committed into a local
git repository (``deploy/builds/source.py``), with a visible change: the
API version Keystone's version document names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from rally_keystone_perf import cli
from rally_keystone_perf.deploy import launcher
from rally_keystone_perf.deploy.builds import source
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.layout.rundir import RunDir
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes

VERSION_FILES = ("keystone/api/discovery.py", "keystone/version.py")


def _mark(repo: Path, api_version: str) -> None:
    """Make the checkout's Keystone name ``api_version`` in /v3."""
    for name in VERSION_FILES:
        path = repo / name
        path.write_text(path.read_text().replace("v3.14", api_version))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Keystone's source in git, tagged with the installed version."""
    return source.make_checkout(tmp_path_factory.mktemp("src") / "keystone")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("builds")


def _api_version(run: RunDir) -> str:
    answer = requests.get(str(run.state().auth_url), timeout=10)
    return str(answer.json()["version"]["id"])


def test_a_checkout_with_uncommitted_changes_runs_its_code(
    repo: Path, cache: Path, tmp_path: Path
) -> None:
    _mark(repo, "v3.90")  # not committed: the build must still have it
    try:
        options = LaunchOptions(
            keystone_build=str(repo),
            build_cache=str(cache),
            password_hash_rounds=FAST_HASH_ROUNDS,
        )
        run = launcher.up(tmp_path / "runs", resolve(options))
    finally:
        source.git(repo, "checkout", "-q", "--", *VERSION_FILES)
    try:
        assert _api_version(run) == "v3.90"
        build = run.state().keystone_build or {}
        assert (
            build["kind"] == "checkout"
            and build["version"] == source.installed_version()
        )
        assert Path(build["venv"]).parent == cache
    finally:
        launcher.stop(run)
    assert not run_processes(run)


def test_a_build_that_does_not_resolve_is_refused_before_any_start(
    repo: Path, cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ab"
    code = cli.main(
        [
            *("ab", "--rounds", "2", "--ab-dir", str(folder)),
            *("--build-cache", str(cache)),
            f"--b=--keystone-build git+file://{repo}@no-such-ref",
        ]
    )
    assert code == 1
    error = capsys.readouterr().err
    assert "Keystone build git+file://" in error and "no-such-ref" in error
    assert re.search(r"pathspec 'no-such-ref' did not match", error)
    assert not folder.exists()  # nothing started, no A/B folder
