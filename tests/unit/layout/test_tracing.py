"""Tests for rally_keystone_perf.layout.tracing: --trace's spec, the traces file."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.layout import tracing
from rally_keystone_perf.layout.rundir import RunDir


@pytest.mark.parametrize(
    ("text", "fraction", "slowest"),
    [
        ("slowest:3", 1.0, 3),
        ("sample:0.1", 0.1, tracing.DEFAULT_SLOWEST),
        ("sample:25%", 0.25, tracing.DEFAULT_SLOWEST),
        ("sample:1", 1.0, tracing.DEFAULT_SLOWEST),
    ],
)
def test_specs(text: str, fraction: float, slowest: int) -> None:
    spec = tracing.parse_spec(text)
    assert (spec.fraction, spec.slowest) == (fraction, slowest)


@pytest.mark.parametrize(
    "text",
    ["slowest:0", "slowest:x", "sample:0", "sample:1.5", "sample:abc", "all", "x:1"],
)
def test_bad_specs_say_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match="slowest:N|sample:P"):
        tracing.parse_spec(text)


def test_spec_text_reads_back() -> None:
    for text in ("slowest:7", "sample:0.2"):
        assert tracing.parse_spec(text).text == text


def test_the_traces_are_in_the_run_folder(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    assert tracing.traces_file(run) == run.root / "traces" / "traces.jsonl.gz"
