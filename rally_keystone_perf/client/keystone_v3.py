"""Keystone v3 calls over one shared HTTP session per process.

The session is :mod:`.lean_http`'s (http.client, kept alive) unless
``KEYSTONE_PERF_HTTP=keystoneauth`` asks for keystoneauth1's on requests,
the stack rally-openstack's clients use: the same requests, the same
exceptions, about three times the client CPU per request.

Every public method of :class:`IdentityClient` sends exactly one HTTP request,
timed as one Rally atomic action when the client has a timer owner. Nothing
else happens inside the timer: no discovery, no authentication, no client
construction (sessions are built once per process and reused, so connections
are kept alive across iterations).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, Protocol
from urllib.parse import urlsplit, urlunsplit

import requests
from keystoneauth1 import session as ks_session
from requests.adapters import HTTPAdapter

from rally_keystone_perf.client import atomics, lean_http, tracing
from rally_keystone_perf.client.keystone_admin import (
    AdminCalls,
    AppCredential,
    app_credential_auth_body,
)

POOL_SIZE = 256
DEFAULT_TIMEOUT = 120.0

_SESSIONS: dict[tuple[Any, ...], Transport] = {}
_SESSIONS_LOCK = threading.Lock()
TRANSPORT_ENV = "KEYSTONE_PERF_HTTP"  # lean (the default) or keystoneauth
TRANSPORTS = ("lean", "keystoneauth")
_CHOSEN: dict[str, str | None] = {"transport": None}  # None: from TRANSPORT_ENV


class Transport(Protocol):
    """What the client calls of keystoneauth's ``Session``."""

    def request(self, url: str, method: str, **kwargs: Any) -> Any: ...


def use_transport(name: str | None) -> None:
    """Send this process's requests over ``name`` (None: as the environment
    says). ``lean``: :class:`lean_http.LeanSession`, a third of keystoneauth's
    CPU per request, the load generator's CPU being the server's on a shared
    machine; ``keystoneauth``: the stack rally-openstack's clients use."""
    _CHOSEN["transport"] = name


def transport() -> str:
    """This process's transport: chosen, or ``$KEYSTONE_PERF_HTTP``, or lean.

    :raises ValueError: an unknown name.
    """
    name = _CHOSEN["transport"] or os.environ.get(TRANSPORT_ENV) or "lean"
    if name not in TRANSPORTS:
        raise ValueError(
            f"{TRANSPORT_ENV}={name!r}: expected one of {', '.join(TRANSPORTS)}"
        )
    return name


@dataclass(frozen=True)
class PasswordUser:
    """Who authenticates: a password user and the project a token is scoped to."""

    username: str
    password: str
    user_domain_name: str = "Default"
    project_name: str | None = None
    project_domain_name: str = "Default"

    def __repr__(self) -> str:  # never show the password
        return f"PasswordUser({self.username!r}, project={self.project_name!r})"


# what keystonemiddleware's auth_token sends when it validates a token: it
# understands application credentials' access rules (version 1)
ACCESS_RULES_HEADER = "OpenStack-Identity-Access-Rules"
ACCESS_RULES_VERSION = "1"
REFRESH_MARGIN = 30.0  # seconds before expiry a kept token is replaced...
REFRESH_SHARE = 0.5  # ...or this share of its lifetime, when that is shorter


class IssuedToken(NamedTuple):
    """A token and when to replace it (epoch seconds; None: never)."""

    value: str
    refresh_at: float | None


