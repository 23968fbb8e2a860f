"""A webhook receiver on 127.0.0.1 for the posting tests (d20cli.app.posting): it records
what it is sent, and misbehaves on purpose as a script of behaviours says, one per
request (then `ok` for the rest):

- `ok`: 204, the post is taken (recorded in `taken`);
- `hang`: reads the post and never answers (until the server stops);
- `drip`: answers 200 a byte at a time, one every half second, forever;
- `big`: 200 with a 10 MB answer (the post is taken);
- `redirect`: 301 to itself (a redirect loop);
- `429:S`: rate limited, Retry-After S seconds (`429j:S`: as Discord says it, in JSON);
- `500`, `404`: that status.

Every post read is in `received`; only those answered 2xx are in `taken`: a post the
receiver never answered was not taken, as with a receiver that failed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(self, script: list[str] | None = None) -> None:
        self.script = list(script or [])
        self.received: list[dict[str, Any]] = []
        self.taken: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/api/webhooks/42/s3cr3t-t0ken"

    def next_behaviour(self) -> str:
        with self.lock:
            return self.script.pop(0) if self.script else "ok"

    def wait_for(self, count: int, seconds: float = 10.0) -> None:
        """Until `count` posts were taken (or the time is up)."""
        end = time.monotonic() + seconds
        while len(self.taken) < count and time.monotonic() < end:
            time.sleep(0.02)


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(size) or b"null")
            behaviour = receiver.next_behaviour()
            with receiver.lock:
                receiver.received.append(body)
                receiver.headers.append(dict(self.headers))
                receiver.paths.append(self.path)
            if behaviour == "hang":
                receiver.stop.wait(60)
                return
            if behaviour == "drip":
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                self.wfile.flush()
                while not receiver.stop.is_set():
                    self.wfile.write(b"X")
                    self.wfile.flush()
                    receiver.stop.wait(0.5)
                return
            if behaviour == "redirect":
                self.send_response(301)
                self.send_header("Location", self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if behaviour.startswith("429"):
                wait = behaviour.split(":", 1)[1]
                answer = b""
                self.send_response(429)
                if behaviour.startswith("429j"):
                    answer = json.dumps({"retry_after": float(wait)}).encode()
                    self.send_header("Content-Type", "application/json")
                else:
                    self.send_header("Retry-After", wait)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                return
            if behaviour in ("500", "404"):
                self.send_response(int(behaviour))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with receiver.lock:
                receiver.taken.append(body)
            if behaviour == "big":
                size = 10 * 1024 * 1024
                self.send_response(200)
                self.send_header("Content-Length", str(size))
                self.end_headers()
                chunk = b"x" * 65536
                try:
                    for _ in range(size // len(chunk)):
                        self.wfile.write(chunk)
                except OSError:  # d20 stops reading: the connection is closed
                    pass
                return
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


@contextmanager
def receiver(script: list[str] | None = None, port: int = 0) -> Iterator[Receiver]:
    """A Receiver serving on 127.0.0.1 (`port` 0: any free one) for the `with` block."""
    found = Receiver(script)
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(found))
    server.daemon_threads = True
    found.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        found.stop.set()
        server.shutdown()
        server.server_close()
