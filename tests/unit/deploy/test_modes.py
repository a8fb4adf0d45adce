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
