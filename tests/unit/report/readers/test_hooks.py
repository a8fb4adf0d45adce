"""Hook firings read from Rally's JSON and the report's lines for them."""

from __future__ import annotations

from rally_keystone_perf.report.readers.hooks import (
    HookRun,
    flat_error,
    hook_lines,
    hook_runs,
)

KILL = {"keystone_perf_fault": {"action": "kill", "target": "node2"}}


def _raw(*results: dict) -> dict:
    return {
        "hooks": [
            {
                "config": {
                    "description": "kill node 2",
                    "action": KILL,
                    "trigger": {"event": {"unit": "time", "at": [20]}},
                },
                "results": list(results),
                "summary": {},
            }
        ]
    }


def test_a_firing_with_its_output() -> None:
    result = {
        "status": "success",
        "started_at": 1020.25,
        "finished_at": 1020.5,
        "triggered_by": {"event_type": "time", "value": 20},
        "output": {
            "additive": [],
            "complete": [
                {"chart_plugin": "TextArea", "data": ["SIGKILL to node2-uwsgi"]},
                {"chart_plugin": "Lines", "data": [[1, 2]]},
            ],
        },
    }
    (run,) = hook_runs(_raw(result))
    assert run == HookRun(
        "keystone_perf_fault",
        {"action": "kill", "target": "node2"},
        "time 20",
        "success",
        1020.25,
        1020.5,
        None,
        ["SIGKILL to node2-uwsgi"],
    )
    assert hook_lines([run], 1000.0) == [
        "hook keystone_perf_fault kill node2 (time 20, at 20.2 s): success",
        "  SIGKILL to node2-uwsgi",
    ]


def test_a_failed_firing_says_why() -> None:
    result = {
        "status": "failed",
        "finished_at": 1041.0,
        "triggered_by": {"event_type": "iteration", "value": 100},
        "error": ["FaultError", "node2 did not answer\nin 60 s", "trace"],
    }
    (run,) = hook_runs(_raw(result))
    assert run.error == "FaultError: node2 did not answer in 60 s"
    assert hook_lines([run], None) == [
        "hook keystone_perf_fault kill node2 (iteration 100): failed: "
        "FaultError: node2 did not answer in 60 s"
    ]


def test_no_hooks_and_odd_entries() -> None:
    assert hook_runs({}) == [] and hook_runs({"hooks": None}) == []
    assert hook_runs({"hooks": ["x", {"config": {}, "results": ["y"]}]}) == []
    assert flat_error({"etype": "E", "msg": "a\n b"}) == "E: a b"
