"""Token scenarios: issue and validate tokens."""

from __future__ import annotations

from rally.task import validation
from rally_openstack.task import scenario

from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_REF as TOKEN_POOL
from rally_keystone_perf.plugins.scenarios.base import KeystonePerfScenario


@validation.add("enum", param_name="scope", values=["project", "unscoped"], missed=True)
@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="KeystonePerf.create_token",
    platform="openstack",
    # every user authenticates once before the load: Keystone writes a user's
    # last_active_at on the first authentication of the day, a one-off write
    # that would otherwise land in the first iterations (a user pool's users
    # are marked active at creation and skipped)
    context={
        TOKEN_POOL: {"tokens_per_user": 1, "admin_token": False, "warm_up_only": True}
    },
)
class CreateToken(KeystonePerfScenario):
    """Issue a token by password."""

    def run(self, scope: str = "project") -> None:
        """Issue a token by password: exactly one ``POST /v3/auth/tokens``.

        The seeds' "token creation benchmark", without the extra token requests and
        discovery calls that KeystoneBasic.authenticate_user_and_validate_token
        makes. Users come from the ``users`` context (round robin by default, see
        its ``user_choice_method``). Each user authenticates once before the
        load (``keystone_perf_tokens`` context), so the iterations measure the
        steady state, not the once-a-day ``last_active_at`` write of a user's
        first authentication. Atomic action: ``keystone.create_token``.

        :param scope: "project" (scoped to the user's project, as services and
            most clients ask) or "unscoped"
        """
        user = keystone_v3.credential_user(self.context["user"]["credential"])
        self.identity.create_token(user, unscoped=(scope == "unscoped"))


@validation.add("enum", param_name="validator", values=["admin", "self"], missed=True)
@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="KeystonePerf.validate_token",
    platform="openstack",
    context={TOKEN_POOL: {}},
)
class ValidateToken(KeystonePerfScenario):
    """Validate a pre-issued token."""

    def run(self, validator: str = "admin") -> None:
        """Validate a pre-issued token: exactly one ``GET /v3/auth/tokens``.

        Tokens are issued before the load by the ``keystone_perf_tokens`` context
        (``tokens_per_user`` each, used round robin). Atomic action:
        ``keystone.validate_token``.

        :param validator: "admin" sends the admin token as X-Auth-Token, the way
            a service validates its callers' tokens (keystonemiddleware);
            "self" lets the user validate its own token
        """
        # the subject last: a refresh of the admin token must not age it
        auth = self.admin_token() if validator == "admin" else None
        subject = self.user_token()
        auth = auth or subject
        self.identity.validate_token(auth, subject)
