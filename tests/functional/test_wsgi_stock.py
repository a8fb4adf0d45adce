"""``--wsgi stock``: Keystone's own entry point, with none of the suite's
wrapping, beside the wrapper, on uwsgi with threads (4 processes x 5
threads).

What a fresh stock Keystone answers to its first concurrent requests is
the finding (printed with ``-s``, recorded in doc/source/user/modes.rst):
the wrapper loads the policy rules before the first request because of it.
Only reads are sent, each with a short timeout, so an exception that
leaves uwsgi's router waiting shows as a timeout, not a stall of the test.
"""

from __future__ import annotations

import collections
import concurrent.futures
import re
from pathlib import Path

import pytest
import requests

from rally_keystone_perf import cli
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.layout.rundir import RunDir
from tests.functional.conftest import FAST_HASH_ROUNDS, admin_client, run_processes

pytestmark = pytest.mark.functional

BURST = 20  # the first requests, all at once: one per thread of the workers
TIMEOUT = 10.0  # seconds a request may take before it counts as a stall


def _get(url: str, token: str) -> str:
    try:
        answer = requests.get(url, headers={"X-Auth-Token": token}, timeout=TIMEOUT)
    except requests.Timeout:
        return "timeout"
    except requests.ConnectionError:
        return "connection error"
    return str(answer.status_code)


@pytest.mark.parametrize("wsgi", ["suite", "stock"])
def test_the_first_burst_of_a_fresh_keystone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], wsgi: str
) -> None:
    """The suite's wrapper answers every request of the burst; a stock
    Keystone starts, serves, and what its burst got is printed."""
    runs = tmp_path / "runs"
    argv = ["up", "--wsgi", wsgi, "--processes", "4", "--threads", "5"]
    argv += ["--password-hash-rounds", str(FAST_HASH_ROUNDS), "--runs-dir", str(runs)]
    assert cli.main(argv) == 0
    run = RunDir((runs / "current").resolve())
    try:
        module = modes.WSGI_APPS[wsgi]
        assert f"module = {module}" in (run.conf / "uwsgi.ini").read_text()
        assert run.state().options["wsgi"] == wsgi
        _, token = admin_client(run)  # a login: no policy rule is read
        url = f"{run.state().auth_url}/projects"
        with concurrent.futures.ThreadPoolExecutor(BURST) as pool:
            answers = list(pool.map(lambda _: _get(url, token), range(BURST)))
        assert cli.main(["status", "--run", str(run.root)]) == 0
        status = capsys.readouterr().out
    finally:
        assert cli.main(["down", "--run", str(run.root)]) == 0
    tally = collections.Counter(answers)
    with capsys.disabled():
        print(f"\n--wsgi {wsgi}, first {BURST} concurrent GET /v3/projects: {tally}")
    assert not run_processes(run)
    if wsgi == "suite":
        assert not re.search(r"\bwsgi\b", status)  # the default: no column
        assert tally == {"200": BURST}  # the policy rules loaded before
    else:
        assert re.search(r"\bwsgi stock\b", status)  # the config line names it
        assert tally["200"] >= 1  # stock Keystone serves the API
