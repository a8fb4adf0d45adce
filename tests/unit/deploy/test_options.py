"""Tests for rally_keystone_perf.deploy.options (resolving a run's options)."""

from __future__ import annotations

import pytest

import rally_keystone_perf.deploy.options as deploy_options
from rally_keystone_perf.deploy import modes, preflight
from rally_keystone_perf.deploy.options import (
    LaunchOptions,
    resolve,
    resolve_settings,
)

# --- settings, backends in the config ------------------------------------------


def test_settings_come_from_the_profile_unless_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(deploy_options, "somaxconn", lambda: 1024)
    apache = modes.get_mode("apache")
    stock = resolve_settings(apache, LaunchOptions(mode="apache"))
    assert (stock.processes, stock.threads, stock.listen_backlog) == (5, 1, 511)
    assert stock.values["keepalive"] == "On"  # Apache's and Debian's default
    assert stock.values["max_keepalive_requests"] == "100"
    tuned = resolve_settings(
        apache, LaunchOptions(mode="apache", profile="tuned", processes=7)
    )
    # 38 x 4 but for the explicit --processes; the backlog capped by the kernel
    assert (tuned.processes, tuned.threads, tuned.listen_backlog) == (7, 4, 1024)
    assert tuned.somaxconn == 1024


def test_settings_refuse_what_a_mode_lacks() -> None:
    with pytest.raises(ValueError, match="has no threads setting"):
        resolve_settings(
            modes.get_mode("eventlet"), LaunchOptions(mode="eventlet", threads=4)
        )
    with pytest.raises(ValueError, match="has no profile 'tuned'"):
        resolve_settings(modes.get_mode("uwsgi"), LaunchOptions(profile="tuned"))


def test_the_resolved_deployment_gives_nova_fake_its_database() -> None:
    said: list[str] = []
    deployment = resolve(LaunchOptions(mode="nova-fake"), said.append)
    assert deployment.options.db == "mysql"
    assert said == ["mode nova-fake runs on --db mysql"]
    plain = LaunchOptions(mode="uwsgi")
    assert resolve(plain).options is plain
    assert {r.executable for r in preflight.requirements(deployment)} >= {
        "mariadbd",
        "nova-manage",
    }


def test_wsgi_stock_runs_where_the_servers_load_keystone_alone() -> None:
    for mode in modes.KEYSTONE_MODES:
        assert resolve(LaunchOptions(mode=mode, wsgi="stock")).options.wsgi == "stock"
    with pytest.raises(ValueError, match="mode nova-fake starts more than Keystone"):
        resolve(LaunchOptions(mode="nova-fake", wsgi="stock"))
    with pytest.raises(ValueError, match="the trace points are the suite wrapper's"):
        resolve(LaunchOptions(wsgi="stock", trace="slowest:5"))
    with pytest.raises(ValueError, match="--wsgi plain: one of suite, stock"):
        resolve(LaunchOptions(wsgi="plain"))
