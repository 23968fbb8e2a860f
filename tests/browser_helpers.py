"""A real headless browser for the tests (Debian's chromium), driven over the Chrome
DevTools Protocol with a small WebSocket client of the standard library's own: no
selenium, no browser download. `Browser()` starts chromium on a port of 127.0.0.1 that
it picks itself, in a profile folder of its own; `open(url)` loads a page and
`evaluate(js)` runs JavaScript in it (a promise is awaited). Every wait is bounded
(TIMEOUT: generous, so a slow machine only waits longer, and nothing is timed)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
from typing import Any

TIMEOUT = 300.0  # seconds any one step may take before the test fails (a guard, not a measure)


def chromium() -> str | None:
    """The chromium on this machine (None: none)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class _Socket:
    """A WebSocket client of one connection: text frames out (masked), frames in."""

    def __init__(self, url: str) -> None:
        found = re.fullmatch(r"ws://([^/:]+):(\d+)(/.*)", url)
        assert found, url
        host, port, path = found.group(1), int(found.group(2)), found.group(3)
        self.sock = socket.create_connection((host, port), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            assert chunk, "the browser closed the connection"
            head += chunk
        assert head.startswith(b"HTTP/1.1 101"), head[:200]
        self.rest = head.split(b"\r\n\r\n", 1)[1]

    def _read(self, n: int) -> bytes:
        while len(self.rest) < n:
            chunk = self.sock.recv(1 << 20)
            assert chunk, "the browser closed the connection"
            self.rest += chunk
        data, self.rest = self.rest[:n], self.rest[n:]
        return data

    def send(self, text: str) -> None:
        data = text.encode()
        head = bytes([0x81])
        if len(data) < 126:
            head += bytes([0x80 | len(data)])
        elif len(data) < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + body)

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            size = second & 0x7F
            if size == 126:
                size = struct.unpack(">H", self._read(2))[0]
            elif size == 127:
                size = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(size)
            opcode = first & 0x0F
            if opcode in (0x9, 0xA):  # ping, pong: not a message
                continue
            assert opcode != 0x8, "the browser closed the connection"
            message += payload
            if first & 0x80:
                return message.decode()

    def close(self) -> None:
        self.sock.close()


class Browser:
    """Headless chromium with one page, driven over the DevTools protocol."""

    def __init__(self) -> None:
        path = chromium()
        assert path is not None
        self.profile = tempfile.mkdtemp(prefix="d20-chromium-")
        self.proc = subprocess.Popen(
            [
                path,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-extensions",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.ws: _Socket | None = None
        try:
            port = self._port()
            self.ws = _Socket(self._page(port))
        except BaseException:
            self.close()
            raise
        self.next_id = 0
        self.errors: list[str] = []
        self.call("Runtime.enable")
        self.call("Page.enable")

    def _port(self) -> int:
        assert self.proc.stderr is not None
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline().decode(errors="replace")
            found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if found:
                return int(found.group(1))
            assert line or self.proc.poll() is None, "chromium ended before it listened"
        raise AssertionError("chromium did not start")

    @staticmethod
    def _page(port: int) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=TIMEOUT) as r:
            targets = json.loads(r.read())
        url: str = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        return url

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command and its result (the page's console errors and uncaught
        exceptions seen meanwhile go to `errors`)."""
        assert self.ws is not None
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.receive())
            if message.get("method") == "Runtime.exceptionThrown":
                self.errors.append(json.dumps(message["params"])[:500])
            if message.get("id") == self.next_id:
                assert "error" not in message, message["error"]
                result: dict[str, Any] = message["result"]
                return result

    def open(self, url: str) -> None:
        """Load `url` and wait for its load event."""
        assert self.ws is not None
        self.call("Page.navigate", url=url)
        while True:
            message = json.loads(self.ws.receive())
            if message.get("method") == "Page.loadEventFired":
                return

    def evaluate(self, js: str) -> Any:
        """The value of the JavaScript expression `js` in the page (a promise awaited);
        AssertionError with the exception's text when it throws."""
        found = self.call(
            "Runtime.evaluate",
            expression=js,
            awaitPromise=True,
            returnByValue=True,
            timeout=TIMEOUT * 1000,
        )
        if "exceptionDetails" in found:
            raise AssertionError(json.dumps(found["exceptionDetails"])[:1000])
        return found["result"].get("value")

    def choose_file(self, selector: str, path: str) -> None:
        """Choose the file at `path` in the page's file input `selector`, as a person
        does (its change event fires)."""
        root = self.call("DOM.getDocument")["root"]["nodeId"]
        node = self.call("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
        self.call("DOM.setFileInputFiles", files=[path], nodeId=node)

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(OSError):
                self.ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)
