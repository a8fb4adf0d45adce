"""Shared base of the KeystonePerf scenarios (not a plugin itself)."""

from __future__ import annotations

import threading
import time
from typing import Any

from rally import exceptions
from rally_openstack.task import scenario

from rally_keystone_perf.client import atomics, keystone_v3, tracing
from rally_keystone_perf.client.keystone_admin import AppCredential
from rally_keystone_perf.plugins.contexts.app_credentials import (
    CONTEXT_NAME as APP_CREDENTIALS,
)
from rally_keystone_perf.plugins.contexts.service_user import (
    CONTEXT_NAME as SERVICE_USER,
)
from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_NAME as TOKENS
from rally_keystone_perf.plugins.contexts.tokens import TokenPool

# this process's replacements: pre-issued token -> its current replacement
_REFRESHED: dict[str, keystone_v3.IssuedToken] = {}
# one refresh at a time per process: the runner's threads that find the same
# token stale at once wait for the first one's replacement instead of each
# logging in
_REFRESH_LOCK = threading.Lock()


class KeystonePerfScenario(scenario.OpenStackScenario):
    """Base: a timed identity client and the pre-issued tokens (kept fresh).

    The client reuses this process's session, so an iteration opens no new
    connection and sends nothing but the request it measures. An iteration
    the ``keystone_perf_trace`` context samples carries an OSProfiler trace,
    its id in the iteration's output.
    """

    def __init__(
        self,
        context: dict[str, Any] | None = None,
        admin_clients: Any = None,
        clients: Any = None,
    ) -> None:
        super().__init__(context, admin_clients, clients)
        trace_id = tracing.begin(context or {})
        if trace_id is not None:
            self.add_output(complete=tracing.output(context or {}, trace_id))

    def _credential(self) -> Any:
        if self.context.get("user"):
            return self.context["user"]["credential"]
        return self.context["admin"]["credential"]

    @property
    def identity(self) -> keystone_v3.IdentityClient:
        """An identity client whose calls are atomic actions of this iteration."""
        cred = self._credential()
        return keystone_v3.IdentityClient(
            keystone_v3.session_for_credential(cred), cred["auth_url"], timer_owner=self
        )

    def _pool(self) -> TokenPool:
        pool = self.context.get(TOKENS)
        if pool is None:
            raise exceptions.RallyException(
                f"the {TOKENS} context is missing: add it to the workload's contexts"
            )
        return pool

    def admin_token(self) -> str:
        """The admin token issued before the load."""
        token = self._pool()["admin"]
        if token is None:
            raise exceptions.RallyException(
                f"no admin token: enable 'admin_token' in the {TOKENS} context"
            )
        return self._fresh(token, self.context["admin"]["credential"])

    def service_token(self) -> str:
        """The service user's token issued before the load."""
        token = self._pool().get("service")
        if token is None:
            raise exceptions.RallyException(
                f"no service token: add the {SERVICE_USER} context to the "
                "workload's contexts"
            )
        return self._fresh(token, self.context[SERVICE_USER]["credential"])

    def app_credential(self) -> AppCredential:
        """This iteration's user's application credential."""
        made = self.context.get(APP_CREDENTIALS)
        if made is None:
            raise exceptions.RallyException(
                f"no application credentials: add the {APP_CREDENTIALS} "
                "context to the workload's contexts"
            )
        return made[self.context["user"]["id"]]  # type: ignore[no-any-return]

    def user_token(self, kind: str = "password") -> str:
        """A token of this iteration's user, round robin over the user's tokens.

        Rally's round robin comes back to a user every ``len(users)``
        iterations; each return takes that user's next token. ``kind``
        "application_credential": one issued with the user's application
        credential (the ``keystone_perf_app_credentials`` context).
        """
        user_id = self.context["user"]["id"]
        app = self.app_credential() if kind == "application_credential" else None
        by_user = self._pool()["app_credential" if app else "users"]
        tokens = by_user[user_id]
        visit = (self.context["iteration"] - 1) // max(len(self.context["users"]), 1)
        return self._fresh(
            tokens[visit % len(tokens)], self.context["user"]["credential"], app
        )

    def _fresh(
        self, token: str, credential: Any, app: AppCredential | None = None
    ) -> str:
        """``token``, or its replacement once it is about to expire.

        About to expire: 30 s before its expiry, or in the second half of
        its lifetime when that is shorter
        (:func:`~rally_keystone_perf.client.keystone_v3.refresh_time`).
        A run longer than Keystone's ``[token] expiration`` would otherwise
        fail with 401 from then on (seed 004's symptom). The replacement is
        one ``POST /v3/auth/tokens`` (with ``app``, the application
        credential's) timed as ``keystone.refresh_token``, never
        inside the measured action. With the context's ``refresh`` off, the
        first token is kept, as a naive client keeps it.
        """
        pool = self._pool()
        if not pool.get("refresh", True):
            return token
        current = self._current(pool, token)
        if current.refresh_at is None or time.time() < current.refresh_at:
            return current.value
        with _REFRESH_LOCK:
            current = self._current(pool, token)  # another thread may have done it
            if current.refresh_at is not None and time.time() < current.refresh_at:
                return current.value
            identity = keystone_v3.IdentityClient(
                keystone_v3.session_for_credential(credential),
                credential["auth_url"],
                timer_owner=self,
            )
            if app is None:
                issued = identity.issue_token(
                    keystone_v3.credential_user(credential),
                    action=atomics.REFRESH_TOKEN,
                )
            else:
                issued = identity.authenticate_application_credential(
                    app, action=atomics.REFRESH_TOKEN
                )
            _REFRESHED[token] = issued
        return issued.value

    @staticmethod
    def _current(pool: TokenPool, token: str) -> keystone_v3.IssuedToken:
        """This process's replacement of ``token``, or ``token`` as issued."""
        return _REFRESHED.get(token) or keystone_v3.IssuedToken(
            token, pool.get("refresh_at", {}).get(token)
        )
