"""Context that makes a service user, as a cloud's services log in."""

from __future__ import annotations

import secrets
from typing import Any

from keystoneauth1 import exceptions as ks_exceptions
from rally import exceptions
from rally.common import logging
from rally.task import context

from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.plugins.contexts.clients import admin_client

LOG = logging.getLogger(__name__)
CONTEXT_NAME = "keystone_perf_service_user"
CONTEXT_REF = f"{CONTEXT_NAME}@openstack"
SERVICE_ROLE = "service"  # keystone-manage bootstrap makes it (Keystone >= 24)


@context.configure(name=CONTEXT_NAME, platform="openstack", order=110)
class KeystonePerfServiceUser(context.Context):
    """Create a service user in a service project, with the ``service`` role.

    What Nova, Neutron, Cinder or Glance log in as to validate their callers'
    tokens (keystonemiddleware's ``[keystone_authtoken]`` user). As the
    cloud's admin: a project and a user, both named as Rally names what it
    creates (``c_rally_<task>_<random>``, so the sweep after a stopped run
    finds them), and the ``service`` role (``role``) granted to the user on
    the project. Its password is random and stays in memory. The
    ``keystone_perf_tokens`` context issues its token
    (``context["keystone_perf_tokens"]["service"]``). The user and the
    project are deleted at cleanup.
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "role": {
                "type": "string",
                "description": "The role a service user holds (Keystone's "
                "bootstrap makes 'service').",
            },
        },
        "additionalProperties": False,
    }
    DEFAULT_CONFIG = {"role": SERVICE_ROLE}

    def _admin(self) -> tuple[keystone_v3.IdentityClient, str, Any]:
        return admin_client(self.context, CONTEXT_NAME)

    def setup(self) -> None:
        """Create the project and the user; grant the role."""
        identity, token, admin = self._admin()
        role = identity.role_id(token, self.config["role"])
        if role is None:
            raise exceptions.ContextSetupFailure(
                ctx_name=CONTEXT_NAME,
                msg=f"the cloud has no role {self.config['role']!r}",
            )
        project_name, user_name = (
            self.generate_random_name(),
            self.generate_random_name(),
        )
        password = secrets.token_urlsafe(24)
        made: dict[str, Any] = {
            "project_id": identity.create_project(token, project_name)
        }
        self.context[CONTEXT_NAME] = made
        made["user_id"] = identity.create_user(
            token, user_name, password, default_project_id=made["project_id"]
        )
        identity.grant_project_role(token, made["project_id"], made["user_id"], role)
        made["credential"] = {
            "auth_url": admin["auth_url"],
            "username": user_name,
            "password": password,
            "tenant_name": project_name,
            "user_domain_name": "Default",
            "project_domain_name": "Default",
            "https_insecure": admin.get("https_insecure"),
            "https_cacert": admin.get("https_cacert"),
            "https_cert": admin.get("https_cert"),
        }
        LOG.info("Created the service user %s of project %s", user_name, project_name)

    def cleanup(self) -> None:
        """Delete the user, then the project (404: already gone)."""
        made = self.context.pop(CONTEXT_NAME, None)
        if not made:
            return
        identity, token, _ = self._admin()
        for kind, key in (("user", "user_id"), ("project", "project_id")):
            if key not in made:
                continue
            try:
                if kind == "user":
                    identity.delete_user(token, made[key])
                else:
                    identity.delete_project(token, made[key])
            except ks_exceptions.NotFound:
                continue
            except ks_exceptions.ClientException as exc:
                LOG.warning("Could not delete the service %s: %s", kind, exc)
