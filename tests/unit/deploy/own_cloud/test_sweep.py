"""Tests for rally_keystone_perf.deploy.own_cloud.sweep (over requests_mock)."""

from __future__ import annotations

import re

import pytest
import requests

from rally_keystone_perf.deploy.own_cloud import sweep
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget

V3 = "http://keystone.test:5000/v3"
TARGET = CloudTarget("mine", V3, "alice", "demo", password="s3cret")
TASK = "0123abcd-ef45-6789-0123-456789abcdef"  # prefixes c_rally_0123abcd_, s_...


class FakeKeystone:
    """Users and projects by id; lists filter by name__startswith only,
    as a server may, and deletes remove them (``stuck``: answer 403)."""

    def __init__(self, requests_mock, **kinds: dict[str, str]) -> None:
        self.objects = {kind: dict(kinds.get(kind, {})) for kind in sweep.KINDS}
        self.stuck: set[str] = set()
        requests_mock.post(
            f"{V3}/auth/tokens",
            status_code=201,
            json={"token": {"roles": []}},
            headers={"X-Subject-Token": "tok"},
        )
        for kind in sweep.KINDS:
            requests_mock.get(f"{V3}/{kind}", json=self._list(kind))
            requests_mock.delete(re.compile(f"{V3}/{kind}/"), text=self._delete(kind))

    def _list(self, kind: str):
        def answer(request, context) -> dict:
            (start,) = request.qs["name__startswith"]
            found = self.objects[kind].items()
            # requests_mock lower-cases the query: compare as a server might
            items = [
                {"id": i, "name": n} for i, n in found if n.lower().startswith(start)
            ]
            return {kind: items}

        return answer

    def _delete(self, kind: str):
        def answer(request, context) -> str:
            ident = request.path.rsplit("/", 1)[-1]
            if ident in self.stuck:
                context.status_code = 403
                return ""
            context.status_code = 204 if self.objects[kind].pop(ident, None) else 404
            return ""

        return answer


def test_prefixes() -> None:
    assert sweep.prefixes([TASK]) == ["c_rally_0123abcd_", "s_rally_0123abcd_"]
    assert sweep.prefixes([]) == []


def test_no_task_no_request(requests_mock) -> None:
    result = sweep.sweep(TARGET, [])
    assert result.left == {"users": 0, "projects": 0}
    assert not requests_mock.called


def test_only_whole_rally_names_of_the_tasks_are_deleted(requests_mock) -> None:
    users = {
        "1": "c_rally_0123abcd_Ab3dE5gH",  # the context's user
        "2": "s_rally_0123abcd_zzzzzzzz",  # a scenario's user
        "3": "c_rally_0123abcd_Ab3dE5gH9",  # one character too many
        "4": "c_rally_0123abcd_short",  # too short
        "5": "c_rally_0123abcd_Ab3d-5gH",  # not alphanumeric
        "6": "c_rally_99999999_Ab3dE5gH",  # another task's
    }
    keystone = FakeKeystone(requests_mock, users=users)
    result = sweep.sweep(TARGET, [TASK])
    assert set(keystone.objects["users"]) == {"3", "4", "5", "6"}
    assert result.found == {"users": 2, "projects": 0}
    assert result.deleted == {"users": 2, "projects": 0}
    assert result.left == {"users": 0, "projects": 0}
    assert result.errors == []


def test_the_server_filter_is_not_trusted(requests_mock) -> None:
    FakeKeystone(requests_mock)
    requests_mock.get(
        f"{V3}/users", json={"users": [{"id": "9", "name": "alice"}]}
    )  # a server ignoring name__startswith
    result = sweep.sweep(TARGET, [TASK])
    assert result.found["users"] == 0
    assert not [r for r in requests_mock.request_history if r.method == "DELETE"]


def test_what_cannot_be_deleted_is_left(requests_mock) -> None:
    projects = {"p1": "c_rally_0123abcd_aaaaaaaa", "p2": "c_rally_0123abcd_bbbbbbbb"}
    keystone = FakeKeystone(requests_mock, projects=projects)
    keystone.stuck.add("p2")
    result = sweep.sweep(TARGET, [TASK])
    assert result.deleted == {"users": 0, "projects": 1}
    assert result.left == {"users": 0, "projects": 1}
    assert result.errors == ["deleting projects p2: 403"]
    assert result.line() == (
        "left on the target: 0 users, 1 projects "
        "(the sweep deleted 1 that Rally's cleanup had not)"
    )


