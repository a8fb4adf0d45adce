"""Tests for report.resources: the sampler's CSVs over a load window."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.readers import resources
from rally_keystone_perf.report.readers.rally_json import ReportError
from rally_keystone_perf.report.readers.resources import ResourceSample
from tests.unit.report.figures.test_server_view import (
    RESOURCES as SERVER_VIEW_RESOURCES,
)

# test_server_view's samples (two headers: the sampler appended to an
# existing file; a truncated line), then a NaN and a row out of order
RESOURCES = SERVER_VIEW_RESOURCES + "nan,1,2,3\n900.0,9.0,1,1\n"


def test_read_resources_skips_headers_and_broken_lines(tmp_path: Path) -> None:
    path = tmp_path / "resources.csv"
    path.write_text(RESOURCES)
    samples = resources.read_resources(path)
    assert [s.timestamp for s in samples] == [
        900.0,
        999.5,
        1000.5,
        1001.5,
        1002.5,
        1003.5,
    ]
    assert samples[1] == ResourceSample(999.5, 10.0, 104857600, 3)


def test_resource_usage_clips_to_the_sampled_span() -> None:
    samples = [ResourceSample(10.0, 1.0, 5, 1), ResourceSample(12.0, 3.0, 7, 2)]
    usage = resources.resource_usage(samples, 9.0, 11.0, 4)
    assert usage is not None
    assert usage.cpu_seconds == pytest.approx(1.0)  # 10 .. 11
    assert usage.cpu_per_iteration == pytest.approx(0.25)
    assert usage.busy_cores == pytest.approx(1.0)
    assert (usage.peak_rss_bytes, usage.samples) == (7, 2)
    assert resources.resource_usage(samples, 13.0, 14.0, 4) is None
    assert resources.resource_usage(samples, 8.0, 9.0, 4) is None
    assert resources.resource_usage([], 8.0, 9.0, 4) is None
    exact = resources.resource_usage(samples, 10.0, 12.0, 0)
    assert exact is not None
    assert (exact.cpu_seconds, exact.cpu_per_iteration) == (2.0, None)


def test_read_if_present(tmp_path: Path) -> None:
    assert resources.read_if_present(tmp_path / "resources-db.csv") is None
    (tmp_path / "resources-db.csv").write_bytes(b"\xff\xfe")
    with pytest.raises(ReportError, match="cannot read resource samples"):
        resources.read_if_present(tmp_path / "resources-db.csv")
