"""The seeds' studies as data: each consistent with the bundled task files."""

from __future__ import annotations

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.run import study as study_run
from rally_keystone_perf.studies import registry, seed000


def test_a_study_by_its_seed_number() -> None:
    assert registry.study("0") is registry.study("000") is seed000.STUDY
    with pytest.raises(KeyError, match="there are: 000, 003"):
        registry.study("9")


@pytest.mark.parametrize("seed", sorted(registry.STUDIES))
def test_every_row_names_a_config_and_every_size_has_task_files(seed: str) -> None:
    study = registry.STUDIES[seed]
    labels = {c.label for c in study.configs}
    assert {row.config for row in study.rows} == labels
    for ratio in study.ratios:
        assert {ratio.faster, ratio.slower} <= labels
    for size in ("quick", "full"):
        cells = study_run.study_cells(study, size, paths.tasks_dir())
        assert set(cells) == labels
        levels = {study_run.level(c.task) for cs in cells.values() for c in cs}
        assert levels <= set(study.levels()), (size, levels)


def test_seed_000s_table_is_the_seeds() -> None:
    rows = {(r.config, r.concurrency): r.figures for r in seed000.STUDY.rows}
    assert len(rows) == 9
    assert rows[(seed000.ONE, 4)]["avg"] == 0.998  # its first table's first row
    assert rows[(seed000.APACHE, 32)]["p95"] == 2.244  # its last
    with pytest.raises(KeyError):
        seed000.STUDY.config("nope")
