"""Seed 000: token creation, keystone-all with 1 or 4 workers vs Apache.

Its table (``000_c5b096b32540a147.txt``, "Results" 1-3): Rally's
authenticate-users benchmark, 10000 iterations at concurrency 4, 16 and
32, users 12 tenants x 512. keystone-all is gone; its modern equivalent is
Keystone on oslo.service's eventlet WSGI server with N worker processes
(``--mode eventlet --processes N``), and Apache is mod_wsgi.
"""

from __future__ import annotations

from rally_keystone_perf.studies.model import Config, Ratio, SeedRow, Study

SOURCE = (
    '"4x performance increase in Keystone inside Apache using the token '
    'creation benchmark" (Neependra Khare, Red Hat), Results 1-3 (the three '
    "tables)"
)
ONE, FOUR, APACHE = "eventlet-1w", "eventlet-4w", "apache"
COLUMNS = ("min", "avg", "max", "p90", "p95", "success", "count")
# (config, concurrency): min, avg, max, p90, p95, success, count, as printed
TABLE = {
    (ONE, 4): (0.537, 0.998, 4.553, 1.233, 1.391, 1.0, 10000),
    (FOUR, 4): (0.189, 0.296, 5.099, 0.417, 0.474, 1.0, 10000),
    (APACHE, 4): (0.208, 0.299, 3.228, 0.437, 0.485, 1.0, 10000),
    (ONE, 16): (1.036, 3.905, 11.254, 5.258, 5.700, 1.0, 10000),
    (FOUR, 16): (0.187, 1.012, 5.894, 1.61, 1.856, 1.0, 10000),
    (APACHE, 16): (0.515, 0.970, 2.076, 1.113, 1.192, 1.0, 10000),
    (ONE, 32): (1.493, 7.752, 16.007, 10.428, 11.183, 1.0, 10000),
    (FOUR, 32): (0.198, 1.967, 8.54, 3.223, 3.701, 1.0, 10000),
    (APACHE, 32): (1.115, 1.986, 6.224, 2.133, 2.244, 1.0, 10000),
}

STUDY = Study(
    seed="000",
    title="Token creation: keystone-all 1 vs 4 workers vs Apache (up to 4x)",
    source=SOURCE,
    configs=(
        Config(ONE, "keystone-all, public_workers 1", "eventlet", {"processes": 1}),
        Config(FOUR, "keystone-all, public_workers 4", "eventlet", {"processes": 4}),
        Config(APACHE, "Keystone in Apache (devstack)", "apache"),
    ),
    patterns={"quick": ("create-token-c*",), "full": ("create-token-c*",)},
    rows=tuple(
        SeedRow(config, level, dict(zip(COLUMNS, figures, strict=True)))
        for (config, level), figures in TABLE.items()
    ),
    ratios=(
        Ratio("4 workers vs 1", FOUR, ONE),
        Ratio("Apache vs 1 worker", APACHE, ONE),
    ),
    compared=("avg", "p95", "success"),
    differs=(
        "Keystone of today (fernet tokens, no keystone-all: eventlet workers "
        "stand in for it), this machine's CPUs against the seed's 24, the "
        "suite's user pool instead of Rally's users context; quick: 100 "
        "iterations a level instead of 10000"
    ),
    conclusion=(
        "4 public_workers or Apache: up to 4x better than the default "
        "single keystone-all process (Keystone is CPU bound)"
    ),
)
