"""Register the nova-fake mode's services in a stopped local Keystone.

Like :mod:`.user_pool`, this runs Keystone's own managers in a process of
its own before the server starts (nova-compute reads the catalog once, at
its start, so the catalog must be complete before any service starts):

* a ``service`` project and a ``service`` role;
* one service user per OpenStack service (``nova``, ``placement``,
  ``glance``, ``neutron``) with the ``admin`` and ``service`` roles on that
  project, sharing one generated password;
* the services and their public, internal and admin endpoints.

Run as ``python -m rally_keystone_perf.deploy.service_catalog --config-file
FILE --spec FILE``; the spec (private JSON, written by the launcher) holds
the region, the password and ``services``: ``[{"user", "type", "url"}]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.user_pool import load_keystone

SERVICE_PROJECT = "service"
SERVICE_ROLES = ("admin", "service")
INTERFACES = ("public", "internal", "admin")


def _role(providers: Any, name: str) -> dict[str, Any]:
    """The role called ``name``, created when missing."""
    for role in providers.role_api.list_roles():
        if role["name"] == name:
            return dict(role)
    role_id = uuid.uuid4().hex
    return dict(providers.role_api.create_role(role_id, {"id": role_id, "name": name}))


def register(providers: Any, spec: dict[str, Any], domain_id: str) -> int:
    """Create the project, roles, users, services and endpoints; the count."""
    project_id = uuid.uuid4().hex
    providers.resource_api.create_project(
        project_id,
        {
            "id": project_id,
            "name": SERVICE_PROJECT,
            "domain_id": domain_id,
            "enabled": True,
        },
    )
    roles = [_role(providers, name) for name in SERVICE_ROLES]
    for entry in spec["services"]:
        user = providers.identity_api.create_user(
            {
                "name": entry["user"],
                "domain_id": domain_id,
                "enabled": True,
                "password": spec["password"],
                "default_project_id": project_id,
            }
        )
        for role in roles:
            providers.assignment_api.create_grant(
                role["id"], user_id=user["id"], project_id=project_id
            )
        service_id = uuid.uuid4().hex
        providers.catalog_api.create_service(
            service_id,
            {
                "id": service_id,
                "type": entry["type"],
                "name": entry["user"],
                "enabled": True,
            },
        )
        for interface in INTERFACES:
            endpoint_id = uuid.uuid4().hex
            providers.catalog_api.create_endpoint(
                endpoint_id,
                {
                    "id": endpoint_id,
                    "service_id": service_id,
                    "interface": interface,
                    "url": entry["url"],
                    "region_id": spec["region"],
                    "enabled": True,
                },
            )
    return len(spec["services"])


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: register the spec's services in the configured Keystone."""
    parser = argparse.ArgumentParser(
        prog="python -m rally_keystone_perf.deploy.service_catalog",
        description="Create the service project, service users, services and "
        "endpoints of a private JSON spec in a stopped local Keystone through "
        "its own managers.",
    )
    parser.add_argument("--config-file", action="append", required=True)
    parser.add_argument("--spec", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.monotonic()
    spec = json.loads(args.spec.read_text())
    import keystone.conf  # costly: loads all of Keystone's options (0.8 s)

    providers = load_keystone(args.config_file)
    count = register(providers, spec, keystone.conf.CONF.identity.default_domain_id)
    print(
        f"registered {count} services in {time.monotonic() - started:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
