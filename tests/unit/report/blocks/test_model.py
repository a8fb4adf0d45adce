"""The model's helpers: columns written as data, JSON objects picked."""

from __future__ import annotations

from dataclasses import dataclass

from rally_keystone_perf.report.blocks.model import NUMBER, TEXT, Column, columns, pick


def test_columns_from_specs() -> None:
    ratio = Column("ratio", fmt="fixed3", missing="n/a")
    found = columns("n; run:text; median:seconds", ratio, "interval:text:range")
    assert found == (
        Column("n", NUMBER, "plain"),
        Column("run", TEXT),
        Column("median", fmt="seconds"),
        ratio,
        Column("interval", TEXT, "range"),
    )


def test_columns_keep_spaces_and_commas_in_names() -> None:
    found = columns("action, route:text;  per second2 col:per second2 ")
    assert found == (
        Column("action, route", TEXT),
        Column("per second2 col", fmt="per second2"),
    )


@dataclass
class Row:
    label: str
    count: int
    ratio: float


def test_pick_keeps_the_order_named_and_renames() -> None:
    found = pick(Row("a", 3, 1.5), "ratio run=label", "count")
    assert list(found.items()) == [("ratio", 1.5), ("run", "a"), ("count", 3)]
