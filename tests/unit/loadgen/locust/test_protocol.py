from __future__ import annotations

import pytest
from rally_openstack.common.credential import OpenStackCredential

from rally_keystone_perf.loadgen.locust import protocol


def _setup(**context: object) -> protocol.Setup:
    return protocol.Setup(
        scenario="KeystonePerf.list_projects",
        module="rally_keystone_perf.plugins.scenarios.identity",
        qualname="ListProjects",
        args={},
        context=dict(context),
        users=4,
        times=200,
    )


def test_a_setup_line_carries_rallys_credentials_whole() -> None:
    admin = OpenStackCredential("http://127.0.0.1:5000/v3", "admin", "s3cret")
    line = protocol.setup_line(_setup(admin={"credential": admin}))
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert "s3cret" not in line  # not in clear in the pipe's text either
    back = protocol.read_setup(line)
    credential = back.context["admin"]["credential"]
    assert type(credential) is OpenStackCredential
    assert credential == admin and credential.password == "s3cret"
    assert back.users == 4 and back.times == 200


def test_plain_values_pickle_as_they_are() -> None:
    value = {"a": [1, 2.5, "x"], "b": None}
    assert protocol.decode(protocol.encode(value)) == value


def test_event_lines_are_json_and_logs_are_not_events() -> None:
    line = protocol.event_line("records", records=[{"duration": 0.1}])
    assert protocol.read_event(line) == {
        "event": "records",
        "records": [{"duration": 0.1}],
    }
    assert protocol.read_event("2026-11-23 INFO something\n") is None
    assert protocol.read_event('{"event": broken\n') is None


def test_shift_record_moves_every_clock_and_keeps_the_rest() -> None:
    record = {
        "timestamp": 100.0,
        "duration": 0.5,
        "error": [],
        "atomic_actions": [
            {
                "name": "a",
                "started_at": 100.0,
                "finished_at": 100.4,
                "children": [
                    {
                        "name": "b",
                        "started_at": 100.1,
                        "finished_at": 100.2,
                        "children": [],
                    }
                ],
            }
        ],
    }
    moved = protocol.shift_record(record, 2.0)
    assert moved["timestamp"] == 102.0 and moved["duration"] == 0.5
    action = moved["atomic_actions"][0]
    assert (action["started_at"], action["finished_at"]) == (102.0, 102.4)
    child = action["children"][0]
    assert round(child["started_at"], 6) == 102.1
    assert record["timestamp"] == 100.0  # the original is not touched


def test_addresses_are_host_and_port() -> None:
    assert protocol.parse_address("127.0.0.1:5557") == ("127.0.0.1", 5557)
    assert protocol.parse_address("[::1]:80") == ("::1", 80)
    for bad in ("nope", ":80", "host:0", "host:x", "host:70000"):
        with pytest.raises(ValueError, match="expected HOST:PORT"):
            protocol.parse_address(bad)