def test_the_deletes_carry_the_login_token(requests_mock) -> None:
    FakeKeystone(requests_mock, users={"1": "s_rally_0123abcd_aaaaaaaa"})
    sweep.sweep(TARGET, [TASK])
    (delete,) = [r for r in requests_mock.request_history if r.method == "DELETE"]
    assert delete.url == f"{V3}/users/1"
    assert delete.headers["X-Auth-Token"] == "tok"


def test_a_failed_login_leaves_the_count_unknown(requests_mock) -> None:
    requests_mock.post(f"{V3}/auth/tokens", status_code=401)
    result = sweep.sweep(TARGET, [TASK])
    assert result.left == {"users": None, "projects": None}
    assert len(result.errors) == 1 and "401" in result.errors[0]
    assert result.line().startswith("left on the target: unknown (the sweep failed:")


def test_an_unreachable_cloud_leaves_the_count_unknown(requests_mock) -> None:
    requests_mock.post(
        f"{V3}/auth/tokens", exc=requests.exceptions.ConnectionError("refused")
    )
    result = sweep.sweep(TARGET, [TASK])
    assert result.left == {"users": None, "projects": None}
    assert "cannot reach" in result.errors[0]


def test_a_failed_listing_leaves_the_count_unknown(requests_mock) -> None:
    FakeKeystone(requests_mock)
    requests_mock.get(f"{V3}/projects", status_code=500)
    result = sweep.sweep(TARGET, [TASK])
    assert result.errors == ["listing projects answered 500"]
    assert "unknown" in result.line()


@pytest.mark.parametrize(
    ("deleted", "line"),
    [
        ({}, "left on the target: 0 users, 0 projects"),
        (
            {"users": 2, "projects": 1},
            "left on the target: 0 users, 0 projects "
            "(the sweep deleted 3 that Rally's cleanup had not)",
        ),
    ],
)
def test_line(deleted: dict[str, int], line: str) -> None:
    result = sweep.SweepResult(deleted=deleted, left={"users": 0, "projects": 0})
    assert result.line() == line


def test_what_rallys_cleanup_removed_meanwhile_is_not_counted_as_swept(
    requests_mock,
) -> None:
    users = {"u1": "s_rally_0123abcd_aaaaaaaa", "u2": "s_rally_0123abcd_bbbbbbbb"}
    keystone = FakeKeystone(requests_mock, users=users)
    real_delete = keystone._delete("users")

    def gone_first(request, context) -> str:
        keystone.objects["users"].pop("u1", None)  # removed by Rally just now
        return real_delete(request, context)

    requests_mock.delete(re.compile(f"{V3}/users/"), text=gone_first)
    result = sweep.sweep(TARGET, [TASK])
    assert result.deleted["users"] == 1
    assert result.left == {"users": 0, "projects": 0}
    assert result.errors == []


NOVA = "http://nova.test:8774/v2.1"


def test_servers_go_first_and_are_waited_for(requests_mock, monkeypatch) -> None:
    keystone = FakeKeystone(requests_mock, projects={"p1": "c_rally_0123abcd_aaaaaaaa"})
    catalog = [{"type": "compute", "endpoints": [{"interface": "public", "url": NOVA}]}]
    requests_mock.post(
        f"{V3}/auth/tokens",
        status_code=201,
        json={"token": {"catalog": catalog}},
        headers={"X-Subject-Token": "tok"},
    )
    servers = {"s1": "s_rally_0123abcd_Ab3dE5gH", "s2": "s_rally_0123abcd_toolong99"}
    listings: list[dict] = []

    def listed(request, context) -> dict:
        listings.append(request.qs)
        return {"servers": [{"id": i, "name": n} for i, n in servers.items()]}

    def deleted(request, context) -> str:
        context.status_code = 204
        return ""

    requests_mock.get(f"{NOVA}/servers", json=listed)
    requests_mock.delete(f"{NOVA}/servers/s1", text=deleted)
    monkeypatch.setattr(sweep.time, "sleep", lambda s: servers.pop("s1", None))
    result = sweep.sweep(TARGET, [TASK], servers=True)
    assert result.found["servers"] == 1 and result.deleted["servers"] == 1
    assert result.left == {"servers": 0, "users": 0, "projects": 0}
    assert listings[0] == {"all_tenants": ["1"], "name": ["^c_rally_0123abcd_"]}
    assert len(listings) == 6  # 2 prefixes: found, still there, gone
    deletes = [r.url for r in requests_mock.request_history if r.method == "DELETE"]
    assert deletes == [f"{NOVA}/servers/s1", f"{V3}/projects/p1"]  # servers first
    assert not keystone.objects["projects"]
    assert result.line() == (
        "left on the target: 0 users, 0 projects, 0 servers "
        "(the sweep deleted 2 that Rally's cleanup had not)"
    )


