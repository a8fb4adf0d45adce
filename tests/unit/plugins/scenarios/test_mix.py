"""Tests for KeystonePerf.mix: one weighted operation per iteration, each
the scenarios' own, under its own atomic names."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from rally.task import scenario as rally_scenario

from rally_keystone_perf.client import atomics
from rally_keystone_perf.client.keystone_admin import AppCredential
from rally_keystone_perf.plugins.scenarios import mix, operations
from rally_keystone_perf.tasks.model import TaskFileError
from tests.unit.rally_fakes import AUTH_URL, atomic_names, scenario_context

pytestmark = pytest.mark.usefixtures("fresh_sessions")
WEIGHTS = {"validate_token": 3, "list_projects": 1, "get_catalog": 1}


@pytest.fixture
def keystone(requests_mock):
    """Every route an operation sends, answered."""
    tokens = f"{AUTH_URL}/auth/tokens"
    requests_mock.post(tokens, status_code=201, headers={"X-Subject-Token": "N"})
    requests_mock.get(tokens, json={"token": {}})
    requests_mock.delete(tokens, status_code=204)
    for path, key in (
        ("/projects", "projects"),
        ("/auth/projects", "projects"),
        ("/auth/catalog", "catalog"),
        ("/role_assignments", "role_assignments"),
        ("/OS-REVOKE/events", "events"),
    ):
        requests_mock.get(re.compile(re.escape(AUTH_URL + path)), json={key: []})
    requests_mock.post(f"{AUTH_URL}/users", status_code=201, json={"user": {"id": "n"}})
    requests_mock.delete(re.compile(f"{AUTH_URL}/users/"), status_code=204)
    return requests_mock


def _context(iteration: int) -> dict:
    ctx = scenario_context(iteration=iteration, tenants=1, users_per_tenant=2)
    ctx["keystone_perf_app_credentials"] = {
        user["id"]: AppCredential(f"ac-{user['id']}", "n", user["id"], "s")
        for user in ctx["users"]
    }
    return ctx


def test_registered_with_the_token_pool_and_the_users_cleanup() -> None:
    assert rally_scenario.Scenario.get("KeystonePerf.mix") is mix.Mix
    assert mix.Mix.get_default_context() == {
        "keystone_perf_tokens@openstack": {},
        "admin_cleanup@openstack": ["keystone"],
        "users@openstack": {},
    }


def test_each_iteration_times_its_drawn_operation_alone(keystone) -> None:
    drawn = []
    for iteration in range(1, 26):
        scen = mix.Mix(_context(iteration))
        before = keystone.call_count
        scen.run(weights=WEIGHTS, seed=4)
        assert keystone.call_count == before + 1  # one request
        (action,) = atomic_names(scen)
        drawn.append(action)
    # the shares of 25 iterations: exactly 15, 5, 5
    assert Counter(drawn) == {
        atomics.VALIDATE_TOKEN: 15,
        atomics.LIST_PROJECTS: 5,
        atomics.GET_CATALOG: 5,
    }


@pytest.mark.parametrize("operation", sorted(operations.ACTIONS))
def test_every_operation_times_the_scenarios_actions(keystone, operation) -> None:
    scen = mix.Mix(_context(1))
    scen.run(weights={operation: 1})
    assert tuple(atomic_names(scen)) == operations.ACTIONS[operation]
    assert keystone.call_count == len(operations.ACTIONS[operation])


def test_iterations_in_any_order_draw_the_same_operations(keystone) -> None:
    def draw(iteration: int) -> str:
        scen = mix.Mix(_context(iteration))
        scen.run(weights={"list_projects": 1, "get_catalog": 1}, seed=9)
        return atomic_names(scen)[0]

    backwards = {n: draw(n) for n in range(12, 0, -1)}
    assert [backwards[n] for n in range(1, 13)] == [draw(n) for n in range(1, 13)]


@pytest.mark.parametrize(
    ("args", "contexts", "problem"),
    [
        ({"weights": {"validate_token": 1}}, {}, None),
        ({"weights": {"bogus": 1}}, {}, "unknown operation 'bogus'"),
        ({"weights": {"get_catalog": 0}}, {}, "get_catalog is 0"),
        ({"weights": {}}, {}, "no operation given"),
        ({"weights": [1]}, {}, "is not an object"),
        ({"weights": {"get_catalog": 1}, "seed": 1.5}, {}, "seed: 1.5"),
        (
            {"weights": {"authenticate_application_credential": 1}},
            {"users": {}},
            "needs the keystone_perf_app_credentials context",
        ),
        (
            {"weights": {"authenticate_application_credential": 1}},
            {"keystone_perf_app_credentials@openstack": {}},
            None,
        ),
        ({"weights": {"create_delete_user": 1}}, {}, None),
    ],
)
def test_weights_and_contexts_are_checked(args, contexts, problem) -> None:
    found = mix.mix_problem(args, contexts)
    assert (found is None) if problem is None else (problem in str(found))


def test_bad_weights_are_refused_by_rally_before_any_server(tmp_path: Path) -> None:
    from rally_keystone_perf.tasks.check import validate_task  # costly: rally

    workload = {
        "scenario": {"KeystonePerf.mix": {"weights": {"list_projects": -1}}},
        "runner": {"constant": {"times": 2, "concurrency": 1}},
        "contexts": {"users": {"tenants": 1, "users_per_tenant": 1}},
    }
    task = {
        "version": 2,
        "title": "t",
        "subtasks": [{"title": "m", "workloads": [workload]}],
    }
    path = tmp_path / "mix.json"
    path.write_text(json.dumps(task))
    with pytest.raises(TaskFileError, match="list_projects is -1"):
        validate_task(path)
