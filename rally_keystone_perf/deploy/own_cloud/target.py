"""A cloud named in clouds.yaml (or the ``OS_*`` environment) as a target.

openstacksdk's own loader reads it: ``clouds.yaml`` and ``secure.yaml`` in
the places the OpenStack clients look (``OS_CLIENT_CONFIG_FILE`` first),
the ``OS_*`` variables as the cloud ``envvars``, and the precedence rules
users already know. Only password authentication is taken: Rally's
``existing@openstack`` environment (and rally-openstack's users) hold a
user name and password, not an application credential or a token.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from rally_keystone_perf.deploy.options import LaunchError

ENV_CLOUD = "envvars"  # openstacksdk's name for the cloud the OS_* variables make
PASSWORD_AUTH = ("password", "v3password")
_LOADER_LOG = "openstack.config"


class TargetError(LaunchError):
    """The cloud cannot be read or is not one the suite can measure."""


@dataclass(frozen=True)
class CloudTarget:
    """Where the cloud's Keystone is and whom to log in as (password hidden)."""

    cloud: str
    auth_url: str
    username: str
    project_name: str
    user_domain_name: str = "Default"
    project_domain_name: str = "Default"
    region: str | None = None
    interface: str = "public"
    verify: bool = True
    cacert: str | None = None
    password: str = field(default="", repr=False)

    def public(self) -> dict[str, Any]:
        """What run.json records: no password."""
        return {
            "cloud": self.cloud,
            "auth_url": self.auth_url,
            "region": self.region,
            "interface": self.interface,
            "verify": self.verify,
            "cacert": self.cacert,
            "username": self.username,
            "project_name": self.project_name,
        }

    def credential(self) -> dict[str, str]:
        """The user as a Rally environment spec's ``admin`` or ``users`` entry."""
        return {
            "username": self.username,
            "password": self.password,
            "project_name": self.project_name,
            "user_domain_name": self.user_domain_name,
            "project_domain_name": self.project_domain_name,
        }


class _Skipped(logging.Handler):
    """Collects the loader's "Skipping config file" warnings (a bad YAML)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("Skipping config file"):
            self.messages.append(message)


@contextlib.contextmanager
def _loading() -> Iterator[_Skipped]:
    handler = _Skipped()
    logger = logging.getLogger(_LOADER_LOG)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def load_target(cloud: str) -> CloudTarget:
    """The cloud ``cloud`` (``envvars``: the ``OS_*`` environment).

    :raises TargetError: unknown cloud, a file that does not parse, no
        password authentication, a setting missing.
    """
    from keystoneauth1 import exceptions as ks_exceptions  # costly: keystoneauth
    from openstack import exceptions  # costly: openstacksdk
    from openstack.config import loader  # costly: openstacksdk

    with _loading() as skipped:
        try:
            region = loader.OpenStackConfig(load_envvars=True).get_one(cloud=cloud)
        except (exceptions.ConfigException, ks_exceptions.ClientException) as exc:
            problem = "; ".join(skipped.messages) or str(exc)
            raise TargetError(f"cloud {cloud!r}: {problem}") from None
    if skipped.messages:  # a file skipped, the cloud found in another one
        raise TargetError(f"cloud {cloud!r}: {'; '.join(skipped.messages)}")
    return _target(cloud, region.config, region.auth, region.region_name)


def _target(
    cloud: str, config: Mapping[str, Any], auth: Mapping[str, Any], region: str
) -> CloudTarget:
    kind = str(config.get("auth_type") or "password")
    if kind not in PASSWORD_AUTH:
        raise TargetError(
            f"cloud {cloud!r} authenticates with {kind}: the suite takes password "
            "authentication only (Rally's existing@openstack environment and "
            "rally-openstack's users hold a user name and a password)"
        )
    for key in ("auth_url", "username", "password", "project_name"):
        if not auth.get(key):
            raise TargetError(f"cloud {cloud!r} has no auth {key}")
    return CloudTarget(
        cloud=cloud,
        auth_url=str(auth["auth_url"]).rstrip("/"),
        username=str(auth["username"]),
        password=str(auth["password"]),
        project_name=str(auth["project_name"]),
        user_domain_name=_domain(cloud, auth, "user_domain"),
        project_domain_name=_domain(cloud, auth, "project_domain"),
        region=region or None,
        # openstacksdk takes the old spellings (publicURL); Rally does not
        interface=str(config.get("interface") or "public").removesuffix("URL"),
        verify=bool(config.get("verify", True)),
        cacert=config.get("cacert") or None,
    )


def _domain(cloud: str, auth: Mapping[str, Any], kind: str) -> str:
    """The ``user_domain``/``project_domain`` name (``default``'s id: Default)."""
    name = auth.get(f"{kind}_name") or auth.get("domain_name")
    if name:
        return str(name)
    ident = auth.get(f"{kind}_id") or auth.get("domain_id")
    if ident in (None, "default"):
        return "Default"
    raise TargetError(
        f"cloud {cloud!r} names its {kind} by id {ident!r}: give {kind}_name "
        "(Rally's credentials take domain names)"
    )


USER_KEYS = ("username", "password", "project_name")
USER_DOMAINS = ("user_domain_name", "project_domain_name")


def load_users(path: Any) -> list[dict[str, str]]:
    """Existing test users from a JSON or YAML file, as Rally's spec has them.

    The file is a list of users, or Rally's ``existing@openstack`` spec
    (``{"openstack": {"users": [...]}}``), or ``{"users": [...]}``. Each
    user has ``username``, ``password``, ``project_name`` and, optionally,
    ``user_domain_name`` and ``project_domain_name`` (default: Default).

    :raises TargetError: unreadable, not such a list, a key missing.
    """
    import yaml  # costly: PyYAML's loader

    try:
        with open(path, encoding="utf-8") as stream:
            data = yaml.safe_load(stream)
    except (OSError, yaml.YAMLError) as exc:
        raise TargetError(f"{path}: cannot read the existing users: {exc}") from None
    if isinstance(data, dict):
        inner = data.get("openstack", data)
        data = inner.get("users") if isinstance(inner, dict) else None
    if not isinstance(data, list) or not data:
        raise TargetError(f"{path}: no list of users (Rally's existing users spec)")
    users = []
    for index, entry in enumerate(data, 1):
        missing = [
            k for k in USER_KEYS if not isinstance(entry, dict) or not entry.get(k)
        ]
        if missing:
            raise TargetError(f"{path}: user {index} has no {', '.join(missing)}")
        user = {k: str(entry[k]) for k in USER_KEYS}
        user.update({k: str(entry.get(k) or "Default") for k in USER_DOMAINS})
        users.append(user)
    return users
