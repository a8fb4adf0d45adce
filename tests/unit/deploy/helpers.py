"""Small helpers shared by the deploy tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


def stand_in_keystone(
    root: Path, cli_source: str, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A keystone-manage whose Python imports ``cli_source`` as Keystone's
    ``keystone.cmd.cli`` (first on PYTHONPATH): what the launcher's batch of
    keystone-manage steps (deploy/keystone/manage_batch) runs."""
    package = root / "stand-in" / "keystone" / "cmd"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "cli.py").write_text(cli_source)
    (package / "manage.py").write_text("possible_topdir = '/nowhere'\n")
    monkeypatch.setenv("PYTHONPATH", str(root / "stand-in"))
    return _script(root / "keystone-manage", f"#!{sys.executable}\n")
