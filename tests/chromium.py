"""Headless Chromium driven over the DevTools protocol on a pipe: standard library only, no driver download.

Chromium started with `--remote-debugging-pipe` reads protocol messages (JSON, each ended by a NUL byte)
on file descriptor 3 and writes its own on descriptor 4, so no websocket client, no port and no selenium
are needed. Used by the inspector's browser test and by `scripts/inspector-screenshot`.

    with Chromium.launch() as browser:
        page = browser.open(Path("page.html"))
        page.evaluate("document.title")
        page.screenshot()            # PNG bytes
        page.console_errors          # console errors, exceptions, CSP violations, failed loads
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome-stable", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--no-default-browser-check",
         "--remote-debugging-pipe")


class BrowserUnavailable(RuntimeError):
    """No Chromium here, or it would not start: the browser test skips with this message."""


def find_chromium() -> str | None:
    """$EVIDENCEPACK_CHROMIUM, else the first Chromium-family binary on PATH."""
    env = os.environ.get("EVIDENCEPACK_CHROMIUM")
    if env:
        return env if os.access(env, os.X_OK) else None
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class Page:
    browser: Chromium
    session: str
    console_errors: list[str] = field(default_factory=list)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.send(method, session=self.session, **params)

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression evaluated in the page (DevTools is not bound by the
        page's Content-Security-Policy, so this works on a page that forbids scripts)."""
        out = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in out:
            raise RuntimeError(f"evaluation failed: {out['exceptionDetails']}")
        return out["result"].get("value")

    def resize(self, width: int, height: int = 900) -> None:
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def screenshot(self, width: int = 1100) -> bytes:
        """The whole page at `width` CSS pixels, as PNG."""
        self.resize(width)
        height = int(self.evaluate("Math.ceil(document.documentElement.scrollHeight)"))
        self.resize(width, height)
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        return base64.b64decode(data)


class Chromium:
    """One headless browser process (and its own throwaway profile)."""

    def __init__(self, binary: str, timeout: float = 30.0) -> None:
        self.binary, self.timeout = binary, timeout
        self.profile = tempfile.mkdtemp(prefix="evidencepack-chromium-")
        self.log = Path(self.profile) / "chromium.log"
        self._next = 0
        self._buffer = b""
        self._events: list[dict[str, Any]] = []
        self._pages: dict[str, Page] = {}
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # Move the child's ends above 10 first, so placing them on 3 and 4 cannot clobber one another.
        cmd_fd = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 10)
        out_fd = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 10)
        log_fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        log_hi = fcntl.fcntl(log_fd, fcntl.F_DUPFD_CLOEXEC, 10)
        try:
            self.pid = os.posix_spawn(
                binary, [binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"], dict(os.environ),
                file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                              (os.POSIX_SPAWN_DUP2, log_hi, 1), (os.POSIX_SPAWN_DUP2, log_hi, 2),
                              (os.POSIX_SPAWN_DUP2, cmd_fd, 3), (os.POSIX_SPAWN_DUP2, out_fd, 4)],
                setpgroup=0)
        except OSError as err:
            shutil.rmtree(self.profile, ignore_errors=True)
            raise BrowserUnavailable(f"could not start {binary}: {err}") from None
        finally:
            for fd in (to_child_r, from_child_w, cmd_fd, out_fd, log_fd, log_hi):
                os.close(fd)

    @classmethod
    def launch(cls, timeout: float = 30.0) -> Chromium:
        binary = find_chromium()
        if binary is None:
            raise BrowserUnavailable("Chromium not found: run ./scripts/install-browser (Debian/Ubuntu: apt-get "
                                     "install chromium) or set EVIDENCEPACK_CHROMIUM to a Chromium binary")
        browser = cls(binary, timeout)
        try:
            browser.send("Browser.getVersion")
        except (RuntimeError, OSError) as err:
            tail = browser.log.read_text(errors="replace")[-600:] if browser.log.exists() else ""
            browser.close()
            raise BrowserUnavailable(f"{binary} did not answer on the DevTools pipe ({err}); log: {tail}") from None
        return browser

    # -- protocol -----------------------------------------------------------------------------------

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise RuntimeError(f"no reply from Chromium within {self.timeout:.0f} s")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _event(self, msg: dict[str, Any]) -> None:
        self._events.append(msg)
        page = self._pages.get(msg.get("sessionId", ""))
        if page is None:
            return
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            page.console_errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                                for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            page.console_errors.append(str(params.get("exceptionDetails", {}).get("text")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            page.console_errors.append(str(params["entry"].get("text")))

    def wait_for(self, method: str, session: str) -> None:
        for msg in self._events:
            if msg.get("method") == method and msg.get("sessionId") == session:
                return
        while True:
            msg = self._read()
            self._event(msg)
            if msg.get("method") == method and msg.get("sessionId") == session:
                return

    # -- pages --------------------------------------------------------------------------------------

    def open(self, path: Path, width: int = 1100) -> Page:
        """Load a local file in a new tab and wait for its load event; console capture starts before."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(self, session)
        self._pages[session] = page
        for domain in ("Page", "Runtime", "Log"):
            page.send(f"{domain}.enable")
        page.resize(width)
        self._events.clear()
        page.send("Page.navigate", url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired", session)
        return page

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.send("Browser.close")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.killpg(self.pid, signal.SIGKILL)  # our own process group, started above
            os.waitpid(self.pid, 0)
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
