"""Which Python runs Keystone's processes: the suite's, or a build's venv.

With no build, Keystone runs in the suite's own interpreter and venv, as it
always has. With one (``LaunchOptions.keystone_venv``), the launcher runs
``keystone-manage``, the user pool, uwsgi's and mod_wsgi's applications and
the eventlet server with the build's venv, and puts the suite's server-side
code (the WSGI wrapper, the trace driver, the user pool) on their path from
``<run>/suite-code/``: a folder holding only a link to the suite's package,
so that nothing else of the suite's venv (its Keystone above all) is seen.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import rally_keystone_perf
from rally_keystone_perf.deploy.builds.venvs import BuildVenv
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir

SUITE_CODE = "suite-code"


def python(options: LaunchOptions) -> Path:
    """The interpreter Keystone's Python processes run."""
    if options.keystone_venv is None:
        return Path(sys.executable)
    return Path(options.keystone_venv) / "bin" / "python"


def venv(options: LaunchOptions) -> Path:
    """The venv Keystone's servers (uwsgi's home, mod_wsgi's python-home) use."""
    return Path(options.keystone_venv or sys.prefix)


def build(options: LaunchOptions) -> BuildVenv | None:
    """The build the options name, or None for the suite's own Keystone."""
    return None if options.keystone_venv is None else BuildVenv.load(venv(options))


def suite_path(run: RunDir, options: LaunchOptions) -> Path | None:
    """The folder to put on a build's path (None: no build, nothing to add)."""
    return None if options.keystone_venv is None else run.root / SUITE_CODE


def package_parent(options: LaunchOptions) -> Path | None:
    """Where the suite's package is, for a build's checks (None: no build)."""
    if options.keystone_venv is None:
        return None
    return Path(rally_keystone_perf.__file__).resolve().parent.parent


def link_suite_code(run: RunDir, options: LaunchOptions) -> None:
    """Create ``<run>/suite-code/rally_keystone_perf`` for a build's processes."""
    folder = suite_path(run, options)
    if folder is None:
        return
    folder.mkdir(exist_ok=True)
    link = folder / "rally_keystone_perf"
    if not link.exists():
        link.symlink_to(Path(rally_keystone_perf.__file__).resolve().parent)


def environment(run: RunDir, options: LaunchOptions) -> dict[str, str]:
    """What a build's Python processes need in their environment."""
    folder = suite_path(run, options)
    return {} if folder is None else {"PYTHONPATH": str(folder)}


def executable(options: LaunchOptions, name: str, found: Path) -> Path:
    """A Keystone script (``keystone-manage``) from the build, else ``found``."""
    if options.keystone_venv is None:
        return found
    candidate = venv(options) / "bin" / name
    return candidate if os.access(candidate, os.X_OK) else found


def template_values(run: RunDir, options: LaunchOptions) -> dict[str, str]:
    """The config templates' values that differ for a build.

    ``python`` and ``venv`` (mod_wsgi's python-home, the eventlet server's
    interpreter); ``uwsgi_build_lines``: uwsgi's ``home`` and ``pythonpath``
    (with no build, none: uwsgi's own venv, as before);
    ``apache_python_path``: mod_wsgi's ``python-path=`` option or nothing;
    ``keystone_pythonpath``: the processes' PYTHONPATH or empty.
    """
    folder = suite_path(run, options)
    values = {
        "python": str(python(options)),
        "venv": str(venv(options)),
        "keystone_pythonpath": "",
        "apache_python_path": "",
        "uwsgi_build_lines": "; Keystone from uwsgi's own venv (no --keystone-build)",
    }
    if folder is not None:
        values.update(
            keystone_pythonpath=str(folder),
            apache_python_path=f" python-path={folder}",
            uwsgi_build_lines=(
                "; --keystone-build: the build's venv (its Keystone and libraries)\n"
                f"home = {venv(options)}\n"
                "; and the suite's WSGI wrapper beside it (only that package)\n"
                f"pythonpath = {folder}"
            ),
        )
    return values
