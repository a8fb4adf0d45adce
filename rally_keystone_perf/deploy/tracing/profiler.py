"""``--trace``: OSProfiler in every Keystone node, reporting to the run's redis.

Off by default. On, Keystone's ``[profiler]`` is enabled with its SQL
tracing, its HMAC key is generated into ``private/`` (Keystone reads it from
the private secrets file, the client from :data:`HMAC_KEY_FILE`), and
Debian's ``redis-server`` runs in the run folder as OSProfiler's backend:
no file written, bound to the run's address, stopped with the run. The
client signs the trace headers of the sampled iterations with the key
(:mod:`rally_keystone_perf.client.tracing`); :mod:`.trace_store` copies
the traces into the run folder before redis stops. ``--trace``'s spec is
:class:`rally_keystone_perf.layout.tracing.TraceSpec`.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path

from rally_keystone_perf.deploy import logtail, preflight, probes, services
from rally_keystone_perf.layout.rundir import TRACE_KEY, RunDir, write_private_text
from rally_keystone_perf.layout.tracing import TraceSpec, parse_spec

REDIS_SERVICE = "redis"
# Keystone's OSProfiler driver: deploy/keystone/trace_driver.py's, on redis
DRIVER_SCHEME = "ksp-redis"
HMAC_KEY_FILE = TRACE_KEY  # in private/
HOST_PARAM = "host"  # the driver's connection string: the spans' host


def run_spec(run: RunDir) -> TraceSpec | None:
    """The run's ``--trace`` (None: not traced; the spec's format:
    :mod:`rally_keystone_perf.layout.tracing`)."""
    text = run.state().options.get("trace")
    return parse_spec(text) if text else None


def redis_url(host: str, port: int) -> str:
    """OSProfiler's connection string for the run's redis."""
    return f"redis://{host}:{port}"


def node_url(url: str | None, node: str) -> str | None:
    """A cluster node's ``url``: its spans name ``node`` as their host.

    The nodes share the machine's host name (network namespaces keep it),
    which OSProfiler puts in every span; the suite's driver replaces it
    with the ``host`` of its connection string.
    """
    return None if url is None else f"{url}?{HOST_PARAM}={node}"


def profiler_section(url: str | None) -> str:
    """keystone.conf's ``[profiler]`` for ``--trace`` (empty without it).

    ``url``: the run's redis (a cluster node's :func:`node_url`). The HMAC
    key is not here: it is in the private secrets file.
    """
    if url is None:
        return ""
    driver_url = DRIVER_SCHEME + url[url.index(":") :]
    return (
        "[profiler]\n"
        "# --trace: OSProfiler on (default: off), so that signed requests are\n"
        "# traced; unsigned ones are not\n"
        "enabled = true\n"
        "# with every SQL statement a span of the trace (default: off)\n"
        "trace_sqlalchemy = true\n"
        "# the run's redis, through the suite's driver, which sends a request's\n"
        "# events at once (default: messaging://, which needs a notifier); in a\n"
        "# cluster, ?host= names the node in its spans\n"
        f"connection_string = {driver_url}\n"
    )


def secret_section(key: str) -> str:
    """The private secrets file's ``[profiler]``: the generated HMAC key."""
    return f"[profiler]\nhmac_keys = {key}\n"


def new_hmac_key(run: RunDir) -> str:
    """Generate the run's HMAC key into ``private/`` (0600); return it."""
    key = secrets.token_hex(16)
    write_private_text(run.private / HMAC_KEY_FILE, key + "\n")
    return key


def hmac_key_file(run: RunDir) -> Path:
    """Where the client reads the run's HMAC key."""
    return run.private / HMAC_KEY_FILE


def redis_argv(exe: Path, host: str, port: int) -> list[str]:
    """redis-server in the foreground, keeping everything in memory.

    ``--save ''`` and ``--appendonly no``: no dump file (Debian's
    redis.conf saves to /var/lib/redis); ``--protected-mode no``: a
    cluster's nodes reach it over the run's own bridge, the only address it
    binds (protected mode admits loopback clients only when no password is
    set).
    """
    return [
        str(exe),
        "--bind",
        host,
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--protected-mode",
        "no",
        "--daemonize",
        "no",
    ]


def start_redis(
    run: RunDir,
    exe: Path,
    host: str,
    timeout: float,
    prefix: Sequence[str] = (),
) -> str:
    """Start the run's redis on a free port of ``host``; its OSProfiler URL."""
    port = preflight.pick_port(host, None)
    proc = services.start(run, REDIS_SERVICE, [*prefix, *redis_argv(exe, host, port)])
    probes.wait_until(
        lambda: probes.port_open(host, port),
        proc,
        REDIS_SERVICE,
        timeout,
        lambda: logtail.named_tail(run.logs / f"{REDIS_SERVICE}-stdout.log"),
    )
    url = redis_url(host, port)
    run.write_state(trace_backend=url)
    return url
