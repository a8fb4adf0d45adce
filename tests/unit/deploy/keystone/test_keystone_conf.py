"""Every keystone.conf the launcher renders is stock Keystone plus reasons.

Each option a rendered keystone.conf sets must be in :data:`ALLOWED`, with
the reason it differs from Keystone's default, and its value must really
differ from that default (Keystone's own, read by a child process from
Keystone's option definitions): a line that repeats a default is noise, and
a line that changes one without a reason is a benchmark of a server nobody
runs (``[cache] enabled = false`` made validations several times slower).
"""

from __future__ import annotations

import configparser
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy import modes
from rally_keystone_perf.deploy.keystone import config
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.layout.rundir import RunDir

ALLOWED: dict[tuple[str, str], str] = {
    ("DEFAULT", "log_file"): "the log stays in the run folder",
    ("database", "connection"): "the run's own database (SQLite, MariaDB, ...)",
    ("token", "expiration"): "--token-expiration, only when not 3600",
    ("token", "provider"): "--token-provider jws, only when not fernet",
    ("jwt_tokens", "jws_public_key_repository"): "jws: keys in the run folder",
    ("jwt_tokens", "jws_private_key_repository"): "jws: keys in the run folder",
    ("fernet_tokens", "key_repository"): "keys live in the run folder",
    ("fernet_receipts", "key_repository"): "keys live in the run folder",
    ("credential", "key_repository"): "keys live in the run folder",
    ("identity", "password_hash_rounds"): "--password-hash-rounds, when given",
    ("cache", "backend"): "--cache memcached: the run's memcached",
    ("cache", "memcache_servers"): "--cache memcached: the run's memcached",
    ("cache", "enabled"): "--cache disabled only: the explicit, flagged opt-out",
    ("identity", "driver"): "--identity ldap: the run's slapd, read-only",
    ("ldap", "url"): "--identity ldap: the run's slapd",
    ("ldap", "suffix"): "--identity ldap: the run's directory's suffix",
    ("profiler", "enabled"): "--trace only: OSProfiler traces signed requests",
    ("profiler", "trace_sqlalchemy"): "--trace only: SQL statements as spans",
    ("profiler", "connection_string"): "--trace only: the run's redis",
}

VARIANTS: list[dict[str, Any]] = [
    {},
    {"cache": "memcached"},
    {"cache": "disabled"},
    {"db": "mysql"},
    {"password_hash_rounds": 4, "token_expiration": 600},
    {"token_provider": "jws"},
    {"identity": "ldap"},
    {"db": "postgresql"},
    {"trace": "sample:0.1"},
]

DEFAULTS_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import keystone.conf
    from oslo_db import options as db_options
    CONF = keystone.conf.CONF
    keystone.conf.configure()
    keystone.conf.set_config_defaults()
    db_options.set_defaults(CONF)
    CONF([], project="keystone", default_config_files=[], default_config_dirs=[])
    out = {}
    for section, key in json.loads(sys.argv[1]):
        group = CONF if section == "DEFAULT" else getattr(CONF, section)
        value = getattr(group, key)
        out[f"{section}.{key}"] = value
    print(json.dumps(out))
    """
)


def _rendered(run: RunDir, mode: str, options: dict[str, Any]) -> str:
    opts = LaunchOptions(mode=mode, **options)
    values = config.template_values(
        run,
        resolve(opts),
        5000,
        cache_servers=["127.0.0.1:11211"],
        ldap_url="ldap://127.0.0.1:389",
        trace_url="redis://127.0.0.1:6379" if opts.trace else None,
    )
    config.render_templates(run, modes.get_mode(mode), values)
    return (run.conf / "keystone.conf").read_text()


def _settings(text: str) -> dict[tuple[str, str], str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    found = {("DEFAULT", key): value for key, value in parser.defaults().items()}
    for section in parser.sections():
        for key in parser[section]:
            if key not in parser.defaults():
                found[(section, key)] = parser[section][key]
    return found


@pytest.fixture(scope="module")
def keystone_defaults() -> dict[str, Any]:
    """Keystone's defaults of every allowed option, as Keystone itself sees them."""
    keys = json.dumps([list(key) for key in ALLOWED])
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", DEFAULTS_SCRIPT, keys],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if isinstance(value, bool):
        return str(value).lower()
    return "" if value is None else str(value)


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: str(o) or "default")
@pytest.mark.parametrize("mode", sorted(modes.MODES))
def test_every_setting_is_allowed_and_differs_from_keystones_default(
    tmp_path: Path, mode: str, options: dict[str, Any], keystone_defaults: dict
) -> None:
    run = RunDir(tmp_path / "run")
    run.create()
    settings = _settings(_rendered(run, mode, options))
    unexplained = sorted(set(settings) - set(ALLOWED))
    assert not unexplained, f"settings without a reason in ALLOWED: {unexplained}"
    for (section, key), value in settings.items():
        default = _as_text(keystone_defaults[f"{section}.{key}"])
        assert value.lower() != default.lower(), (
            f"[{section}] {key} = {value} repeats Keystone's default"
        )


def test_stock_keystone_keeps_its_request_local_cache(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    run.create()
    settings = _settings(_rendered(run, "uwsgi", {}))
    assert not [key for key in settings if key[0] == "cache"]
    assert ("token", "expiration") not in settings


def test_cache_disabled_is_explicit(tmp_path: Path, keystone_defaults: dict) -> None:
    run = RunDir(tmp_path / "run")
    run.create()
    settings = _settings(_rendered(run, "uwsgi", {"cache": "disabled"}))
    assert settings[("cache", "enabled")] == "false"
    assert keystone_defaults["cache.enabled"] is True


def test_every_rendered_setting_has_a_comment(tmp_path: Path) -> None:
    """Each option line follows a comment line (its reason), as the template says."""
    run = RunDir(tmp_path / "run")
    run.create()
    for options in VARIANTS:
        lines = _rendered(run, "uwsgi", options).splitlines()
        for index, line in enumerate(lines):
            if "=" in line and not line.startswith("#"):
                assert lines[index - 1].startswith("#"), f"no reason above {line!r}"
