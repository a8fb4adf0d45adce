"""The counted ratios' table under a study's ratios."""

from __future__ import annotations

from rally_keystone_perf.report.blocks import study_counts as blocks
from rally_keystone_perf.report.figures import study_counts, verdicts
from rally_keystone_perf.report.readers.instructions import SideCount
from rally_keystone_perf.report.writers import cells

FERNET = SideCount("KeystonePerf.validate_token", 10e6, 0.004, {"read": 64.0})
JWS = SideCount("KeystonePerf.validate_token", 11e6, 0.003, {"read": 65.0})


def test_the_table_says_which_config_costs_more_and_why_one_is_not_counted() -> None:
    counted = study_counts.CountedRatio(
        "fernet vs JWS, token validation (SQL)",
        ("fernet-sql", "jws-sql"),
        FERNET,
        JWS,
        1.1,
        1.0,
        verdicts.counted(1.1, 0.004),
    )
    left_out = study_counts.CountedRatio(
        "LDAP vs SQL",
        ("fernet-ldap", "fernet-sql"),
        None,
        None,
        None,
        None,
        verdicts.not_measurable("not counted: LDAP is outside the process"),
    )
    found = study_counts.StudyCounts([counted, left_out], 4, 4)
    table, said = blocks.blocks(found)
    first, second = table.rows
    assert first[-1] == "jws-sql costs 10.0% more instructions (layouts within 0.4%)"
    assert cells.FORMATS["millions"](first[1]) == "10.000M"
    assert second[-1] == "not counted: LDAP is outside the process"
    assert "bcrypt at 4 rounds" in said.lines[0]


def test_no_counts_no_blocks() -> None:
    assert blocks.blocks(None) == []
