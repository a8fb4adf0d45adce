"""What Horizon and clients read: role assignments, a user's projects, the
catalog. Each iteration sends one ``GET``."""

from __future__ import annotations

from rally.task import validation
from rally_openstack.task import scenario

from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_REF as TOKEN_POOL
from rally_keystone_perf.plugins.scenarios.operations import KeystonePerfOperations


@validation.add("enum", param_name="of", values=["user", "all"], missed=True)
@validation.add("required_platform", platform="openstack", admin=True, users=True)
@scenario.configure(
    name="KeystonePerf.list_role_assignments",
    platform="openstack",
    context={TOKEN_POOL: {"tokens_per_user": 1}},
)
class ListRoleAssignments(KeystonePerfOperations):
    """List a user's role assignments with names, as Horizon asks."""

    def run(
        self, of: str = "user", effective: bool = True, include_names: bool = True
    ) -> None:
        """List role assignments with the admin token: one
        ``GET /v3/role_assignments``.

        Horizon's user and project pages ask with ``effective`` (group and
        inherited roles resolved into the user's) and ``include_names``
        (each user, project and role named, not only its ID). Atomic
        action: ``keystone.list_role_assignments``.

        :param of: "user" (this iteration's user's assignments, as a user's
            page asks) or "all" (every assignment)
        :param effective: resolve group and inherited assignments
        :param include_names: name each user, group, project and role
        """
        self.op_list_role_assignments(of, effective, include_names)


@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="KeystonePerf.list_auth_projects",
    platform="openstack",
    context={TOKEN_POOL: {"admin_token": False}},
)
class ListAuthProjects(KeystonePerfOperations):
    """List the projects a user's token may scope to."""

    def run(self) -> None:
        """List the projects of a pre-issued user token: one
        ``GET /v3/auth/projects``, as Horizon's project switcher and a
        client choosing its scope ask. Atomic action:
        ``keystone.list_auth_projects``.
        """
        self.op_list_auth_projects()


@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="KeystonePerf.get_catalog",
    platform="openstack",
    context={TOKEN_POOL: {"admin_token": False}},
)
class GetCatalog(KeystonePerfOperations):
    """Fetch the service catalog of a user's token."""

    def run(self) -> None:
        """Fetch the catalog of a pre-issued user token: one
        ``GET /v3/auth/catalog``, as a client that kept a token without its
        catalog asks. Atomic action: ``keystone.get_catalog``.
        """
        self.op_get_catalog()
