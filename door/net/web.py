"""The web front door: the page (a terminal in the browser) over HTTP, sessions over WebSocket.

One aiohttp server per process, on ``[server] web_port``:

* ``GET /`` and the files beside it: the page shipped in ``door/web/static/`` (read with
  :mod:`importlib.resources`), with an ETag and ``Cache-Control: no-cache`` (revalidated on
  every load, so an upgrade is seen at once, and answered 304 when unchanged).
* ``GET /name.json``: ``{"name": …}``, the server's name for the page's title (the page
  runs no inline script, so nothing is substituted into the HTML).
* ``GET /games/N.FMT``: a game's record (``.mat``, ``.sgf``, ``.txt``, ``.json``) from
  the ``records`` callback the App gives (door/net knows nothing of games); 404, always
  the same body, for anything missing or refused.
* ``GET /ws``: the WebSocket. Without a subprotocol it speaks the page's own framing:

  - client → server: binary messages are keys, the raw bytes a terminal sends (UTF-8);
    text messages are JSON control objects: ``{"type": "hello", "cols": 80, "rows": 24,
    "term": "xterm-256color"}`` first, ``{"type": "resize", "cols": C, "rows": R}`` on
    every resize (other types are ignored, for later pages).
  - server → client: binary messages are the terminal's output (UTF-8, ANSI); a text
    message ``{"type": "bye", "reason": "…"}`` comes before the server closes.

  With subprotocol ``binary`` or ``plain`` (the fTelnet/HTML5 convention, which BBS web
  clients speak) it carries a raw telnet stream instead: ``binary`` in binary messages,
  ``plain`` in text messages whose characters are the bytes (U+0000…U+00FF, as fTelnet
  builds them with ``String.fromCharCode``). That stream goes through door's own telnet
  protocol (:class:`door.net.telnet.DoorTelnetServer`, telnetlib3) over an in-memory
  transport, so negotiation (NAWS, TTYPE, BINARY, ECHO/SGA), the CP437/UTF-8 decision,
  the input slicing and the limits are the very ones telnet callers get.

Every connection passes the same :class:`~door.net.limits.ConnectionLimiter` and
:class:`~door.net.limits.LoginGuard` as the other transports (by the socket's address:
``X-Forwarded-For`` is never believed), a browser's ``Origin`` must be the page's own or a
configured one (403 before the upgrade otherwise), every HTTP answer carries the security
headers (:data:`SECURITY_HEADERS`), and WebSocket pings reap dead sockets. With a
certificate and key it serves HTTPS/WSS; :meth:`WebServer.reload_tls` loads them again
into the same context (SIGHUP), so new connections get the new certificate and live ones
go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import mimetypes
import re
import ssl
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from door.net import detect
from door.net.base import BaseTerminal, ConnectionSettings, describe_peer, run_terminal_session
from door.net.limits import Admission, ConnectionLimiter, LoginGuard
from door.net.telnet import TelnetSettings, telnet_protocol_factory
from door.ui.terminal import Caps, Encoding, Resize

log = logging.getLogger(__name__)

WebHandler = Callable[[Any], Awaitable[None]]
"""What runs a connected terminal (a :class:`WebTerminal`, or a telnet one for ``binary``
/ ``plain``): the App's login and session."""
RecordSource = Callable[[int, str], Awaitable[tuple[str, bytes] | None]]
Unsubscribe = Callable[[str], Awaitable[bool]]
"""The one-step unsubscribe of notices outside door: a token → whether it was known."""
UNSUBSCRIBE_ASK = (
    "<!doctype html><meta charset=utf-8><title>Stop notices</title>"
    "<p>Stop every notice door sends you (e-mail and push)?</p>"
    '<form method=post><button type=submit>Stop them</button></form>'
)
UNSUBSCRIBE_DONE = (
    "<!doctype html><meta charset=utf-8><title>Notices stopped</title>"
    "<p>Done: door sends you no more notices. To have some again, call in to door: "
    "Y)our settings &rarr; Notices.</p>"
)
"""``(game id, format)`` → ``(file name, bytes)``, or ``None`` when there is no such record
for an anonymous caller (missing, hidden, wrong format)."""

