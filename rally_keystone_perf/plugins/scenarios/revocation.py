"""Token revocation scenarios: seed 001's revocation list, as revocation events.

Keystone replaced the PKI revocation list (``GET
/v3/auth/tokens/OS-PKI/revoked``, now 403) with revocation events; every
validation checks the token against them. These scenarios time a revocation
and the events listing; the ``keystone_perf_revocations`` context fills the
table before the load.
"""

from __future__ import annotations

from rally.task import validation
from rally_openstack.task import scenario

from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_REF as TOKEN_POOL
from rally_keystone_perf.plugins.scenarios.operations import KeystonePerfOperations


@validation.add("required_platform", platform="openstack", admin=True)
@scenario.configure(
    name="KeystonePerf.list_revocation_events",
    platform="openstack",
    context={TOKEN_POOL: {}},
)
class ListRevocationEvents(KeystonePerfOperations):
    """List the revocation events with a pre-issued admin token."""

    def run(self) -> None:
        """List revocation events: one ``GET /v3/OS-REVOKE/events``.

        The successor of seed 001's ``revocation_list_get``. Its cost grows
        with the events Keystone holds (see the ``keystone_perf_revocations``
        context). Atomic action: ``keystone.list_revocation_events``.
        """
        self.op_list_revocation_events()


@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(name="KeystonePerf.revoke_token", platform="openstack")
class RevokeToken(KeystonePerfOperations):
    """Issue a token, then revoke it (the user logs out)."""

    def run(self) -> None:
        """Issue a token, then revoke it: ``POST`` + ``DELETE /v3/auth/tokens``.

        The user's own token revokes itself, as ``openstack token revoke``
        does. Each request is its own atomic action: ``keystone.create_token``
        (the token to revoke, timed apart so its request is never hidden in
        the revocation) and ``keystone.revoke_token``.
        """
        self.op_revoke_token()
