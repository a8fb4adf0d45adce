"""Keystone's memcached (``--cache memcached``): oslo.cache's backend.

Debian's ``memcached`` run as the run's own child on the run's address,
never the system service; a cluster runs one beside the nodes, as
kolla-ansible does.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from rally_keystone_perf.deploy import logtail, probes, services
from rally_keystone_perf.deploy.backends.mariadb import as_root
from rally_keystone_perf.layout.rundir import RunDir

MEMCACHED_MEMORY_MB = 64


def memcached_argv(exe: Path, host: str, port: int) -> list[str]:
    """memcached on ``host:port`` (TCP only).

    ``-U 0``: no UDP (Debian's memcached.conf; oslo.cache speaks TCP);
    ``-m 64``: memcached's and Debian's default; ``-c 4096``: every Keystone
    worker's connection pool (kolla-ansible allows 5000; default 1024).
    """
    argv = [str(exe), "-l", host, "-p", str(port), "-U", "0"]
    argv += ["-m", str(MEMCACHED_MEMORY_MB), "-c", "4096"]
    if as_root():  # memcached refuses root unless told which user to be
        argv += ["-u", "root"]
    return argv


def start_memcached(
    run: RunDir,
    exe: Path,
    host: str,
    port: int,
    timeout: float,
    name: str = "memcached",
    prefix: Sequence[str] = (),
) -> subprocess.Popen[bytes]:
    """Start memcached and wait until it accepts connections.

    ``name``: its name in run.json and its log's; ``prefix``: what runs it
    (a cluster node's ``ip netns exec``).
    """
    proc = services.start(run, name, [*prefix, *memcached_argv(exe, host, port)])
    probes.wait_until(
        lambda: probes.port_open(host, port),
        proc,
        name,
        timeout,
        lambda: logtail.named_tail(run.logs / f"{name}-stdout.log"),
    )
    return proc
