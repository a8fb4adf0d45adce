"""Tests for the WSGI wrapper around Keystone's app (Keystone's app is stubbed).

Importing the real ``keystone.wsgi.api`` builds Keystone's app and needs a
configuration, so every test imports the wrapper afresh with a fake
``keystone.wsgi.api`` in ``sys.modules``.
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest

from rally_keystone_perf import deploy

MODULE = "rally_keystone_perf.deploy.wsgi_app"
ENVIRON = {"REQUEST_METHOD": "GET", "PATH_INFO": "/v3"}

App = Callable[[dict[str, Any], Callable[..., Any]], Any]


class FakeEnforcer:
    """Keystone's policy enforcer: records that its rules were loaded."""

    loads = 0
    suppress_deprecation_warnings = False

    def load_rules(self) -> None:
        FakeEnforcer.loads += 1


@pytest.fixture
def wrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[App], Any]]:
    """Import the wrapper module around a fake Keystone app."""
    had_attr = hasattr(deploy, "wsgi_app")
    saved = sys.modules.get(MODULE)
    enforcer = FakeEnforcer()
    FakeEnforcer.loads = 0

    def load(app: App) -> Any:
        monkeypatch.setitem(
            sys.modules, "keystone.wsgi.api", types.SimpleNamespace(application=app)
        )
        rbac = types.SimpleNamespace(
            RBACEnforcer=lambda: types.SimpleNamespace(_enforcer=enforcer)
        )
        monkeypatch.setitem(
            sys.modules,
            "keystone.common.rbac_enforcer",
            types.SimpleNamespace(enforcer=rbac),
        )
        monkeypatch.setitem(sys.modules, "keystone.common.rbac_enforcer.enforcer", rbac)
        sys.modules.pop(MODULE, None)
        return importlib.import_module(MODULE)

    yield load
    sys.modules.pop(MODULE, None)
    if saved is not None:
        sys.modules[MODULE] = saved
    elif not had_attr and hasattr(deploy, "wsgi_app"):
        delattr(deploy, "wsgi_app")


def test_normal_response_passes_through(wrap) -> None:
    body = [b'{"version": {}}']
    seen: list[dict[str, Any]] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        seen.append(environ)
        start_response("200 OK", [("Content-Type", "application/json")])
        return body

    module = wrap(app)
    start_response = mock.Mock()
    result = module.application(ENVIRON, start_response)
    assert result is body
    assert seen == [ENVIRON]
    start_response.assert_called_once_with(
        "200 OK", [("Content-Type", "application/json")]
    )


def test_only_the_last_status_is_sent(wrap) -> None:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        start_response("200 OK", [("A", "1")])
        start_response("404 Not Found", [("B", "2")], sys.exc_info())
        return [b"nf"]

    start_response = mock.Mock()
    assert wrap(app).application(ENVIRON, start_response) == [b"nf"]
    start_response.assert_called_once_with("404 Not Found", [("B", "2")])


@pytest.mark.parametrize("status", ["204 No Content", "200 OK", None])
def test_exception_becomes_one_complete_500(wrap, status: str | None) -> None:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if status:
            start_response(status, [("Content-Length", "0")])
        raise RuntimeError("database is locked")

    start_response = mock.Mock()
    result = wrap(app).application(ENVIRON, start_response)
    start_response.assert_called_once()
    sent_status, headers = start_response.call_args.args
    assert sent_status == "500 Internal Server Error"
    assert dict(headers) == {
        "Content-Type": "application/json",
        "Content-Length": str(len(b"".join(result))),
    }
    assert len(headers) == 2
    error = json.loads(b"".join(result))["error"]
    assert error["code"] == 500
    assert error["title"] == "Internal Server Error"
    assert "keystone.log" in error["message"]


def test_app_not_calling_start_response(wrap) -> None:
    start_response = mock.Mock()
    module = wrap(lambda environ, start_response: [b"x"])
    with pytest.raises(RuntimeError, match="without calling start_response"):
        module.application(ENVIRON, start_response)
    start_response.assert_not_called()


def test_legacy_write_is_refused(wrap) -> None:
    writes: list[Any] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        writes.append(start_response("200 OK", []))
        return [b""]

    wrap(app).application(ENVIRON, mock.Mock())
    [write] = writes
    with pytest.raises(NotImplementedError):
        write(b"data")


def test_keyboard_interrupt_is_not_swallowed(wrap) -> None:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        raise KeyboardInterrupt

    start_response = mock.Mock()
    with pytest.raises(KeyboardInterrupt):
        wrap(app).application(ENVIRON, start_response)
    start_response.assert_not_called()


def test_policy_rules_are_loaded_before_the_first_request(wrap) -> None:
    wrap(lambda environ, start_response: [])
    assert FakeEnforcer.loads == 1
    assert FakeEnforcer.suppress_deprecation_warnings is False  # class untouched
