"""What a study's page shows (:mod:`rally_keystone_perf.report.blocks.study`):
the seed's rows and ours, the ratios (by instruction count too, where
counted), the capacity part when searched."""

from __future__ import annotations

from dataclasses import dataclass

from rally_keystone_perf.report.figures.study import RatioRow, StudyRow
from rally_keystone_perf.report.figures.study_capacity import CapacityPart
from rally_keystone_perf.report.figures.study_counts import StudyCounts
from rally_keystone_perf.studies.model import Study


@dataclass(frozen=True)
class StudyPage:
    """What a study's page shows."""

    study: Study
    size: str
    rows: list[StudyRow]
    ratios: list[RatioRow]
    measured_in: str = ""  # how ours were measured (rounds taken in turns)
    capacity: CapacityPart | None = None  # its capacity rows (--capacity)
    counts: StudyCounts | None = None  # its ratios by instruction count
