"""The one list of deployment modes: name -> what to render and start."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Requirement:
    """An executable a mode needs, and how a user gets it."""

    executable: str
    install_hint: str
    in_venv: bool = True


@dataclass(frozen=True)
class Mode:
    """A way of serving Keystone locally.

    ``templates`` maps a template under ``deployments/`` to the file it is
    rendered to inside the run folder's ``conf/``.
    """

    name: str
    description: str
    templates: dict[str, str]
    requirements: tuple[Requirement, ...]


KEYSTONE_MANAGE = Requirement("keystone-manage", "pip install keystone")
UWSGI = Requirement("uwsgi", "pip install uwsgi")

MODES: dict[str, Mode] = {
    mode.name: mode
    for mode in (
        Mode(
            name="uwsgi",
            description="Keystone under uwsgi's HTTP router (keep-alive), "
            "N processes x M threads",
            templates={
                "common/keystone.conf.tmpl": "keystone.conf",
                "uwsgi/uwsgi.ini.tmpl": "uwsgi.ini",
            },
            requirements=(KEYSTONE_MANAGE, UWSGI),
        ),
    )
}

DEFAULT_MODE = "uwsgi"


def get_mode(name: str) -> Mode:
    """Return the mode called ``name`` or raise ValueError listing the known ones."""
    try:
        return MODES[name]
    except KeyError:
        known = ", ".join(sorted(MODES))
        raise ValueError(f"unknown mode {name!r} (known modes: {known})") from None
