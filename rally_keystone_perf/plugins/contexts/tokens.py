"""Context that issues tokens before the load starts."""

from __future__ import annotations

import datetime
from typing import Any, TypedDict

from rally.task import context

from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.plugins.contexts.app_credentials import (
    CONTEXT_NAME as APP_CREDENTIALS,
)
from rally_keystone_perf.plugins.contexts.clients import user_client
from rally_keystone_perf.plugins.contexts.service_user import (
    CONTEXT_NAME as SERVICE_USER,
)

CONTEXT_NAME = "keystone_perf_tokens"
CONTEXT_REF = f"{CONTEXT_NAME}@openstack"


class TokenPool(TypedDict):
    """``context["keystone_perf_tokens"]``: the tokens issued before the load."""

    admin: str | None
    users: dict[str, list[str]]  # user id -> the user's tokens
    # user id -> tokens issued with the user's application credential (when
    # the keystone_perf_app_credentials context made them)
    app_credential: dict[str, list[str]]
    service: str | None  # the keystone_perf_service_user context's user's
    refresh_at: dict[str, float | None]  # token -> when to replace it (epoch s)
    refresh: bool  # replace tokens about to expire (the context's option)


@context.configure(name=CONTEXT_NAME, platform="openstack", order=150)
class KeystonePerfTokens(context.Context):
    """Issue tokens before the load, so no scenario authenticates while timed.

    Issues one admin token (project-scoped to the admin's project) and
    ``tokens_per_user`` project-scoped tokens for every user of the ``users``
    context. Scenarios read them from ``context["keystone_perf_tokens"]``.
    With ``warm_up_only`` the context only makes sure each user has logged in
    today (see the option). With the ``keystone_perf_app_credentials``
    context, each user also gets ``tokens_per_user`` tokens issued with its
    application credential; with the ``keystone_perf_service_user`` context,
    the service user gets one. Tokens are not revoked at cleanup: revocation
    events would change the cost of every later token validation on the same
    Keystone; they expire instead.
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "tokens_per_user": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "Tokens issued per users-context user.",
            },
            "admin_token": {
                "type": "boolean",
                "description": "Issue a token for the admin credential too.",
            },
            "refresh": {
                "type": "boolean",
                "description": "Replace a token shortly before it expires "
                "(timed apart, as keystone.refresh_token), so that runs "
                "longer than Keystone's [token] expiration keep working; "
                "false keeps the first tokens, as a naive client would, and "
                "requests fail with 401 once they expire.",
            },
            "warm_up_only": {
                "type": "boolean",
                "description": "Only log each user in once before the load, "
                "so that Keystone's once-a-day last_active_at write is not "
                "timed; users already active today (a user pool's) are "
                "skipped.",
            },
        },
        "additionalProperties": False,
    }
    DEFAULT_CONFIG = {
        "tokens_per_user": 1,
        "admin_token": True,
        "refresh": True,
        "warm_up_only": False,
    }

    def setup(self) -> None:
        """Issue the admin token and the users' tokens."""
        pool: TokenPool = {
            "admin": None,
            "users": {},
            "app_credential": {},
            "service": None,
            "refresh_at": {},
            "refresh": self.config["refresh"],
        }

        def issue(credential: Any) -> str:
            return self._keep(pool, self._issue(credential))

        admin = self.context.get("admin")
        if admin and self.config["admin_token"]:
            pool["admin"] = issue(admin["credential"])
        today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        for user in self.context.get("users", []):
            if self.config["warm_up_only"] and user.get("last_active_at") == today:
                continue
            pool["users"][user["id"]] = [
                issue(user["credential"]) for _ in range(self.config["tokens_per_user"])
            ]
        per_user = range(self.config["tokens_per_user"])
        for user_id, app in (self.context.get(APP_CREDENTIALS) or {}).items():
            client = user_client(app_owner(self.context, user_id))
            pool["app_credential"][user_id] = [
                self._keep(pool, client.authenticate_application_credential(app))
                for _ in per_user
            ]
        service = self.context.get(SERVICE_USER)
        if service:
            pool["service"] = issue(service["credential"])
        self.context[CONTEXT_NAME] = pool

    @staticmethod
    def _keep(pool: TokenPool, issued: keystone_v3.IssuedToken) -> str:
        pool["refresh_at"][issued.value] = issued.refresh_at
        return issued.value

    def cleanup(self) -> None:
        """Forget the tokens (they are left to expire, see the class docstring)."""
        self.context.pop(CONTEXT_NAME, None)

    @staticmethod
    def _issue(credential: Any) -> keystone_v3.IssuedToken:
        identity = keystone_v3.IdentityClient(
            keystone_v3.session_for_credential(credential), credential["auth_url"]
        )
        return identity.issue_token(keystone_v3.credential_user(credential))


def app_owner(ctx: dict[str, Any], user_id: str) -> Any:
    """The credential of user ``user_id`` of the users context (its TLS
    options and endpoint serve its application credential's login)."""
    for user in ctx.get("users", []):
        if user["id"] == user_id:
            return user["credential"]
    raise KeyError(user_id)
