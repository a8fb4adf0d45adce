"""``study``: --list, and bad input refused before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.cli import study_commands
from rally_keystone_perf.deploy.options import LaunchError
from tests.unit.run import fake_sides


def test_list_describes_every_study(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["study", "--list"]) == 0
    out = capsys.readouterr().out
    assert "000: Token creation" in out and "003: Project list" in out
    assert "configs: eventlet-1w, eventlet-4w, apache; levels: [4, 16, 32]" in out


def test_an_unknown_seed_is_an_error(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["study", "9"]) == 1
    assert (
        "no study of seed '9' (there are: 000, 001, 002, 003, 004)"
        in capsys.readouterr().err
    )


def test_bad_levels_are_refused(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(["study", "000", "--levels", "four"])
    assert exit_info.value.code == 1
    assert "not concurrency levels" in capsys.readouterr().err


def test_a_missing_program_stops_the_study_before_any_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def missing(requirements: object) -> None:
        raise LaunchError("apache2 is not installed; install it with: apt-get ...")

    monkeypatch.setattr(study_commands.preflight, "check_requirements", missing)
    argv = ["study", "000", "--runs-dir", str(tmp_path)]
    assert cli.main(argv) == 1
    assert "apache2 is not installed" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing started, nothing written


def test_an_unknown_config_is_refused_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    argv = ["study", "003", "--configs", "apache-stock,nope"]
    assert cli.main([*argv, "--runs-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "study 003 has no config nope (its configs: apache-stock," in err
    assert not list(tmp_path.iterdir())


def test_list_names_each_configs_task_files(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["study", "--list"]) == 0
    out = capsys.readouterr().out
    assert "quick: tasks/{boot-server-c5}-quick.json" in out  # 004's, in tasks/
    assert "(fernet-ldap, jws-ldap)" in out  # 001's LDAP configs: no user creation


def test_one_round_is_refused(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["study", "000", "--rounds", "1"])
    assert "--rounds" in capsys.readouterr().err


def test_a_study_of_single_nodes_runs_in_rounds_and_an_interrupt_is_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(study_commands.preflight, "check_requirements", lambda r: None)
    seen = fake_sides.install(monkeypatch)
    seen["interrupt_at"] = 2  # round 1's second config
    argv = ["study", "000", "--levels", "4", "--runs-dir", str(tmp_path)]
    assert cli.main(argv) == 130
    out, err = capsys.readouterr()
    assert seen["log"] == ["study:000 config:eventlet-1w round:1"] * 1 + [
        "study:000 config:eventlet-4w round:1"
    ]
    assert seen["stopped"] == ["apache", "eventlet-4w", "eventlet-1w"]
    assert "3 configs up at once, 3 rounds taken in turns" in err
    assert "ours: 0 rounds (partial: 0 of 3) taken in turns" in out
    folder = tmp_path / "study-000-quick"
    assert (folder / "rounds.json").is_file() and (folder / "study-000.md").is_file()
