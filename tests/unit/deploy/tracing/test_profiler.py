from __future__ import annotations

from pathlib import Path

from rally_keystone_perf.deploy.tracing import profiler
from rally_keystone_perf.layout.rundir import RunDir, write_private_json


def test_keystone_section_names_the_suites_driver_and_no_key() -> None:
    section = profiler.profiler_section("redis://198.18.0.1:6380")
    assert "enabled = true" in section and "trace_sqlalchemy = true" in section
    assert f"connection_string = {profiler.DRIVER_SCHEME}://198.18.0.1:6380" in section
    assert "hmac" not in section
    assert profiler.profiler_section(None) == ""


def test_redis_keeps_nothing_on_disk() -> None:
    argv = profiler.redis_argv(Path("/usr/bin/redis-server"), "127.0.0.1", 7)
    assert argv[argv.index("--save") + 1] == ""
    assert argv[argv.index("--appendonly") + 1] == "no"
    assert argv[argv.index("--bind") + 1] == "127.0.0.1"


def test_the_key_is_private(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    run.create()
    write_private_json(run.admin_secret, {"password": "admin"})
    key = profiler.new_hmac_key(run)
    path = profiler.hmac_key_file(run)
    assert path.read_text().strip() == key and len(key) == 32
    assert path.stat().st_mode & 0o777 == 0o600
    assert key in run.state().secrets()  # redacted from Rally's output
