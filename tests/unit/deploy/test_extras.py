"""Tests for rally_keystone_perf.deploy.extras: the local extra, read from
the package's own metadata."""

from __future__ import annotations

from importlib import metadata

import pytest

from rally_keystone_perf.deploy import extras
from rally_keystone_perf.deploy.options import LaunchError

REQUIRES = [
    "rally>=5.0",
    "psutil>=5.9",
    'keystone>=26.0; extra == "local"',
    'uwsgi>=2.0.22; extra == "local"',
    'rally-keystone-perf[local]; extra == "apache"',
    'mod-wsgi>=5.0; extra == "apache"',
    'locust>=2.40; extra == "locust"',
]


def test_an_extras_distributions_come_from_the_metadata() -> None:
    def requires(name: str) -> list[str]:
        return REQUIRES

    assert extras.extra_requirements("local", requires) == ["keystone", "uwsgi"]
    # the extra itself named by another is not a distribution to install
    assert extras.extra_requirements("apache", requires) == ["mod-wsgi"]


def test_the_installed_suites_local_extra_is_setup_cfgs() -> None:
    names = {n.lower() for n in extras.extra_requirements(extras.LOCAL)}
    assert {"keystone", "uwsgi", "uv", "pymysql", "pymemcache", "redis"} <= names
    assert "rally" not in names and "psutil" not in names


def test_without_the_suites_metadata_nothing_is_known() -> None:
    def requires(name: str) -> list[str]:
        raise metadata.PackageNotFoundError(name)

    assert extras.extra_requirements("local", requires) == []


def test_a_missing_distribution_refuses_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(extras, "_installed", lambda name: name != "uv")
    with pytest.raises(LaunchError) as err:
        extras.require_local()
    assert str(err.value) == (
        "a local Keystone needs the local extra: "
        "pip install 'rally-keystone-perf[local]' (not installed: uv)"
    )


def test_the_full_install_passes() -> None:
    assert extras.missing_local() == []
    extras.require_local()
