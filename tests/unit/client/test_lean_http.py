"""Tests for rally_keystone_perf.client.lean_http, over a loopback HTTP server
of the standard library (a transport test needs real sockets)."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from keystoneauth1 import exceptions as ks_exc

from rally_keystone_perf.client import lean_http


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless told otherwise

    def setup(self) -> None:
        super().setup()
        self.server.connections += 1  # type: ignore[attr-defined]

    def log_message(self, *args: Any) -> None:
        return None

    def _answer(self, status: int, body: Any, **headers: str) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/missing":
            self._answer(404, {"error": {"message": "no such thing", "code": 404}})
        elif self.path == "/slow":
            time.sleep(0.5)
            self._answer(200, {})
        elif self.path == "/close":
            self._answer(200, {"closing": True}, Connection="close")
            self.close_connection = True
        elif self.path == "/drop":  # closes without saying so
            self._answer(200, {"dropped": True})
            self.close_connection = True
        elif self.path == "/agent":
            self._answer(200, {"agent": self.headers.get("User-Agent")})
        else:
            seen = {"token": self.headers.get("X-Auth-Token"), "path": self.path}
            self._answer(200, seen, X_Subject_Token="t-1")

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        sent = json.loads(self.rfile.read(length))
        self._answer(201, {"sent": sent, "type": self.headers["Content-Type"]})


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.connections = 0  # type: ignore[attr-defined]
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _url(httpd: ThreadingHTTPServer, path: str) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}{path}"


def test_requests_share_one_kept_alive_connection(server) -> None:
    session = lean_http.LeanSession()
    for n in range(3):
        resp = session.request(
            _url(server, f"/v3/projects?n={n}"), "GET", headers={"X-Auth-Token": "a"}
        )
        assert resp.json() == {"token": "a", "path": f"/v3/projects?n={n}"}
    assert server.connections == 1  # type: ignore[attr-defined]
    assert resp.headers["x-subject-token"] == "t-1"  # any case, as requests reads
    assert resp.status_code == 200


def test_the_user_agent_names_the_run_when_there_is_one(
    server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(lean_http.RUN_NAME_ENV, raising=False)
    plain = lean_http.LeanSession().request(_url(server, "/agent"), "GET")
    monkeypatch.setenv(lean_http.RUN_NAME_ENV, "20261125-120000-external")
    named = lean_http.LeanSession().request(_url(server, "/agent"), "GET")
    assert plain.json() == {"agent": "rally-keystone-perf"}
    assert named.json() == {"agent": "rally-keystone-perf/20261125-120000-external"}


def test_a_json_body_is_sent_as_json(server) -> None:
    resp = lean_http.LeanSession().request(
        _url(server, "/v3/users"), "POST", json={"user": {"name": "u"}}
    )
    assert resp.json() == {"sent": {"user": {"name": "u"}}, "type": "application/json"}


def test_an_error_status_raises_keystoneauths_exception(server) -> None:
    session = lean_http.LeanSession()
    with pytest.raises(ks_exc.NotFound, match="no such thing"):
        session.request(_url(server, "/missing"), "GET")
    kept = session.request(_url(server, "/missing"), "GET", raise_exc=False)
    assert kept.status_code == 404
    assert server.connections == 1  # type: ignore[attr-defined]


def test_a_connection_the_server_closes_is_not_reused(server) -> None:
    session = lean_http.LeanSession()
    assert session.request(_url(server, "/close"), "GET").json() == {"closing": True}
    assert session.request(_url(server, "/drop"), "GET").json() == {"dropped": True}
    time.sleep(0.1)  # the server has closed the dropped connection by now
    assert session.request(_url(server, "/ok"), "GET").status_code == 200
    assert server.connections == 3  # type: ignore[attr-defined]


def test_a_refused_connection_is_a_connect_failure(server) -> None:
    port = server.server_address[1]
    server.shutdown()
    server.server_close()
    with pytest.raises(ks_exc.ConnectFailure):
        lean_http.LeanSession().request(f"http://127.0.0.1:{port}/", "GET")


def test_a_slow_answer_past_the_timeout_is_a_connect_timeout(server) -> None:
    session = lean_http.LeanSession(timeout=0.1)
    with pytest.raises(ks_exc.ConnectTimeout, match="timed out"):
        session.request(_url(server, "/slow"), "GET")


def test_idle_connections_are_kept_up_to_the_pool_size(server) -> None:
    session = lean_http.LeanSession(pool_size=1)
    conns = [session._take(("http", "127.0.0.1", server.server_address[1]))]
    conns.append(session._take(("http", "127.0.0.1", server.server_address[1])))
    for conn in conns:
        session._give_back(("http", "127.0.0.1", server.server_address[1]), conn)
    (kept,) = session._idle[("http", "127.0.0.1", server.server_address[1])]
    assert kept is conns[0] and conns[1].sock.fileno() == -1  # the extra closed
    session.close()
    assert session._idle == {}


def test_the_host_is_looked_up_once_however_many_connects(
    server, monkeypatch: pytest.MonkeyPatch
) -> None:
    lookups = []
    real = lean_http.socket.getaddrinfo

    def counted(*args: Any, **kwargs: Any) -> Any:
        lookups.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(lean_http.socket, "getaddrinfo", counted)
    session = lean_http.LeanSession()
    url = f"http://localhost:{server.server_address[1]}/close"
    for _ in range(3):  # the server closes each: three connects
        assert session.request(url, "GET").json() == {"closing": True}
    assert server.connections == 3  # type: ignore[attr-defined]
    assert lookups == ["localhost"]


@pytest.fixture
def tls_server(tmp_path) -> Iterator[tuple[ThreadingHTTPServer, str]]:
    """The server behind TLS with a self-signed certificate for localhost."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.connections = 0  # type: ignore[attr-defined]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd, str(cert)
    httpd.shutdown()
    httpd.server_close()


def test_https_checks_the_certificate_against_the_url_host(tls_server) -> None:
    httpd, cert = tls_server
    url = f"https://localhost:{httpd.server_address[1]}/tls"
    trusting = lean_http.LeanSession(verify=cert)
    assert trusting.request(url, "GET").json()["path"] == "/tls"
    assert trusting.request(url, "GET").json()["path"] == "/tls"
    assert httpd.connections == 1  # type: ignore[attr-defined]
    with pytest.raises(ks_exc.ConnectFailure, match="CERTIFICATE_VERIFY_FAILED"):
        lean_http.LeanSession().request(url, "GET")  # the system's CAs only
    unverified = lean_http.LeanSession(verify=False)
    assert unverified.request(url, "GET").status_code == 200
