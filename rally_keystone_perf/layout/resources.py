"""The resource CSVs in a run's ``logs/``: their names and their columns.

Each CSV holds one sampled process tree (or one tier's trees), one row per
sample::

    timestamp,cpu_seconds,rss_bytes,processes
    1718000000.123456,12.34,215748608,3

``timestamp`` is seconds since the epoch (the clock of Rally's iterations and
of the access log), ``cpu_seconds`` the user+system CPU time the trees have
consumed so far (cumulative: a process that exits keeps counting with its
last value), ``rss_bytes`` their total resident memory now and ``processes``
how many processes were read.

A single host's server is in :data:`RESOURCES_CSV`; a cluster's tiers
(``node1`` ..., :data:`DB_TIER`, ``galera1`` ..., :data:`HAPROXY_TIER`,
:data:`GALERA_HAPROXY`) and the load generator (:data:`CLIENT_TIER`) each in
their :func:`tier_csv`. ``deploy/sampler.py`` writes them, the report reads
them.
"""

from __future__ import annotations

RESOURCES_CSV = "resources.csv"  # in the run's logs/ folder
FIELDS = ("timestamp", "cpu_seconds", "rss_bytes", "processes")
DB_TIER = "db"  # the cluster's shared database (MariaDB or PostgreSQL)
HAPROXY_TIER = "haproxy"
GALERA_HAPROXY = "haproxy-galera"  # the database's load balancer
CLIENT_TIER = "client"  # the load generator: resources-client.csv


def tier_csv(tier: str) -> str:
    """The CSV of a tier (``node1``, ``db``, ``haproxy``, ``client``) in logs/."""
    return f"resources-{tier}.csv"
