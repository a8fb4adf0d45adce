"""A synthetic ``matrix --nodes 1,2,3,4`` for the scaling table's tests.

Each run folder holds a token report and (but node 4's) a revocation
listing report, as the matrix leaves them; every report's load lasted 2 s
(:func:`.factory.workload`), so a workload's throughput is its successful
iterations / 2. Every run is held to 0.25 CPU per node, 0.5 for the database;
workloads run at concurrency 8 but where the table says otherwise.

* 1 node: 4 tokens (2.0/s, totals 0.11 to 0.41 s), 6 listings (3.0/s);
  logs/resources.csv: Keystone used 0.24 CPU (96% of its quota);
* 2 nodes: :mod:`.cluster_runs`' run, 3 tokens at concurrency 2 (1.5/s,
  totals 0.11 to 0.31 s) and its logs (database 98% of its quota, nodes
  95%); 10 listings (5.0/s);
* 3 nodes: 8 tokens (4.0/s), 6 at concurrency 16 (3.0/s); 12 listings at
  concurrency 16 (6.0/s); no logs;
* 4 nodes: 8 tokens of which 2 failed (3.0/s); no listings, no logs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rally_keystone_perf.report.figures import run_labels, scaling
from tests.unit.report import cluster_runs as c
from tests.unit.report import runs as r

QUOTA = {"node": 0.25, "db": 0.5}
LISTING = "keystone.list_revocation_events"
# node 1's Keystone tree: 0.24 CPU (96% of 0.25) over its tokens' window
HOST_SAMPLES = f"{c.HEADER}999.0,0.0,{100 * c.MB},2\n1004.0,1.2,{120 * c.MB},2\n"


def tokens(durations: list[float], concurrency: int = 8, **kwargs: Any) -> dict:
    """A create_token workload."""
    return r.workload(durations, concurrency, scaling.TOKEN, **kwargs)


def listings(count: int, concurrency: int = 8) -> dict:
    """A list_revocation_events workload of ``count`` 50 ms iterations."""
    return r.workload([0.05] * count, concurrency, scaling.REVOCATION, action=LISTING)


def state(nodes: int, mode: str = "uwsgi", **options: Any) -> dict[str, Any]:
    """run.json of a run against ``nodes`` nodes, held to :data:`QUOTA`."""
    run_state = c.cluster_state(QUOTA) if nodes > 1 else r.state(mode)
    if nodes == 1:
        run_state["cpu_quota"] = {"version": "v2", "groups": {}} | QUOTA
    run_state["mode"] = run_state["options"]["mode"] = mode
    run_state["options"].update(nodes=nodes, **options)
    return run_state


def add_run(
    root: Path,
    name: str,
    run_state: dict[str, Any],
    workloads: list[dict],
    listed: list[dict],
) -> list[Path]:
    """A run folder with a token report and, when ``listed``, a listing report."""
    paths = [r.make_run(root, name, workloads, run_state, report="tokens.json")]
    if listed:
        paths.append(r.make_run(root, name, listed, run_state, report="listed.json"))
    return paths


def matrix(root: Path) -> list[run_labels.LoadedReport]:
    """The four node counts of the table above, loaded."""
    one = add_run(root, "n1", state(1), [tokens([0.1, 0.2, 0.3, 0.4])], [listings(6)])
    (root / "n1" / "logs").mkdir()
    (root / "n1" / "logs" / "resources.csv").write_text(HOST_SAMPLES)
    two = [c.make_cluster_run(root / "n2", QUOTA)]
    cluster_state = json.loads((root / "n2" / "run" / "run.json").read_text())
    cluster_state["options"]["nodes"] = 2
    two.append(
        r.make_run(root / "n2", "run", [listings(10)], cluster_state, report="l.json")
    )
    three = add_run(
        root,
        "n3",
        state(3),
        [tokens([0.1] * 8), tokens([0.1] * 6, 16, position=1)],
        [listings(12, 16)],
    )
    four = add_run(root, "n4", state(4), [tokens([0.1] * 8, errors=(0, 1))], [])
    return run_labels.load_reports([*one, *two, *three, *four])
