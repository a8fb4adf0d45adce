"""Python functions' calls and own lines, counted exactly while collecting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.instructions import calls


def _leaf(n: int) -> int:
    total = n
    total += 1
    return total


def _request(times: int) -> int:
    found = 0
    for n in range(times):
        found += _leaf(n)
    return found


def _profiled(profile: calls.CallProfile, times: int) -> None:
    profile.toggle()
    _request(times)
    profile.toggle()


def test_calls_and_own_lines_are_counted_while_collecting(tmp_path: Path) -> None:
    profile = calls.CallProfile()
    _request(5)  # not collecting: not counted
    _profiled(profile, 7)  # the warm-up: before start, not counted
    assert not profile.collecting and not profile.calls
    profile.start()
    _profiled(profile, 3)
    _profiled(profile, 3)
    out = tmp_path / "profile.json"
    profile.write(out, iterations=2)
    found = calls.per_iteration(out)
    leaf = next(v for k, v in found.items() if k.endswith(":_leaf"))
    request = next(v for k, v in found.items() if k.endswith(":_request"))
    assert leaf == (3.0, 9.0)  # 3 calls an iteration, 3 lines each
    assert request[0] == 1.0 and request[1] > 3
    again = calls.CallProfile()
    again.start()
    _profiled(again, 3)
    _profiled(again, 3)
    again.write(tmp_path / "again.json", iterations=2)
    assert calls.per_iteration(tmp_path / "again.json") == found


def test_functions_are_named_by_their_file_below_site_packages() -> None:
    code = compile(
        "def f(): pass", "/v/lib/python3.11/site-packages/keystone/x.py", "exec"
    )
    (function,) = [c for c in code.co_consts if hasattr(c, "co_code")]
    assert calls.function_name(function) == "keystone/x.py:f"
    stdlib = compile("pass", "/usr/lib/python3.11/json/decoder.py", "exec")
    assert calls.function_name(stdlib) == "stdlib/json/decoder.py:<module>"


def test_a_profile_of_no_iteration_is_refused(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps({"iterations": 0, "functions": {}}))
    with pytest.raises(ValueError, match="no iteration"):
        calls.per_iteration(tmp_path / "p.json")
