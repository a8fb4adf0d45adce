"""Tests for rally_keystone_perf.deploy.modes."""

from __future__ import annotations

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import modes


def test_default_mode_is_known() -> None:
    assert modes.get_mode(modes.DEFAULT_MODE) is modes.MODES[modes.DEFAULT_MODE]


def test_uwsgi_mode() -> None:
    mode = modes.get_mode("uwsgi")
    assert mode.name == "uwsgi"
    assert mode.templates == {
        "common/keystone.conf.tmpl": "keystone.conf",
        "uwsgi/uwsgi.ini.tmpl": "uwsgi.ini",
    }
    assert [r.executable for r in mode.requirements] == ["keystone-manage", "uwsgi"]
    assert all(r.install_hint.startswith("pip install ") for r in mode.requirements)


@pytest.mark.parametrize("mode", sorted(modes.MODES))
def test_every_mode_is_consistent(mode: str) -> None:
    found = modes.get_mode(mode)
    assert found.name == mode
    for template in found.templates:
        assert (paths.deployments_dir() / template).is_file()
    targets = list(found.templates.values())
    assert len(targets) == len(set(targets))
    assert "keystone.conf" in targets


@pytest.mark.parametrize("name", ["iis", "UWSGI", "", "uwsgi "])
def test_unknown_mode(name: str) -> None:
    with pytest.raises(ValueError) as err:
        modes.get_mode(name)
    message = str(err.value)
    assert message.startswith(f"unknown mode {name!r}")
    assert f"(known modes: {', '.join(sorted(modes.MODES))})" in message
    assert err.value.__cause__ is None
    assert err.value.__suppress_context__ is True


def test_every_mode_folder_is_installed_and_documented() -> None:
    import configparser

    root = paths.resource_root()
    setup = configparser.ConfigParser()
    setup.read(root / "setup.cfg")
    installed = set(setup["options.data_files"])
    folders = {t.split("/")[0] for m in modes.MODES.values() for t in m.templates}
    for folder in folders:
        assert f"share/rally-keystone-perf/deployments/{folder}" in installed
        assert (paths.deployments_dir() / folder / "README.rst").is_file(), folder
    for mode in modes.MODES:
        assert (paths.deployments_dir() / mode / "README.rst").is_file(), mode


@pytest.mark.parametrize("mode", sorted(modes.MODES))
def test_profiles(mode: str) -> None:
    found = modes.get_mode(mode)
    assert modes.DEFAULT_PROFILE in found.profiles
    assert sum(p.runs_keystone for p in found.processes) == 1
    for profile in found.profiles.values():
        assert profile.processes >= 1 and profile.threads >= 1
        assert profile.listen_backlog >= 1


def test_seed_003_tuned_profiles() -> None:
    assert modes.get_profile(modes.get_mode("apache"), "tuned").processes == 38
    assert modes.get_profile(modes.get_mode("apache"), "tuned").threads == 4
    assert modes.get_profile(modes.get_mode("nginx-uwsgi"), "tuned").threads == 5
    with pytest.raises(ValueError, match="mode uwsgi has no profile 'tuned'"):
        modes.get_profile(modes.get_mode("uwsgi"), "tuned")


def test_keystone_modes_leave_out_the_modes_with_a_stack() -> None:
    assert "nova-fake" in modes.MODES
    assert "nova-fake" not in modes.KEYSTONE_MODES
    assert set(modes.KEYSTONE_MODES) == {
        name for name, mode in modes.MODES.items() if mode.stack is None
    }
    nova = modes.get_mode("nova-fake")
    assert nova.stack == "nova" and nova.database == "mysql"
    needed = {req.executable for req in nova.requirements}
    assert {"nova-compute", "rabbitmq-server", "epmd", "uwsgi"} <= needed
