"""The core install from the wheel, as an operator on a jump host makes it:
no extra, no C compiler on the PATH.

The slow tier's (it reaches the package index, about two minutes): the
wheel installs; Keystone, uwsgi, uv and redis are absent; Rally lists the
KeystonePerf scenarios; ``run`` on a local Keystone is refused, naming the
extra; ``run --os-cloud`` measures a Keystone the test starts
(:mod:`.standalone_keystone`, from the checkout's venv). The install's
time and size are printed (``-s``). In CI,
tests/unit/test_core_install.py loads the same plugins and commands with
every module outside the core's requirements blocked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.functional.standalone_keystone import standalone_keystone

CHECKOUT = Path(__file__).resolve().parents[2]
SMOKE = CHECKOUT / "tasks" / "smoke.json"
ABSENT = ("keystone", "uwsgi", "uv", "redis", "pymysql", "pymemcache")

pytestmark = [pytest.mark.functional, pytest.mark.slow]


def _du(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _run(argv: list[str], env: dict[str, str], timeout: float = 900):
    return subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The wheel built from this checkout, installed without extras into a
    fresh venv whose PATH holds the venv alone (no cc, no gcc)."""
    root = tmp_path_factory.mktemp("core")
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(root),
            str(CHECKOUT),
        ],
        dict(os.environ),
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = root.glob("rally_keystone_perf-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {
        "PATH": str(venv / "bin"),
        "HOME": str(root / "home"),
        "LANG": "C.UTF-8",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    assert not [c for c in ("cc", "gcc") if shutil.which(c, path=env["PATH"])]
    started = time.monotonic()
    installed = _run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], env)
    seconds = time.monotonic() - started
    assert installed.returncode == 0, installed.stderr[-3000:]
    print(f"\ncore install: {seconds:.0f} s, venv {_du(venv) / 2**20:.0f} MiB")
    return venv, env


def test_the_local_extras_packages_are_absent(
    core_venv: tuple[Path, dict[str, str]],
) -> None:
    venv, env = core_venv
    probe = "import importlib.util as u, sys\n"
    probe += "print([m for m in sys.argv[1:] if u.find_spec(m)])"
    found = _run([str(venv / "bin" / "python"), "-c", probe, *ABSENT], env)
    assert found.stdout.strip() == "[]", found.stderr
    assert not (venv / "bin" / "uwsgi").exists()


def test_rally_lists_the_suites_scenarios(
    core_venv: tuple[Path, dict[str, str]],
) -> None:
    venv, env = core_venv
    listed = _run([str(venv / "bin" / "rally"), "plugin", "list", "KeystonePerf"], env)
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr[-2000:]
    assert "KeystonePerf.create_token" in listed.stdout
    assert "Failed to load plugins" not in listed.stdout + listed.stderr


def test_the_bundled_tasks_are_found_and_run_is_refused(
    core_venv: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, env = core_venv
    tool = str(venv / "bin" / "rally-keystone-perf")
    where = _run([tool, "tasks", "--path"], env)
    assert where.returncode == 0, where.stderr
    assert (
        Path(where.stdout.strip()) / "uwsgi" / "create-token-c4-quick.json"
    ).is_file()
    refused = _run([tool, "run", "--runs-dir", str(tmp_path / "runs")], env)
    assert refused.returncode == 1
    assert refused.stderr.startswith(
        "error: a local Keystone needs the local extra: "
        "pip install 'rally-keystone-perf[local]'"
    )
    assert "Traceback" not in refused.stderr
    assert not (tmp_path / "runs").exists()


def test_run_os_cloud_from_the_core_install(
    core_venv: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """The core install's own job, end to end: the smoke task against a
    Keystone someone else runs (the stand-in, started by the checkout's
    venv), the report printed, nothing left on it."""
    venv, env = core_venv
    with standalone_keystone(tmp_path / "keystone") as keystone:
        env = {
            **env,
            "OS_CLIENT_CONFIG_FILE": str(keystone.clouds_yaml(tmp_path / "c.yaml")),
        }
        argv = [str(venv / "bin" / "rally-keystone-perf"), "run", "--os-cloud"]
        argv += ["standalone", "--allow-writes", "--task", str(SMOKE)]
        done = _run([*argv, "--runs-dir", str(tmp_path / "runs")], env, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert f"target {keystone.url}/v3 (external)" in done.stdout
    assert "keystone.create_token" in done.stdout
    assert "left on the target: 0 users, 0 projects" in done.stderr
