"""Task files using the KeystonePerf scenarios pass or fail Rally's syntax check."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.tasks.check import validate_task
from rally_keystone_perf.tasks.model import TaskFileError
from tests.unit.rally_fakes import workload, write_task


@pytest.mark.parametrize(
    "fields",
    [
        # identity
        {"scenario": {"KeystonePerf.list_projects": {}}},
        {"scenario": {"KeystonePerf.create_delete_user": {}}},
        {"scenario": {"KeystonePerf.create_delete_user": {"domain_id": "d"}}},
        {
            "scenario": {"KeystonePerf.list_projects": {}},
            "runner": {"rps": {"times": 10, "rps": 5}},
            "contexts": {"keystone_perf_tokens": {"admin_token": True}},
        },
        # tokens
        {"scenario": {"KeystonePerf.create_token": {}}},
        {"scenario": {"KeystonePerf.create_token": {"scope": "project"}}},
        {"scenario": {"KeystonePerf.create_token": {"scope": "unscoped"}}},
        {
            "scenario": {"KeystonePerf.create_token": {"scope": "domain"}},
            "contexts": {"keystone_perf_scope_roles": {}},  # domain by default
        },
        {
            "scenario": {"KeystonePerf.create_token": {"scope": "system"}},
            "contexts": {
                "keystone_perf_scope_roles@openstack": {
                    "scopes": ["domain", "system"],
                    "role": "member",
                }
            },
        },
        {"scenario": {"KeystonePerf.validate_token": {"validator": "self"}}},
        {
            "scenario": {"KeystonePerf.validate_token": {"validator": "admin"}},
            "contexts": {
                "users": {"tenants": 2, "users_per_tenant": 2},
                "keystone_perf_tokens": {"tokens_per_user": 5, "admin_token": True},
            },
        },
    ],
)
def test_task_syntax_ok(tmp_path: Path, fields: dict) -> None:
    assert validate_task(write_task(tmp_path, workload(**fields))) == 1


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # identity
        (
            {"scenario": {"KeystonePerf.list_projects": {"limit": 5}}},
            "Unexpected argument(s) found ['limit']",
        ),
        (
            {"scenario": {"KeystonePerf.create_delete_user": {"domain": "d"}}},
            "Unexpected argument(s) found ['domain']",
        ),
        (
            {
                "scenario": {"KeystonePerf.list_projects": {}},
                "runner": {"constnt": {"times": 2}},
            },
            "There is no ScenarioRunner plugin `constnt`",
        ),
        (
            {
                "scenario": {"KeystonePerf.list_projects": {}},
                "contexts": {"keystone_perf_tokens": {"admin_token": "yes"}},
            },
            "'yes' is not of type 'boolean'",
        ),
        # tokens
        (
            {"scenario": {"KeystonePerf.create_token": {"scop": "project"}}},
            "Unexpected argument(s) found ['scop']",
        ),
        (
            {"scenario": {"KeystonePerf.create_token": {"scope": "domain"}}},
            "scope 'domain' needs a role there: add the keystone_perf_scope_roles "
            'context with "domain" in its scopes',
        ),
        (
            {
                "scenario": {"KeystonePerf.create_token": {"scope": "system"}},
                "contexts": {"keystone_perf_scope_roles": {"scopes": ["domain"]}},
            },
            "scope 'system' needs a role there",
        ),
        (
            {
                "scenario": {"KeystonePerf.create_token": {}},
                "contexts": {"keystone_perf_scope_roles": {"scopes": ["project"]}},
            },
            "'project' is not one of ['domain', 'system']",
        ),
        (
            {"scenario": {"KeystonePerf.create_token": {"scope": "trust"}}},
            "scope is trust which is not a valid value from ['project', 'unscoped', "
            "'domain', 'system']",
        ),
        (
            {"scenario": {"KeystonePerf.validate_token": {"validator": "root"}}},
            "validator is root which is not a valid value from "
            "['admin', 'self', 'service']",
        ),
        (
            {
                "scenario": {"KeystonePerf.validate_token": {}},
                "contexts": {"keystone_perf_tokens": {"foo": 1}},
            },
            "'foo' was unexpected",
        ),
        (
            {
                "scenario": {"KeystonePerf.validate_token": {}},
                "contexts": {"keystone_perf_tokens": {"tokens_per_user": 0}},
            },
            "0 is less than the minimum of 1",
        ),
    ],
)
def test_task_syntax_errors(tmp_path: Path, fields: dict, expected: str) -> None:
    path = write_task(tmp_path, workload(**fields))
    with pytest.raises(TaskFileError) as err:
        validate_task(path)
    message = str(err.value)
    assert message.startswith(f"{path}: workload KeystonePerf.")
    assert "[0]: " in message
    assert expected in message