SECURITY_HEADERS = {
    # Scripts only from door's own files, never inline. Styles may be inline: xterm.js
    # writes its colours and cell sizes as <style> elements and has no nonce option, so
    # without it the terminal loses its colours and font (style cannot run code).
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "connect-src 'self' ws: wss:; frame-ancestors 'none'; object-src 'none'; "
        "base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""On every HTTP answer (the page, its files, errors, the WebSocket upgrade)."""

TELNET_PROTOCOLS = ("binary", "plain")
"""WebSocket subprotocols that carry a raw telnet stream (fTelnet's names)."""

MIN_COLS, MAX_COLS = 20, 500
MIN_ROWS, MAX_ROWS = 10, 300
"""What a hello or resize may say; anything else is garbage and ends the connection.
(Sizes above what the screens lay out, detect.MAX_WIDTH × MAX_HEIGHT, are capped there.)"""

MAX_CONTROL = 1024
"""Longest JSON control message (characters): a hello is under a hundred."""
HELLO_TIMEOUT = 10.0
"""Seconds the page has to say hello after the upgrade."""
HEARTBEAT = 30.0
"""Seconds between WebSocket pings; a socket that has not answered half that later is closed."""
HIGH_WATER = 64 * 1024
LOW_WATER = 16 * 1024
"""Telnet over WebSocket: output bytes queued before the telnet writer is paused, and
resumed (its drain() waits meanwhile), as a socket transport's write buffer does."""
FRAME = 64 * 1024
"""Largest message sent (longer output goes out as several)."""
CLOSE_WAIT = 5.0
"""Seconds a closing connection may take to flush its last output and say bye."""

NOT_FOUND = "Not found.\n"
INDEX = "index.html"
_RECORD_TYPES = {
    "mat": "text/plain; charset=utf-8",
    "sgf": "application/x-go-sgf; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
    "json": "application/json; charset=utf-8",
}
_BYES = {
    "idle": "Idle too long. Goodbye.",
    "shutdown": "The server is shutting down for a moment.",
    "time": "Your time on the BBS is up.",
    "stalled": "The connection stopped taking output.",
    "output overflow": "The connection stopped taking output.",
}
"""The bye for a session the server ended, by the hang-up's reason."""
_TERM_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


@dataclass(frozen=True)
class WebSettings:
    """A web listener's knobs: the shared ones, telnet's negotiation wait (for ``binary``
    / ``plain``), the server's name for the page, the origins allowed besides the page's
    own (``"*"``: any), and the TLS certificate and key (PEM files; both or neither)."""

    connection: ConnectionSettings
    negotiation_wait: float
    server_name: str = "door"
    origins: tuple[str, ...] = ()
    tls_cert: Path | None = None
    tls_key: Path | None = None
    hello_timeout: float = HELLO_TIMEOUT
    heartbeat: float = HEARTBEAT


class BadControl(ValueError):
    """A control message from the page that is not one (the connection ends with it)."""


@dataclass(frozen=True)
class Hello:
    """The page's first message: its terminal's size and type."""

    cols: int
    rows: int
    term: str
    time_zone: str | None = None
    """The browser's zone (``Intl``), as ``detect.zone_hint`` takes it (None: none)."""


def parse_control(text: str, *, first: bool) -> Hello | Resize | None:
    """A text message of the page's framing: the :class:`Hello` (``first``), a
    :class:`Resize`, or ``None`` for a control message of a type this server ignores.

    Raises :class:`BadControl` (with the reason to tell the page) for anything else.
    """
    if len(text) > MAX_CONTROL:
        raise BadControl("control message too long")
    try:
        control = json.loads(text)
    except ValueError:
        raise BadControl("control message is not JSON") from None
    if not isinstance(control, dict) or not isinstance(control.get("type"), str):
        raise BadControl("control message without a type")
    kind = control["type"]
    if first and kind != "hello":
        raise BadControl("the first message must be a hello")
    if kind not in ("hello", "resize"):
        return None
    cols, rows = _size(control)
    if kind == "resize":
        return Resize(cols, rows)
    term = control.get("term", "xterm-256color")
    if not isinstance(term, str) or not _TERM_RE.fullmatch(term):
        raise BadControl("hello with a bad term")
    return Hello(cols, rows, term.lower(), detect.zone_hint(control.get("tz")))


def _size(control: dict[str, Any]) -> tuple[int, int]:
    cols, rows = control.get("cols"), control.get("rows")
    for value, low, high in ((cols, MIN_COLS, MAX_COLS), (rows, MIN_ROWS, MAX_ROWS)):
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise BadControl(
                f"size must be {MIN_COLS}..{MAX_COLS} columns and {MIN_ROWS}..{MAX_ROWS} rows"
            )
    assert isinstance(cols, int) and isinstance(rows, int)
    return min(cols, detect.MAX_WIDTH), min(max(rows, detect.MIN_HEIGHT), detect.MAX_HEIGHT)


class Outbox:
    """Output for one WebSocket, sent in order by one task.

    A terminal's writes are synchronous and aiohttp's sends are coroutines: writes queue
    here and :meth:`_pump` sends them (at most :data:`FRAME` bytes a message), as text
    with one character per byte (``plain``) or binary. :meth:`close` sends what is queued,
    then the bye (page framing), then closes the socket.
    """

    def __init__(
        self,
        ws: web.WebSocketResponse,
        socket: asyncio.BaseTransport | None,
        *,
        text: bool = False,
        on_drained: Callable[[], None] | None = None,
    ) -> None:
        self._ws = ws
        self._socket = socket
        self._text = text
        self._on_drained = on_drained
        self._queue: deque[bytes] = deque()
        self.size = 0
        """Bytes written and not yet handed to the socket."""
        self.broken = False
        self._bye: str | None = None
        self._closing = False
        self._wake = asyncio.Event()
        self._empty = asyncio.Event()
        self._empty.set()
        self._task = asyncio.ensure_future(self._pump())

    @property
    def closing(self) -> bool:
        return self._closing

    def write(self, data: bytes) -> None:
        if self.broken or self._closing:
            raise ConnectionResetError("the WebSocket is closed")
        if not data:
            return
        self._queue.append(data)
        self.size += len(data)
        self._empty.clear()
        self._wake.set()

    async def drain(self) -> None:
        """Wait until everything written has been handed to the socket."""
        await self._empty.wait()
        if self.broken:
            raise ConnectionResetError("the WebSocket is closed")

    def backlog(self) -> int:
        """Bytes not yet accepted by the far end: queued here, and in the socket's buffer."""
        socket = self._socket
        pending = socket.get_write_buffer_size() if isinstance(socket, asyncio.Transport) else 0
        return self.size + int(pending)

    def close(self, bye: str | None = None) -> None:
        """Send what is queued, then ``bye`` (if given: the page's framing), then close."""
        if self._closing:
            return
        self._closing = True
        self._bye = bye
        self._wake.set()

    def abort(self) -> None:
        """Drop the connection now (the far end stopped reading)."""
        self._closing = True
        self.broken = True
        self._task.cancel()
        if isinstance(self._socket, asyncio.Transport):
            self._socket.abort()

    async def wait_closed(self, timeout: float = CLOSE_WAIT) -> None:
        """Wait for the pump to finish (the socket closed); abort after ``timeout``."""
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        if not done:
            self.abort()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _pump(self) -> None:
        ws = self._ws
        try:
            while True:
                if not self._queue:
                    self._empty.set()
                    if self._closing:
                        break
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                data = b"".join(self._queue)
                self._queue.clear()
                for start in range(0, len(data), FRAME):
                    part = data[start : start + FRAME]
                    if self._text:
                        await ws.send_str(part.decode("latin-1"))
                    else:
                        await ws.send_bytes(part)
                self.size -= len(data)
                if self._on_drained is not None and self.size <= LOW_WATER:
                    self._on_drained()
            if self._bye is not None:
                await ws.send_str(json.dumps({"type": "bye", "reason": self._bye}))
        except (ConnectionError, RuntimeError, OSError):
            self.broken = True
        finally:
            self._queue.clear()
            self.size = 0
            self._empty.set()
            if self._on_drained is not None:
                self._on_drained()
            with contextlib.suppress(Exception):
                await ws.close()


class WebTerminal(BaseTerminal):
    """A :class:`~door.ui.terminal.Terminal` over the page's WebSocket framing.

    UTF-8 and xterm-like from the start (the page runs xterm.js and says its size and
    type in the hello), so there is nothing to detect. ``bye`` is the reason the page is
    given when the connection closes.
    """

    def __init__(
        self,
        ws: web.WebSocketResponse,
        outbox: Outbox,
        hello: Hello,
        *,
        peer: str,
        address: str,
        settings: ConnectionSettings,
    ) -> None:
        super().__init__(
            caps=Caps(
                encoding="utf-8",
                colors=16,
                width=hello.cols,
                height=hello.rows,
                term=hello.term,
                transport="web",
                mouse=True,  # the page's xterm.js reports clicks whatever TERM it names
                time_zone=hello.time_zone,
            ),
            peer=peer,
            settings=settings,
        )
        self.address = address
        self.bye = "Goodbye."
        self._ws = ws
        self._outbox = outbox

    def set_encoding(self, encoding: Encoding) -> None:
        """The page decodes UTF-8 only: a player's remembered CP437 (chosen on a BBS
        terminal) must not garble the browser, so the encoding stays UTF-8."""
        if encoding != "utf-8":
            log.debug("web terminal %s keeps UTF-8 (asked for %s)", self.peer, encoding)

    async def _receive(self) -> bytes | Resize | None:
        while True:
            msg = await self._ws.receive()
            if msg.type is WSMsgType.BINARY:
                if msg.data:
                    return bytes(msg.data)
                continue
            if msg.type is WSMsgType.TEXT:
                try:
                    control = parse_control(str(msg.data), first=False)
                except BadControl as exc:
                    log.info("web connection from %s sent garbage: %s", self.peer, exc)
                    self.bye = f"Bad message from the page: {exc}."
                    return None
                if control is None:
                    continue
                if isinstance(control, Hello):
                    return Resize(control.cols, control.rows)
                return control
            if msg.type is WSMsgType.ERROR:
                log.info("web connection from %s: %s", self.peer, msg.data)
            return None  # closed, closing, or an error (too big, protocol)

    def _send(self, data: bytes) -> None:
        self._outbox.write(data)

    async def _drain(self) -> None:
        await self._outbox.drain()

    def _disconnect(self) -> None:
        reason = self._hangup_reason
        if self.bye == "Goodbye." and reason in _BYES:
            self.bye = _BYES[reason]
        self._outbox.close(self.bye)

    def _abort(self) -> None:
        self._outbox.abort()

    def _output_backlog(self) -> int:
        return self._outbox.backlog()

    def drop(self, message: str) -> None:
        """The limiter ends this connection (login deadline, eviction, blocked address)."""
        self.bye = message
        with contextlib.suppress(Exception):
            self.write("\r\n" + message + "\r\n")
            self._flush()
        self._outbox.close(message)
        self.hangup_soon("dropped")


class SocketlessTransport(asyncio.Transport):
    """An asyncio transport whose bytes travel in WebSocket messages, for telnetlib3.

    Writes go to an :class:`Outbox` (the protocol is paused above :data:`HIGH_WATER`
    queued bytes and resumed below :data:`LOW_WATER`, as a socket's transport does);
    ``pause_reading`` holds the WebSocket reader (:meth:`readable`); ``close`` flushes and
    closes the WebSocket and tells the protocol, once, that the connection is lost.
    """

    def __init__(
        self,
        ws: web.WebSocketResponse,
        socket: asyncio.BaseTransport | None,
        *,
        text: bool,
    ) -> None:
        extra = {
            name: socket.get_extra_info(name) if socket is not None else None
            for name in ("peername", "sockname", "ssl_object")
        }
        super().__init__(extra)
        self._protocol: asyncio.Protocol | None = None
        self._writing_paused = False
        self._reading = asyncio.Event()
        self._reading.set()
        self._closing = False
        self._lost = False
        self.outbox = Outbox(ws, socket, text=text, on_drained=self._drained)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        assert isinstance(protocol, asyncio.Protocol)
        self._protocol = protocol

    def get_protocol(self) -> asyncio.BaseProtocol:
        assert self._protocol is not None
        return self._protocol

    def is_closing(self) -> bool:
        return self._closing

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing:
            return
        self.outbox.write(bytes(data))
        if not self._writing_paused and self.outbox.size > HIGH_WATER:
            self._writing_paused = True
            if self._protocol is not None:
                self._protocol.pause_writing()

    def _drained(self) -> None:
        if self._writing_paused and (self.outbox.size <= LOW_WATER or self.outbox.broken):
            self._writing_paused = False
            if self._protocol is not None:
                self._protocol.resume_writing()

    def get_write_buffer_size(self) -> int:
        return self.outbox.backlog()

    def can_write_eof(self) -> bool:
        return False

    def write_eof(self) -> None:
        raise NotImplementedError("a WebSocket has no half-close")

    def pause_reading(self) -> None:
        self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def is_reading(self) -> bool:
        return self._reading.is_set()

    async def readable(self) -> None:
        """Wait while the protocol has paused reading."""
        await self._reading.wait()

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        self._reading.set()
        self.outbox.close()
        self._drained()  # a paused writer's drain() must not wait for ever
        asyncio.get_running_loop().call_soon(self._connection_lost)

    def abort(self) -> None:
        self._closing = True
        self.outbox.abort()
        self._connection_lost()

    def _connection_lost(self) -> None:
        if self._lost or self._protocol is None:
            return
        self._lost = True
        with contextlib.suppress(Exception):
            self._protocol.connection_lost(None)


class WebServer:
    """The running web listener: its port, URL and TLS context; ``close()`` then
    ``wait_closed()`` (as an asyncio server's)."""

    def __init__(
        self,
        runner: web.AppRunner,
        site: web.TCPSite,
        ssl_context: ssl.SSLContext | None,
        settings: WebSettings,
    ) -> None:
        self._runner = runner
        self._site = site
        self.ssl_context = ssl_context
        self._settings = settings
        self._stop: asyncio.Future[None] | None = None
        self._cleanup: asyncio.Future[None] | None = None

    @property
    def port(self) -> int:
        return int(self._site.port)

    @property
    def scheme(self) -> str:
        return "https" if self.ssl_context is not None else "http"

    def url(self, host: str) -> str:
        """The page's address for people (see :func:`page_url`)."""
        return page_url(host, self.port, tls=self.ssl_context is not None)

    def reload_tls(self) -> bool:
        """Load the certificate and key again into the live context (SIGHUP): new
        connections get the new certificate, live ones go on. A pair that cannot be used
        is logged and the old one kept; True if the new one is in use."""
        settings = self._settings
        if self.ssl_context is None or settings.tls_cert is None or settings.tls_key is None:
            return False
        try:
            tls_context(settings.tls_cert, settings.tls_key)  # the pair works on its own
            self.ssl_context.load_cert_chain(settings.tls_cert, settings.tls_key)
        except (OSError, ssl.SSLError) as exc:
            log.error("could not reload the web certificate %s: %s", settings.tls_cert, exc)
            return False
        log.info("reloaded the web certificate %s", settings.tls_cert)
        return True

    def close(self) -> None:
        """Stop listening. Live sessions go on: the App tells them and lets them finish
        (aiohttp's own cleanup would cancel them, perhaps in the middle of a move)."""
        if self._stop is None:
            self._stop = asyncio.ensure_future(self._site.stop())

    async def wait_closed(self) -> None:
        """Close the listener and whatever connections are left (after the sessions)."""
        self.close()
        if self._cleanup is None:
            self._cleanup = asyncio.ensure_future(self._cleanup_after_stop())
        await asyncio.shield(self._cleanup)

    async def _cleanup_after_stop(self) -> None:
        assert self._stop is not None
        with contextlib.suppress(Exception):
            await self._stop
        await self._runner.cleanup()


def page_url(host: str, port: int, *, tls: bool) -> str:
    """``http://localhost:8080/``: a wildcard listening address becomes localhost."""
    if host in ("", "0.0.0.0", "::"):
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    return f"{'https' if tls else 'http'}://{host}:{port}/"


def tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    """A server context (TLS 1.2 or later) holding ``cert`` and ``key`` (PEM files)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


@dataclass(frozen=True)
class Asset:
    """One file of the page: its bytes, content type and entity tag."""

    body: bytes
    content_type: str
    etag: str


_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".map": "application/json; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".png": "image/png",
    ".ico": "image/x-icon",
}


def content_type(name: str) -> str:
    """The Content-Type for a file of the page (licences without an extension are text)."""
    suffix = Path(name).suffix.lower()
    if suffix in _TYPES:
        return _TYPES[suffix]
    if not suffix or Path(name).stem.upper().startswith(("LICENSE", "LICENCE", "COPYING")):
        return "text/plain; charset=utf-8"
    guessed, _ = mimetypes.guess_type(name)
    return guessed or "application/octet-stream"


def static_root() -> Traversable:
    """The page's folder inside the package."""
    return resources.files("door").joinpath("web", "static")


def load_assets(root: Traversable | None = None) -> dict[str, Asset]:
    """Every file under the page's folder, by its path relative to it (``"vendor/x.js"``).

    Read once when the listener starts: only these names are ever served, so no request
    path reaches the file system.
    """
    folder = static_root() if root is None else root
    assets: dict[str, Asset] = {}
    if not folder.is_dir():
        log.warning("the web page's files are missing (%s): / answers 404", folder)
        return assets
    for name, entry in _walk(folder, ""):
        body = entry.read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        assets[name] = Asset(body, content_type(name), etag)
    return assets


def _walk(folder: Traversable, prefix: str) -> Iterator[tuple[str, Traversable]]:
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        if entry.is_dir():
            yield from _walk(entry, f"{prefix}{entry.name}/")
        elif entry.is_file():
            yield f"{prefix}{entry.name}", entry


def _origin_key(value: str) -> tuple[str, str, int] | None:
    """``"https://Example.org"`` → ``("https", "example.org", 443)``; None if not an origin."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        return None
    if port is None:
        port = 443 if scheme in ("https", "wss") else 80
    return ("https" if scheme in ("https", "wss") else "http", parts.hostname.lower(), port)


def origin_allowed(origin: str | None, host: str | None, port: int, allowed: tuple[str, ...]
                   ) -> bool:
    """Whether a WebSocket upgrade with this ``Origin`` header may go on.

    No Origin (not a browser: a BBS client, a test) may; a browser's must be the page's
    own (the ``Host`` it asked for), localhost at the server's port, or one of
    ``allowed`` (``"*"`` allows every origin).
    """
    if origin is None:
        return True
    if "*" in allowed:
        return True
    key = _origin_key(origin)
    if key is None:
        return False
    scheme, name, origin_port = key
    if host:
        try:
            own = urlsplit(f"//{host}")
            own_port = own.port or (443 if scheme == "https" else 80)
        except ValueError:
            own_port = None
        same_host = own_port is not None and (own.hostname or "").lower() == name
        if same_host and own_port == origin_port:
            return True
    if name in _LOCAL_HOSTS and origin_port == port:
        return True
    return any(_origin_key(entry) == key for entry in allowed)


def _record_name(filename: str) -> str:
    """A file name safe in a Content-Disposition header."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", filename)[:100]
    return safe or "record"


