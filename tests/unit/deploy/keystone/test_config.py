"""Tests for rally_keystone_perf.deploy.keystone.config (rendering, nothing started)."""

from __future__ import annotations

import configparser
import stat
import sys
from pathlib import Path
from string import Template
from typing import Any

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import modes, preflight
from rally_keystone_perf.deploy.keystone import config
from rally_keystone_perf.deploy.options import (
    LaunchOptions,
    resolve,
)
from rally_keystone_perf.layout.rundir import RunDir

# --- templates -------------------------------------------------------------


def _render(run: RunDir, **options: Any) -> dict[str, str]:
    opts = LaunchOptions(**options)
    values = config.template_values(run, resolve(opts), 12345)
    config.render_templates(run, modes.get_mode("uwsgi"), values)
    return {
        "keystone.conf": (run.conf / "keystone.conf").read_text(),
        "uwsgi.ini": (run.conf / "uwsgi.ini").read_text(),
    }


def _ini(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read_string(text)
    return parser


@pytest.mark.parametrize("mode", sorted(modes.MODES))
def test_templates_use_only_known_values(run: RunDir, mode: str) -> None:
    options = LaunchOptions(mode=mode)
    executables = {
        r.executable: Path("/x") for r in preflight.requirements(resolve(options))
    }
    found = modes.get_mode(mode)
    for profile in found.profiles:
        values = config.template_values(
            run, resolve(LaunchOptions(mode=mode, profile=profile)), 1, executables
        )
        texts = [(paths.deployments_dir() / t).read_text() for t in found.templates]
        texts += [arg for process in found.processes for arg in process.argv]
        for text in texts:
            tmpl = Template(text)
            assert tmpl.is_valid()
            assert set(tmpl.get_identifiers()) <= set(values)


def test_render_uwsgi(run: RunDir) -> None:
    rendered = _render(run, processes=3, threads=5, listen_backlog=77)
    for text in rendered.values():
        assert "$" not in text
    uwsgi = _ini(rendered["uwsgi.ini"])["uwsgi"]
    assert uwsgi["http"] == "127.0.0.1:12345"
    assert uwsgi["processes"] == "3"
    assert uwsgi["threads"] == "5"
    assert uwsgi["listen"] == "77"
    assert uwsgi["module"] == "rally_keystone_perf.deploy.wsgi_app:application"
    assert uwsgi["env"] == f"OS_KEYSTONE_CONFIG_FILES={run.conf / 'keystone.conf'}"
    assert uwsgi["pidfile"] == f"{run.root}/uwsgi.pid"
    assert uwsgi["logger"] == f"file:{run.logs}/uwsgi.log"
    assert uwsgi["req-logger"] == f"file:{run.logs}/access.log"

    conf = _ini(rendered["keystone.conf"])
    assert conf["database"]["connection"] == (
        f"sqlite:///{run.db / 'keystone.sqlite'}?timeout=30"
    )
    assert conf["DEFAULT"]["log_file"] == f"{run.logs}/keystone.log"
    assert "expiration" not in conf["token"]  # Keystone's 3600 s
    assert "provider" not in conf["token"]  # Keystone's fernet
    assert conf["fernet_tokens"]["key_repository"] == str(run.keys / "fernet")
    assert conf["fernet_receipts"]["key_repository"] == str(run.keys / "fernet")
    assert conf["credential"]["key_repository"] == str(run.keys / "credential")
    assert "password_hash_rounds" not in conf["identity"]
    assert "# password_hash_rounds: Keystone's default" in rendered["keystone.conf"]


def test_render_password_hash_rounds_and_expiration(run: RunDir) -> None:
    rendered = _render(
        run, password_hash_rounds=4, token_expiration=600, host="127.0.0.2"
    )
    conf = _ini(rendered["keystone.conf"])
    assert conf["identity"]["password_hash_rounds"] == "4"
    assert conf["token"]["expiration"] == "600"
    assert rendered["keystone.conf"].count("password_hash_rounds") == 1
    assert _ini(rendered["uwsgi.ini"])["uwsgi"]["http"] == "127.0.0.2:12345"


def test_template_values(run: RunDir) -> None:
    values = config.template_values(
        run,
        resolve(LaunchOptions(processes=8, threads=2, password_hash_rounds=None)),
        5001,
    )
    assert values["port"] == "5001"
    assert values["processes"] == "8"
    assert values["threads"] == "2"
    assert values["host"] == "127.0.0.1"
    assert values["listen_backlog"] == "100"
    assert values["token_expiration_line"].startswith("# expiration: Keystone's")
    assert values["run_dir"] == str(run.root)
    assert values["keystone_conf"] == str(run.conf / "keystone.conf")
    assert all(isinstance(v, str) for v in values.values())


def test_cache_and_secret_database_config(run: RunDir) -> None:
    memcached = config.template_values(
        run,
        resolve(LaunchOptions(cache="memcached")),
        1,
        cache_servers=["127.0.0.1:11311"],
    )
    assert "backend = dogpile.cache.pymemcache" in memcached["cache_config"]
    assert "memcache_servers = 127.0.0.1:11311" in memcached["cache_config"]
    stock = config.template_values(run, resolve(LaunchOptions()), 1)["cache_config"]
    assert all(line.startswith("#") for line in stock.splitlines())  # the default
    disabled = config.template_values(run, resolve(LaunchOptions(cache="disabled")), 1)
    assert "enabled = false" in disabled["cache_config"]

    config.write_secret_config(run, "mysql+pymysql://k:SECRET@127.0.0.1:1/k")
    secret = run.private / config.SECRETS_CONF
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    values = config.template_values(run, resolve(LaunchOptions(db="mysql")), 1)
    assert values["keystone_config_files"] == f"{run.conf / 'keystone.conf'};{secret}"
    config.render_templates(run, modes.get_mode("uwsgi"), values)
    rendered = (run.conf / "keystone.conf").read_text()
    assert "SECRET" not in rendered and "sqlite" not in rendered
    assert f"# connection: in {secret}" in rendered
    uwsgi = (run.conf / "uwsgi.ini").read_text()
    assert f"OS_KEYSTONE_CONFIG_FILES={values['keystone_config_files']}" in uwsgi


def test_render_nginx_uwsgi_and_apache(run: RunDir) -> None:
    exes = {"nginx": Path("/usr/sbin/nginx"), "uwsgi": Path("/v/uwsgi")}
    options = LaunchOptions(mode="nginx-uwsgi", profile="tuned")
    values = config.template_values(run, resolve(options), 8080, exes, Path("/tmp/s"))
    config.render_templates(run, modes.get_mode("nginx-uwsgi"), values)
    nginx = (run.conf / "nginx.conf").read_text()
    assert "listen 127.0.0.1:8080 backlog=" in nginx
    assert "server unix:/tmp/s/uwsgi.sock;" in nginx
    assert "worker_connections 4096;" in nginx
    assert "$msec $request_method" in nginx  # $$ became $
    assert (run.root / "nginx-tmp").is_dir()
    uwsgi = _ini((run.conf / "uwsgi.ini").read_text())["uwsgi"]
    assert (uwsgi["socket"], uwsgi["processes"], uwsgi["threads"]) == (
        "/tmp/s/uwsgi.sock",
        "38",
        "5",
    )

    apache = LaunchOptions(mode="apache")
    values = config.template_values(run, resolve(apache), 8081)
    config.render_templates(run, modes.get_mode("apache"), values)
    httpd = (run.conf / "httpd.conf").read_text()
    assert "Listen 127.0.0.1:8081" in httpd
    assert "WSGIDaemonProcess keystone-public processes=5 threads=1" in httpd
    assert f'WSGIPythonHome "{sys.prefix}"' in httpd
    assert "%{usec}t %m %U%q %>s %D %P" in httpd
    wsgi = (run.conf / "keystone.wsgi").read_text()
    assert f'"{run.conf / "keystone.conf"}"' in wsgi
    compile(wsgi, "keystone.wsgi", "exec")


def test_a_cluster_lists_every_nodes_memcached(run: RunDir) -> None:
    servers = ["198.18.0.11:11211", "198.18.0.12:11211"]
    values = config.template_values(
        run, resolve(LaunchOptions(cache="memcached")), 1, cache_servers=servers
    )
    assert (
        "memcache_servers = 198.18.0.11:11211,198.18.0.12:11211"
        in (values["cache_config"])
    )


def test_wsgi_stock_loads_keystones_own_entry_point(run: RunDir) -> None:
    uwsgi = _ini(_render(run, wsgi="stock")["uwsgi.ini"])["uwsgi"]
    assert uwsgi["module"] == "keystone.wsgi.api:application"
    values = config.template_values(
        run, resolve(LaunchOptions(mode="apache", wsgi="stock")), 1
    )
    config.render_templates(run, modes.get_mode("apache"), values)
    wsgi = (run.conf / "keystone.wsgi").read_text()
    assert "from keystone.wsgi.api import application" in wsgi
    assert "rally_keystone_perf" not in wsgi
    eventlet = modes.get_mode("eventlet").processes[0].argv
    argv = [Template(arg).substitute(values) for arg in eventlet]
    assert argv[argv.index("--app") + 1] == "keystone.wsgi.api:application"
