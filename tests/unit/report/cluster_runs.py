"""A synthetic cluster run folder (``--nodes 2``) for the cluster view's tests.

One workload, create_token at 1000, 1001, 1002 of 0.1, 0.2, 0.3 s (+ 0.01 s
overhead): load window [1000.0, 1002.31]. Inside it:

* node 1 served 3 token requests (100, 200 ms; one 500 of 300 ms), node 2
  one (50 ms); both also answered haproxy's health checks (GET /v3);
* node 1 burned 0.25 CPU (its samples' slope), node 2 0.225, the database
  0.49, haproxy 0.02;
* haproxy (its log in UTC+2, as a machine in that zone writes it) sent 3
  requests to node1, 1 to node2 and answered 1 itself (<NOSRV>, 503).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.unit.report import runs as r

NODE1_LOG = """\
999000000 GET /v3 200 1000 11
1000000100 POST /v3/auth/tokens 201 100000 11
1001000100 POST /v3/auth/tokens 201 200000 11
1001500000 GET /v3 200 1000 11
1002000100 POST /v3/auth/tokens 500 300000 11
3000000100 POST /v3/auth/tokens 201 9000000 11
"""
NODE2_LOG = """\
1000000200 POST /v3/auth/tokens 201 50000 12
1001500000 GET /v3 200 1000 12
"""
HEADER = "timestamp,cpu_seconds,rss_bytes,processes\n"
MB = 1024 * 1024
# slopes: 0.25 CPU (node1), 0.225 (node2), 0.49 (db), 0.02 (haproxy)
SAMPLES = {
    "node1": (
        f"999.0,1.0,{100 * MB},2\n1001.0,1.5,{200 * MB},3\n1003.0,2.0,{150 * MB},3\n"
    ),
    "node2": f"999.0,0.0,{80 * MB},2\n1003.0,0.9,{90 * MB},2\n",
    "db": f"999.0,10.0,{300 * MB},1\n1003.0,11.96,{310 * MB},1\n",
    "haproxy": f"999.0,0.0,{10 * MB},1\n1003.0,0.08,{10 * MB},1\n",
}
_REQUEST = '"POST /v3/auth/tokens HTTP/1.1"'


def _httplog(accepted: str, server: str, timers: str, status: int) -> str:
    """An ``option httplog`` line (``log stdout format raw``)."""
    return (
        f"127.0.0.1:40312 [{accepted}] keystone_internal_front "
        f"keystone_internal_back/{server} {timers} {status} 2048 - - ---- "
        f"4/4/3/1/0 0/0 {_REQUEST}\n"
    )


# epoch 1000 is 01/Jan/1970:00:16:40 UTC, 02:16:40 in UTC+2
HAPROXY_LOG = "".join(
    [
        "[NOTICE]   (1) : haproxy version is 2.6.12\n",
        _httplog("01/Jan/1970:02:16:40.000", "node1", "0/0/1/100/101", 201),
        _httplog("01/Jan/1970:02:16:40.000", "node2", "0/0/2/50/52", 201),
        _httplog("01/Jan/1970:02:16:41.000", "node1", "0/4/2/200/206", 201),
        _httplog("01/Jan/1970:02:16:42.000", "node1", "1/1/1/300/303", 500),
        _httplog("01/Jan/1970:02:16:42.200", "<NOSRV>", "0/-1/-1/-1/0", 503),
        _httplog("01/Jan/1970:02:50:00.000", "node1", "0/0/1/9000/9001", 201),
    ]
)


def cluster_state(cpus: dict[str, Any] | None) -> dict[str, Any]:
    """run.json of a 2-node cluster; ``cpus`` its quotas (None: no key)."""
    cluster: dict[str, Any] = {
        "network": {"kind": "netns", "node_addresses": ["198.18.4.11", "198.18.4.12"]},
        "ports": [5000, 5000],
        "balance": "roundrobin",
    }
    state = r.state() | {"cluster": cluster}
    if cpus is not None:  # as deploy/cluster/cgroups.CpuQuota.to_json() writes it
        state["cpu_quota"] = {"version": "v1", "groups": {}} | cpus
    return state


def make_cluster_run(
    root: Path,
    cpus: dict[str, Any] | None = None,
    samples: dict[str, str] | None = None,
    haproxy_log: str | None = HAPROXY_LOG,
) -> Path:
    """The run folder ``root/run``; returns its report.

    ``samples`` replace :data:`SAMPLES` (a tier's CSV rows, without header).
    """
    report = r.make_run(root, "run", [r.workload([0.1, 0.2, 0.3])], cluster_state(cpus))
    logs = root / "run" / "logs"
    for node, text in (("node1", NODE1_LOG), ("node2", NODE2_LOG)):
        (logs / node).mkdir(parents=True)
        (logs / node / "access.log").write_text(text)
    for tier, rows in (samples if samples is not None else SAMPLES).items():
        (logs / f"resources-{tier}.csv").write_text(HEADER + rows)
    if haproxy_log is not None:
        (logs / "haproxy-stdout.log").write_text(haproxy_log)
    return report


def rewrite_state(root: Path, **changes: Any) -> None:
    """Merge ``changes`` into the run's run.json."""
    path = root / "run" / "run.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | changes))
