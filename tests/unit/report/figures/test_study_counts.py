"""A study's ratios by instruction count."""

from __future__ import annotations

from rally_keystone_perf.report.figures import study_counts, verdicts
from rally_keystone_perf.report.readers.instructions import (
    InstructionCounts,
    SideCount,
)
from rally_keystone_perf.studies import seed001

TOKENS = "fernet vs JWS, token generation (SQL)"
CHECKS = "fernet vs JWS, token validation (SQL)"
LDAP = "LDAP vs SQL, token generation (fernet)"


def _counts(failed: dict[str, str] | None = None) -> InstructionCounts:
    def side(create: float, validate: float, reads: float) -> dict[int, SideCount]:
        return {
            0: SideCount("KeystonePerf.create_token", create, 0.002, {"read": 46.0}),
            1: SideCount(
                "KeystonePerf.validate_token", validate, 0.004, {"read": reads}
            ),
        }

    sides = {"fernet-sql": side(20e6, 10e6, 64.0), "jws-sql": side(20.1e6, 11e6, 65.0)}
    for name in failed or {}:
        sides.pop(name)
    plan = {"layouts": 4}
    return InstructionCounts(sides, {"password_hash_rounds": 4}, failed or {}, plan, {})


def test_each_counted_ratio_is_the_slower_over_the_faster() -> None:
    found = study_counts.study_counts(seed001.STUDY, _counts(), {LDAP: "an ldap..."})
    assert found is not None and found.hash_rounds == 4 and found.layouts == 4
    checks = found.of(CHECKS)
    assert checks is not None and checks.configs == ("fernet-sql", "jws-sql")
    assert round(checks.ratio or 0, 3) == 1.1 and checks.queries == 1.0
    assert checks.verdict.call == verdicts.SLOWER
    tokens = found.of(TOKENS)
    # +0.5%: within the 1% a count needs
    assert tokens is not None and tokens.verdict.call == verdicts.NO_DIFFERENCE
    ldap = found.of(LDAP)
    assert ldap is not None and ldap.ratio is None
    assert ldap.verdict.reason == "not counted: an ldap..."
    # the ratios between configs not counted are not shown
    assert found.of("2 nodes vs 1, token_authenticate") is None


def test_a_failed_count_is_named() -> None:
    counts = _counts({"jws-sql": "valgrind died"})
    found = study_counts.study_counts(seed001.STUDY, counts, {})
    assert found is not None
    row = found.of(CHECKS)
    assert row is not None and row.ratio is None
    assert row.verdict.reason == "count failed: valgrind died"


def test_nothing_counted_nothing_shown() -> None:
    assert study_counts.study_counts(seed001.STUDY, None, {}) is None
