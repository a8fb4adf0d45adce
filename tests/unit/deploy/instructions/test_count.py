"""Counting one side: the specs, callgrind's dumps read, failures shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.deploy.instructions import calls, count, statements
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir

TASK_WORKLOADS = [
    {
        "name": "KeystonePerf.create_token",
        "args": {},
        "contexts": {"keystone_perf_users": {"tenants": 2, "users_per_tenant": 3}},
    },
    {"name": "KeystonePerf.validate_token", "args": {"validator": "self"}},
]


def _dump(folder: Path, name: str, label: str, total: int) -> None:
    (folder / name).write_text(
        f"version: 1\ncreator: callgrind-3.19.0\n"
        f"desc: Trigger: Client Request: {label}\n\nevents: Ir\n"
        f"summary: {total}\ntotals: {total}\n"
    )


def test_specs_carry_the_pool_size_and_the_scenarios_arguments() -> None:
    specs = count.workload_specs(TASK_WORKLOADS)
    assert specs[0]["pool"] == (2, 3) and specs[0]["users"] == 6
    assert specs[1]["args"] == {"validator": "self"} and specs[1]["users"] == 1


def test_dumps_are_read_by_their_segment_label(tmp_path: Path) -> None:
    _dump(tmp_path, "callgrind.0.out.2", "segment-2", 120)
    _dump(tmp_path, "callgrind.0.out.1", "segment-1", 100)
    (tmp_path / "callgrind.0.out").write_text("desc: Trigger: Program termination\n")
    _dump(tmp_path, "callgrind.1.out.1", "segment-1", 999)  # another workload's
    assert count.segment_totals(tmp_path, "callgrind.0") == {
        "segment-1": 100,
        "segment-2": 120,
    }


def test_a_count_is_the_mean_of_the_layouts_medians() -> None:
    sql = {"read": 6.0, "write": 2.0, "transaction": 4.0, "pragma": 0.0, "other": 0.0}
    found = count.WorkloadCount(
        0, "KeystonePerf.revoke_token", 2, 1000.0, [[3990, 4000, 4010], [4020]], 4, sql
    )
    assert found.per_request == 500.0
    assert found.spread == pytest.approx(20 / 4010)
    assert found.to_json()["per_request"] == 500.0
    assert found.to_json()["statements_per_request"]["read"] == 3.0


def _site(tmp_path: Path) -> RunDir:
    site = RunDir(tmp_path / "site")
    site.create()
    (site.conf / "keystone.conf").write_text("")
    (site.db / "prepared.sqlite").write_text("")
    return site


def _replays(site: RunDir, monkeypatch: pytest.MonkeyPatch, code: int = 0) -> list:
    """Replace the replays: each writes its dumps (or fails with a log)."""
    seen: list = []
    monkeypatch.setattr(count, "valgrind", lambda: Path("/usr/bin/valgrind"))

    def run_all(commands: list, at_once: int) -> list[int]:
        seen.extend(commands)
        for layout, command in enumerate(commands):
            stem = command.log.stem
            if code:
                command.log.write_text("replay failed: POST /v3/auth/tokens: 401\n")
                continue
            if "--statements" in command.argv:
                counter = statements.StatementCounter()
                counter.current.update(read=8 * 3, transaction=8 * 2)
                counter.dump("segment-1")
                counter.write(Path(command.argv[-1]))
                continue
            if "--profile" in command.argv:
                profile = calls.CallProfile()
                profile.write(Path(command.argv[-1]), iterations=8)
                continue
            for n, total in enumerate([800 + layout * 8, 804 + layout * 8], start=1):
                _dump(site.results, f"{stem}.out.{n}", f"segment-{n}", total)
        return [code] * len(commands)

    monkeypatch.setattr(count.parallel, "run_all", run_all)
    return seen


def test_each_layout_is_a_replay_under_callgrind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(tmp_path)
    seen = _replays(site, monkeypatch)
    spec = count.workload_specs(TASK_WORKLOADS[:1])[0]
    plan = count.CountPlan(warm_up=1, segments=2, iterations=4, layouts=3)
    found = count.count_workload(site, LaunchOptions(), 3, spec, Path("m.so"), plan)
    assert found.layouts == [[800, 804], [808, 812], [816, 820]]
    assert found.per_iteration == pytest.approx(202.5)
    assert found.statements["read"] == 6 and found.statements["transaction"] == 4
    *callgrind, native = seen
    assert "--statements" in native.argv and "valgrind" not in str(native.argv)
    # the statements' replay on a fresh copy of the database too
    assert (site.conf / "statements-3.conf").exists()
    seen[:] = callgrind
    argv = seen[0].argv
    assert argv[:4] == [
        "/usr/bin/valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--collect-atstart=no",
    ]
    assert "rally_keystone_perf.deploy.instructions.replay" in argv
    pads = [len(c.env[count.LAYOUT_ENV]) for c in seen]
    assert pads == [0, count.LAYOUT_STEP, 2 * count.LAYOUT_STEP]
    assert all(c.env["PYTHONHASHSEED"] == count.HASH_SEED for c in seen)
    # each replay on its own copy of the prepared database
    assert (site.conf / "replay-3-2.conf").read_text().count("replay-3-2.sqlite") == 1


def test_a_profile_is_one_more_native_replay_in_the_same_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(tmp_path)
    seen = _replays(site, monkeypatch)
    spec = count.workload_specs(TASK_WORKLOADS[:1])[0]
    plan = count.CountPlan(warm_up=1, segments=2, iterations=4, layouts=2)
    count.count_workload(site, LaunchOptions(), 3, spec, Path("m.so"), plan, True)
    *callgrind, sql, profile = seen
    assert len(callgrind) == 2 and "--statements" in sql.argv
    assert profile.argv[-2:] == ["--profile", str(count.profile_file(site, 3))]
    assert "valgrind" not in str(profile.argv)
    assert (site.conf / "profile-3.conf").exists()  # its own database copy
    assert calls.per_iteration(count.profile_file(site, 3)) == {}


def test_a_failed_replay_shows_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(tmp_path)
    _replays(site, monkeypatch, code=1)
    spec = count.workload_specs(TASK_WORKLOADS[:1])[0]
    with pytest.raises(LaunchError, match="(?s)exit 1.*401"):
        count.count_workload(
            site, LaunchOptions(), 0, spec, Path("m.so"), count.CountPlan()
        )


def test_no_valgrind_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(count.shutil, "which", lambda name: None)
    with pytest.raises(LaunchError, match="apt-get install valgrind"):
        count.valgrind()


def test_a_password_hashed_each_iteration_past_6_rounds_is_not_counted() -> None:
    create, validate = count.workload_specs(TASK_WORKLOADS)
    stock = LaunchOptions(password_hash_rounds=12)
    assert "12 bcrypt rounds" in str(count.not_counted(create, stock))
    assert count.not_counted(validate, stock) is None
    assert count.not_counted(create, LaunchOptions(password_hash_rounds=4)) is None
    mix = count.workload_specs(
        [{"name": "KeystonePerf.mix", "args": {"weights": {"validate_token": 3}}}]
    )[0]
    assert count.not_counted(mix, stock) is None
    mix["args"]["weights"]["create_token"] = 1
    assert count.not_counted(mix, stock) is not None