def test_existing_users_application_credentials_are_swept_by_name(
    requests_mock,
) -> None:
    FakeKeystone(requests_mock)
    creds = {
        "a1": "c_rally_0123abcd_Ab3dE5gH",  # the context's, of this run
        "a2": "my-own-automation",  # the user's own: kept
        "a3": "c_rally_99999999_Ab3dE5gH",  # another run's
    }

    def users(request, context) -> dict:
        if "name" in request.qs:  # an existing user, by name
            return {"users": [{"id": "alice-id", "name": "alice"}]}
        return {"users": []}

    def listing(request, context) -> dict:
        return {
            "application_credentials": [{"id": i, "name": n} for i, n in creds.items()]
        }

    def delete(request, context) -> str:
        creds.pop(request.path.rsplit("/", 1)[-1])
        context.status_code = 204
        return ""

    path = f"{V3}/users/alice-id/application_credentials"
    requests_mock.get(f"{V3}/users", json=users)
    requests_mock.get(path, json=listing)
    requests_mock.delete(re.compile(f"{path}/"), text=delete)
    result = sweep.sweep(TARGET, [TASK], users=["alice"])
    assert set(creds) == {"a2", "a3"}
    assert result.found["application credentials"] == 1
    assert result.left["application credentials"] == 0
    assert result.line() == (
        "left on the target: 0 users, 0 projects, 0 application credentials "
        "(the sweep deleted 1 that Rally's cleanup had not)"
    )


def test_the_grants_left_on_the_ledger_are_revoked(requests_mock, tmp_path) -> None:
    from rally_keystone_perf.layout import grant_ledger

    FakeKeystone(requests_mock)
    ledger = tmp_path / "scope-grants.json"
    held = {"system/users/u1/roles/r", "domains/d2/users/u2/roles/r"}
    stuck = grant_ledger.Grant("domains/d3", "u3", "r")  # revoking it fails
    for grant in (
        grant_ledger.Grant("system", "u1", "r"),
        grant_ledger.Grant("domains/d2", "u2", "r"),
        grant_ledger.Grant("domains/d9", "gone", "r"),  # its user deleted: 404
        stuck,
    ):
        grant_ledger.add(ledger, grant)
    held.add(stuck.path)

    def delete(request, context) -> str:
        path = request.path.removeprefix("/v3/")
        if path == stuck.path:
            context.status_code = 403
        elif path in held:
            held.discard(path)
            context.status_code = 204
        else:
            context.status_code = 404
        return ""

    def head(request, context) -> str:
        context.status_code = 204 if request.path.removeprefix("/v3/") in held else 404
        return ""

    grants = re.compile(f"{V3}/(system|domains/[^/]+)/users/[^/]+/roles/[^/]+$")
    requests_mock.delete(grants, text=delete)
    requests_mock.head(grants, text=head)
    result = sweep.sweep(TARGET, [TASK], ledger=ledger)
    assert held == {stuck.path}
    assert (result.found[sweep.GRANTS], result.deleted[sweep.GRANTS]) == (4, 2)
    assert result.left[sweep.GRANTS] == 1
    assert result.errors == [f"revoking {stuck.path}: 403"]
    assert grant_ledger.read(ledger) == [stuck]  # for the next sweep
    assert "1 role grants" in result.line()
