"""Shared base of the KeystonePerf scenarios (not a plugin itself)."""

from __future__ import annotations

from typing import Any

from rally import exceptions
from rally_openstack.task import scenario

from rally_keystone_perf import client
from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_NAME as TOKENS


class KeystonePerfScenario(scenario.OpenStackScenario):
    """Base: a timed identity client and the pre-issued tokens.

    The client reuses this process's session, so an iteration opens no new
    connection and sends nothing but the request it measures.
    """

    def _credential(self) -> Any:
        if self.context.get("user"):
            return self.context["user"]["credential"]
        return self.context["admin"]["credential"]

    @property
    def identity(self) -> client.IdentityClient:
        """An identity client whose calls are atomic actions of this iteration."""
        cred = self._credential()
        return client.IdentityClient(
            client.session_for_credential(cred), cred["auth_url"], timer_owner=self
        )

    def _pool(self) -> dict[str, Any]:
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
        return token

    def user_token(self) -> str:
        """A token of this iteration's user, round robin over the user's tokens.

        Rally's round robin comes back to a user every ``len(users)``
        iterations; each return takes that user's next token.
        """
        user_id = self.context["user"]["id"]
        tokens = self._pool()["users"][user_id]
        visit = (self.context["iteration"] - 1) // max(len(self.context["users"]), 1)
        return tokens[visit % len(tokens)]
