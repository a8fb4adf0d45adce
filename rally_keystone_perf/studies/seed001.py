"""Seed 001: one request at a time by token format and identity backend,
then requests per second with 1 to 4 Keystone nodes behind haproxy.

Its tables (``001_4c32676adba2cdcf.txt``): "Performances results" of
"Compare PKI vs UUID, SQL vs LDAP" (seconds for 100 items in a row,
devstack's keystone-all on MySQL), and those of "The concurrency value
against PKI V3" (the most token_authenticate and revocation_list_get per
second, PostgreSQL, one process, then 1 to 4 Apache hosts behind haproxy).
UUID and PKI tokens are gone: fernet (encrypted) and JWS (signed, PKI's
successor) stand in; the revocation list is served as revocation events;
Keystone's LDAP identity is read-only, so LDAP has no user creation here.
"""

from __future__ import annotations

from rally_keystone_perf.client import atomics
from rally_keystone_perf.studies.model import (
    CapacitySpec,
    Config,
    Ratio,
    SeedRow,
    Study,
)

SOURCE = (
    'the OpenStack wiki\'s "KeystonePerformance" (revision of 20 December '
    "2013), Compare PKI vs UUID, SQL vs LDAP: Performances "
    "results (seconds for 100 in a row, given here per request); The "
    "concurrency value against PKI V3: the five Performances results"
)
SERIAL = ("create-token-serial", "validate-token-serial")
USERS = ("create-delete-user-serial",)  # SQL identity only: LDAP is read-only
RATES = ("create-token-throughput-c8", "list-revocation-events-throughput-c8")
RATE_LEVEL = 8  # the seed raised its clients until the rate stopped growing
TOKENS, CHECKS = atomics.CREATE_TOKEN, atomics.VALIDATE_TOKEN
USER, EVENTS = atomics.CREATE_USER, atomics.LIST_REVOCATION_EVENTS


def _serial(label: str, seed_label: str, tokens: str, identity: str) -> Config:
    patterns = SERIAL + (USERS if identity == "sql" else ())
    return Config(
        label,
        seed_label,
        "eventlet",
        {"processes": 1, "db": "mysql", "token_provider": tokens, "identity": identity},
        patterns={"quick": patterns, "full": patterns},
    )


def _rates(label: str, seed_label: str, mode: str, **options: object) -> Config:
    return Config(
        label,
        seed_label,
        mode,
        {"db": "postgresql", **options},
        patterns={"quick": RATES, "full": RATES},
    )


CONFIGS = (
    _serial("fernet-ldap", "UUID tokens, LDAP identity", "fernet", "ldap"),
    _serial("fernet-sql", "UUID tokens, SQL identity", "fernet", "sql"),
    _serial("jws-ldap", "PKI tokens, LDAP identity", "jws", "ldap"),
    _serial("jws-sql", "PKI tokens, SQL identity", "jws", "sql"),
    _rates(
        "eventlet-1p", "a single-process Python-only Keystone", "eventlet", processes=1
    ),
    _rates("apache-1n", "one Keystone in Apache", "apache"),
    _rates("apache-2n", "two Keystones in Apache behind haproxy", "apache", nodes=2),
    _rates("apache-3n", "three Keystones in Apache behind haproxy", "apache", nodes=3),
    _rates("apache-4n", "four Keystones in Apache behind haproxy", "apache", nodes=4),
)
# seconds for 100 in a row: user creation, token generation, token validation
SERIAL_TABLE = {
    "fernet-ldap": (29.36, 27.74, 2.29),
    "fernet-sql": (31.35, 29.73, 2.32),
    "jws-ldap": (29.39, 30.40, 2.84),
    "jws-sql": (31.34, 32.27, 2.86),
}
# per second: token_authenticate, revocation_list_get
RATE_TABLE = {
    "eventlet-1p": (10, 58),
    "apache-1n": (57, 330),
    "apache-2n": (105, 560),
    "apache-3n": (140, 800),
    "apache-4n": (140, 1000),
}


def _rows() -> tuple[SeedRow, ...]:
    rows = [
        SeedRow(config, 1, {"avg": seconds / 100}, action=action)
        for config, figures in SERIAL_TABLE.items()
        for action, seconds in zip((USER, TOKENS, CHECKS), figures, strict=True)
    ]
    rows += [
        SeedRow(config, RATE_LEVEL, {"throughput": float(rate)}, action=action)
        for config, figures in RATE_TABLE.items()
        for action, rate in zip((TOKENS, EVENTS), figures, strict=True)
    ]
    return tuple(rows)


def _rate_ratios(action: str, name: str) -> list[Ratio]:
    pairs = [
        ("Apache vs one process", "apache-1n", "eventlet-1p"),
        ("2 nodes vs 1", "apache-2n", "apache-1n"),
        ("3 nodes vs 2", "apache-3n", "apache-2n"),
        ("4 nodes vs 3", "apache-4n", "apache-3n"),
    ]
    return [
        Ratio(f"{words}, {name}", faster, slower, action=action, figure="throughput")
        for words, faster, slower in pairs
    ]


STUDY = Study(
    seed="001",
    title="Token formats and identity backends; 1 to 4 nodes behind haproxy",
    source=SOURCE,
    configs=CONFIGS,
    patterns={},
    rows=_rows(),
    ratios=(
        Ratio(
            "LDAP vs SQL, token generation (fernet)",
            "fernet-ldap",
            "fernet-sql",
            action=TOKENS,
        ),
        Ratio(
            "fernet vs JWS, token generation (SQL)",
            "fernet-sql",
            "jws-sql",
            action=TOKENS,
        ),
        Ratio(
            "fernet vs JWS, token validation (SQL)",
            "fernet-sql",
            "jws-sql",
            action=CHECKS,
        ),
        *_rate_ratios(TOKENS, "token_authenticate"),
        *_rate_ratios(EVENTS, "revocation_list_get"),
    ),
    compared=("avg", "throughput", "success"),
    differs=(
        "Keystone of today: fernet for UUID and JWS for PKI tokens, "
        "revocation events for the revocation list, LDAP identity read-only "
        "(no user creation on LDAP); eventlet with one process for "
        "keystone-all; one machine of 2 cores for the seed's 8-core hosts, "
        "so a cluster's nodes share 2 cores (each node is a network "
        "namespace on this machine, the database beside them); 8 iterations "
        "in flight where the seed raised its clients until the rate stopped "
        "growing; quick: 20 requests in a row, 5 s of load a rate"
    ),
    # the seed's "most token_authenticate a second" per node count, as the
    # highest arrival rate each sustains (its p95 bound loose: the seed
    # had none, it raised its clients until the rate stopped growing)
    capacity=CapacitySpec(
        pattern=RATES[0],
        slo="p95<2000ms,success>=99.9%",
        unit="tokens",
        configs=tuple(RATE_TABLE),
        seed_rates={config: float(rates[0]) for config, rates in RATE_TABLE.items()},
        seed_words="the most token_authenticate a second",
        start=1.0,
    ),
    conclusion=(
        "UUID token generation is faster than PKI, LDAP faster than SQL; a "
        "single process does 10 tokens/s, Apache 57/s, and nodes add until "
        "3 (140/s), where PostgreSQL is the bottleneck"
    ),
)