def _epoch(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def refresh_time(body: Any) -> float | None:
    """When a token from this response body should be replaced.

    ``REFRESH_MARGIN`` seconds before its ``expires_at``, or half its
    lifetime (``expires_at - issued_at``) when that is shorter: a request
    sent just before the refresh time must still arrive with time to spare.
    None when the body gives no expiry.
    """
    try:
        expires = _epoch(body["token"]["expires_at"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    try:
        lifetime = expires - _epoch(body["token"]["issued_at"])
    except (KeyError, TypeError, ValueError, AttributeError):
        lifetime = REFRESH_MARGIN / REFRESH_SHARE
    return expires - min(REFRESH_MARGIN, REFRESH_SHARE * max(lifetime, 0.0))


def identity_url(auth_url: str) -> str:
    """Return the Identity v3 root for ``auth_url`` (``.../v3``), without discovery."""
    parts = urlsplit(auth_url.rstrip("/"))
    path = parts.path
    if path.endswith("/v2.0"):
        path = path[: -len("/v2.0")]
    if not path.endswith("/v3"):
        path = f"{path}/v3"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


class _EnvironmentOnceSession(requests.Session):
    """A requests session that reads the environment once per host.

    requests looks at the environment on every request (proxies and
    ``no_proxy`` through all of ``os.environ``, the CA bundle variables,
    ``~/.netrc``): about 1 ms of CPU per request here, half of what the
    client spends. This session does that the first time it meets a
    scheme and host and reuses the answer, so proxies and
    ``REQUESTS_CA_BUNDLE`` still apply as with requests. ``.netrc`` is not
    read: a token request sends its own ``X-Auth-Token``, and basic
    credentials from ``.netrc`` would only add a header Keystone ignores.
    """

    def __init__(self) -> None:
        super().__init__()
        self.trust_env = False  # no netrc lookup in every prepare_request
        self._settings: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._settings_lock = threading.Lock()

    def merge_environment_settings(
        self, url: Any, proxies: Any, stream: Any, verify: Any, cert: Any
    ) -> dict[str, Any]:
        key = (urlsplit(str(url))[:2], repr(proxies), stream, verify, repr(cert))
        settings = self._settings.get(key)
        if settings is None:
            with self._settings_lock:
                self.trust_env = True  # once: the environment, as requests reads it
                try:
                    settings = super().merge_environment_settings(
                        url, proxies, stream, verify, cert
                    )
                finally:
                    self.trust_env = False
                self._settings[key] = settings
        return dict(settings)


def shared_session(
    verify: bool | str = True, cert: Any = None, timeout: float = DEFAULT_TIMEOUT
) -> Transport:
    """Return this process's session for these TLS settings, on its
    :func:`transport`.

    Keyed by pid as well: a session inherited through fork would share sockets
    with its parent.
    """
    cert = cert if not isinstance(cert, list) else tuple(cert)
    lean = transport() == "lean"
    key = (os.getpid(), verify, cert, lean)
    with _SESSIONS_LOCK:
        sess = _SESSIONS.get(key)
        if sess is None and lean:
            sess = lean_http.LeanSession(verify, cert, timeout, POOL_SIZE)
            _SESSIONS[key] = sess
        elif sess is None:
            http = _EnvironmentOnceSession()
            adapter = HTTPAdapter(pool_connections=4, pool_maxsize=POOL_SIZE)
            http.mount("http://", adapter)
            http.mount("https://", adapter)
            sess = ks_session.Session(
                session=http, verify=verify, cert=cert, timeout=timeout
            )
            _SESSIONS[key] = sess
        return sess


def session_for_credential(credential: Mapping[str, Any]) -> Transport:
    """The shared session matching a Rally OpenStack credential's TLS options."""
    verify: bool | str = True
    if credential.get("https_insecure"):
        verify = False
    elif credential.get("https_cacert"):
        verify = str(credential["https_cacert"])
    return shared_session(verify=verify, cert=credential.get("https_cert"))


def password_auth_body(
    user: PasswordUser, unscoped: bool = False, scope: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON body of a password ``POST /v3/auth/tokens``: scoped to the
    user's project, or unscoped, or to ``scope`` when given (a domain
    ``{"domain": {"id": ...}}``, the system ``{"system": {"all": True}}``)."""
    auth: dict[str, Any] = {
        "identity": {
            "methods": ["password"],
            "password": {
                "user": {
                    "name": user.username,
                    "domain": {"name": user.user_domain_name},
                    "password": user.password,
                }
            },
        }
    }
    if scope is not None:
        auth["scope"] = scope
    elif user.project_name and not unscoped:
        auth["scope"] = {
            "project": {
                "name": user.project_name,
                "domain": {"name": user.project_domain_name},
            }
        }
    return {"auth": auth}


def issued(resp: Any) -> IssuedToken:
    """The token a ``POST /v3/auth/tokens`` answered, with its refresh time
    (read after the timer stopped)."""
    try:
        payload = resp.json()
    except ValueError:
        payload = None
    return IssuedToken(resp.headers["X-Subject-Token"], refresh_time(payload))


class IdentityClient(AdminCalls):
    """One Keystone v3 endpoint; each method is one request and one atomic action.

    The token calls are here; the management calls (projects, users, roles,
    application credentials) are its base's,
    :class:`~rally_keystone_perf.client.keystone_admin.AdminCalls`.
    """

    def __init__(self, session: Transport, url: str, timer_owner: Any = None) -> None:
        self.session = session
        self.url = identity_url(url)
        self._owner = timer_owner

    @contextlib.contextmanager
    def _timer(self, name: str) -> Iterator[None]:
        if self._owner is None:
            yield
            return
        from rally.task import atomic  # costly: all of rally, only inside Rally

        with atomic.ActionTimer(self._owner, name):
            yield

    def _request(
        self, method: str, path: str, token: str | None, **kwargs: Any
    ) -> Any:  # requests.Response, or lean_http.LeanResponse
        headers = kwargs.pop("headers", {})
        if token is not None:
            headers["X-Auth-Token"] = token
        trace = tracing.headers()  # signed before the timer (client/tracing)
        if trace:
            headers.update(trace)
        return self.session.request(
            self.url + path,
            method,
            headers=headers,
            authenticated=False,
            connect_retries=0,
            **kwargs,
        )

    def create_token(
        self,
        user: PasswordUser,
        unscoped: bool = False,
        scope: dict[str, Any] | None = None,
    ) -> str:
        """``POST /v3/auth/tokens`` with a password (``scope``: see
        :func:`password_auth_body`); return the issued token."""
        return self.issue_token(user, unscoped, scope=scope).value

    def issue_token(
        self,
        user: PasswordUser,
        unscoped: bool = False,
        action: str = atomics.CREATE_TOKEN,
        scope: dict[str, Any] | None = None,
    ) -> IssuedToken:
        """``POST /v3/auth/tokens`` with a password, timed as ``action``.

        Returns the token with its refresh time (read after the timer stops).
        """
        body = password_auth_body(user, unscoped=unscoped, scope=scope)
        with self._timer(action):
            resp = self._request("POST", "/auth/tokens", None, json=body)
        return issued(resp)

    def authenticate_application_credential(
        self, credential: AppCredential, action: str = atomics.AUTHENTICATE_APP_CRED
    ) -> IssuedToken:
        """``POST /v3/auth/tokens`` with the ``application_credential``
        method (id and secret), timed as ``action``; the token issued (scoped
        to the credential's project) with its refresh time."""
        body = app_credential_auth_body(credential)
        with self._timer(action):
            resp = self._request("POST", "/auth/tokens", None, json=body)
        return issued(resp)

    def validate_token(
        self,
        auth_token: str,
        subject_token: str,
        access_rules: bool = False,
        allow_expired: bool = False,
    ) -> dict[str, Any]:
        """``GET /v3/auth/tokens``: validate ``subject_token`` as ``auth_token``.

        ``access_rules`` adds ``OpenStack-Identity-Access-Rules: 1`` and
        ``allow_expired`` the query ``?allow_expired=1``, as keystonemiddleware
        sends them (:mod:`rally_keystone_perf.plugins.scenarios.tokens`).
        """
        headers = {"X-Subject-Token": subject_token}
        if access_rules:
            headers[ACCESS_RULES_HEADER] = ACCESS_RULES_VERSION
        path = "/auth/tokens?allow_expired=1" if allow_expired else "/auth/tokens"
        with self._timer(atomics.VALIDATE_TOKEN):
            resp = self._request("GET", path, auth_token, headers=headers)
        return resp.json()["token"]

    def rescope_token(self, token: str) -> str:
        """``POST /v3/auth/tokens`` with the token method: a new token, untimed.

        No password check: the cheap way to mint tokens to revoke (the
        revocations context); each has an audit id of its own.
        """
        body = {"auth": {"identity": {"methods": ["token"], "token": {"id": token}}}}
        resp = self._request("POST", "/auth/tokens", None, json=body)
        return str(resp.headers["X-Subject-Token"])

    def revoke_token(self, auth_token: str, subject_token: str) -> None:
        """``DELETE /v3/auth/tokens``: revoke ``subject_token`` as ``auth_token``."""
        with self._timer(atomics.REVOKE_TOKEN):
            self._request(
                "DELETE",
                "/auth/tokens",
                auth_token,
                headers={"X-Subject-Token": subject_token},
            )

    def list_revocation_events(self, token: str) -> list[dict[str, Any]]:
        """``GET /v3/OS-REVOKE/events``: every revocation event Keystone holds."""
        with self._timer(atomics.LIST_REVOCATION_EVENTS):
            resp = self._request("GET", "/OS-REVOKE/events", token)
        return list(resp.json()["events"])

    def list_auth_projects(self, token: str) -> list[dict[str, Any]]:
        """``GET /v3/auth/projects``: the projects ``token``'s user may scope
        to (what Horizon's project switcher and clients ask)."""
        with self._timer(atomics.LIST_AUTH_PROJECTS):
            resp = self._request("GET", "/auth/projects", token)
        return list(resp.json()["projects"])

    def get_catalog(self, token: str) -> list[dict[str, Any]]:
        """``GET /v3/auth/catalog``: the service catalog of ``token``."""
        with self._timer(atomics.GET_CATALOG):
            resp = self._request("GET", "/auth/catalog", token)
        return list(resp.json()["catalog"])


def credential_user(credential: Mapping[str, Any]) -> PasswordUser:
    """A :class:`PasswordUser` from a Rally OpenStack credential (project-scoped)."""
    return PasswordUser(
        username=credential["username"],
        password=credential["password"],
        user_domain_name=credential.get("user_domain_name") or "Default",
        project_name=credential.get("tenant_name") or credential.get("project_name"),
        project_domain_name=credential.get("project_domain_name") or "Default",
    )
