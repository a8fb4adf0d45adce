"""Untimed Keystone clients for the contexts' set-up and clean-up (not a
plugin): a user's, and the admin's with its token."""

from __future__ import annotations

from typing import Any

from rally import exceptions

from rally_keystone_perf.client import keystone_v3


def user_client(credential: Any) -> keystone_v3.IdentityClient:
    """An untimed client on the shared session of ``credential``'s TLS options."""
    return keystone_v3.IdentityClient(
        keystone_v3.session_for_credential(credential), credential["auth_url"]
    )


def admin_client(
    ctx: dict[str, Any], name: str
) -> tuple[keystone_v3.IdentityClient, str, Any]:
    """The admin's client, a token of it and its credential, for context
    ``name``.

    :raises exceptions.ContextSetupFailure: the environment has no admin.
    """
    admin = ctx.get("admin")
    if not admin:
        raise exceptions.ContextSetupFailure(
            ctx_name=name, msg="needs the admin credential"
        )
    credential = admin["credential"]
    identity = user_client(credential)
    token = identity.create_token(keystone_v3.credential_user(credential))
    return identity, token, credential
