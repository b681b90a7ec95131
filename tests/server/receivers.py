"""Real receivers of the notifications on loopback: a webhook endpoint and an SMTP server.

:class:`WebhookReceiver` is a small threaded HTTP server that keeps every JSON body
POSTed to it (and answers each with the status ``status``, changeable mid-test);
:class:`SmtpSink` is aiosmtpd's real SMTP server, keeping every message it accepts.
"""

from __future__ import annotations

import email
import email.policy
import http.server
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.asgi_server import free_port


def wait_for(check: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    """Poll ``check`` until it holds (generous: a loaded machine is slow); else fail."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@dataclass
class Posted:
    """One request the webhook receiver got."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class WebhookReceiver:
    """An HTTP server on 127.0.0.1 that records POSTed JSON (``with WebhookReceiver() as r``)."""

    def __init__(self) -> None:
        self.posted: list[Posted] = []
        self.status = 204
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                with receiver.lock:
                    receiver.posted.append(
                        Posted(self.path, dict(self.headers.items()), json.loads(raw))
                    )
                    status = receiver.status
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str = "/hook") -> str:
        """A webhook URL of this receiver."""
        return f"http://127.0.0.1:{self.port}{path}"

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies received so far."""
        with self.lock:
            return [p.body for p in self.posted]

    def __enter__(self) -> WebhookReceiver:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class _Keep:
    messages: list[tuple[Envelope, EmailMessage]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        del server, session
        content = envelope.content
        raw = content if isinstance(content, bytes) else str(content).encode()
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        with self.lock:
            self.messages.append((envelope, parsed))
        return "250 Message accepted for delivery"


class SmtpSink:
    """aiosmtpd's SMTP server on 127.0.0.1 (``with SmtpSink() as smtp``); keeps each message."""

    def __init__(self) -> None:
        self._keep = _Keep()
        # aiosmtpd checks its start by connecting to the port it was given: not 0.
        self.port = free_port()
        self.controller = Controller(self._keep, hostname="127.0.0.1", port=self.port)

    def messages(self) -> list[tuple[Envelope, EmailMessage]]:
        """The messages accepted so far: (envelope, parsed message)."""
        with self._keep.lock:
            return list(self._keep.messages)

    def __enter__(self) -> SmtpSink:
        self.controller.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.controller.stop()
