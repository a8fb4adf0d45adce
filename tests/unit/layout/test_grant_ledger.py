"""Tests for rally_keystone_perf.layout.grant_ledger: grants not yet revoked."""

from __future__ import annotations

import stat
from pathlib import Path

from rally_keystone_perf.layout import grant_ledger
from rally_keystone_perf.layout.grant_ledger import Grant

SYSTEM = Grant("system", "u1", "r")
DOMAIN = Grant("domains/d1", "u1", "r")


def test_grants_are_added_once_and_removed(tmp_path: Path) -> None:
    ledger = tmp_path / "scope-grants.json"
    assert grant_ledger.read(ledger) == []
    for grant in (SYSTEM, DOMAIN, SYSTEM):
        grant_ledger.add(ledger, grant)
    assert grant_ledger.read(ledger) == [SYSTEM, DOMAIN]
    assert stat.S_IMODE(ledger.stat().st_mode) == 0o600
    assert DOMAIN.path == "domains/d1/users/u1/roles/r"
    grant_ledger.remove(ledger, [SYSTEM])
    assert grant_ledger.read(ledger) == [DOMAIN]
    grant_ledger.remove(ledger, [DOMAIN])
    assert not ledger.exists()  # nothing left to sweep


def test_an_unreadable_ledger_holds_nothing(tmp_path: Path) -> None:
    ledger = tmp_path / "scope-grants.json"
    ledger.write_text("{not json")
    assert grant_ledger.read(ledger) == []
