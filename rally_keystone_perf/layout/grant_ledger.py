"""The role grants a run made and has not revoked yet, in ``private/``.

The ``keystone_perf_scope_roles`` context grants users a role on their
domain or on the system for a domain- or system-scoped token, and revokes
it at the workload's end. A run stopped before (Ctrl-C, SIGTERM, a failed
workload) would leave the grants of users it did not create (one's own
cloud's ``--existing-users``) in place. So the context writes each grant
here before making it and takes it off once revoked; the own-cloud sweep
(:func:`rally_keystone_perf.deploy.own_cloud.sweep.sweep`) revokes what
is left. The file holds ids only (a grant's target, user and role), in
``private/`` all the same, since the users are the operator's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from rally_keystone_perf.layout.rundir import write_private_json

VERSION = 1


@dataclass(frozen=True)
class Grant:
    """A role on a target (``domains/{id}`` or ``system``) for a user."""

    target: str
    user_id: str
    role_id: str

    @property
    def path(self) -> str:
        """The grant's path below ``/v3`` (``PUT``, ``HEAD``, ``DELETE``)."""
        return f"{self.target}/users/{self.user_id}/roles/{self.role_id}"


def read(path: Path) -> list[Grant]:
    """The grants in the ledger (none when it is missing or unreadable)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        return [Grant(**entry) for entry in document["grants"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _write(path: Path, grants: Iterable[Grant]) -> None:
    kept = list(dict.fromkeys(grants))
    if kept:
        write_private_json(
            path, {"version": VERSION, "grants": [asdict(g) for g in kept]}
        )
    else:
        path.unlink(missing_ok=True)


def add(path: Path, grant: Grant) -> None:
    """Record ``grant``, before it is made."""
    _write(path, [*read(path), grant])


def remove(path: Path, gone: Iterable[Grant]) -> None:
    """Take the grants ``gone`` (revoked, or found absent) off the ledger."""
    done = set(gone)
    _write(path, [g for g in read(path) if g not in done])
