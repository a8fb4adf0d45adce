"""Spans OSProfiler does not make, added to a traced Keystone (``--trace``).

Keystone traces its requests (``wsgi``) and, with ``trace_sqlalchemy``, its
SQL statements (``db``); nothing else. A Keystone developer hunting a
regression also wants to know how much of a request went to the cache,
policy enforcement, password hashing and token encoding, so
:func:`install` wraps those functions of Keystone's, in its own processes,
with spans of those names (:data:`SPANS`). A request that carries no trace
pays one thread-local lookup per call (OSProfiler's ``start``/``stop`` do
nothing without a profiler). Loaded by the suite's WSGI entry point only
when ``[profiler] enabled``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from dogpile.cache import api
from keystone.common import password_hashing
from keystone.common.cache import _context_cache
from keystone.common.rbac_enforcer import enforcer
from keystone.token.providers.fernet import core as fernet
from keystone.token.providers.jws import core as jws
from osprofiler import profiler

CACHE, POLICY, PASSWORD, TOKEN = "cache", "policy", "password", "token"
SPANS = (CACHE, POLICY, PASSWORD, TOKEN)
# a cache get's outcome: the request's own memo, the shared backend, or neither
LOCAL_HIT, SHARED_HIT, MISS = "request-local", "shared", "miss"


def _spanned(name: str, what: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` inside a span ``name`` whose info says ``what`` it is."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        profiler.start(name, {name: {"call": what}})
        try:
            return function(*args, **kwargs)
        finally:
            profiler.stop()

    return wrapper


def _wrap_method(cls: type, method: str, name: str) -> None:
    original = cls.__dict__[method]
    what = f"{cls.__module__}.{cls.__name__}.{method}"
    if isinstance(original, classmethod):
        setattr(cls, method, classmethod(_spanned(name, what, original.__func__)))
    else:
        setattr(cls, method, _spanned(name, what, original))


def _cache_get(proxy_cls: type, no_value: Any) -> Callable[..., Any]:
    """Keystone's request-local cache proxy's ``get``, saying its outcome.

    The same three steps as ``_ResponseCacheProxy.get`` (Keystone 26-30):
    the request's memo, else the backend (memoized on a hit).
    """

    def get(self: Any, key: Any) -> Any:
        profiler.start(CACHE, {CACHE: {"call": "get"}})
        outcome = MISS
        try:
            value = self._get_local_cache(key)
            if value is not no_value:
                outcome = LOCAL_HIT
                return value
            value = self.proxied.get(key)
            if value is not no_value:
                outcome = SHARED_HIT
                self._set_local_cache(key, value)
            return value
        finally:
            profiler.stop({CACHE: {"outcome": outcome}})

    return get


def install() -> None:
    """Wrap Keystone's cache gets, policy checks, password hashing and token
    encoding and decoding in spans (idempotent)."""
    if getattr(password_hashing, "_ksp_traced", False):
        return
    proxy = _context_cache._ResponseCacheProxy
    proxy.get = _cache_get(proxy, api.NO_VALUE)  # type: ignore[method-assign]
    _wrap_method(proxy, "get_multi", CACHE)
    _wrap_method(enforcer.RBACEnforcer, "enforce_call", POLICY)
    for function in ("check_password", "hash_password"):
        what = f"keystone.common.password_hashing.{function}"
        wrapped = _spanned(PASSWORD, what, getattr(password_hashing, function))
        setattr(password_hashing, function, wrapped)
    for provider in (fernet.Provider, jws.Provider):
        _wrap_method(provider, "generate_id_and_issued_at", TOKEN)
        _wrap_method(provider, "validate_token", TOKEN)
    password_hashing._ksp_traced = True  # type: ignore[attr-defined]
