"""Table values written in the text formats, one format per column."""

from __future__ import annotations

import pytest

from rally_keystone_perf.report.writers.cells import FORMATS, cell


@pytest.mark.parametrize(
    ("fmt", "value", "written"),
    [
        ("plain", "holds", "holds"),
        ("plain", 3, "3"),
        ("plain", None, "-"),
        ("seconds", 0.12345, "0.123"),
        ("seconds", None, "n/a"),  # Rally's Table._round
        ("success", 0.5, "50.0%"),
        ("success", None, "n/a"),
        ("count", 150.0, "150"),
        ("count", None, "0"),
        ("rate", 4.16, "4.2"),
        ("rate", None, "-"),
        ("ratio", 1.004, "1.00x"),
        ("percent", 0.275, "28%"),
        ("interval", (0.84, 1.175), "0.84-1.18x"),
        ("interval", (None, 1.2), "-"),
        ("interval", None, "-"),
    ],
)
def test_each_format(fmt: str, value: object, written: str) -> None:
    assert cell(fmt, value) == written


def test_text_is_written_as_it_is_in_any_column() -> None:
    assert {cell(fmt, "-") for fmt in FORMATS} == {"-"}


def test_a_value_of_the_wrong_kind_or_format_is_refused() -> None:
    with pytest.raises(TypeError, match="not a number"):
        cell("seconds", [1])
    with pytest.raises(KeyError):
        cell("furlongs", 1.0)
