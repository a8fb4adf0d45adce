"""Rally's users context, served from a launcher-made user pool when there is one."""

from __future__ import annotations

import json
import os
from typing import Any

from rally.common import logging
from rally.task import context
from rally_openstack.common import consts, credential
from rally_openstack.task.contexts.keystone import users

from rally_keystone_perf.deploy.user_pool import POOL_ENV, POOL_VERSION

LOG = logging.getLogger(__name__)
CONTEXT_NAME = "keystone_perf_users"
CONTEXT_REF = f"{CONTEXT_NAME}@openstack"


@context.configure(name=CONTEXT_NAME, platform="openstack", order=101)
class KeystonePerfUsers(users.UserGenerator):
    """Rally's ``users`` context that takes its users from a ready pool.

    Same arguments and result as Rally's ``users`` context (``tenants``,
    ``users_per_tenant``, ``user_choice_method``...). When the file named by
    the ``KEYSTONE_PERF_USER_POOL`` environment variable holds a user pool for
    this Keystone at least as large as asked for (``rally-keystone-perf run``
    creates one for its local Keystone: ``--user-pool``), the users are taken
    from it without a single request and are not deleted at cleanup, so every
    workload of a run shares them. Otherwise the users are created and deleted
    through the API exactly as Rally's ``users`` context does.

    Why: Rally's ``users`` context sends six requests per user; seed 000's
    12 x 512 users took about 2.4 s each on a 2-core machine against Keystone
    on SQLite (hours in all). The pool is created in seconds by Keystone's own
    managers before the server starts (rally_keystone_perf.deploy.user_pool).
    The pool is not used when the task sets ``user_password`` or domains
    other than the pool's. Runs after Rally's default ``users`` context
    (order 101) and puts that context's users back at cleanup, so that it
    deletes what it created.
    """

    def setup(self) -> None:
        """Take the users from the pool, or create them as Rally does."""
        # the default users context's own, handed back at cleanup
        self._replaced = (self.context.get("users"), self.context.get("tenants"))
        self._pooled = False
        pool = self._fitting_pool()
        if pool is None:
            super().setup()
            return
        self._pooled = True
        self.context["users"] = []
        self.context["tenants"] = {}
        self.context["user_choice_method"] = self.config["user_choice_method"]
        admin = self.context["admin"]["credential"]
        wanted = pool["tenants"][: self.config["tenants"]]
        for tenant in wanted:
            entry = {"id": tenant["id"], "name": tenant["name"], "users": []}
            self.context["tenants"][tenant["id"]] = entry
            for user in tenant["users"][: self.config["users_per_tenant"]]:
                record = {
                    "id": user["id"],
                    "credential": _user_credential(admin, pool, tenant, user),
                    "tenant_id": tenant["id"],
                    "last_active_at": pool.get("last_active_at"),
                }
                self.context["users"].append(record)
                entry["users"].append(record)
        LOG.info(
            "Using %d users of %d projects from the user pool %s",
            len(self.context["users"]),
            len(wanted),
            os.environ.get(POOL_ENV),
        )

    def cleanup(self) -> None:
        """Delete what was created through the API (never pool users).

        Then hand Rally's default ``users`` context (cleaned up after this
        one) the users and tenants it made, so it deletes them too.
        """
        if not getattr(self, "_pooled", False):
            super().cleanup()
        previous_users, previous_tenants = getattr(self, "_replaced", (None, None))
        self.context["users"] = previous_users or []
        self.context["tenants"] = previous_tenants or {}

    def _fitting_pool(self) -> dict[str, Any] | None:
        """The pool, when there is one for this Keystone that is large enough."""
        path = os.environ.get(POOL_ENV)
        if not path or self.existing_users:
            return None
        try:
            with open(path, encoding="utf-8") as handle:
                pool = json.load(handle)
        except (OSError, ValueError) as exc:
            LOG.warning("Ignoring the user pool %s: %s", path, exc)
            return None
        problem = pool_problem(
            pool,
            self.context["admin"]["credential"]["auth_url"],
            self.config.get("tenants", 1),
            self.config.get("users_per_tenant", 1),
        ) or self._options_problem(pool)
        if problem:
            LOG.info("Not using the user pool %s: %s", path, problem)
            return None
        return pool

    def _options_problem(self, pool: dict[str, Any]) -> str | None:
        """Why the task's other users options rule the pool out (None: they don't)."""
        if self.config.get("user_password") is not None:
            return "the task sets user_password"
        domain = str(pool.get("domain", "Default")).lower()
        for key in ("user_domain", "project_domain"):
            value = self.config.get(key)
            if value is not None and str(value).lower() != domain:
                return f"the task asks for {key} {value!r}"
        return None


def pool_problem(
    pool: Any, auth_url: str, tenants: int, users_per_tenant: int
) -> str | None:
    """Why ``pool`` cannot serve this request (None when it can)."""
    if not isinstance(pool, dict) or pool.get("version") != POOL_VERSION:
        return f"not a version {POOL_VERSION} user pool"
    if pool.get("auth_url", "").rstrip("/") != str(auth_url).rstrip("/"):
        return f"made for {pool.get('auth_url')}, not {auth_url}"
    projects = pool.get("tenants", [])
    if len(projects) < tenants:
        return f"{len(projects)} projects, {tenants} wanted"
    smallest = min(len(p.get("users", [])) for p in projects[:tenants])
    if smallest < users_per_tenant:
        return f"{smallest} users per project, {users_per_tenant} wanted"
    return None


def _user_credential(
    admin: Any, pool: dict[str, Any], tenant: dict[str, Any], user: dict[str, Any]
) -> credential.OpenStackCredential:
    """A user credential shaped like the ones Rally's users context makes."""
    return credential.OpenStackCredential(
        auth_url=admin["auth_url"],
        username=user["name"],
        password=pool["password"],
        tenant_name=tenant["name"],
        permission=consts.EndpointPermission.USER,
        project_domain_name=pool["domain"],
        user_domain_name=pool["domain"],
        endpoint_type=admin["endpoint_type"],
        https_insecure=admin["https_insecure"],
        https_cacert=admin["https_cacert"],
        region_name=admin["region_name"],
        profiler_hmac_key=admin["profiler_hmac_key"],
        profiler_conn_str=admin["profiler_conn_str"],
        api_info=admin["api_info"],
    )
