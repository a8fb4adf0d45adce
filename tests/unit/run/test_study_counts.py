"""Which of a study's ratios a count can compare, and what it counts."""

from __future__ import annotations

import dataclasses
from typing import Any

from rally_keystone_perf.deploy.options import Deployment, LaunchOptions, resolve
from rally_keystone_perf.run import study_counts
from rally_keystone_perf.studies import seed001

CREATE = {"name": "KeystonePerf.create_token", "args": {}, "contexts": {}}
VALIDATE = {"name": "KeystonePerf.validate_token", "args": {}, "contexts": {}}
USERS = {"name": "KeystonePerf.create_delete_user", "args": {}, "contexts": {}}


def _deployments(*labels: str) -> dict[str, Deployment]:
    found = {}
    for label in labels:
        config = seed001.STUDY.config(label)
        options = LaunchOptions(mode=config.mode, **config.options)
        found[label] = resolve(dataclasses.replace(options, port=None))
    return found


def test_fernet_vs_jws_is_counted_ldap_vs_sql_is_not() -> None:
    deployments = _deployments("fernet-ldap", "fernet-sql", "jws-sql")
    workloads: dict[str, list[dict[str, Any]]] = {
        "fernet-ldap": [CREATE, VALIDATE],
        "fernet-sql": [CREATE, VALIDATE, USERS],
        "jws-sql": [CREATE, VALIDATE, USERS],
    }
    plan = study_counts.plan_counts(seed001.STUDY, deployments, workloads)
    assert list(plan.deployments) == ["fernet-sql", "jws-sql"]
    # each config's workload of each counted ratio's action, once
    assert plan.workloads["jws-sql"] == [CREATE, VALIDATE]
    why = plan.not_counted["LDAP vs SQL, token generation (fernet)"]
    assert "differ by --identity" in why and "outside Keystone's process" in why
    assert set(plan.not_counted) == {"LDAP vs SQL, token generation (fernet)"}


def test_a_config_without_the_actions_workload_is_not_counted() -> None:
    deployments = _deployments("fernet-sql", "jws-sql")
    workloads = {"fernet-sql": [CREATE], "jws-sql": [CREATE]}
    plan = study_counts.plan_counts(seed001.STUDY, deployments, workloads)
    assert plan.workloads == {"fernet-sql": [CREATE], "jws-sql": [CREATE]}
    said = plan.not_counted["fernet vs JWS, token validation (SQL)"]
    assert said == "fernet-sql runs no KeystonePerf.validate_token"


def test_configs_of_other_modes_or_memcached_are_not_counted() -> None:
    deployments = _deployments("eventlet-1p", "apache-1n")
    workloads = {label: [CREATE] for label in deployments}
    plan = study_counts.plan_counts(seed001.STUDY, deployments, workloads)
    assert not plan.deployments
    said = plan.not_counted["Apache vs one process, token_authenticate"]
    assert "--mode" in said
