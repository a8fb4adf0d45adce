"""Which Python and path Keystone's processes get, with and without a build."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import rally_keystone_perf
from rally_keystone_perf.deploy.builds import runtime, venvs
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir


def _build(tmp_path: Path) -> Path:
    venv = tmp_path / "keystone-29.1.0-k"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "keystone-manage").write_text("#!/bin/sh\n")
    (venv / "bin" / "keystone-manage").chmod(0o755)
    (venv / venvs.BUILD_INFO).write_text(json.dumps({"version": "29.1.0"}))
    return venv


def test_no_build_is_the_suite(run: RunDir) -> None:
    options = LaunchOptions()
    values = runtime.template_values(run, options)
    assert values["python"] == sys.executable and values["venv"] == sys.prefix
    assert values["keystone_pythonpath"] == values["apache_python_path"] == ""
    assert "home" not in values["uwsgi_build_lines"]
    assert runtime.environment(run, options) == {}
    assert runtime.build(options) is None
    runtime.link_suite_code(run, options)
    assert not (run.root / runtime.SUITE_CODE).exists()
    found = Path("/usr/bin/keystone-manage")
    assert runtime.executable(options, "keystone-manage", found) == found


def test_a_build(run: RunDir, tmp_path: Path) -> None:
    venv = _build(tmp_path)
    options = LaunchOptions(keystone_build="keystone==29.1.0", keystone_venv=str(venv))
    values = runtime.template_values(run, options)
    suite = run.root / runtime.SUITE_CODE
    assert values["python"] == str(venv / "bin" / "python")
    assert values["venv"] == str(venv)
    assert values["apache_python_path"] == f" python-path={suite}"
    assert f"home = {venv}\n" in values["uwsgi_build_lines"]
    assert values["uwsgi_build_lines"].endswith(f"pythonpath = {suite}")
    assert runtime.environment(run, options) == {"PYTHONPATH": str(suite)}
    runtime.link_suite_code(run, options)
    runtime.link_suite_code(run, options)  # a second node: already there
    package = Path(rally_keystone_perf.__file__).resolve().parent
    assert [p.name for p in suite.iterdir()] == ["rally_keystone_perf"]
    assert (suite / "rally_keystone_perf").resolve() == package
    manage = runtime.executable(options, "keystone-manage", Path("/x"))
    assert manage == venv / "bin" / "keystone-manage"
    assert runtime.build(options).info == {"version": "29.1.0"}  # type: ignore[union-attr]
