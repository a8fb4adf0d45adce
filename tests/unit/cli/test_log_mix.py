"""``tasks --from-log``: a mix task written from an access log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.cli import app

ID = "0123456789abcdef0123456789abcdef"
ADDRESS = "10.1.2.3"


def _line(second: int, route: str) -> str:
    method, path = route.split(" ", 1)
    return (
        f"{ADDRESS} - - [25/Nov/2026:13:{second // 60:02d}:{second % 60:02d} "
        f'+0000] "{method} {path}?user=alice HTTP/1.1" 200 10 "-" "client"'
    )


@pytest.fixture
def log(tmp_path: Path) -> Path:
    routes = ["GET /v3/auth/tokens"] * 6 + ["POST /v3/auth/tokens"] * 2
    routes += [f"GET /v3/users/{ID}/projects", "GET /v3/auth/catalog"]
    lines = [_line(n, routes[n % len(routes)]) for n in range(100)]
    path = tmp_path / "access.log"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_task_holds_the_weights_and_the_busiest_minute_s_rate(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mix.json"
    argv = ["tasks", "--from-log", str(log), "--scale", "2", "--out", str(out)]
    assert app.main([*argv, "--auth", "authenticate_application_credential"]) == 0
    text = out.read_text()
    (workload,) = json.loads(text)["subtasks"][0]["workloads"]
    weights = workload["scenario"]["KeystonePerf.mix"]["weights"]
    assert weights == {
        "validate_token": 60,
        "authenticate_application_credential": 20,
        "get_catalog": 10,
    }
    # 60 requests in the busiest minute, 90 operations of 100 requests, x 2
    rate = workload["runner"]["keystone_perf_arrival_rate"]["rate"]
    assert rate == pytest.approx(60 * 0.9 / 60 * 2, abs=1e-3)
    assert "keystone_perf_app_credentials" in workload["contexts"]
    for private in (ID, ADDRESS, "alice", "client"):
        assert private not in text
    err = capsys.readouterr().err
    assert "nginx log: 100 requests" in err
    assert "unmapped: GET /v3/users/{id}/projects: 10" in err


def test_a_log_of_no_known_request_is_refused_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "access.log"
    log.write_text(_line(0, "GET /v3") + "\n")
    assert app.main(["tasks", "--from-log", str(log)]) == 1
    assert "no request maps to an operation of the mix: GET /v3 1" in (
        capsys.readouterr().err
    )


def test_a_mix_that_creates_users_is_a_task_rally_runs(tmp_path: Path) -> None:
    """The task is checked against the plugins, as ``run`` checks it: the
    users' cleanup is the scenario's default context, which Rally hides
    from task files."""
    log, out = tmp_path / "access.log", tmp_path / "mix.json"
    routes = ["POST /v3/users", f"DELETE /v3/users/{ID}", "GET /v3/auth/tokens"]
    log.write_text("".join(_line(n, routes[n % 3]) + "\n" for n in range(30)))
    assert app.main(["tasks", "--from-log", str(log), "--out", str(out)]) == 0
    (workload,) = json.loads(out.read_text())["subtasks"][0]["workloads"]
    assert workload["scenario"]["KeystonePerf.mix"]["weights"] == {
        "validate_token": 10,
        "create_delete_user": 10,
    }
    assert set(workload["contexts"]) == {"keystone_perf_users"}


def test_a_task_rally_would_refuse_is_not_written(
    log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rally_keystone_perf.cli import log_mix

    out = tmp_path / "mix.json"
    monkeypatch.setattr(log_mix, "_contexts", lambda _weights: {"no_such": {}})
    assert app.main(["tasks", "--from-log", str(log), "--out", str(out)]) == 1
    assert not out.exists()
