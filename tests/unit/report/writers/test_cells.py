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
        ("seconds", 1000, "1000"),
        ("millions", 239.45e6, "239.450M"),
        ("p", None, ""),
        ("p", 0.88612, "0.886"),
        ("change", -0.0469, "-4.7%"),
        ("change2", 0.01982, "+1.98%"),
        ("points", -0.02, "-2.0 pt"),
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
        ("fixed2", 4.166, "4.17"),
        ("fixed3", None, "-"),
        ("general", 30.0, "30"),
        ("per second", 10.0, "10.0/s"),
        ("ms", 0.1168, "116.8"),
        ("ms", None, "-"),
        ("range", (0.1712, 4.8444), "0.171 - 4.844"),
        ("span", (0.2, 0.2), "0.200"),
        ("span", (0.2, 0.25), "0.200-0.250"),
    ],
)
def test_each_format(fmt: str, value: object, written: str) -> None:
    assert cell(fmt, value) == written


def test_none_is_written_as_the_columns_missing_when_it_has_one() -> None:
    assert cell("success", None, "-") == "-" and cell("success", None) == "n/a"


def test_text_is_written_as_it_is_in_any_column() -> None:
    assert {cell(fmt, "-") for fmt in FORMATS} == {"-"}


def test_a_value_of_the_wrong_kind_or_format_is_refused() -> None:
    with pytest.raises(TypeError, match="not a number"):
        cell("seconds", [1])
    with pytest.raises(KeyError):
        cell("furlongs", 1.0)
