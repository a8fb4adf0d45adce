"""Finds and deletes what a run's Rally tasks left on the cloud, by name.

Rally names what its contexts and scenarios create ``c_rally_<task>_<random>``
and ``s_rally_<task>_<random>``, ``<task>`` being the first 8 hex digits
of the task's id. Rally's own cleanup deletes them at the end of each
workload; the sweep runs after it, also after Ctrl-C, SIGTERM or a failed
workload, and counts what is left (the target: nothing). Only servers
(when the run boots them), users and projects whose whole name matches a
task of this run are touched, checked here whatever the server's name
filter returned.

Application credentials (the ``keystone_perf_app_credentials`` context's)
die with their users: Keystone deletes a user's credentials when it deletes
the user, so the users' sweep covers those of the users the run created.
Those of existing users (``--existing-users``), which the run does not
delete, are swept by name when their user names are given (``users``).

Role grants (the ``keystone_perf_scope_roles`` context's) have no name:
those the run made and did not revoke are on its ledger
(:mod:`rally_keystone_perf.layout.grant_ledger`); the sweep revokes them
(a user deleted meanwhile took its grants along: 404) and checks that
none is left.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rally_keystone_perf.deploy.own_cloud.compute import endpoint
from rally_keystone_perf.deploy.own_cloud.probe import login, send, v3_url
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget, TargetError
from rally_keystone_perf.layout import grant_ledger

KINDS = ("users", "projects")
APP_CREDENTIALS = "application credentials"
GRANTS = "role grants"
SERVERS_GONE_WITHIN = 120.0  # seconds the sweep waits for deleted servers
_RANDOM = "[A-Za-z0-9]{8}"


def prefixes(task_ids: Iterable[str]) -> list[str]:
    """The name prefixes Rally gives what tasks ``task_ids`` create."""
    found = []
    for task_id in task_ids:
        part = task_id.replace("-", "")[:8]
        found += [f"c_rally_{part}_", f"s_rally_{part}_"]
    return found


@dataclass
class SweepResult:
    """Objects found by name after the tasks, deleted, and still there."""

    found: dict[str, int] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)
    left: dict[str, int | None] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line for the run's output and note."""
        if self.errors and None in self.left.values():
            return f"left on the target: unknown (the sweep failed: {self.errors[0]})"
        extra = [k for k in ("servers", APP_CREDENTIALS, GRANTS) if k in self.left]
        kinds = [*KINDS, *extra]
        left = ", ".join(f"{self.left.get(k, 0)} {k}" for k in kinds)
        swept = sum(self.deleted.values())
        text = f"left on the target: {left}"
        if swept:
            text += f" (the sweep deleted {swept} that Rally's cleanup had not)"
        return text


def _named(
    target: CloudTarget, url: str, token: str, kind: str, prefix: str
) -> list[str]:
    """Ids of the ``kind`` whose name is ``prefix`` + Rally's random part."""
    answer = send(
        "GET",
        f"{url}/{kind}",
        target,
        params={"name__startswith": prefix},
        headers={"X-Auth-Token": token},
    )
    if answer.status_code != 200:
        raise OSError(f"listing {kind} answered {answer.status_code}")
    pattern = re.compile(re.escape(prefix) + _RANDOM + "$")
    return [
        str(item["id"])
        for item in answer.json().get(kind, [])
        if pattern.match(str(item.get("name", "")))
    ]


def _count(
    target: CloudTarget, url: str, token: str, names: list[str]
) -> dict[str, list[str]]:
    return {
        kind: [i for prefix in names for i in _named(target, url, token, kind, prefix)]
        for kind in KINDS
    }


def _servers(target: CloudTarget, url: str, token: str, names: list[str]) -> list[str]:
    """Ids of the servers, of every project, named by a task of the run."""
    found = []
    for prefix in names:
        answer = send(
            "GET",
            f"{url}/servers",
            target,
            params={"all_tenants": "1", "name": "^" + re.escape(prefix)},
            headers={"X-Auth-Token": token},
        )
        if answer.status_code != 200:
            raise OSError(f"listing servers answered {answer.status_code}")
        pattern = re.compile(re.escape(prefix) + _RANDOM + "$")
        found += [
            str(s["id"])
            for s in answer.json().get("servers", [])
            if pattern.match(str(s.get("name", "")))
        ]
    return found


def _sweep_servers(
    target: CloudTarget, login_body: dict, names: list[str], result: SweepResult
) -> None:
    """Delete the run's servers (before their projects go), wait until gone."""
    url = endpoint(login_body.get("catalog", []), "compute", target)
    token = str(login_body["token"])
    ids = _servers(target, url, token, names)
    result.found["servers"], result.deleted["servers"] = len(ids), 0
    for ident in ids:
        answer = send(
            "DELETE", f"{url}/servers/{ident}", target, headers={"X-Auth-Token": token}
        )
        if answer.status_code in (202, 204):
            result.deleted["servers"] += 1
        elif answer.status_code != 404:
            result.errors.append(f"deleting server {ident}: {answer.status_code}")
    deadline = time.monotonic() + SERVERS_GONE_WITHIN
    left = _servers(target, url, token, names) if ids else []
    while left and time.monotonic() < deadline:
        time.sleep(2.0)
        left = _servers(target, url, token, names)
    result.left["servers"] = len(left)


