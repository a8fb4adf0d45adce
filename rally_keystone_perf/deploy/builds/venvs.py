"""Install a resolved build once into a cached venv; reuse it after.

``<cache>/<key>/`` is a complete venv with ``keystone-build.json`` in it, or
absent: a build is installed in ``<cache>/.building-<key>-<pid>/`` and
renamed into place only once the install succeeded and Keystone imports from it
(scripts' ``#!`` lines then rewritten to the final path). A failed or
interrupted build leaves nothing under its key; a killed one leaves a
``.building-*`` folder that the next build removes once its pid is gone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy import services
from rally_keystone_perf.deploy.builds import dated, pins
from rally_keystone_perf.deploy.builds.resolve import Resolution, pip_tail
from rally_keystone_perf.deploy.options import LaunchError, Progress

BUILD_INFO = "keystone-build.json"
PINS_FILE = "suite-pins.txt"
SCRATCH_PREFIX = ".building-"
CACHE_ENV = "KEYSTONE_PERF_BUILD_CACHE"


@dataclass(frozen=True)
class BuildVenv:
    """A complete build's venv and what it holds (``keystone-build.json``)."""

    path: Path
    info: dict[str, Any]

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @classmethod
    def load(cls, path: Path) -> BuildVenv:
        """The build in ``path``; LaunchError when it is not a complete one."""
        try:
            info = json.loads((path / BUILD_INFO).read_text())
        except (OSError, ValueError):
            raise LaunchError(f"{path} is not a complete Keystone build") from None
        return cls(path, info)


def default_cache() -> Path:
    """``$KEYSTONE_PERF_BUILD_CACHE``, else ``~/.cache/rally-keystone-perf/builds``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rally-keystone-perf" / "builds"


def ensure(resolution: Resolution, cache: Path, progress: Progress) -> BuildVenv:
    """The build's venv from the cache, installed first when it is not there."""
    final = cache / resolution.key
    if (final / BUILD_INFO).is_file():
        progress(f"Keystone build {resolution.spec.text}: cached in {final}")
        return BuildVenv.load(final)
    cache.mkdir(parents=True, exist_ok=True)
    remove_stale_scratch(cache)
    scratch = cache / f"{SCRATCH_PREFIX}{resolution.key}-{os.getpid()}"
    progress(
        f"Keystone build {resolution.spec.text}: installing {resolution.describe()} "
        f"into {final} (once; {resolution.libraries()})"
    )
    started = time.monotonic()
    try:
        _install(resolution, scratch, cache / f"{resolution.key}.log")
        _rewrite_scripts(scratch, final)
        info = _info(resolution, final, time.monotonic() - started)
        (scratch / BUILD_INFO).write_text(json.dumps(info, indent=2) + "\n")
        _move_into_place(scratch, final)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    progress(f"Keystone build ready in {time.monotonic() - started:.0f} s")
    return BuildVenv.load(final)


def _install(resolution: Resolution, scratch: Path, log: Path) -> None:
    """A venv in ``scratch`` with the build and its libraries."""
    scratch.mkdir()
    python = scratch / "bin" / "python"
    steps = [
        [sys.executable, "-m", "venv", "--without-pip", str(scratch)],  # uv installs
        *_library_steps(resolution, scratch, python),
        [str(python), "-c", "import keystone.server.flask"],
    ]
    code = 0
    with log.open("wb") as out:
        for argv in steps:
            out.write(f"$ {' '.join(argv)}\n".encode())
            out.flush()
            code = subprocess.run(
                argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            ).returncode
            if code != 0:
                break
    if code != 0:
        raise LaunchError(
            f"installing Keystone build {resolution.spec.text} failed (exit "
            f"{code}; {resolution.libraries()}); last lines of {log}:\n"
            f"{pip_tail(log)}"
        )


def _library_steps(
    resolution: Resolution, scratch: Path, python: Path
) -> list[list[str]]:
    """The build and its libraries (uv): pinned to the suite's, or as of a
    date, with the server-side libraries the suite's code needs."""
    constraints = scratch / PINS_FILE  # kept: what the build was pinned to
    if resolution.libraries_as_of is not None:
        constraints.write_text("".join(f"{fix}\n" for fix in dated.KNOWN_FIXES))
        names = [name for name, _ in map(_split_pin, pins.server_requirements())]
        wanted = [resolution.spec.pip_argument, *names]
        return [
            dated.install_argv(python, wanted, constraints, resolution.libraries_as_of)
        ]
    constraints.write_text(pins.constraints())
    wanted = [resolution.spec.pip_argument, *pins.server_requirements()]
    return [dated.install_argv(python, wanted, constraints)]


def _split_pin(requirement: str) -> tuple[str, str]:
    """``("PyMySQL", "1.1.1")`` of ``PyMySQL==1.1.1``."""
    name, _, version = requirement.partition("==")
    return name, version


def _info(resolution: Resolution, final: Path, seconds: float) -> dict[str, Any]:
    return {
        "spec": resolution.spec.text,
        "kind": resolution.spec.kind,
        "version": resolution.version,
        "source": resolution.source,
        "libraries_as_of": resolution.libraries_as_of,
        "key": resolution.key,
        "venv": str(final),
        "python": sys.version.split()[0],
        "built_at": time.time(),
        "build_seconds": round(seconds, 1),
    }


def _move_into_place(scratch: Path, final: Path) -> None:
    """Rename the finished venv to its key; keep one built meanwhile."""
    try:
        scratch.rename(final)
    except OSError:
        if (final / BUILD_INFO).is_file():
            return  # another run built the same key first: use that one
        raise


def _rewrite_scripts(scratch: Path, final: Path) -> None:
    """Point the scripts' ``#!`` lines from the build folder to its final path."""
    old = re.escape(str(scratch).encode())
    for script in (scratch / "bin").iterdir():
        if not script.is_file() or script.is_symlink():
            continue
        content = script.read_bytes()
        if content.startswith(b"#!") and str(scratch).encode() in content[:512]:
            script.write_bytes(re.sub(old, str(final).encode(), content))


VERSIONS = (
    "import importlib.metadata as m, json; "
    "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"
)


def installed_versions(python: Path) -> dict[str, str]:
    """Each distribution installed in ``python``'s venv, by name: its
    version ({} when the venv cannot say)."""
    done = subprocess.run(
        [str(python), "-I", "-c", VERSIONS], capture_output=True, text=True
    )
    try:
        return dict(json.loads(done.stdout)) if done.returncode == 0 else {}
    except ValueError:
        return {}


def remove_stale_scratch(cache: Path) -> None:
    """Remove ``.building-*`` folders whose builder's pid is gone."""
    for folder in cache.glob(f"{SCRATCH_PREFIX}*"):
        pid = folder.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not services.alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
