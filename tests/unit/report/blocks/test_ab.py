"""The A/B page (:mod:`rally_keystone_perf.report.blocks.ab`) with instruction
counts, and the gate judging on them."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rally_keystone_perf.cli import app as cli
from rally_keystone_perf.report import api
from tests.unit.report.readers import test_instructions as counts
from tests.unit.report.readers.test_ab_folder import make_ab


def test_each_workload_shows_its_counts_in_every_format(tmp_path: Path) -> None:
    folder = make_ab(tmp_path / "ab", rounds=4, slowdown=1.0)
    counts.write(folder, [177.2e6, 239.45e6], [177.3e6, 244.2e6])
    table = io.StringIO()
    api.write_ab(folder, table, "table")
    text = table.getvalue()
    assert "A 239.450M, B 244.200M, B/A 1.0198" in text
    assert "bcrypt at 4 rounds" in text
    markdown = io.StringIO()
    api.write_ab(folder, markdown, "markdown")
    assert "B/A 1.0006" in markdown.getvalue()
    out = io.StringIO()
    api.write_ab(folder, out, "json")
    document = json.loads(out.getvalue())
    assert document["workloads"][1]["instructions_per_request"]["b"] == 244.2e6
    assert document["instruction_counts"]["password_hash_rounds"] == 4


def test_an_ab_without_counts_says_nothing_of_them(tmp_path: Path) -> None:
    folder = make_ab(tmp_path / "ab", rounds=4, slowdown=1.0)
    table = io.StringIO()
    api.write_ab(folder, table, "table")
    assert "instructions" not in table.getvalue()


def test_the_gate_judges_the_counts_on_request(tmp_path: Path, capsys) -> None:
    folder = make_ab(tmp_path / "ab", rounds=6, slowdown=1.0)
    assert cli.main(["gate", str(folder), "--max-instruction-increase", "1%"]) == 1
    assert "run the A/B with --instructions" in capsys.readouterr().out
    counts.write(folder, [177.2e6, 239.45e6], [177.3e6, 244.2e6])
    assert cli.main(["gate", str(folder)]) == 0  # timings alone: an A/A
    capsys.readouterr()
    assert cli.main(["gate", str(folder), "--max-instruction-increase", "1%"]) == 2
    out = capsys.readouterr().out
    assert "instructions/request" in out and "+1.98%" in out
    assert cli.main(["gate", str(folder), "--max-instruction-increase", "3%"]) == 0


def test_counts_alone_are_shown_and_gated_by_the_counts(tmp_path: Path, capsys) -> None:
    """``ab --instructions --rounds 0``: no round, the counts its figures."""
    folder = make_ab(tmp_path / "ab", rounds=0, slowdown=1.0)
    counts.write(folder, [177.2e6, 239.45e6], [177.3e6, 244.2e6])
    table = io.StringIO()
    api.write_ab(folder, table, "table")
    assert "0 of 0 rounds complete" in table.getvalue()
    assert "A 239.450M, B 244.200M, B/A 1.0198" in table.getvalue()
    markdown = io.StringIO()
    api.write_ab(folder, markdown, "markdown")
    assert "### KeystonePerf.validate_token" in markdown.getvalue()
    out = io.StringIO()
    api.write_ab(folder, out, "json")
    (_, validate) = json.loads(out.getvalue())["workloads"]
    assert (
        validate["rounds"] == []
        and validate["instructions_per_request"]["b"] == 244.2e6
    )
    assert cli.main(["gate", str(folder)]) == 1  # nothing timed to gate
    assert "no complete timed round" in capsys.readouterr().err
    assert cli.main(["gate", str(folder), "--max-instruction-increase", "1%"]) == 2
    out = capsys.readouterr().out
    assert "KeystonePerf.validate_token" in out and "+1.98%" in out
    assert cli.main(["gate", str(folder), "--max-instruction-increase", "3%"]) == 0


def test_two_runs_are_not_judged_on_counts(tmp_path: Path, capsys) -> None:
    argv = ["gate", "a.json", "--baseline", "b.json", "--max-instruction-increase", "1"]
    assert cli.main(argv) == 1
    assert "not two runs" in capsys.readouterr().err


def test_statements_shown_beside_instructions_and_gated(tmp_path: Path, capsys) -> None:
    """One more read per validation: shown, and failed at ``0``."""
    folder = make_ab(tmp_path / "ab", rounds=4, slowdown=1.0)
    statements = ([3.0, 64.0], [3.0, 65.0])
    counts.write(folder, [177.2e6, 239.45e6], [177.3e6, 244.2e6], statements)
    table = io.StringIO()
    api.write_ab(folder, table, "table")
    assert (
        "SQL statements per request: A 64 reads, 0 writes (+128 transaction "
        "control, 1 PRAGMA and other); B 65 reads, 0 writes" in table.getvalue()
    )
    out = io.StringIO()
    api.write_ab(folder, out, "json")
    validate = json.loads(out.getvalue())["workloads"][1]["instructions_per_request"]
    assert validate["statements_b"]["read"] == 65.0
    gate = ["gate", str(folder), "--max-statement-increase"]
    assert cli.main([*gate, "0"]) == 2
    out = capsys.readouterr().out
    assert "| statements/request | FAIL   |       64 |      65 |     +1 |" in out
    assert cli.main([*gate, "1"]) == 0


def test_two_runs_are_not_judged_on_statements(tmp_path: Path, capsys) -> None:
    argv = ["gate", "a.json", "--baseline", "b.json", "--max-statement-increase", "0"]
    assert cli.main(argv) == 1
    assert "--max-statement-increase judges an A/B folder" in capsys.readouterr().err


def test_a_workload_left_uncounted_says_why(tmp_path: Path, capsys) -> None:
    folder = make_ab(tmp_path / "ab", rounds=4, slowdown=1.0)
    counts.write(folder, [177.2e6, 239.45e6], [177.3e6, 244.2e6])
    document = json.loads((folder / "instructions.json").read_text())
    why = "each iteration hashes a password at 12 bcrypt rounds"
    for side in document["sides"].values():
        side["workloads"] = side["workloads"][1:]
        side["not_counted"] = {"0": why}
    (folder / "instructions.json").write_text(json.dumps(document))
    table = io.StringIO()
    api.write_ab(folder, table, "table")
    assert f"instructions per request: not counted: {why}" in table.getvalue()
    assert cli.main(["gate", str(folder), "--max-instruction-increase", "1%"]) == 1
    assert f"not counted: {why}" in capsys.readouterr().out