def _app_credentials(
    target: CloudTarget, url: str, token: str, names: list[str], users: list[str]
) -> list[str]:
    """Paths (``users/ID/application_credentials/ID``) of the application
    credentials of the users named ``users`` that a task of the run named."""
    headers = {"X-Auth-Token": token}
    patterns = [re.compile(re.escape(prefix) + _RANDOM + "$") for prefix in names]
    found = []
    for name in users:
        answer = send(
            "GET", f"{url}/users", target, params={"name": name}, headers=headers
        )
        if answer.status_code != 200:
            raise OSError(f"listing users answered {answer.status_code}")
        for user in answer.json().get("users", []):
            path = f"users/{user['id']}/application_credentials"
            listing = send("GET", f"{url}/{path}", target, headers=headers)
            if listing.status_code != 200:
                raise OSError(f"listing {path} answered {listing.status_code}")
            found += [
                f"{path}/{cred['id']}"
                for cred in listing.json().get("application_credentials", [])
                if any(p.match(str(cred.get("name", ""))) for p in patterns)
            ]
    return found


def _sweep_app_credentials(
    target: CloudTarget,
    url: str,
    token: str,
    args: tuple[list[str], list[str]],
    result: SweepResult,
) -> None:
    """Delete the existing users' application credentials the run made."""
    names, users = args
    paths = _app_credentials(target, url, token, names, users)
    result.found[APP_CREDENTIALS], result.deleted[APP_CREDENTIALS] = len(paths), 0
    for path in paths:
        answer = send(
            "DELETE", f"{url}/{path}", target, headers={"X-Auth-Token": token}
        )
        if answer.status_code == 204:
            result.deleted[APP_CREDENTIALS] += 1
        elif answer.status_code != 404:
            result.errors.append(f"deleting {path}: {answer.status_code}")
    left = _app_credentials(target, url, token, names, users) if paths else []
    result.left[APP_CREDENTIALS] = len(left)


def _sweep_grants(
    target: CloudTarget, url: str, token: str, ledger: Path, result: SweepResult
) -> None:
    """Revoke the ledger's grants; those gone leave the ledger."""
    headers = {"X-Auth-Token": token}
    grants = grant_ledger.read(ledger)
    result.found[GRANTS], result.deleted[GRANTS] = len(grants), 0
    for grant in grants:
        answer = send("DELETE", f"{url}/{grant.path}", target, headers=headers)
        if answer.status_code == 204:
            result.deleted[GRANTS] += 1
        elif answer.status_code != 404:
            result.errors.append(f"revoking {grant.path}: {answer.status_code}")
    gone = [
        g
        for g in grants
        if send("HEAD", f"{url}/{g.path}", target, headers=headers).status_code == 404
    ]
    grant_ledger.remove(ledger, gone)
    result.left[GRANTS] = len(grants) - len(gone)


def sweep(
    target: CloudTarget,
    task_ids: Iterable[str],
    servers: bool = False,
    users: Iterable[str] = (),
    ledger: Path | None = None,
) -> SweepResult:
    """Delete the servers (``servers``), the application credentials of the
    existing users named ``users``, the role grants on the ``ledger``, users
    and projects the tasks ``task_ids`` left, then recount."""
    result = SweepResult()
    names = prefixes(task_ids)
    if not names:
        result.left = {k: 0 for k in KINDS}
        return result
    url = v3_url(target.auth_url)
    try:
        body = login(url, target)
        token = str(body["token"])
        if servers:
            _sweep_servers(target, body, names, result)
        if users:
            _sweep_app_credentials(target, url, token, (names, list(users)), result)
        if ledger is not None and ledger.is_file():
            _sweep_grants(target, url, token, ledger, result)
        found = _count(target, url, token, names)
        for kind, ids in found.items():
            result.found[kind] = len(ids)
            result.deleted[kind] = 0
            for ident in ids:
                answer = send(
                    "DELETE",
                    f"{url}/{kind}/{ident}",
                    target,
                    headers={"X-Auth-Token": token},
                )
                if answer.status_code == 204:
                    result.deleted[kind] += 1
                elif answer.status_code != 404:  # 404: Rally's cleanup was faster
                    result.errors.append(
                        f"deleting {kind} {ident}: {answer.status_code}"
                    )
        left = _count(target, url, token, names)
        result.left.update({k: len(v) for k, v in left.items()})
    except (OSError, TargetError) as exc:  # the cloud unreachable meanwhile
        result.errors.append(str(exc))
        extra = [
            *(["servers"] if servers else []),
            *([APP_CREDENTIALS] if users else []),
            *([GRANTS] if ledger is not None and ledger.is_file() else []),
        ]
        result.left = {k: None for k in (*KINDS, *extra)}
    return result
