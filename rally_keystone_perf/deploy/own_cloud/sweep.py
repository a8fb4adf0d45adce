"""Finds and deletes what a run's Rally tasks left on the cloud, by name.

Rally names what its contexts and scenarios create ``c_rally_<task>_<random>``
and ``s_rally_<task>_<random>``, ``<task>`` being the first 8 hex digits
of the task's id. Rally's own cleanup deletes them at the end of each
workload; the sweep runs after it, also after Ctrl-C, SIGTERM or a failed
workload, and counts what is left (the target: nothing). Only users and
projects whose whole name matches a task of this run are touched, checked
here whatever the server's ``name__startswith`` filter returned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rally_keystone_perf.deploy.own_cloud.probe import login, send, v3_url
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget, TargetError

KINDS = ("users", "projects")
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
        left = ", ".join(f"{self.left.get(k, 0)} {k}" for k in KINDS)
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


def sweep(target: CloudTarget, task_ids: Iterable[str]) -> SweepResult:
    """Delete the users and projects the tasks ``task_ids`` left, then recount."""
    result = SweepResult()
    names = prefixes(task_ids)
    if not names:
        result.left = {k: 0 for k in KINDS}
        return result
    url = v3_url(target.auth_url)
    try:
        token = str(login(url, target)["token"])
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
        result.left = {k: len(v) for k, v in _count(target, url, token, names).items()}
    except (OSError, TargetError) as exc:  # the cloud unreachable meanwhile
        result.errors.append(str(exc))
        result.left = {k: None for k in KINDS}
    return result
