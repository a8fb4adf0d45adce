"""The seeds' studies as data: each consistent with the bundled task files."""

from __future__ import annotations

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.client import atomics
from rally_keystone_perf.report.figures import slo
from rally_keystone_perf.run import capacity_steps
from rally_keystone_perf.run import study_matrix as study_run
from rally_keystone_perf.studies import (
    registry,
    seed000,
    seed001,
    seed002,
    seed003,
    seed004,
)
from rally_keystone_perf.tasks.model import TaskFile


def test_a_study_by_its_seed_number() -> None:
    assert registry.study("0") is registry.study("000") is seed000.STUDY
    with pytest.raises(KeyError, match="there are: 000, 001, 002, 003, 004"):
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


def test_seed_001_per_request_from_seconds_for_100_and_rates_per_node() -> None:
    rows = {(r.config, r.concurrency, r.action): r.figures for r in seed001.STUDY.rows}
    assert rows[("fernet-ldap", 1, atomics.CREATE_USER)]["avg"] == pytest.approx(0.2936)
    assert rows[("jws-sql", 1, atomics.VALIDATE_TOKEN)]["avg"] == pytest.approx(0.0286)
    assert rows[("apache-4n", 8, atomics.LIST_REVOCATION_EVENTS)] == {
        "throughput": 1000.0
    }
    assert seed001.STUDY.config("apache-3n").nodes == 3


def test_seed_002_per_atomic_action_and_its_ratios() -> None:
    rows = {(r.config, r.action): r.figures for r in seed002.STUDY.rows}
    assert len(rows) == 9
    assert rows[(seed002.EVENTLET_SQL, "")]["avg"] == 7.329
    assert rows[(seed002.APACHE_MEMCACHED, atomics.DELETE_USER)]["p95"] == 0.438
    names = [ratio.name for ratio in seed002.STUDY.ratios]
    assert "memcached vs SQL tokens (default cache)" in names


def test_seed_004_is_the_fixed_run_on_a_local_nova() -> None:
    (config,) = seed004.STUDY.configs
    assert (config.mode, config.task_folder) == ("nova-fake", "")
    figures = {r.action: r.figures for r in seed004.STUDY.rows}
    assert figures[atomics.BOOT_SERVER]["count"] == 400
    assert figures[""]["success"] == 1.0


def test_a_study_narrowed_to_some_configs() -> None:
    stock = seed003.STUDY.narrowed([seed003.APACHE, seed003.NGINX])
    assert [c.label for c in stock.configs] == [seed003.APACHE, seed003.NGINX]
    assert {row.config for row in stock.rows} == {seed003.APACHE, seed003.NGINX}
    assert [r.name for r in stock.ratios] == ["nginx+uwsgi vs Apache, stock"]
    with pytest.raises(KeyError, match="has no config nope"):
        seed003.STUDY.narrowed(["nope"])


@pytest.mark.parametrize(
    "seed", sorted(s for s, study in registry.STUDIES.items() if study.capacity)
)
def test_every_capacity_config_has_one_task_file_of_one_workload(seed: str) -> None:
    study = registry.STUDIES[seed]
    assert study.capacity is not None
    slo.parse_slo(study.capacity.slo)
    labels = {c.label for c in study.configs}
    assert set(study.capacity.configs) <= labels
    assert set(study.capacity.seed_rates) <= labels
    for size in ("quick", "full"):
        for config in study.capacity_configs():
            path = study_run.capacity_task(study, config, size, paths.tasks_dir())
            capacity_steps.capacity_workload(TaskFile.load(path))


def test_the_studies_with_capacity_rows() -> None:
    having = sorted(s for s, study in registry.STUDIES.items() if study.capacity)
    assert having == ["001", "003"]
    assert [c.label for c in seed001.STUDY.capacity_configs()] == list(
        seed001.RATE_TABLE
    )
