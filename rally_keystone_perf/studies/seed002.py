"""Seed 002: create and delete users, Apache vs Keystone's own WSGI server,
memcached vs SQL token storage.

Its tables (``002_9b6b36240e128f83.txt``, "apache wsgi + memcached token",
"default wsgi + memcached token", "default wsgi + sql token"): Rally's
``KeystoneBasic.create_delete_user``, 100 times at concurrency 10, one row
per atomic action. Keystone's own WSGI server was keystone-all (eventlet;
one process by default then); tokens are no longer stored anywhere
(fernet), so "memcached token storage" becomes Keystone's caching on
memcached (``--cache memcached``) against its default (request-local only).
Every config is on MariaDB, as the seed's SQL was MySQL: SQLite lets one
writer in, and Apache's five processes creating and deleting users at once
got "database is locked" (HTTP 500) on it.
"""

from __future__ import annotations

from rally_keystone_perf.client import atomics
from rally_keystone_perf.studies.model import TOTAL, Config, Ratio, SeedRow, Study

SOURCE = (
    '"Keystone Performance简单测试和分析" (a blog post: Keystone performance, '
    "a simple test and analysis), its three `rally task detailed` tables "
    "(apache wsgi + memcached token, default wsgi + memcached token, default "
    "wsgi + sql token)"
)
APACHE_MEMCACHED = "apache-memcached"
EVENTLET_MEMCACHED = "eventlet-memcached"
EVENTLET_SQL = "eventlet-default-cache"
COLUMNS = ("min", "avg", "max", "p90", "p95", "success", "count")
# (config, action): min, avg, max, p90, p95, success, count, as printed;
# the seed's keystone.delete_resource is the user's delete
TABLE = {
    (APACHE_MEMCACHED, atomics.CREATE_USER): (0.450, 1.535, 16.554, 2.737, 3.630),
    (APACHE_MEMCACHED, atomics.DELETE_USER): (0.118, 0.258, 1.632, 0.343, 0.438),
    (APACHE_MEMCACHED, TOTAL): (0.634, 1.793, 16.671, 3.004, 4.104),
    (EVENTLET_MEMCACHED, atomics.CREATE_USER): (1.789, 4.670, 7.861, 6.588, 7.194),
    (EVENTLET_MEMCACHED, atomics.DELETE_USER): (0.408, 1.561, 4.116, 2.390, 2.816),
    (EVENTLET_MEMCACHED, TOTAL): (3.202, 6.231, 10.239, 8.146, 8.891),
    (EVENTLET_SQL, atomics.CREATE_USER): (2.020, 5.514, 9.456, 7.309, 7.925),
    (EVENTLET_SQL, atomics.DELETE_USER): (0.556, 1.814, 3.956, 2.849, 2.994),
    (EVENTLET_SQL, TOTAL): (3.977, 7.329, 11.938, 9.321, 10.110),
}
LEVEL = 10  # every table: concurrency 10, 100 times, all successful

STUDY = Study(
    seed="002",
    title="Create and delete users: Apache vs keystone-all, memcached vs SQL",
    source=SOURCE,
    configs=(
        Config(
            APACHE_MEMCACHED,
            "apache wsgi + memcached token",
            "apache",
            {"cache": "memcached", "db": "mysql"},
        ),
        Config(
            EVENTLET_MEMCACHED,
            "default wsgi (keystone-all) + memcached token",
            "eventlet",
            {"processes": 1, "cache": "memcached", "db": "mysql"},
        ),
        Config(
            EVENTLET_SQL,
            "default wsgi (keystone-all) + sql token",
            "eventlet",
            {"processes": 1, "db": "mysql"},
        ),
    ),
    patterns={
        "quick": ("create-delete-user-c10",),
        "full": ("create-delete-user-c10",),
    },
    rows=tuple(
        SeedRow(
            config,
            LEVEL,
            dict(zip(COLUMNS, (*figures, 1.0, 100), strict=True)),
            action=action,
        )
        for (config, action), figures in TABLE.items()
    ),
    ratios=(
        Ratio("Apache vs keystone-all", APACHE_MEMCACHED, EVENTLET_MEMCACHED),
        Ratio(
            "Apache vs keystone-all, create_user",
            APACHE_MEMCACHED,
            EVENTLET_MEMCACHED,
            action=atomics.CREATE_USER,
        ),
        Ratio(
            "Apache vs keystone-all, delete_user",
            APACHE_MEMCACHED,
            EVENTLET_MEMCACHED,
            action=atomics.DELETE_USER,
        ),
        Ratio(
            "memcached vs SQL tokens (default cache)", EVENTLET_MEMCACHED, EVENTLET_SQL
        ),
    ),
    compared=("avg", "p95", "success"),
    differs=(
        "Keystone of today: fernet tokens are stored nowhere, so the seed's "
        "memcached vs SQL token storage is Keystone's cache on memcached vs "
        "its default (request-local only); keystone-all is gone, eventlet "
        "with one worker process stands in for it; this machine's 2 cores; "
        "each user's password is hashed with bcrypt at Keystone's default "
        "rounds; quick: 30 iterations instead of 100"
    ),
    conclusion=(
        "Apache instead of keystone-all's WSGI: 3x faster user creation, 6x "
        "faster deletion, 3.5x overall; memcached token storage 17% faster "
        "than SQL"
    ),
)
