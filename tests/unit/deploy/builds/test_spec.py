"""Build specs: what each names, and what is refused before any install."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.deploy.builds import spec
from rally_keystone_perf.deploy.options import LaunchError


def _checkout(root: Path) -> Path:
    (root / "keystone").mkdir(parents=True)
    (root / "keystone" / "__init__.py").write_text("")
    (root / "setup.cfg").write_text("[metadata]\nname = keystone\n")
    return root


def test_pip_requirement() -> None:
    parsed = spec.parse(" keystone==29.1.0 ")
    assert (parsed.kind, parsed.pip_argument) == (spec.PIP, "keystone==29.1.0")


def test_git_url_with_ref() -> None:
    parsed = spec.parse("git+file:///src/keystone@stable/2025.2")
    assert parsed.kind == spec.GIT
    assert parsed.pip_argument == "keystone @ git+file:///src/keystone@stable/2025.2"


def test_git_url_without_ref_refused() -> None:
    with pytest.raises(LaunchError, match="name the ref to build after an @"):
        spec.parse("git+file:///src/keystone")


def test_checkout(tmp_path: Path) -> None:
    folder = _checkout(tmp_path / "keystone-src")
    parsed = spec.parse(str(folder))
    assert (parsed.kind, parsed.folder) == (spec.CHECKOUT, folder.resolve())
    assert parsed.pip_argument == str(folder.resolve())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "an empty Keystone build"),
        ("requests==2.0", "names requests, not keystone"),
        ("keystone>>1", "Keystone build 'keystone>>1'"),
        ("./no-such-folder", "no such folder"),
    ],
)
def test_refused(text: str, message: str) -> None:
    with pytest.raises(LaunchError, match=message):
        spec.parse(text)


def test_folder_that_is_not_keystone(tmp_path: Path) -> None:
    (tmp_path / "setup.cfg").write_text("")
    with pytest.raises(LaunchError, match=r"not a Keystone checkout \(no keystone/"):
        spec.parse(str(tmp_path))
    (tmp_path / "setup.cfg").unlink()
    (tmp_path / "keystone").mkdir()
    (tmp_path / "keystone" / "__init__.py").write_text("")
    with pytest.raises(LaunchError, match=r"no setup.cfg"):
        spec.parse(str(tmp_path))
