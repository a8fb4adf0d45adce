"""Token providers on a real Keystone: JWS tokens (seed 001's signed tokens)."""

from __future__ import annotations

import base64
import json
import re
import stat
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.deploy import launcher
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers.rally_json import load_report
from tests.functional.conftest import (
    FAST_HASH_ROUNDS,
    admin_client,
    run_processes,
    write_task,
)

pytestmark = pytest.mark.functional

BASE64URL = re.compile(r"^[A-Za-z0-9_-]+$")


def _workload(name: str, args: dict) -> dict:
    return {
        "scenario": {name: args},
        "runner": {"constant": {"times": 10, "concurrency": 2}},
        "contexts": {"users": {"tenants": 1, "users_per_tenant": 2}},
        "sla": {"failure_rate": {"max": 0}},
    }


def test_jws_tokens_are_issued_and_validated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = write_task(
        tmp_path / "jws.json",
        [
            _workload("KeystonePerf.create_token", {}),
            _workload("KeystonePerf.validate_token", {}),
        ],
    )
    runs = tmp_path / "runs"
    argv = ["run", "--task", str(task), "--token-provider", "jws", "--keep-running"]
    argv += ["--password-hash-rounds", str(FAST_HASH_ROUNDS), "--runs-dir", str(runs)]
    code = cli.main(argv)
    out = capsys.readouterr().out
    (root,) = runs.glob("2*")
    run = RunDir(root)
    try:
        assert code == 0  # failure_rate max 0 held in both workloads
        (report,) = run.results.glob("jws-*.json")
        for workload in load_report(report):
            assert len(workload.iterations) == 10
            assert not [it for it in workload.iterations if it.error]
        assert run.state().options["token_provider"] == "jws"
        assert re.search(r"\btokens\s+jws\b", out)  # the config line (may wrap)
        private = run.keys / "jws" / "private" / "private.pem"
        assert stat.S_IMODE(private.stat().st_mode) == 0o600
        # a JWS: header.payload.signature, base64url, signed with ES256
        parts = admin_client(run)[1].split(".")
        assert len(parts) == 3 and all(BASE64URL.match(p) for p in parts)
        header = json.loads(
            base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4))
        )
        assert header["alg"] == "ES256"
    finally:
        launcher.stop(run)
    assert not run_processes(run), "server processes were left running"
