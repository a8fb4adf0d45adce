"""Parse a Keystone build spec: a pip requirement, a git URL, a checkout.

``keystone==29.1.0`` (any requirement naming keystone), ``git+URL@REF``
(``git+file:///src/keystone@stable/2025.2``: pip's VCS syntax) or a folder
holding a Keystone source tree (a developer's change, with what is not
committed). Anything else is refused here, before anything is installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from rally_keystone_perf.deploy.options import LaunchError

PIP, GIT, CHECKOUT = "pip", "git", "checkout"
PROJECT_FILES = ("setup.cfg", "setup.py", "pyproject.toml")
EXAMPLES = (
    "a pip requirement (keystone==29.1.0), a git URL with a ref "
    "(git+file:///src/keystone@master) or a Keystone checkout's folder"
)


@dataclass(frozen=True)
class BuildSpec:
    """What the user asked for, and what pip is given to install it."""

    text: str
    kind: str
    pip_argument: str
    folder: Path | None = None  # a checkout's folder

    @property
    def label(self) -> str:
        """How reports name the build: the spec as given."""
        return self.text


def parse(text: str) -> BuildSpec:
    """The build ``text`` names; LaunchError when it names no Keystone."""
    text = text.strip()
    if not text:
        raise LaunchError(f"an empty Keystone build; give {EXAMPLES}")
    if text.startswith("git+"):
        if "@" not in text.split("://", 1)[-1]:
            raise LaunchError(
                f"Keystone build {text}: name the ref to build after an @ "
                "(git+file:///src/keystone@master)"
            )
        return BuildSpec(text, GIT, f"keystone @ {text}")
    if _looks_like_path(text):
        folder = check_checkout(Path(text).expanduser())
        return BuildSpec(text, CHECKOUT, str(folder), folder)
    return BuildSpec(text, PIP, _requirement(text))


def _looks_like_path(text: str) -> bool:
    return "/" in text or text.startswith(("~", ".")) or Path(text).is_dir()


def _requirement(text: str) -> str:
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise LaunchError(f"Keystone build {text!r}: {exc}; give {EXAMPLES}") from None
    if canonicalize_name(requirement.name) != "keystone":
        raise LaunchError(
            f"Keystone build {text!r} names {requirement.name}, not keystone"
        )
    return text


def check_checkout(folder: Path) -> Path:
    """``folder`` resolved; LaunchError unless it holds Keystone's source."""
    if not folder.is_dir():
        raise LaunchError(f"Keystone build {folder}: no such folder")
    resolved = folder.resolve()
    package = resolved / "keystone" / "__init__.py"
    project = [name for name in PROJECT_FILES if (resolved / name).is_file()]
    if not package.is_file() or not project:
        missing = "keystone/__init__.py" if not package.is_file() else "setup.cfg"
        raise LaunchError(
            f"Keystone build {folder}: not a Keystone checkout (no {missing})"
        )
    return resolved
