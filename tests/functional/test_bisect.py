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
segments of 2 validations after 2 warm-up ones), the documentation
commit between the culprit and bad is never built.

In CI: 3 builds (about 15 s each, from the commits' files) and 3 counts
(about 35 s each, with the profile replay): 153 s alone on the 2-core
machine (175 s with 3 validations a segment and 4 of warm-up). The slow
tier (``tox -e slow``) holds a bisect of 16 steps (the culprit in at most
6 counts) and a library-update bisect of the installed Keystone over 60
real days of the package index.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from benchmarks import ab_calibration
from rally_keystone_perf import cli
from rally_keystone_perf.deploy.builds import dated, source
from rally_keystone_perf.deploy.instructions import count
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import bisect_plan
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes

# alone on the machine: a count's replays run two at a time
pytestmark = [
    pytest.mark.functional,
    pytest.mark.serial,
    pytest.mark.usefixtures("valgrind_installed"),
]

EXTRA_ITERATIONS = 17_000  # about 5% of a validation's instructions
# the cost told apart is 5%, exact to a few instructions a validation
SHORT = count.CountPlan(warm_up=2, segments=2, iterations=2, layouts=2)


def history(repo: Path, after: int = 3, culprit: int = 1) -> str:
    """The release, then ``after`` commits: the ``culprit``-th adds the
    extra cost, the others change documentation only; the culprit's sha."""
    source.make_checkout(repo)
    found = ""
    for n in range(1, after + 1):
        if n == culprit:
            auth = repo / "keystone" / "api" / "auth.py"
            auth.write_text(ab_calibration.patched(auth.read_text(), EXTRA_ITERATIONS))
            found = source.commit(repo, "Validate tokens with an extra loop")
            continue
        readme = repo / "README.rst"
        readme.write_text(readme.read_text() + f"\nline {n}\n")
        source.commit(repo, f"Docs: line {n}")
    return found


def _argv(tmp_path: Path, repo: Path, folder: Path) -> list[str]:
    return [
        *("bisect", "--repo", str(repo), "--good", source.installed_version()),
        *("--bad", "master", "--action", "validate_token"),
        *("--password-hash-rounds", str(FAST_HASH_ROUNDS)),
        *("--build-cache", str(tmp_path / "builds")),
        *("--runs-dir", str(tmp_path / "runs"), "--bisect-dir", str(folder)),
    ]


def test_bisect_names_the_commit_that_made_validation_dearer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bisect_plan, "COUNT_PLAN", SHORT)
    repo = tmp_path / "keystone"
    culprit = history(repo)
    folder = tmp_path / "bisect"
    assert cli.main(_argv(tmp_path, repo, folder)) == 0
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


@pytest.mark.slow
def test_sixteen_commits_give_the_culprit_in_at_most_six_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """15 commits after the tag (16 steps), the extra cost at the 11th."""
    monkeypatch.setattr(bisect_plan, "COUNT_PLAN", SHORT)
    repo = tmp_path / "keystone"
    culprit = history(repo, after=15, culprit=11)
    folder = tmp_path / "bisect"
    assert cli.main(_argv(tmp_path, repo, folder)) == 0
    page = json.loads((folder / "bisect-page.json").read_text())
    assert page["culprit"]["commit"] == culprit
    record = json.loads((folder / "bisect.json").read_text())
    assert len(record["order"]) <= 6
    print(f"16 steps: {len(record['order'])} counts, order {record['order']}")


@pytest.mark.slow
def test_a_library_update_bisect_over_real_days(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed Keystone with its libraries as of each day from the
    day after its release to 60 days later, on the package index: the
    search concludes, every step counted records its build's versions."""
    monkeypatch.setattr(bisect_plan, "COUNT_PLAN", SHORT)
    version = source.installed_version()
    released = datetime.date.fromisoformat(dated.release_date(version)[:10])
    first, last = released + datetime.timedelta(1), released + datetime.timedelta(60)
    folder = tmp_path / "bisect"
    argv = [
        *("bisect", "--keystone-build", f"keystone=={version}"),
        *("--deps-good", str(first), "--deps-bad", str(last)),
        *("--action", "validate_token"),
        *("--password-hash-rounds", str(FAST_HASH_ROUNDS)),
        *("--build-cache", str(tmp_path / "builds")),
        *("--runs-dir", str(tmp_path / "runs"), "--bisect-dir", str(folder)),
    ]
    assert cli.main(argv) == 0
    record = json.loads((folder / "bisect.json").read_text())
    assert record["conclusion"]["status"] in (
        "found",
        "nothing to find",
        "among skipped steps",
    )
    counted = [record["outcomes"][str(n)] for n in record["order"]]
    assert all(c.get("libraries", {}).get("keystone") == version for c in counted)
    page = json.loads((folder / "bisect-page.json").read_text())
    print(f"{first}..{last}: {page['said']}")
