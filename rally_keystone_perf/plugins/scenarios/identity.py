"""Identity management scenarios: users and projects."""

from __future__ import annotations

from rally.task import validation
from rally_openstack.task import scenario

from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_REF as TOKEN_POOL
from rally_keystone_perf.plugins.scenarios.operations import KeystonePerfOperations


@validation.add("required_platform", platform="openstack", admin=True)
@scenario.configure(
    name="KeystonePerf.create_delete_user",
    platform="openstack",
    context={TOKEN_POOL: {}, "admin_cleanup@openstack": ["keystone"]},
)
class CreateDeleteUser(KeystonePerfOperations):
    """Create a user, then delete it."""

    def run(self, domain_id: str = "default") -> None:
        """Create a user, then delete it: ``POST /v3/users`` + ``DELETE /v3/users/ID``.

        Uses the admin token issued before the load. Seed 002's workload.
        Atomic actions: ``keystone.create_user``, ``keystone.delete_user``. A user
        left behind by a failed delete (or an aborted run) is removed by the
        ``admin_cleanup`` context, which finds it by its Rally-generated name.

        :param domain_id: domain the user is created in
        """
        self.op_create_delete_user(domain_id)


@validation.add("required_platform", platform="openstack", admin=True)
@scenario.configure(
    name="KeystonePerf.list_projects", platform="openstack", context={TOKEN_POOL: {}}
)
class ListProjects(KeystonePerfOperations):
    """List projects with a pre-issued admin token."""

    def run(self) -> None:
        """List projects with a pre-issued admin token: one ``GET /v3/projects``.

        Seed 003's siege query, driven by Rally. Atomic action:
        ``keystone.list_projects``.
        """
        self.op_list_projects()
