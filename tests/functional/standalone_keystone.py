"""A Keystone started without the suite's launcher: someone else's cloud.

A minimal keystone.conf (SQLite, fernet, bcrypt's cheapest cost), Keystone's
own ``keystone-manage`` steps and uwsgi serving ``keystone.wsgi.api`` on
loopback with one process of one thread (SQLite then never sees two
writers), the way an operator might start one by hand. Its uwsgi request
log is its access log. ``run --os-cloud`` is tested against it.
"""

from __future__ import annotations

import contextlib
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import requests

from rally_keystone_perf import paths
from rally_keystone_perf.deploy.preflight import pick_port

CONF = """[DEFAULT]
log_file = {folder}/keystone.log
[database]
connection = sqlite:///{folder}/keystone.sqlite
[fernet_tokens]
key_repository = {folder}/fernet-keys
[credential]
key_repository = {folder}/credential-keys
[identity]
password_hash_rounds = 4
"""

LOGFORMAT = (
    '%(addr) - %(user) [%(ltime)] "%(method) %(uri) %(proto)" %(status) %(size) '
    '%(micros) "%(referer)" "%(uagent)"'
)


@dataclass(frozen=True)
class StandaloneKeystone:
    """Where it listens, its admin's password, its uwsgi log."""

    url: str
    password: str
    log: Path
    pid: int  # uwsgi's master: SIGTERM stops it (the target failing)

    def clouds_yaml(self, path: Path, name: str = "standalone") -> Path:
        """A clouds.yaml naming this Keystone's admin as cloud ``name``."""
        path.write_text(
            f"clouds:\n  {name}:\n    auth:\n      auth_url: {self.url}/v3\n"
            f"      username: admin\n      password: {self.password}\n"
            "      project_name: admin\n      user_domain_name: Default\n"
            "      project_domain_name: Default\n    region_name: RegionOne\n"
        )
        return path


def _manage(conf: Path, *args: str) -> None:
    subprocess.run(
        [str(paths.venv_bin("keystone-manage")), "--config-file", str(conf), *args],
        check=True,
        capture_output=True,
    )


@contextlib.contextmanager
def standalone_keystone(folder: Path) -> Iterator[StandaloneKeystone]:
    """Prepare and serve a Keystone in ``folder``; stop it when the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    conf = folder / "keystone.conf"
    conf.write_text(CONF.format(folder=folder))
    password = secrets.token_urlsafe(12)
    _manage(conf, "db_sync")
    _manage(conf, "fernet_setup", "--keystone-user", "root", "--keystone-group", "root")
    _manage(
        conf, "credential_setup", "--keystone-user", "root", "--keystone-group", "root"
    )
    port = pick_port("127.0.0.1", None)
    url = f"http://127.0.0.1:{port}"
    _manage(
        conf,
        "bootstrap",
        "--bootstrap-password",
        password,
        "--bootstrap-public-url",
        f"{url}/v3",
        "--bootstrap-region-id",
        "RegionOne",
    )
    log = folder / "uwsgi.log"
    server = subprocess.Popen(
        [
            str(paths.venv_bin("uwsgi")),
            "--http-socket",
            f"127.0.0.1:{port}",
            "--module",
            "keystone.wsgi.api:application",
            "--home",
            sys.prefix,
            "--env",
            f"OS_KEYSTONE_CONFIG_FILES={conf}",
            "--master",
            "--processes",
            "1",
            "--threads",
            "1",
            # uwsgi's --http-socket closes every connection: say so, or
            # clients pool them and meet a closed one
            "--add-header",
            "Connection: close",
            # its access log as kolla-ansible's Keystone writes it (Apache's
            # combined format with the time taken, %D, before the referer)
            "--logformat",
            LOGFORMAT,
            "--need-app",
            "--die-on-term",
            "--logto",
            str(log),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait(url, server, log)
        yield StandaloneKeystone(url, password, log, server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"uwsgi exited: {log.read_text()[-2000:]}")
        with contextlib.suppress(requests.RequestException):
            if requests.get(f"{url}/v3", timeout=2).status_code == 200:
                return
        time.sleep(0.3)
    raise RuntimeError(f"Keystone did not answer in 60 s: {log.read_text()[-2000:]}")
