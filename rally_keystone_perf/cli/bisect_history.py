"""``bisect``'s history from its arguments: Keystone's commits, or days.

``--repo``, ``--good`` and ``--bad`` walk Keystone's first-parent commits;
``--keystone-build``, ``--deps-good`` and ``--deps-bad`` walk the days of
one build's libraries. One of the two, whole: anything else is refused,
before any build, with what to give.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rally_keystone_perf.deploy.builds import dated, history, resolve, spec
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.run.bisect_plan import (
    COMMITS,
    DAYS,
    Step,
    commit_steps,
    day_steps,
)

EITHER = (
    "give --repo, --good and --bad (Keystone's commits) or --keystone-build, "
    "--deps-good and --deps-bad (its libraries' days)"
)


def steps(args: argparse.Namespace) -> tuple[str, list[Step]]:
    """The history the arguments name, and its steps, good first.

    :raises LaunchError: neither history named whole, or both; a range the
        history refuses (:func:`.history.first_parents`,
        :func:`rally_keystone_perf.run.bisect_plan.day_steps`); no tag to
        version a commit by.
    """
    commits = [args.repo, args.good, args.bad]
    days = [args.keystone_build, args.deps_good, args.deps_bad]
    if all(commits) and not any(days):
        if args.build_deps == dated.RELEASE:
            raise LaunchError(
                "bisect: --build-deps release: a commit has no release day; "
                "give suite (the default) or a day, YYYY-MM-DD"
            )
        return COMMITS, _commits(args.repo, args.good, args.bad)
    if all(days) and not any(commits):
        if args.build_deps != dated.SUITE:
            raise LaunchError(
                "bisect: --build-deps with --deps-good/--deps-bad: each step "
                "sets the libraries' day itself; drop --build-deps"
            )
        return DAYS, _days(args.keystone_build, args.deps_good, args.deps_bad)
    raise LaunchError(f"bisect: {EITHER}")


def _commits(repo: Path, good: str, bad: str) -> list[Step]:
    found = history.first_parents(repo, good, bad)
    for end in (found[0], found[-1]):
        history.version_of(repo, end.sha)
    return commit_steps(found)


def _days(build: str, first: str, last: str) -> list[Step]:
    """Each day of the range, checked against the build's release day."""
    version = resolve.resolve(spec.parse(build)).version
    return day_steps(first, last, dated.release_date(version))


def add_history_options(parser: argparse.ArgumentParser) -> None:
    """The two histories' options (``--keystone-build`` is a launch option)."""
    commits = parser.add_argument_group("Keystone's commits")
    commits.add_argument("--repo", type=Path, help="a Keystone git repository")
    commits.add_argument("--good", help="a ref whose cost is good")
    commits.add_argument("--bad", help="a later ref that costs more")
    days = parser.add_argument_group(
        "library updates (with --keystone-build: one Keystone)"
    )
    days.add_argument(
        "--deps-good",
        metavar="YYYY-MM-DD",
        help="a day whose libraries cost good (after the build's release day)",
    )
    days.add_argument(
        "--deps-bad", metavar="YYYY-MM-DD", help="a later day that costs more"
    )
