"""Where the suite's bundled files (deployments/, tasks/) live."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

_SHARE = Path("share") / "rally-keystone-perf"


def resource_root() -> Path:
    """Return the folder holding ``deployments/`` and ``tasks/``.

    A source checkout (or editable install) uses the repository's own folders;
    a wheel install uses the copies installed under ``<prefix>/share``.
    """
    checkout = Path(__file__).resolve().parent.parent
    candidates = [
        checkout,
        Path(sysconfig.get_path("data")) / _SHARE,
        Path(sys.prefix) / _SHARE,
    ]
    for candidate in candidates:
        if (candidate / "deployments").is_dir() and (candidate / "tasks").is_dir():
            return candidate
    raise FileNotFoundError(
        "cannot find the bundled deployments/ and tasks/ folders "
        f"(looked in: {', '.join(str(c) for c in candidates)})"
    )


def installed_copy() -> bool:
    """Whether the bundled files are an install's copies (under
    ``<prefix>/share``), not a source checkout's own folders."""
    return resource_root() != Path(__file__).resolve().parent.parent


def deployments_dir() -> Path:
    """Folder of per-mode config templates."""
    return resource_root() / "deployments"


def tasks_dir() -> Path:
    """Folder of bundled Rally task files."""
    return resource_root() / "tasks"


def venv_bin(name: str) -> Path:
    """Path of an executable installed beside the running interpreter."""
    return Path(sys.executable).parent / name
