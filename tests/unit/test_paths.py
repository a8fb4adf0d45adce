"""Tests for rally_keystone_perf.paths."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rally_keystone_perf import paths

CHECKOUT = Path(__file__).resolve().parents[2]


def test_checkout_resources() -> None:
    assert paths.resource_root() == CHECKOUT
    assert paths.deployments_dir() == CHECKOUT / "deployments"
    assert paths.tasks_dir() == CHECKOUT / "tasks"
    assert (paths.tasks_dir() / "smoke.json").is_file()
    assert not paths.installed_copy()


def test_venv_bin() -> None:
    assert paths.venv_bin("rally") == Path(sys.executable).parent / "rally"


def _fake_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: Path, prefix: Path
) -> None:
    package = tmp_path / "site" / "rally_keystone_perf"
    package.mkdir(parents=True)
    monkeypatch.setattr(paths, "__file__", str(package / "paths.py"))
    monkeypatch.setattr(paths.sysconfig, "get_path", lambda name: str(data))
    monkeypatch.setattr(paths.sys, "prefix", str(prefix))


def _share(root: Path) -> Path:
    share = root / "share" / "rally-keystone-perf"
    (share / "deployments").mkdir(parents=True)
    (share / "tasks").mkdir()
    return share


def test_wheel_install_uses_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    share = _share(tmp_path / "data")
    _fake_install(tmp_path, monkeypatch, tmp_path / "data", tmp_path / "prefix")
    assert paths.resource_root() == share
    assert paths.tasks_dir() == share / "tasks"
    assert paths.installed_copy()


def test_falls_back_to_the_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    share = _share(tmp_path / "prefix")
    (tmp_path / "data" / "share" / "rally-keystone-perf" / "tasks").mkdir(
        parents=True
    )  # incomplete: no deployments/
    _fake_install(tmp_path, monkeypatch, tmp_path / "data", tmp_path / "prefix")
    assert paths.resource_root() == share


def test_nothing_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_install(tmp_path, monkeypatch, tmp_path / "data", tmp_path / "prefix")
    with pytest.raises(FileNotFoundError) as err:
        paths.deployments_dir()
    message = str(err.value)
    assert message.startswith("cannot find the bundled deployments/ and tasks/")
    assert str(tmp_path / "data" / "share" / "rally-keystone-perf") in message
    assert str(tmp_path / "prefix" / "share" / "rally-keystone-perf") in message


def test_every_bundled_file_is_installed_by_setup_cfg() -> None:
    """A wheel install has tasks/ and deployments/ only through data_files."""
    import configparser

    root = Path(__file__).resolve().parents[2]
    parser = configparser.ConfigParser()
    parser.read(root / "setup.cfg")
    installed: set[Path] = set()
    for target, patterns in parser["options.data_files"].items():
        for pattern in patterns.split():
            for path in root.glob(pattern):
                # installed under share/<...>/<same relative folder>
                assert target.endswith(str(path.parent.relative_to(root)))
                installed.add(path)
    bundled = {
        p
        for folder in ("tasks", "deployments")
        for p in (root / folder).rglob("*")
        if p.is_file()
    }
    assert bundled - installed == set()
