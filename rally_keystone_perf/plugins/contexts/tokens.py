"""Context that issues tokens before the load starts."""

from __future__ import annotations

import datetime
from typing import Any, TypedDict

from rally.task import context

from rally_keystone_perf.client import keystone_v3

CONTEXT_NAME = "keystone_perf_tokens"
CONTEXT_REF = f"{CONTEXT_NAME}@openstack"


class TokenPool(TypedDict):
    """``context["keystone_perf_tokens"]``: the tokens issued before the load."""

    admin: str | None
    users: dict[str, list[str]]  # user id -> the user's tokens
    refresh_at: dict[str, float | None]  # token -> when to replace it (epoch s)
    refresh: bool  # replace tokens about to expire (the context's option)


@context.configure(name=CONTEXT_NAME, platform="openstack", order=150)
class KeystonePerfTokens(context.Context):
    """Issue tokens before the load, so no scenario authenticates while timed.

    Issues one admin token (project-scoped to the admin's project) and
    ``tokens_per_user`` project-scoped tokens for every user of the ``users``
    context. Scenarios read them from ``context["keystone_perf_tokens"]``.
    With ``warm_up_only`` the context only makes sure each user has logged in
    today (see the option). Tokens are not revoked at cleanup: revocation
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
            "refresh_at": {},
            "refresh": self.config["refresh"],
        }

        def issue(credential: Any) -> str:
            token, refresh_at = self._issue(credential)
            pool["refresh_at"][token] = refresh_at
            return token

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
        self.context[CONTEXT_NAME] = pool

    def cleanup(self) -> None:
        """Forget the tokens (they are left to expire, see the class docstring)."""
        self.context.pop(CONTEXT_NAME, None)

    @staticmethod
    def _issue(credential: Any) -> keystone_v3.IssuedToken:
        identity = keystone_v3.IdentityClient(
            keystone_v3.session_for_credential(credential), credential["auth_url"]
        )
        return identity.issue_token(keystone_v3.credential_user(credential))
