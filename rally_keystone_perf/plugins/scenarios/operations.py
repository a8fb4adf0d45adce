"""The operations of the KeystonePerf scenarios, one method each.

Each scenario's ``run()`` calls its operation here, and ``KeystonePerf.mix``
calls the same methods, so a mix sends exactly the requests the scenarios
send, timed under the same atomic names. Not a plugin itself.
"""

from __future__ import annotations

import secrets

from rally import exceptions

from rally_keystone_perf.client import atomics, keystone_v3
from rally_keystone_perf.client.keystone_admin import scope_body
from rally_keystone_perf.plugins.contexts.scope_roles import (
    CONTEXT_NAME as SCOPE_ROLES,
)
from rally_keystone_perf.plugins.scenarios.base import KeystonePerfScenario

# operation -> the atomic actions one call times, in order (each one request)
ACTIONS = {
    "create_token": (atomics.CREATE_TOKEN,),
    "authenticate_application_credential": (atomics.AUTHENTICATE_APP_CRED,),
    "validate_token": (atomics.VALIDATE_TOKEN,),
    "list_projects": (atomics.LIST_PROJECTS,),
    "list_role_assignments": (atomics.LIST_ROLE_ASSIGNMENTS,),
    "list_auth_projects": (atomics.LIST_AUTH_PROJECTS,),
    "get_catalog": (atomics.GET_CATALOG,),
    "list_revocation_events": (atomics.LIST_REVOCATION_EVENTS,),
    "revoke_token": (atomics.CREATE_TOKEN, atomics.REVOKE_TOKEN),
    "create_delete_user": (atomics.CREATE_USER, atomics.DELETE_USER),
}


class KeystonePerfOperations(KeystonePerfScenario):
    """The scenarios' operations, as methods ``op_<operation>``."""

    def op_create_token(self, scope: str = "project") -> None:
        """One password ``POST /v3/auth/tokens`` of this iteration's user,
        scoped to its project, unscoped, its domain or the system."""
        user = keystone_v3.credential_user(self.context["user"]["credential"])
        if scope in ("domain", "system"):
            self.identity.create_token(user, scope=self._scope(scope))
        else:
            self.identity.create_token(user, unscoped=scope == "unscoped")

    def _scope(self, scope: str) -> dict[str, object]:
        """The body's ``scope`` for the user's domain or the system, which
        the ``keystone_perf_scope_roles`` context granted a role on."""
        grants = self.context.get(SCOPE_ROLES)
        if grants is None or scope not in grants["scopes"]:  # validated before
            raise exceptions.RallyException(
                f"scope {scope!r} needs a role there: add the {SCOPE_ROLES} "
                f'context with "{scope}" in its scopes'
            )
        return scope_body(scope, grants["domains"].get(self.context["user"]["id"]))

    def op_authenticate_application_credential(self) -> None:
        """One ``POST /v3/auth/tokens`` with the user's application credential."""
        self.identity.authenticate_application_credential(self.app_credential())

    def op_validate_token(
        self,
        validator: str = "admin",
        token_kind: str = "password",
        allow_expired: bool = False,
    ) -> None:
        """One ``GET /v3/auth/tokens`` of a pre-issued token."""
        # the subject last: a refresh of the admin token must not age it
        auth = None
        if validator == "admin":
            auth = self.admin_token()
        elif validator == "service":
            auth = self.service_token()
        subject = self.user_token(token_kind)
        self.identity.validate_token(
            auth or subject,
            subject,
            access_rules=validator == "service",
            allow_expired=allow_expired,
        )

    def op_list_projects(self) -> None:
        """One ``GET /v3/projects`` with the admin token."""
        self.identity.list_projects(self.admin_token())

    def op_list_role_assignments(
        self, of: str = "user", effective: bool = True, include_names: bool = True
    ) -> None:
        """One ``GET /v3/role_assignments`` with the admin token."""
        user_id = self.context["user"]["id"] if of == "user" else None
        self.identity.list_role_assignments(
            self.admin_token(), user_id, effective, include_names
        )

    def op_list_auth_projects(self) -> None:
        """One ``GET /v3/auth/projects`` with a user's token."""
        self.identity.list_auth_projects(self.user_token())

    def op_get_catalog(self) -> None:
        """One ``GET /v3/auth/catalog`` with a user's token."""
        self.identity.get_catalog(self.user_token())

    def op_list_revocation_events(self) -> None:
        """One ``GET /v3/OS-REVOKE/events`` with the admin token."""
        self.identity.list_revocation_events(self.admin_token())

    def op_revoke_token(self) -> None:
        """A password ``POST /v3/auth/tokens``, then its ``DELETE``."""
        user = keystone_v3.credential_user(self.context["user"]["credential"])
        token = self.identity.create_token(user)
        self.identity.revoke_token(token, token)

    def op_create_delete_user(self, domain_id: str = "default") -> None:
        """``POST /v3/users`` of a Rally-named user, then its ``DELETE``."""
        token = self.admin_token()
        user_id = self.identity.create_user(
            token,
            self.generate_random_name(),
            secrets.token_urlsafe(16),
            domain_id=domain_id,
        )
        self.identity.delete_user(token, user_id)
