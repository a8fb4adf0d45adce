"""``bisect`` on a small real history: the commit that made validation dearer.

The test makes a Keystone repository from the installed release's source
distribution (tag ``<version>``) and three commits on it: the first adds a
known extra cost inside token validation (the A/B calibration's loop, about
5% of a validation's instructions), the other two change documentation
only. ``bisect --good <version> --bad master --action validate_token``
builds and counts good and bad, then the commit between them nearest the
middle: the culprit, named with its file, its cost against its parent and
the Python function that took it (the loop, from the profiles of both),
in three counts. Bounded: each count is short (2 memory layouts of 2
segments of 3 validations, as ``test_instructions`` counts), the
documentation commits are never built.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from benchmarks import ab_calibration
from rally_keystone_perf import cli
from rally_keystone_perf.deploy.builds import source
from rally_keystone_perf.deploy.instructions import count, markers
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import bisect
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes

# alone on the machine: a count's replays run two at a time
pytestmark = [pytest.mark.functional, pytest.mark.serial]

EXTRA_ITERATIONS = 17_000  # about 5% of a validation's instructions
SHORT = count.CountPlan(warm_up=4, segments=2, iterations=3, layouts=2)


@pytest.fixture(autouse=True)
def _valgrind() -> None:
    """Skip (fail under CI) without valgrind and its headers."""
    if shutil.which("valgrind") is None or not markers.HEADER.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI must install valgrind (.ci/run does)")
        pytest.skip("valgrind is not installed (apt-get install valgrind)")


def history(repo: Path) -> str:
    """The release, then the extra cost, then two documentation changes;
    the extra cost's commit."""
    source.make_checkout(repo)
    auth = repo / "keystone" / "api" / "auth.py"
    auth.write_text(ab_calibration.patched(auth.read_text(), EXTRA_ITERATIONS))
    culprit = source.commit(repo, "Validate tokens with an extra loop")
    for n in (1, 2):
        (repo / "README.rst").write_text(
            (repo / "README.rst").read_text() + f"\nline {n}\n"
        )
        source.commit(repo, f"Docs: line {n}")
    return culprit


def test_bisect_names_the_commit_that_made_validation_dearer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bisect, "COUNT_PLAN", SHORT)
    repo = tmp_path / "keystone"
    culprit = history(repo)
    folder = tmp_path / "bisect"
    argv = [
        *("bisect", "--repo", str(repo), "--good", source.installed_version()),
        *("--bad", "master", "--action", "validate_token"),
        *("--password-hash-rounds", str(FAST_HASH_ROUNDS)),
        *("--build-cache", str(tmp_path / "builds")),
        *("--runs-dir", str(tmp_path / "runs"), "--bisect-dir", str(folder)),
    ]
    assert cli.main(argv) == 0
    page = json.loads((folder / "bisect-page.json").read_text())
    assert page["status"] == "found" and page["culprit"]["commit"] == culprit
    assert page["culprit"]["files"] == ["keystone/api/auth.py"]
    (change,) = page["culprit"]["changes"].values()
    assert 1.02 < change["ratio"] < 1.10 and change["queries"] == 0
    (functions,) = page["culprit"]["functions"].values()
    assert functions[0]["function"] == "keystone/api/auth.py:_calibration_extra_cost"
    assert functions[0]["calls"] == [0, 1]  # once a validation, at the culprit
    record = json.loads((folder / "bisect.json").read_text())
    assert len(record["order"]) == 3
    for step in (folder / "steps").iterdir():
        assert not run_processes(RunDir(step))