class _Door:
    """The request handlers of one listener (their shared state, no globals)."""

    def __init__(
        self,
        on_terminal: WebHandler,
        *,
        settings: WebSettings,
        limiter: ConnectionLimiter | None,
        guard: LoginGuard | None,
        sessions: set[BaseTerminal] | None,
        records: RecordSource | None,
        assets: dict[str, Asset],
    ) -> None:
        self.on_terminal = on_terminal
        self.settings = settings
        self.limiter = limiter
        self.guard = guard
        self.sessions = sessions
        self.records = records
        self.assets = assets
        self.unsubscribe: Unsubscribe | None = None
        self.port = 0  # known once listening
        self.telnet_factory = telnet_protocol_factory(
            on_terminal,
            settings=TelnetSettings(
                settings.connection, negotiation_wait=settings.negotiation_wait
            ),
            limiter=limiter,
            guard=guard,
            sessions=sessions,
        )

    # -- HTTP ------------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info.get("path", "") or INDEX
        asset = self.assets.get(name)
        if asset is None:
            return not_found()
        headers = {"ETag": asset.etag, "Cache-Control": "no-cache"}
        if asset.etag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        return web.Response(body=asset.body, headers=headers | {"Content-Type": asset.content_type})

    async def name(self, request: web.Request) -> web.StreamResponse:
        body = json.dumps({"name": self.settings.server_name}).encode()
        headers = {"Content-Type": _RECORD_TYPES["json"], "Cache-Control": "no-cache"}
        return web.Response(body=body, headers=headers)

    async def unsubscribed(self, request: web.Request) -> web.StreamResponse:
        if self.unsubscribe is None or request.method not in ("GET", "POST"):
            return not_found()
        html = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}
        if request.method == "GET":
            return web.Response(text=UNSUBSCRIBE_ASK, headers=html)
        if not await self.unsubscribe(request.match_info["token"]):
            return not_found()
        return web.Response(text=UNSUBSCRIBE_DONE, headers=html)

    async def record(self, request: web.Request) -> web.StreamResponse:
        fmt = request.match_info["fmt"]
        digits = request.match_info["id"]
        if self.records is None or fmt not in _RECORD_TYPES or len(digits) > 18:
            return not_found()
        try:
            found = await self.records(int(digits), fmt)
        except Exception:  # a record that cannot be made is not the caller's business
            log.exception("the record of game %s (%s) failed", digits, fmt)
            found = None
        if found is None:
            return not_found()
        filename, body = found
        return web.Response(
            body=body,
            headers={
                "Content-Type": _RECORD_TYPES[fmt],
                "Content-Disposition": f'inline; filename="{_record_name(filename)}"',
                "Cache-Control": "no-cache",
            },
        )

    # -- WebSocket -------------------------------------------------------------------------

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        if not origin_allowed(
            request.headers.get("Origin"), request.host, self.port, self.settings.origins
        ):
            log.info("web socket from %s refused: origin %r", request.remote,
                     request.headers.get("Origin"))
            return web.Response(status=403, text="This origin may not connect here.\n")
        ws: web.WebSocketResponse = web.WebSocketResponse(
            protocols=TELNET_PROTOCOLS,
            heartbeat=self.settings.heartbeat,
            max_msg_size=self.settings.connection.max_buffer,
            compress=False,
        )
        if not ws.can_prepare(request):
            return web.Response(status=426, text="WebSocket only.\n",
                                headers={"Upgrade": "websocket"})
        await ws.prepare(request)
        peer, address = describe_peer(request.transport.get_extra_info("peername")
                                      if request.transport is not None else None)
        if ws.ws_protocol in TELNET_PROTOCOLS:
            await self._telnet(ws, request, text=ws.ws_protocol == "plain")
        elif request.headers.get("Sec-WebSocket-Protocol"):
            # The client asked only for subprotocols door does not speak: the page's
            # framing would be garbage to it.
            await ws.send_str(json.dumps({"type": "bye", "reason": "unsupported subprotocol"}))
            await ws.close(code=1002)
        else:
            await self._page(ws, request.transport, peer, address)
        return ws

    def _refusal(self, address: str) -> str | None:
        if self.guard is not None:
            blocked = self.guard.blocked_for(address)
            if blocked > 0:
                minutes = max(1, round(blocked / 60))
                return (
                    "Too many failed logins from your address. "
                    f"Try again in {minutes} minute{'s' if minutes != 1 else ''}."
                )
        return None

    async def _page(
        self, ws: web.WebSocketResponse, socket: asyncio.BaseTransport | None, peer: str,
        address: str,
    ) -> None:
        outbox = Outbox(ws, socket)
        terminal: WebTerminal | None = None
        dropped: list[str] = []

        def drop(message: str) -> None:
            if terminal is not None:
                terminal.drop(message)
            else:
                dropped.append(message)
                outbox.close(message)

        reason = self._refusal(address)
        admission: Admission | None = None
        if reason is None and self.limiter is not None:
            got = self.limiter.admit(address, drop)
            if isinstance(got, str):
                reason = got
            else:
                admission = got
        try:
            if reason is not None:
                outbox.write(reason.encode() + b"\r\n")
                outbox.close(reason)
                return
            hello = await self._hello(ws, outbox, peer)
            if hello is None or dropped:
                return
            log.info("web connection from %s (%sx%s %s)", peer, hello.cols, hello.rows, hello.term)
            terminal = WebTerminal(
                ws, outbox, hello, peer=peer, address=address, settings=self.settings.connection
            )
            terminal.admission = admission
            await run_terminal_session(
                terminal, lambda: self.on_terminal(terminal), sessions=self.sessions,
                transport="web",
            )
        finally:
            if admission is not None:
                admission.release()
            outbox.close()
            await outbox.wait_closed()

    async def _hello(self, ws: web.WebSocketResponse, outbox: Outbox, peer: str) -> Hello | None:
        """The page's hello, or None (the connection told why and closing) if none came."""
        try:
            msg = await ws.receive(timeout=self.settings.hello_timeout)
        except TimeoutError:
            outbox.close("no hello from the page")
            return None
        if msg.type is WSMsgType.TEXT:
            try:
                control = parse_control(str(msg.data), first=True)
            except BadControl as exc:
                log.info("web connection from %s: bad hello: %s", peer, exc)
                outbox.close(f"Bad message from the page: {exc}.")
                return None
            assert isinstance(control, Hello)
            return control
        if msg.type is WSMsgType.BINARY:
            outbox.close("Bad message from the page: the first message must be a hello.")
        else:
            outbox.close()
        return None

    async def _telnet(self, ws: web.WebSocketResponse, request: web.Request, *, text: bool
                      ) -> None:
        """Telnet carried in WebSocket messages, through door's telnet protocol."""
        transport = SocketlessTransport(ws, request.transport, text=text)
        protocol = self.telnet_factory()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        try:
            while not transport.is_closing():
                await transport.readable()
                if transport.is_closing():
                    break
                msg = await ws.receive()
                if msg.type is WSMsgType.BINARY:
                    data = bytes(msg.data)
                elif msg.type is WSMsgType.TEXT:
                    # one character per byte; anything above U+00FF is no byte at all
                    data = str(msg.data).encode("latin-1", "replace")
                else:
                    break
                if data:
                    protocol.data_received(data)
            if not transport.is_closing():
                protocol.eof_received()
        finally:
            transport.close()
            await transport.outbox.wait_closed()


