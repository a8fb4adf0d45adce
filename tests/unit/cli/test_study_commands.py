"""``study``: --list, and bad input refused before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.cli import study_commands
from rally_keystone_perf.deploy.options import LaunchError


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
