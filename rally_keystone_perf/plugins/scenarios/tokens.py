"""Token scenarios: issue and validate tokens."""

from __future__ import annotations

from rally.task import validation
from rally_openstack.task import scenario

from rally_keystone_perf.plugins.contexts.app_credentials import (
    CONTEXT_REF as APP_CREDENTIALS,
)
from rally_keystone_perf.plugins.contexts.scope_roles import VALIDATOR as SCOPE_GRANTED
from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_REF as TOKEN_POOL
from rally_keystone_perf.plugins.scenarios.operations import KeystonePerfOperations


@validation.add(SCOPE_GRANTED)
@validation.add(
    "enum",
    param_name="scope",
    values=["project", "unscoped", "domain", "system"],
    missed=True,
)
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
class CreateToken(KeystonePerfOperations):
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
            most clients ask), "unscoped", "domain" (the user's domain, by
            ID) or "system" (``{"system": {"all": true}}``); the last two
            need the ``keystone_perf_scope_roles`` context, which grants
            the users a role there (with that scope in its ``scopes``)
        """
        self.op_create_token(scope)


@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="KeystonePerf.authenticate_application_credential",
    platform="openstack",
    context={APP_CREDENTIALS: {}},
)
class AuthenticateApplicationCredential(KeystonePerfOperations):
    """Issue a token with an application credential."""

    def run(self) -> None:
        """Issue a token with the user's application credential (its id and
        secret): exactly one ``POST /v3/auth/tokens`` with the
        ``application_credential`` method, as automation logs in.

        The ``keystone_perf_app_credentials`` context makes one credential
        per user before the load (the user's own login to make it is also
        the day's ``last_active_at`` write, so none is timed) and deletes
        them after. The token is scoped to the credential's project, with
        the credential's roles. Atomic action:
        ``keystone.authenticate_application_credential`` (the route is
        ``keystone.create_token``'s: the access log cannot tell the two
        methods apart).
        """
        self.op_authenticate_application_credential()


@validation.add(
    "enum", param_name="validator", values=["admin", "self", "service"], missed=True
)
@validation.add(
    "enum",
    param_name="token_kind",
    values=["password", "application_credential"],
    missed=True,
)
@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="KeystonePerf.validate_token",
    platform="openstack",
    context={TOKEN_POOL: {}},
)
class ValidateToken(KeystonePerfOperations):
    """Validate a pre-issued token (password or application credential),
    as the admin, the token itself, or a service as keystonemiddleware does.

    Application-credential tokens are a ``token_kind``, not a scenario of
    their own: the request is the same ``GET /v3/auth/tokens``, only the
    token validated differs, so the two kinds compare on one atomic action
    (``keystone.validate_token``) and every validator. Their validation once
    took 5-10x a password token's (400 ms or more), fixed in Keystone
    25.0.0 by caching the role assignments it checks: with Keystone's cache
    disabled (``--cache disabled``) the slow path may come back.
    """

    def run(
        self,
        validator: str = "admin",
        token_kind: str = "password",
        allow_expired: bool = False,
    ) -> None:
        """Validate a pre-issued token: exactly one ``GET /v3/auth/tokens``.

        Tokens are issued before the load by the ``keystone_perf_tokens`` context
        (``tokens_per_user`` each, used round robin). Atomic action:
        ``keystone.validate_token``.

        ``validator`` "service" sends what keystonemiddleware's ``auth_token``
        (13.0.1) sends for each request reaching a service: X-Auth-Token is
        the service user's token (``keystone_perf_service_user`` context),
        with ``X-Subject-Token`` and ``OpenStack-Identity-Access-Rules: 1``,
        catalog included (``include_service_catalog`` defaults to true):
        ``keystonemiddleware/auth_token/_identity.py:48-53``
        (``_V3RequestStrategy.verify_token``; ``ACCESS_RULES_SUPPORT = '1'``
        at :21) calls python-keystoneclient 6.0.0's ``tokens.validate``,
        whose ``get_token_data`` (``keystoneclient/v3/tokens.py:78-91``)
        adds the header and, with ``allow_expired``, ``?allow_expired=1``.
        keystonemiddleware asks for ``allow_expired`` when the request also
        carries a valid ``X-Service-Token`` with a service role
        (``keystonemiddleware/auth_token/__init__.py:363-410``).

        :param validator: "admin" sends the admin token as X-Auth-Token (no
            other header); "self" lets the user validate its own token;
            "service" validates as keystonemiddleware does (see above)
        :param token_kind: "password" (issued by password) or
            "application_credential" (issued with the user's application
            credential: add the ``keystone_perf_app_credentials`` context)
        :param allow_expired: add ``?allow_expired=1``, keystonemiddleware's
            validation of a request that carries a service token
        """
        self.op_validate_token(validator, token_kind, allow_expired)
