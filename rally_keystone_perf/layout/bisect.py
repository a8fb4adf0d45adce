"""``bisect.json``: a bisect's steps, what each counted, what it concluded.

``rally-keystone-perf bisect`` writes it after every step
(:mod:`rally_keystone_perf.run.bisect`), so a stopped bisect resumes; the
page reads it back (:mod:`rally_keystone_perf.report.readers.bisect`). Its
``version`` is :data:`BISECT_VERSION`; a reader refuses another.

- ``history``: ``commits`` or ``days``;
- ``identity``: what a resumed bisect must share (the range's ends, the
  threshold, the build, the workloads, the settings and the count plan);
- ``workloads``: each workload's label, in the task's order;
- ``steps``: the history in order, good first: ``id`` (a commit's sha, or a
  day), ``subject``, ``date``, ``files``;
- ``outcomes``: by step index (a string), either ``{"skipped": why}`` or
  ``{"workloads": {label: count}}`` with each workload's
  ``instructions`` per request, their ``spread`` over the layouts and
  ``statements`` per request by kind (:data:`.counts.STATEMENT_KINDS`),
  and ``libraries``: the version of each distribution the build installed;
- ``order``: the step indices in the order they were counted;
- ``conclusion``: what the search found (absent until it is over or
  stopped): ``status``, ``last_within``, ``first_past``, ``skipped``,
  ``changes`` and ``moves`` (``workload``, ``measure``, ``good``, ``bad``);
- beside it, ``profiles/<step id>.json``: by workload, each Python
  function's calls and own lines per iteration, of every step counted
  (:mod:`rally_keystone_perf.deploy.instructions.calls`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.layout import counts

BISECT_FILE = "bisect.json"
PROFILES = "profiles"  # <step id>.json: by workload, function -> calls, lines
BISECT_VERSION = 1
SKIPPED = "skipped"
# what a search concludes (``conclusion``'s ``status``)
NOTHING, FOUND, AMONG_SKIPPED, UNFINISHED, ENDS_FAILED = (
    "nothing to find",
    "found",
    "among skipped steps",
    "unfinished",
    "good or bad not counted",
)


INSTRUCTIONS, QUERIES = "instructions", "queries"  # what a move measures


def queries(count: dict[str, Any]) -> float | None:
    """A workload count's reads and writes per request; None: not counted."""
    statements = count.get("statements")
    if statements is None:
        return None
    return float(sum(statements.get(kind, 0) for kind in counts.QUERIES))


@dataclass(frozen=True)
class Move:
    """One measure of one workload that moved between good and bad."""

    workload: str
    measure: str  # INSTRUCTIONS or QUERIES
    good: float
    bad: float
    # instructions: the larger layouts' spread of good's and bad's counts,
    # the least change that counts when larger than the threshold
    floor: float = 0.0


@dataclass(frozen=True)
class Conclusion:
    """What a search concluded, by step index."""

    status: str  # NOTHING, FOUND, AMONG_SKIPPED, UNFINISHED or ENDS_FAILED
    moves: Sequence[Move]  # what moved between good and bad
    last_within: int | None = None  # the last step not past before...
    first_past: int | None = None  # ...the first step past: the culprit
    skipped: Sequence[int] = ()  # between the two: any may be the culprit
    # counted neighbours further apart than the least change that counts
    changes: Sequence[tuple[int, int]] = ()

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Conclusion:
        """The conclusion as ``bisect.json`` holds it."""
        return cls(
            raw["status"],
            [Move(**move) for move in raw.get("moves", ())],
            raw.get("last_within"),
            raw.get("first_past"),
            list(raw.get("skipped", ())),
            [(int(a), int(b)) for a, b in raw.get("changes", ())],
        )
