"""Context that gives every user an application credential for the load."""

from __future__ import annotations

from typing import Any

from keystoneauth1 import exceptions as ks_exceptions
from rally.common import logging
from rally.task import context

from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.client.keystone_admin import AppCredential
from rally_keystone_perf.plugins.contexts.clients import user_client

LOG = logging.getLogger(__name__)
CONTEXT_NAME = "keystone_perf_app_credentials"
CONTEXT_REF = f"{CONTEXT_NAME}@openstack"


@context.configure(name=CONTEXT_NAME, platform="openstack", order=120)
class KeystonePerfAppCredentials(context.Context):
    """Create one application credential per user before the load.

    Each user of the ``users`` context creates its own
    (``POST /v3/users/{id}/application_credentials`` with its
    project-scoped token), so the credential holds the user's roles on its
    project. Scenarios read them from
    ``context["keystone_perf_app_credentials"]`` (user id ->
    ``AppCredential`` of ``rally_keystone_perf.client.keystone_admin``). The
    secrets, which Keystone shows once, stay in this process's memory: never
    logged, never in the results (their ``repr`` hides them).

    Each is named as Rally names what it creates (``c_rally_<task>_<random>``)
    and deleted at cleanup, before the users. Should the run stop before
    (Ctrl-C, SIGTERM, a failed workload), they go with their users: Keystone
    deletes a user's application credentials when the user is deleted or
    disabled (``keystone/application_credential/core.py``,
    ``_register_callback_listeners``, Keystone 30.0.0), so the sweep of the
    users covers them. Existing users (``--existing-users`` on one's own
    cloud) are not deleted: the sweep deletes their credentials by name.
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {},
        "additionalProperties": False,
    }
    DEFAULT_CONFIG: dict[str, Any] = {}

    def setup(self) -> None:
        """Create each user's application credential, as that user."""
        made: dict[str, AppCredential] = {}
        self.context[CONTEXT_NAME] = made
        for user in self.context.get("users", []):
            credential = user["credential"]
            identity = user_client(credential)
            token = identity.create_token(keystone_v3.credential_user(credential))
            made[user["id"]] = identity.create_application_credential(
                token, user["id"], self.generate_random_name()
            )
        LOG.info("Created %d application credentials", len(made))

    def cleanup(self) -> None:
        """Delete the credentials, each with its user's token (404: gone)."""
        made: dict[str, AppCredential] = self.context.pop(CONTEXT_NAME, None) or {}
        users = {user["id"]: user for user in self.context.get("users", [])}
        for user_id, app in made.items():
            user = users.get(user_id)
            if user is None:
                continue
            identity = user_client(user["credential"])
            try:
                token = identity.create_token(
                    keystone_v3.credential_user(user["credential"])
                )
                identity.delete_application_credential(token, user_id, app.id)
            except ks_exceptions.NotFound:
                continue
            except ks_exceptions.ClientException as exc:
                LOG.warning("Could not delete application credential %s: %s", app, exc)
