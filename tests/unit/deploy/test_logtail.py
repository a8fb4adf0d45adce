"""Tests for rally_keystone_perf.deploy.logtail."""

from __future__ import annotations

from pathlib import Path

from rally_keystone_perf.deploy import logtail


def test_log_tail(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("".join(f"line {i}\n" for i in range(1, 31)))
    tail = logtail.log_tail(log)
    assert tail.splitlines() == [f"line {i}" for i in range(6, 31)]
    assert logtail.log_tail(log, 2) == "line 29\nline 30"


def test_log_tail_short_and_binary(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(b"only\n\xff\xfe bad bytes\n")
    assert logtail.log_tail(log) == "only\n\ufffd\ufffd bad bytes"


def test_log_tail_missing(tmp_path: Path) -> None:
    missing = tmp_path / "none.log"
    assert logtail.log_tail(missing) == f"({missing} was not written)"