def not_found() -> web.Response:
    return web.Response(status=404, text=NOT_FOUND)


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    # not aiohttp's "Python/3.x aiohttp/3.y": versions only help an attacker pick an exploit
    response.headers["Server"] = "door"


async def start_web(
    host: str,
    port: int,
    on_terminal: WebHandler,
    *,
    settings: WebSettings,
    limiter: ConnectionLimiter | None = None,
    guard: LoginGuard | None = None,
    sessions: set[BaseTerminal] | None = None,
    records: RecordSource | None = None,
    reuse_port: bool = False,
    assets: dict[str, Asset] | None = None,
    unsubscribe: Unsubscribe | None = None,
) -> WebServer:
    """Serve the page and its WebSocket on ``host:port`` (0 = any free port).

    ``sessions`` (if given) holds every live terminal, so a shutdown can reach them;
    ``records`` answers ``/games/N.FMT``; ``assets`` replaces the page's files (tests);
    ``unsubscribe`` answers ``/unsubscribe/TOKEN`` (GET asks, POST does it: a link
    scanner that fetches every URL of a mail must not unsubscribe anyone).
    Raises ``OSError`` if the port is taken, ``ssl.SSLError``/``OSError`` for a certificate
    or key that cannot be used.
    """
    ssl_context = None
    if (settings.tls_cert is None) != (settings.tls_key is None):
        raise ValueError("web TLS needs both a certificate and a key")
    if settings.tls_cert is not None and settings.tls_key is not None:
        ssl_context = tls_context(settings.tls_cert, settings.tls_key)
    door = _Door(
        on_terminal,
        settings=settings,
        limiter=limiter,
        guard=guard,
        sessions=sessions,
        records=records,
        assets=load_assets() if assets is None else assets,
    )
    door.unsubscribe = unsubscribe
    app = web.Application(client_max_size=4096)
    app.on_response_prepare.append(_security_headers)
    app.router.add_get("/ws", door.websocket)
    app.router.add_get("/name.json", door.name)
    app.router.add_get(r"/games/{id:[0-9]+}.{fmt:[a-z]+}", door.record)
    app.router.add_route("*", r"/unsubscribe/{token:[A-Za-z0-9_-]{1,64}}", door.unsubscribed)
    app.router.add_get("/", door.page)
    app.router.add_get(r"/{path:.+}", door.page)  # only names in ``assets`` are answered
    # shutdown_timeout: what is left of a connection once the App has closed every session
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(
        runner,
        host or None,
        port,
        ssl_context=ssl_context,
        backlog=settings.connection.backlog,
        reuse_port=reuse_port or None,
    )
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    server = WebServer(runner, site, ssl_context, settings)
    door.port = server.port
    return server
