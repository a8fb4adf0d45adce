"""Tests for rally_keystone_perf.client.http_wire: responses written by hand
into one end of a socket pair, parsed from the other."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from rally_keystone_perf.client import http_wire


@pytest.fixture
def pair() -> Iterator[tuple[http_wire.Connection, socket.socket]]:
    """A connection and the server's end of its socket."""
    ours, theirs = socket.socketpair()
    ours.settimeout(5)
    yield http_wire.Connection(ours), theirs
    ours.close()
    theirs.close()


def _exchange(
    pair: tuple[http_wire.Connection, socket.socket],
    answer: bytes,
    method: str = "GET",
    close: bool = False,
) -> http_wire.Response:
    conn, server = pair
    server.sendall(answer)
    if close:
        server.shutdown(socket.SHUT_WR)
    return conn.exchange(b"GET / HTTP/1.1\r\n\r\n", method)


def test_a_content_length_body_and_the_headers(pair) -> None:
    head = b"HTTP/1.1 201 Created\r\nX-Subject-Token: t\r\nContent-Length: 2"
    answer = _exchange(pair, head + b"\r\n\r\n{}")
    assert (answer.status, answer.reason, answer.body) == (201, "Created", b"{}")
    assert answer.headers == [("X-Subject-Token", "t"), ("Content-Length", "2")]
    assert not answer.will_close
    assert pair[1].recv(100) == b"GET / HTTP/1.1\r\n\r\n"  # sent as given


def test_two_responses_on_one_connection(pair) -> None:
    one = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"
    two = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"
    assert _exchange(pair, one).body == b"one"
    assert _exchange(pair, two).body == b"two"


def test_a_response_in_pieces(pair) -> None:
    conn, server = pair
    text = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

    def dribble() -> None:
        for byte in text:
            server.sendall(bytes([byte]))

    thread = threading.Thread(target=dribble)
    thread.start()
    assert conn.exchange(b"GET / HTTP/1.1\r\n\r\n", "GET").body == b"hello"
    thread.join()


def test_a_chunked_body_with_extensions_and_trailers(pair) -> None:
    answer = _exchange(
        pair,
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: yes\r\n\r\n",
    )
    assert answer.body == b"Wikipedia" and not answer.will_close


@pytest.mark.parametrize(
    ("status", "method"), [("204 No Content", "DELETE"), ("200 OK", "HEAD")]
)
def test_no_body_for_head_and_204(pair, status: str, method: str) -> None:
    text = f"HTTP/1.1 {status}\r\nContent-Length: 12\r\n\r\n".encode()
    answer = _exchange(pair, text, method)
    assert answer.body == b"" and not answer.will_close


def test_an_interim_100_is_skipped(pair) -> None:
    answer = _exchange(
        pair,
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
    )
    assert (answer.status, answer.body) == (200, b"x")


@pytest.mark.parametrize(
    ("head", "closes"),
    [
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1", True),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 1", True),
        (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1", False),
    ],
)
def test_when_the_connection_closes(pair, head: bytes, closes: bool) -> None:
    assert _exchange(pair, head + b"\r\n\r\nx").will_close is closes


def test_a_body_up_to_the_close(pair) -> None:
    answer = _exchange(pair, b"HTTP/1.1 200 OK\r\n\r\nall of it", close=True)
    assert answer.body == b"all of it" and answer.will_close


def test_bytes_after_the_response_make_it_unusable(pair) -> None:
    text = b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA"
    assert _exchange(pair, text).will_close


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"", http_wire.CLOSED_WITHOUT_RESPONSE),
        (b"HTTP/1.1 200 OK\r\nContent-Le", http_wire.CLOSED_WITHOUT_RESPONSE),
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.x status line"),
        (b"HTTP/1.1 abc OK\r\n\r\n", "not an HTTP/1.x status line"),
        (b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "without a colon"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "bad Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", "mid-body"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "bad chunk size",
        ),
    ],
)
def test_malformed_or_cut_responses(pair, text: bytes, message: str) -> None:
    with pytest.raises(http_wire.WireError, match=message):
        _exchange(pair, text, close=True)


def test_an_endless_head_is_refused(pair, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_wire, "HEADER_LIMIT", 100)
    with pytest.raises(http_wire.WireError, match="too long"):
        _exchange(pair, b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 50)


def test_the_request_bytes() -> None:
    sent = http_wire.request_bytes(
        "POST", "/v3/auth/tokens", "127.0.0.1:5000", {"A": "b"}, b'{"x": 1}'
    )
    assert sent == (
        b"POST /v3/auth/tokens HTTP/1.1\r\nHost: 127.0.0.1:5000\r\nA: b\r\n"
        b'Content-Length: 8\r\n\r\n{"x": 1}'
    )
    get = http_wire.request_bytes("GET", "/v3", "k", {}, None)
    assert get == b"GET /v3 HTTP/1.1\r\nHost: k\r\n\r\n"
