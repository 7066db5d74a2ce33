"""A fault-injecting HTTP proxy between S3A and the local S3 server, on 127.0.0.1.

Object stores throttle (503 SlowDown), answer late, reset connections in the middle of a response,
fail a page of a listing, and complete a request whose response never arrives. This proxy does
each of these to the requests a rule matches, by method, path and query, a number of times or
with a probability drawn from a seeded generator, and records every request it saw and what it did.

    proxy = FaultyS3.start(server.endpoint, seed=7)   # server: s3server.S3Server
    conf = dict(server.hadoop_conf(), **{"fs.s3a.endpoint": proxy.endpoint})
    proxy.add(Rule("lose_response", method="PUT", path=r".*/_delta_log/\\d+\\.json", times=1))
    ...
    proxy.events            # [Event(method, path, query, fault, status, at)], in arrival order
    proxy.stop()

Faults:
  throttle       503 SlowDown, not forwarded (S3A backs off and retries)
  server_error   500 InternalError, not forwarded
  delay          forwarded `seconds` late (longer than S3A's request timeout: a timeout)
  reset          forwarded; the response's headers and half its body are sent, then the connection is reset
  lose_response  forwarded and completed upstream; the connection is reset before any of the response
                 is sent (the client cannot tell whether its request took effect)
  refuse         the connection is reset before the request is forwarded
"""
from __future__ import annotations

import random
import re
import socket
import socketserver
import struct
import threading
import time
from dataclasses import dataclass
from typing import List, Optional, Tuple
from urllib.parse import urlsplit

FAULTS = ("throttle", "server_error", "delay", "reset", "lose_response", "refuse")


@dataclass
class Rule:
    """Which requests get `fault`: those whose method, path and query match (None: any), at most
    `times` of them (None: no limit), each with `probability`."""
    fault: str
    method: Optional[str] = None
    path: Optional[str] = None
    query: Optional[str] = None
    times: Optional[int] = None
    probability: float = 1.0
    seconds: float = 0.0
    applied: int = 0

    def __post_init__(self):
        if self.fault not in FAULTS:
            raise ValueError(f"unknown fault {self.fault!r}, expected one of {FAULTS}")

    def matches(self, method: str, path: str, query: str) -> bool:
        return ((self.method is None or self.method == method)
                and (self.path is None or re.fullmatch(self.path, path) is not None)
                and (self.query is None or re.search(self.query, query) is not None)
                and (self.times is None or self.applied < self.times))


@dataclass
class Event:
    """One request the proxy saw: what it was, the fault done to it (None: forwarded as it was),
    the status the client got (None: none), and when it arrived (monotonic seconds)."""
    method: str
    path: str
    query: str
    fault: Optional[str]
    status: Optional[int]
    at: float


class _Closed(Exception):
    """The peer closed its connection between messages."""


def _read_head(f) -> bytes:
    lines = []
    while True:
        line = f.readline(65537)
        if not line:
            if lines:
                raise ConnectionError("connection closed in the middle of a message's head")
            raise _Closed()
        lines.append(line)
        if line in (b"\r\n", b"\n"):
            return b"".join(lines)


def _headers(head: bytes) -> dict:
    out = {}
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            k, v = line.split(b":", 1)
            out[k.strip().lower().decode()] = v.strip().decode()
    return out


def _read_body(f, headers: dict, until_close: bool) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        parts = []
        while True:
            size_line = f.readline(65537)
            parts.append(size_line)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:  # trailers, up to the empty line
                    trailer = f.readline(65537)
                    parts.append(trailer)
                    if trailer in (b"\r\n", b"\n", b""):
                        return b"".join(parts)
            parts.append(f.read(size + 2))
    if "content-length" in headers:
        return f.read(int(headers["content-length"]))
    return f.read() if until_close else b""


def _error_response(status: int, code: str, message: str) -> bytes:
    body = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code><Message>{message}</Message>'
            f"<RequestId>faulty-s3</RequestId></Error>").encode()
    reason = {500: "Internal Server Error", 503: "Slow Down"}[status]
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/xml\r\nContent-Length: {len(body)}\r\n"
            f"x-amz-request-id: faulty-s3\r\n\r\n").encode() + body


