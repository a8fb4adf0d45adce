"""Whether this install can start a local Keystone: the ``local`` extra.

The core install (``pip install rally-keystone-perf``) holds the Rally
plugins, the reports and ``run --os-cloud``; starting a Keystone here needs
the ``local`` extra (Keystone, uwsgi, uv and the backends' clients). What
the extra holds is read from the package's own metadata (setup.cfg's
``[options.extras_require]``), so the list lives in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata

from packaging.requirements import InvalidRequirement, Requirement

from rally_keystone_perf.deploy.options import LaunchError

DISTRIBUTION = "rally-keystone-perf"
LOCAL = "local"
INSTALL_LOCAL = f"pip install '{DISTRIBUTION}[{LOCAL}]'"
NEEDS_LOCAL = f"a local Keystone needs the {LOCAL} extra: {INSTALL_LOCAL}"
Requires = Callable[[str], "list[str] | None"]


def _installed(name: str) -> bool:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def extra_requirements(extra: str, requires: Requires = metadata.requires) -> list[str]:
    """The distributions ``extra`` adds to the core install, by name.

    Empty when the suite's metadata is not found (a source tree run without
    an install): what the extra holds cannot be told then.
    """
    try:
        lines = requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return []
    names = []
    for line in lines:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        marker = requirement.marker
        if marker is None or requirement.name == DISTRIBUTION:
            continue
        if marker.evaluate({"extra": extra}) and not marker.evaluate({"extra": ""}):
            names.append(requirement.name)
    return names


def missing_local() -> list[str]:
    """The ``local`` extra's distributions this environment lacks."""
    return [n for n in extra_requirements(LOCAL) if not _installed(n)]


def require_local() -> None:
    """Refuse (:class:`LaunchError`, before anything starts) a command that
    starts a local Keystone on an install without the ``local`` extra."""
    missing = missing_local()
    if missing:
        raise LaunchError(f"{NEEDS_LOCAL} (not installed: {', '.join(missing)})")
