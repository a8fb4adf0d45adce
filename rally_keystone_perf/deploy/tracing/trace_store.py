"""Copy a traced run's traces out of its redis before redis stops.

OSProfiler's redis driver keeps each trace as a list of events under
``osprofiler_opt:<trace id>`` (a ``<name>-start`` and ``<name>-stop`` per
span). :func:`collect` writes every trace as one JSON line
(``{"id", "events"}``, the events in their order) of
``traces/traces.jsonl.gz`` in the run folder
(:func:`rally_keystone_perf.layout.tracing.traces_file`), without the SQL
statements' parameters: they may hold user data, and the report reads the
statements alone.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from typing import Any

from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.tracing import traces_file

KEY_PREFIX = "osprofiler_opt:"  # OSProfiler's redis driver's namespace
BATCH = 200  # traces read per round trip


def _without_params(event: dict[str, Any]) -> dict[str, Any]:
    db = event.get("info", {}).get("db")
    if isinstance(db, dict):
        db.pop("params", None)
    return event


def _traces(client: Any) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Every trace in redis: its id and its events, oldest first."""
    keys = [k.decode() for k in client.scan_iter(match=KEY_PREFIX + "*", count=1000)]
    for start in range(0, len(keys), BATCH):
        batch = keys[start : start + BATCH]
        pipe = client.pipeline(transaction=False)
        for key in batch:
            pipe.lrange(key, 0, -1)
        for key, raw in zip(batch, pipe.execute(), strict=True):
            # LPUSH: the newest event first
            events = [_without_params(json.loads(item)) for item in reversed(raw)]
            yield key[len(KEY_PREFIX) :], events


def collect(run: RunDir, url: str) -> int:
    """Write every trace of the redis at ``url`` into the run; how many.

    :raises OSError: redis cannot be read or the file written (redis's
        own errors are ConnectionErrors, which are OSErrors too).
    """
    import redis  # costly: only a traced run's stop needs its client

    client = redis.Redis.from_url(url, socket_timeout=30)
    out = traces_file(run)
    out.parent.mkdir(exist_ok=True)
    tmp = out.with_suffix(".tmp")
    count = 0
    try:
        with gzip.open(tmp, "wt") as stream:
            for trace_id, events in _traces(client):
                stream.write(json.dumps({"id": trace_id, "events": events}) + "\n")
                count += 1
    except redis.RedisError as exc:
        tmp.unlink(missing_ok=True)
        raise OSError(f"cannot read the traces from {url}: {exc}") from None
    finally:
        client.close()
    tmp.replace(out)
    return count


def collect_before_stop(run: RunDir) -> None:
    """The stop's first step on a traced run: keep its traces (a failure is
    said on stderr; the stop goes on)."""
    state = run.state()
    if not state.trace_backend or "redis" not in state.services:
        return
    try:
        count = collect(run, state.trace_backend)
    except OSError as exc:
        print(f"traces not kept: {exc}", file=sys.stderr)
        return
    print(f"kept {count} traces in {traces_file(run)}", file=sys.stderr)
