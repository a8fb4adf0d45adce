"""Compute scenarios: Keystone's load as Nova's clients and services see it."""

from __future__ import annotations

from typing import Any

from rally.task import atomic, types, utils, validation
from rally_openstack.common import consts
from rally_openstack.task import scenario

from rally_keystone_perf.client import atomics

# "networks": "none" (boot with no network at all) needs compute API 2.37
MICROVERSION = "2.37"


@types.convert(
    image={"type": "glance_image"},
    flavor={"type": "nova_flavor"},
    network={"type": "neutron_network"},
)
@validation.add("number", param_name="poll_interval", minval=0.1, nullable=True)
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@validation.add("required_services", services=[consts.Service.NOVA])
@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="KeystonePerf.boot_server",
    platform="openstack",
    context={"cleanup@openstack": ["nova"]},
)
class BootServer(scenario.OpenStackScenario):
    """Boot a server, wait until ACTIVE, delete it, wait until it is gone."""

    def run(
        self,
        image: str,
        flavor: str,
        networks: list[str] | None = None,
        network: str | None = None,
        poll_interval: float = 1.0,
        timeout: float = 300.0,
    ) -> None:
        """Boot a server until ACTIVE, then delete it until gone (seed 004).

        Atomic actions: ``nova.boot_server`` (``POST /servers`` and the
        polling until ACTIVE) and ``nova.delete_server`` (``DELETE`` and the
        polling until Nova answers 404). Each boot makes Nova, Glance,
        Placement and Neutron validate tokens with Keystone; in a local run
        the report counts Keystone's requests per iteration. Rally builds
        the user's clients afresh for each iteration: the login (one ``POST
        /v3/auth/tokens``) happens when the client is made, before the
        timers start, and every boot carries a new token that the services
        validate uncached, as seed 004's clients did. keystoneauth
        re-authenticates when a token nears expiry, so long runs keep
        working. A server left behind by a
        failure is deleted by the ``cleanup`` context.

        :param image: image name or id (a Glance image)
        :param flavor: flavor name or id
        :param networks: network ids to attach; none (the default) boots the
            server with no network at all (compute API 2.37 "none")
        :param network: one more network, by name (``{"name": "private"}``,
            found by Rally's ``neutron_network`` type) or id
        :param poll_interval: seconds between status polls
        :param timeout: seconds to wait for ACTIVE, and again for the delete
        """
        nova = self.clients("nova", version=MICROVERSION)
        attached = [*(networks or []), *([network] if network else [])]
        nics: Any = [{"net-id": net} for net in attached] if attached else "none"
        with atomic.ActionTimer(self, atomics.BOOT_SERVER):
            server = nova.servers.create(
                self.generate_random_name(), image, flavor, nics=nics
            )
            server = utils.wait_for_status(
                server,
                ready_statuses=["ACTIVE"],
                update_resource=utils.get_from_manager(),
                timeout=timeout,
                check_interval=poll_interval,
            )
        with atomic.ActionTimer(self, atomics.DELETE_SERVER):
            server.delete()
            utils.wait_for_status(
                server,
                ready_statuses=["deleted"],
                check_deletion=True,
                update_resource=utils.get_from_manager(),
                timeout=timeout,
                check_interval=poll_interval,
            )