def _reset(sock: socket.socket, reader) -> None:
    """Closes with a TCP reset (SO_LINGER 0), as a dropped connection looks to the client (the
    reader made of the socket first: the socket is not closed while a file made of it is open)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        reader.close()
        sock.close()
    except OSError:
        pass


class FaultyS3:
    """The proxy: a thread per client connection, each with its own connection to the server."""

    def __init__(self, upstream: str, seed: int):
        parts = urlsplit(upstream)
        self.upstream: Tuple[str, int] = (parts.hostname, parts.port)
        self.random = random.Random(seed)
        self.rules: List[Rule] = []
        self.events: List[Event] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                proxy._serve(self.request)

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @classmethod
    def start(cls, upstream: str, seed: int = 0) -> "FaultyS3":
        proxy = cls(upstream, seed)
        proxy.thread.start()
        return proxy

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def add(self, *rules: Rule) -> None:
        with self.lock:
            self.rules.extend(rules)

    def clear(self) -> None:
        """No rules, no events."""
        with self.lock:
            self.rules.clear()
            self.events.clear()

    def faults(self) -> dict:
        """How many requests got each fault."""
        with self.lock:
            out: dict = {}
            for e in self.events:
                if e.fault:
                    out[e.fault] = out.get(e.fault, 0) + 1
            return out

    def _choose(self, method: str, path: str, query: str) -> Optional[Rule]:
        with self.lock:
            for rule in self.rules:
                if rule.matches(method, path, query) and self.random.random() < rule.probability:
                    rule.applied += 1
                    return rule
        return None

    def _record(self, method, path, query, fault, status, at) -> None:
        with self.lock:
            self.events.append(Event(method, path, query, fault, status, at))

    def _serve(self, client: socket.socket) -> None:
        upstream = None
        reader = client.makefile("rb")
        try:
            while True:
                try:
                    head = _read_head(reader)
                except _Closed:
                    return
                at = time.monotonic()
                request_line = head.split(b"\r\n", 1)[0].decode()
                method, target = request_line.split(" ")[:2]
                path, _, query = target.partition("?")
                headers = _headers(head)
                if headers.get("expect", "").lower() == "100-continue":
                    # answered here, so that the body is read before anything goes upstream
                    client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                    head = re.sub(rb"(?im)^expect:[^\r\n]*\r\n", b"", head)
                body = _read_body(reader, headers, until_close=False)
                rule = self._choose(method, path, query)
                fault = rule.fault if rule else None
                if fault == "refuse":
                    self._record(method, path, query, fault, None, at)
                    _reset(client, reader)
                    return
                if fault in ("throttle", "server_error"):
                    status = 503 if fault == "throttle" else 500
                    client.sendall(_error_response(status, "SlowDown" if status == 503 else "InternalError",
                                                   "injected by the tests' faulty S3 proxy"))
                    self._record(method, path, query, fault, status, at)
                    continue
                if fault == "delay":
                    time.sleep(rule.seconds)
                if upstream is None:
                    upstream = socket.create_connection(self.upstream, timeout=120)
                    upstream_reader = upstream.makefile("rb")
                upstream.sendall(head + body)
                response_head = _read_head(upstream_reader)
                status = int(response_head.split(b" ", 2)[1])
                response_headers = _headers(response_head)
                no_body = method == "HEAD" or status in (204, 304) or 100 <= status < 200
                response_body = b"" if no_body else _read_body(
                    upstream_reader, response_headers, until_close="close" in response_headers.get("connection", ""))
                if fault == "lose_response":
                    self._record(method, path, query, fault, None, at)
                    _reset(client, reader)
                    return
                if fault == "reset":
                    client.sendall(response_head + response_body[: len(response_body) // 2])
                    self._record(method, path, query, fault, None, at)
                    _reset(client, reader)
                    return
                client.sendall(response_head + response_body)
                self._record(method, path, query, fault, status, at)
                if "close" in response_headers.get("connection", "").lower():
                    return
        except (ConnectionError, OSError):
            return
        finally:
            if upstream is not None:
                upstream.close()
            try:
                client.close()
            except OSError:
                pass
