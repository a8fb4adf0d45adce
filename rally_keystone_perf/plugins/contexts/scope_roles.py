"""Context that grants the users the roles a domain or system token needs."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from keystoneauth1 import exceptions as ks_exceptions
from rally import exceptions
from rally.common import logging
from rally.common import validation as rally_validation
from rally.task import context

from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.client.keystone_admin import (
    DEFAULT_SCOPE_ROLE,
    SCOPES,
    grant_target,
)
from rally_keystone_perf.deploy.faults import RUN_ENV
from rally_keystone_perf.layout import grant_ledger
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.plugins.contexts.clients import admin_client
from rally_keystone_perf.plugins.workload_checks import WorkloadValidator

LOG = logging.getLogger(__name__)
DEFAULT_SCOPES = ["domain"]
CONTEXT_NAME = "keystone_perf_scope_roles"
CONTEXT_REF = f"{CONTEXT_NAME}@openstack"
VALIDATOR = "keystone_perf_scope_granted"


def scope_problem(args: Mapping[str, Any], contexts: Mapping[str, Any]) -> str | None:
    """Why a token scope cannot be issued with these contexts (None: it can):
    a domain or system scope needs this context, that scope in its
    ``scopes``."""
    scope = args.get("scope", "project")
    if scope not in SCOPES:
        return None
    for name, config in contexts.items():
        if name.split("@")[0] == CONTEXT_NAME:
            if scope in (config or {}).get("scopes", DEFAULT_SCOPES):
                return None
    return (
        f"scope {scope!r} needs a role there: add the {CONTEXT_NAME} context "
        f'with "{scope}" in its scopes'
    )


@rally_validation.configure(name=VALIDATOR)
class ScopeGrantedValidator(WorkloadValidator):
    """Checks that a domain or system ``scope`` comes with its role grant.

    Refuses, before any server starts, a token scope (``domain``,
    ``system``) whose workload lacks the ``keystone_perf_scope_roles``
    context with that scope in its ``scopes``: Keystone would refuse
    every token.
    """

    def problem(
        self, args: Mapping[str, Any], contexts: Mapping[str, Any]
    ) -> str | None:
        """See :func:`scope_problem`."""
        return scope_problem(args, contexts)


def _ledger() -> Path | None:
    """The run's ledger of grants (none outside this suite's runs)."""
    folder = os.environ.get(RUN_ENV)
    return RunDir(Path(folder)).scope_grants if folder else None


@context.configure(name=CONTEXT_NAME, platform="openstack", order=115)
class KeystonePerfScopeRoles(context.Context):
    """Grant each user a role on its domain or on the system, for the load.

    A token scoped to a domain or to the system is refused to a user
    without a role there. As the cloud's admin, before the load, each user
    of the ``users`` context is granted ``role`` (``reader`` by default,
    which ``keystone-manage bootstrap`` makes) on its own domain
    (``PUT /v3/domains/{domain}/users/{user}/roles/{role}``) and/or on the
    system (``PUT /v3/system/users/{user}/roles/{role}``), as ``scopes``
    says; a user that already holds the role there keeps it as it was
    (neither granted nor revoked). Scenarios read
    ``context["keystone_perf_scope_roles"]`` (``domains``: user id -> its
    domain's id; ``scopes``). The grants are revoked at cleanup; should the
    run stop before, users the run created take their grants with them
    when they are deleted, and those of users it did not create are
    revoked by the own-cloud sweep: in a run of this suite each grant is
    written to the run's ``private/scope-grants.json`` before it is made
    and taken off once revoked (``rally_keystone_perf.layout.grant_ledger``).
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "scopes": {
                "type": "array",
                "items": {"enum": list(SCOPES)},
                "minItems": 1,
                "uniqueItems": True,
                "description": "Where each user gets the role: its domain, "
                "the system, or both.",
            },
            "role": {
                "type": "string",
                "description": "The role granted (reader: the least a "
                "scoped token needs).",
            },
        },
        "additionalProperties": False,
    }
    DEFAULT_CONFIG = {"scopes": list(DEFAULT_SCOPES), "role": DEFAULT_SCOPE_ROLE}

    def _admin(self) -> tuple[keystone_v3.IdentityClient, str]:
        identity, token, _ = admin_client(self.context, CONTEXT_NAME)
        return identity, token

    def setup(self) -> None:
        """Find each user's domain; grant the role where ``scopes`` says."""
        identity, token = self._admin()
        role = identity.role_id(token, self.config["role"])
        if role is None:
            raise exceptions.ContextSetupFailure(
                ctx_name=CONTEXT_NAME,
                msg=f"the cloud has no role {self.config['role']!r}",
            )
        scopes = list(self.config["scopes"])
        made: dict[str, Any] = {
            "role_id": role,
            "scopes": scopes,
            "domains": {},
            "grants": [],  # (target, user id): what cleanup revokes
        }
        self.context[CONTEXT_NAME] = made
        ledger = _ledger()
        for user in self.context.get("users", []):
            domain = identity.user_domain_id(token, user["id"])
            made["domains"][user["id"]] = domain
            for scope in scopes:
                target = grant_target(scope, domain)
                if identity.has_role(token, target, user["id"], role):
                    continue  # the user's own: neither granted nor revoked
                if ledger is not None:  # before: a stop in between is swept
                    grant_ledger.add(
                        ledger, grant_ledger.Grant(target, user["id"], role)
                    )
                identity.grant_role(token, target, user["id"], role)
                made["grants"].append((target, user["id"]))
        LOG.info(
            "Granted role %s to %d users on: %s",
            self.config["role"],
            len(made["domains"]),
            ", ".join(scopes),
        )

    def cleanup(self) -> None:
        """Revoke every grant made (404: already gone)."""
        made = self.context.pop(CONTEXT_NAME, None)
        if not made or not made["grants"]:
            return
        identity, token = self._admin()
        gone = []
        for target, user_id in made["grants"]:
            try:
                identity.grant_role(
                    token, target, user_id, made["role_id"], revoke=True
                )
            except ks_exceptions.NotFound:
                pass
            except ks_exceptions.ClientException as exc:
                LOG.warning("Could not revoke the %s grant: %s", target, exc)
                continue  # left on the ledger, for the sweep
            gone.append(grant_ledger.Grant(target, user_id, made["role_id"]))
        ledger = _ledger()
        if ledger is not None:
            grant_ledger.remove(ledger, gone)
