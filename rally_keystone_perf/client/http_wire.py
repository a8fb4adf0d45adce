"""HTTP/1.1 on one socket: a request out in one send, a response parsed back.

:mod:`http.client` reads a response line by line through a buffered file
object and hands the headers to :mod:`email`'s parser; on a Locust worker,
where every request is a few waits on gevent's loop, that machinery cost
more CPU than the request itself. :class:`Connection` sends the request line,
headers and body in one ``sendall`` and parses the response out of one
buffer: the status line, the header lines split on their first colon, then
the body by ``Content-Length``, chunked ``Transfer-Encoding`` or, without
either, up to the close (RFC 9112, section 6.3). Responses to HEAD, 1xx,
204 and 304 have no body. Interim 1xx responses are skipped. Anything
malformed raises :class:`WireError`; a timeout raises :class:`TimeoutError`
as the socket does.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

CRLF = b"\r\n"
HEADER_LIMIT = 64 * 1024  # bytes of status line and headers
CHUNK = 64 * 1024  # bytes read per recv
NO_BODY = (204, 304)
# http.client's words (RemoteDisconnected), which keystoneauth's transport
# reports too: the report counts failures with them as closed without an
# answer (report/haproxy_log.py), whichever transport sent the request
CLOSED_WITHOUT_RESPONSE = "Remote end closed connection without response"


class WireError(OSError):
    """The peer closed the connection early or sent no valid HTTP/1.x."""


@dataclass(frozen=True)
class Response:
    """A parsed response; ``will_close``: the connection cannot be reused."""

    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes
    will_close: bool


def request_bytes(
    method: str, target: str, host: str, headers: dict[str, str], body: bytes | None
) -> bytes:
    """The request's line, headers (Host and Content-Length added) and body."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body is not None or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body or b'')}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + (body or b"")


class Connection:
    """One connected socket and what was read past the last response."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = bytearray()

    def close(self) -> None:
        self.sock.close()

    def exchange(self, request: bytes, method: str) -> Response:
        """Send ``request`` and read its response (interim 1xx skipped)."""
        self.sock.sendall(request)
        while True:
            status, reason, headers, version = self._head()
            if not 100 <= status < 200 or status == 101:
                break
        fields = {name.lower(): value for name, value in headers}
        connection = fields.get("connection", "").lower()
        will_close = "close" in connection or (
            version == "HTTP/1.0" and "keep-alive" not in connection
        )
        if method == "HEAD" or status in NO_BODY or 100 <= status < 200:
            body = b""
        elif "chunked" in fields.get("transfer-encoding", "").lower():
            body = self._chunked()
        elif "content-length" in fields:
            body = self._exactly(_length(fields["content-length"]))
        else:
            body, will_close = self._until_close(), True
        # bytes nobody asked for after the response: not reusable
        will_close = will_close or bool(self._buffer)
        return Response(status, reason, headers, body, will_close)

    def _fill(self) -> bool:
        """Read more into the buffer; False when the peer has closed."""
        data = self.sock.recv(CHUNK)
        self._buffer += data
        return bool(data)

    def _line_end(self, marker: bytes, limit: int) -> int:
        """Where ``marker`` starts in the buffer, reading until it is there."""
        start = 0
        while True:
            found = self._buffer.find(marker, start)
            if found >= 0:
                return found
            if len(self._buffer) > limit:
                raise WireError("the response's head is too long")
            start = max(0, len(self._buffer) - len(marker) + 1)
            if not self._fill():
                raise WireError(CLOSED_WITHOUT_RESPONSE)

    def _head(self) -> tuple[int, str, list[tuple[str, str]], str]:
        """Status, reason, headers and HTTP version of the next response."""
        end = self._line_end(CRLF + CRLF, HEADER_LIMIT)
        head = bytes(self._buffer[:end]).decode("latin-1")
        del self._buffer[: end + 4]
        status_line, *lines = head.split("\r\n")
        version, _, rest = status_line.partition(" ")
        code, _, reason = rest.partition(" ")
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise WireError(f"not an HTTP/1.x status line: {status_line[:80]!r}")
        headers = []
        for line in lines:
            name, colon, value = line.partition(":")
            if not colon:
                raise WireError(f"a header line without a colon: {line[:80]!r}")
            headers.append((name.strip(), value.strip()))
        return int(code), reason, headers, version

    def _exactly(self, size: int) -> bytes:
        while len(self._buffer) < size:
            if not self._fill():
                raise WireError("the server closed the connection mid-body")
        body = bytes(self._buffer[:size])
        del self._buffer[:size]
        return body

    def _chunked(self) -> bytes:
        parts = []
        while True:
            end = self._line_end(CRLF, HEADER_LIMIT)
            size_text = bytes(self._buffer[:end]).split(b";", 1)[0].strip()
            del self._buffer[: end + 2]
            try:
                size = int(size_text, 16)
            except ValueError:
                raise WireError(f"a bad chunk size: {size_text[:20]!r}") from None
            if size == 0:
                break
            parts.append(self._exactly(size))
            self._exactly(2)  # the CRLF after the chunk
        while True:  # trailer lines, up to an empty one
            end = self._line_end(CRLF, HEADER_LIMIT)
            del self._buffer[: end + 2]
            if not end:
                return b"".join(parts)

    def _until_close(self) -> bytes:
        while self._fill():
            pass
        body = bytes(self._buffer)
        self._buffer.clear()
        return body


def _length(text: str) -> int:
    if not text.strip().isdigit():
        raise WireError(f"a bad Content-Length: {text[:20]!r}")
    return int(text)
