"""The build cache: a complete venv under its key, or nothing."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.builds import pins, resolve, spec, venvs
from rally_keystone_perf.deploy.options import LaunchError

RESOLUTION = resolve.Resolution(
    spec.parse("keystone==29.1.0"), "29.1.0", {"sha256": "ab" * 32}, "keystone-29.1.0-k"
)


def _fake_install(calls: list[Path]) -> Any:
    """Lay out a venv the way ``python -m venv`` and pip would."""

    def install(resolution: resolve.Resolution, scratch: Path, log: Path) -> None:
        calls.append(scratch)
        (scratch / "bin").mkdir(parents=True)
        (scratch / "bin" / "keystone-manage").write_text(
            f"#!{scratch}/bin/python\nimport keystone\n"
        )
        (scratch / "bin" / "python").symlink_to("/usr/bin/python3")

    return install


def test_built_once_then_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[Path] = []
    monkeypatch.setattr(venvs, "_install", _fake_install(calls))
    said: list[str] = []
    built = venvs.ensure(RESOLUTION, tmp_path, said.append)
    assert built.path == tmp_path / "keystone-29.1.0-k"
    assert (
        built.info["version"] == "29.1.0" and built.info["spec"] == "keystone==29.1.0"
    )
    script = (built.path / "bin" / "keystone-manage").read_text()
    assert script.startswith(f"#!{built.path}/bin/python\n")
    assert [p.name for p in tmp_path.iterdir()] == ["keystone-29.1.0-k"]
    again = venvs.ensure(RESOLUTION, tmp_path, said.append)
    assert again.path == built.path and len(calls) == 1
    assert said[-1].endswith(f"cached in {built.path}")


def test_failed_build_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(argv: list[str], stdout: Any, **_: Any) -> Any:
        stdout.write(b"ERROR: ResolutionImpossible: oslo.db needs sqlalchemy>=9\n")
        return subprocess.CompletedProcess(argv, 1)

    monkeypatch.setattr(venvs.subprocess, "run", failing)
    with pytest.raises(LaunchError) as err:
        venvs.ensure(RESOLUTION, tmp_path, lambda _: None)
    assert "installing Keystone build keystone==29.1.0 failed (exit 1" in str(err.value)
    assert "ResolutionImpossible" in str(err.value)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["keystone-29.1.0-k.log"]  # the log, no venv


def test_interrupted_build_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(resolution: Any, scratch: Path, log: Path) -> None:
        scratch.mkdir()
        raise KeyboardInterrupt

    monkeypatch.setattr(venvs, "_install", interrupted)
    with pytest.raises(KeyboardInterrupt):
        venvs.ensure(RESOLUTION, tmp_path, lambda _: None)
    assert list(tmp_path.iterdir()) == []


def test_stale_scratch_of_a_dead_builder_removed(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"{venvs.SCRATCH_PREFIX}keystone-1-k-{dead.pid}"
    live = tmp_path / f"{venvs.SCRATCH_PREFIX}keystone-1-k-{os.getpid()}"
    stale.mkdir()
    live.mkdir()
    venvs.remove_stale_scratch(tmp_path)
    assert not stale.exists() and live.exists()


def test_built_meanwhile_by_another_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    final = tmp_path / RESOLUTION.key

    def install_while_another_finishes(*args: Any) -> None:
        _fake_install([])(*args)
        (final / "bin").mkdir(parents=True)
        (final / venvs.BUILD_INFO).write_text(json.dumps({"version": "29.1.0"}))

    monkeypatch.setattr(venvs, "_install", install_while_another_finishes)
    built = venvs.ensure(RESOLUTION, tmp_path, lambda _: None)
    assert built.path == final
    assert [p.name for p in tmp_path.iterdir()] == [RESOLUTION.key]


def test_incomplete_venv_is_not_a_build(tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="not a complete Keystone build"):
        venvs.BuildVenv.load(tmp_path)


def test_default_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(venvs.CACHE_ENV, str(tmp_path / "c"))
    assert venvs.default_cache() == tmp_path / "c"
    monkeypatch.delenv(venvs.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert venvs.default_cache() == tmp_path / "rally-keystone-perf" / "builds"


def test_a_dated_build_is_installed_by_uv_as_of_its_date(tmp_path: Path) -> None:
    dated_build = resolve.Resolution(
        RESOLUTION.spec, "27.0.0", {"sha256": "ab" * 32}, "k", "2025-04-02T10:50:25Z"
    )
    tmp_path.joinpath("bin").mkdir()
    (step,) = venvs._library_steps(dated_build, tmp_path, tmp_path / "bin/python")
    assert Path(step[0]).name == "uv"
    assert step[step.index("--exclude-newer") + 1] == "2025-04-02T10:50:25Z"
    assert "keystone==29.1.0" in step and "eventlet" in step  # names, not pins
    assert not any("==" in arg for arg in step if arg != "keystone==29.1.0")
    constraints = Path(step[step.index("--constraint") + 1])
    assert constraints.read_text() == "pyOpenSSL>=24.0\n"


def test_a_pinned_build_takes_the_suites_versions(tmp_path: Path) -> None:
    (step,) = venvs._library_steps(RESOLUTION, tmp_path, tmp_path / "bin/python")
    assert Path(step[0]).name == "uv" and "--exclude-newer" not in step
    assert "eventlet==" in " ".join(step)
    constraints = Path(step[step.index("--constraint") + 1])
    assert constraints.read_text() == pins.constraints()
