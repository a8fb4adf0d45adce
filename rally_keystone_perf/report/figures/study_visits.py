"""A study measured A-B-A: each ratio with the machine's drift beside it.

Configs that cannot all be up at once (clusters of several node counts) run
one after the other in the order A B C ... C B A
(:mod:`rally_keystone_perf.run.study_matrix`): every config but the middle
one is measured twice. A row is the mean of a config's visits
(:func:`rally_keystone_perf.report.figures.study_rounds.combined`), a ratio
that of the two configs' rows (:func:`.study.gain`): both means are centred
on the same moment of the study, so a drift steady over the study cancels.

The **drift** beside a ratio is how far one of its configs' figure moved
between its two visits (the larger over the smaller, minus one; the larger
of the two configs'): the machine, not the deployments. Two visits give no
interval; the verdict is ``undecided`` when the ratio moved by the drift
either way would have another verdict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from rally_keystone_perf.report.figures import study
from rally_keystone_perf.report.figures.study import Key, Measured, RatioRow
from rally_keystone_perf.report.figures.study_rounds import (
    combined,
    range_verdict,
    spread,
)
from rally_keystone_perf.studies.model import Ratio
from rally_keystone_perf.studies.model import Study as StudyModel

Visits = Sequence[Mapping[Key, Measured]]  # one mapping a visit (1, 2)


def visit_drift(ratio: Ratio, level: int, visits: Visits) -> float | None:
    """How far one of the ratio's configs moved between its visits (the
    larger of the two; None: neither was measured twice)."""
    drifts = []
    for config in (ratio.faster, ratio.slower):
        key = (config, level, ratio.action)
        drifts.append(
            spread([v[key].figures.get(ratio.figure) for v in visits if key in v])
        )
    known = [d for d in drifts if d is not None]
    return max(known) if known else None


def drift_verdict(
    seed: float | None, ours: float, drift: float | None, seed_words: str = ""
) -> str:
    """:func:`rally_keystone_perf.report.figures.study.verdict` of ``ours``;
    undecided where ``ours`` moved by ``drift`` either way has another gist."""
    if drift is None:
        said = study.verdict(seed, ours, seed_words)
        return f"{said} (one visit each: no drift measured)"
    moved = (ours / (1 + drift), ours * (1 + drift))
    return range_verdict(seed, ours, moved, seed_words, "drift")


def ratio_rows(
    plan: StudyModel, visits: Visits, levels: Sequence[int]
) -> list[RatioRow]:
    """Each ratio at each level the seed compared: the seed's, ours of the
    visits' means with the drift beside it, a verdict."""
    named = {ratio.name: ratio for ratio in plan.ratios}
    rows = []
    for row in study.ratio_rows(plan, combined(visits), levels):
        if row.ours is None:  # not measured, or not comparable
            rows.append(row)
            continue
        drift = visit_drift(named[row.name], row.concurrency, visits)
        rows.append(
            dataclasses.replace(
                row,
                drift=drift,
                verdict=drift_verdict(row.seed, row.ours, drift, row.seed_words),
            )
        )
    return rows
