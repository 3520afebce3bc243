"""The web front door: the page and its files, the page's WebSocket framing through a real
App (login, screens, resize), the Origin check, security headers, bad input, limits, TLS."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import datetime
import ipaddress
import json
import os
import signal
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
import pyte
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from door.app import App, connection_settings
from door.config import Config, ConfigError, load_config
from door.net.limits import ADDRESS_FULL, LOGIN_TIME_UP
from door.net.web import (
    SECURITY_HEADERS,
    Asset,
    WebSettings,
    load_assets,
    origin_allowed,
    parse_control,
    start_web,
)
from door.ui.terminal import Hangup
from tests.net.conftest import echo_runner, make_config
from tests.net.served import pg_db, serve, write_config

__all__ = ["pg_db"]  # a fixture, used by name

ROOT = Path(__file__).resolve().parents[2]
HELLO = {"type": "hello", "cols": 80, "rows": 24, "term": "xterm-256color"}


def web_config(tmp_path: Path, **limits: Any) -> Config:
    config = make_config(tmp_path, **limits)
    return replace(config, server=replace(
        config.server, telnet_port=0, ssh_port=0, rlogin_port=0, name="Test BBS",
    ))  # fmt: skip


@contextlib.asynccontextmanager
async def running(config: Config, **kw: Any) -> AsyncIterator[App]:
    app = App(config, **kw)
    await app.start(web_port=0)
    try:
        yield app
    finally:
        await app.shutdown()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


class Page:
    """What the page does with the WebSocket: hello, keys out, output into a pyte screen;
    the bye (if one came) in ``bye``."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, cols: int = 80, rows: int = 24
                 ) -> None:
        self.ws = ws
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.raw = b""
        self.bye: str | None = None
        self.close_code: int | None = None
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._pump())

    @classmethod
    async def open(cls, http: aiohttp.ClientSession, url: str, *, cols: int = 80,
                   rows: int = 24, **kw: Any) -> Page:
        ws = await http.ws_connect(url, **kw)
        page = cls(ws, cols, rows)
        await ws.send_str(json.dumps(HELLO | {"cols": cols, "rows": rows}))
        return page

    async def _pump(self) -> None:
        while True:
            msg = await self.ws.receive()
            if msg.type is aiohttp.WSMsgType.BINARY:
                self.raw += msg.data
                self.stream.feed(self.decoder.decode(msg.data))
            elif msg.type is aiohttp.WSMsgType.TEXT:
                control = json.loads(msg.data)
                assert control["type"] == "bye"
                self.bye = control["reason"]
            else:
                self.close_code = self.ws.close_code
                self.changed.set()
                return
            self.changed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, needle: str, timeout: float = 10.0) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while needle not in self.text() and needle.encode() not in self.raw:
            left = end - loop.time()
            if left <= 0 or self.task.done():
                raise AssertionError(f"{needle!r} never appeared; screen:\n{self.text()}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.1))

    async def closed(self, timeout: float = 5.0) -> None:
        await asyncio.wait_for(asyncio.shield(self.task), timeout)

    async def keys(self, data: bytes) -> None:
        await self.ws.send_bytes(data)

    async def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        await self.ws.send_str(json.dumps({"type": "resize", "cols": cols, "rows": rows}))

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


def ws_url(app: App, scheme: str = "ws") -> str:
    return f"{scheme}://127.0.0.1:{app.ports['web']}/ws"


def http_url(app: App, path: str = "/") -> str:
    return f"http://127.0.0.1:{app.ports['web']}{path}"


# -- the page's framing, through the real login and screens --------------------------------


async def test_a_new_user_signs_up_in_the_browser_and_reaches_the_main_menu(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        page = await Page.open(http, ws_url(app))
        await page.wait_for("Welcome to Test BBS")
        await page.wait_for("Name:")
        await page.keys(b"new\r")
        await page.wait_for("Choose a name:")
        await page.keys(b"webby\r")
        await page.wait_for("Choose a password:")
        await page.keys(b"pass-word1\r")
        await page.wait_for("again:")
        await page.keys(b"pass-word1\r")
        await page.wait_for("Main Menu", timeout=15)
        assert await app.services.accounts.authenticate("webby", "pass-word1") is not None
        await page.close()


async def test_the_hello_sets_the_size_type_and_utf8(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path), runner=echo_runner) as app:
        await app.services.accounts.register("alice", "secret1")
        page = await Page.open(http, ws_url(app), cols=100, rows=30)
        await page.wait_for("Name:")
        await page.keys(b"alice\rsecret1\r")
        await page.wait_for("SESSION user=alice")
        assert "enc=utf-8 size=100x30" in page.text()
        await page.close()


async def test_a_remembered_cp437_choice_does_not_garble_the_browser(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path), runner=echo_runner) as app:
        alice = await app.services.accounts.register("alice", "secret1")
        await app.services.accounts.update_settings(alice.id, charset="cp437")
        page = await Page.open(http, ws_url(app))
        await page.wait_for("Name:")
        await page.keys(b"alice\rsecret1\r")
        await page.wait_for("SESSION user=alice")
        assert "enc=utf-8" in page.text()


async def test_a_resize_reaches_the_session(tmp_path: Path, http: aiohttp.ClientSession) -> None:
    async with running(web_config(tmp_path), runner=echo_runner) as app:
        await app.services.accounts.register("alice", "secret1")
        page = await Page.open(http, ws_url(app))
        await page.wait_for("Name:")
        await page.keys(b"alice\rsecret1\r")
        await page.wait_for("SESSION user=alice")
        await page.resize(132, 43)
        await page.wait_for("EVENT Resize(width=132, height=43)")
        await page.close()


async def test_a_resize_lays_the_main_menu_out_again(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        await app.services.accounts.register("alice", "secret1")
        page = await Page.open(http, ws_url(app), cols=80, rows=24)
        await page.wait_for("Name:")
        await page.keys(b"alice\rsecret1\r")
        await page.wait_for("Main Menu", timeout=15)
        before = page.raw
        await page.resize(120, 40)
        await page.wait_for("Main Menu")
        loop = asyncio.get_running_loop()
        end = loop.time() + 10
        # the menu is drawn again for the new size: something lands beyond column 80 or
        # below row 24, which an 80x24 layout never touches
        while loop.time() < end:
            lines = page.screen.display
            if page.raw != before and (
                any(line[80:].strip() for line in lines) or any(s.strip() for s in lines[24:])
            ):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the screen was not laid out again:\n" + page.text())
        await page.close()


# -- bad input closes only its own connection ------------------------------------------------


@pytest.mark.parametrize(
    "garbage",
    ["{not json", '{"type": "resize", "cols": 5000, "rows": 24}', '["resize"]',
     '{"type": "resize", "cols": "80", "rows": 24}'],
)  # fmt: skip
async def test_a_bad_control_message_closes_that_connection_with_a_bye(
    tmp_path: Path, http: aiohttp.ClientSession, garbage: str
) -> None:
    async with running(web_config(tmp_path)) as app:
        bad = await Page.open(http, ws_url(app))
        good = await Page.open(http, ws_url(app))
        await bad.wait_for("Name:")
        await good.wait_for("Name:")
        await bad.ws.send_str(garbage)
        await bad.closed()
        assert bad.bye is not None and bad.bye.startswith("Bad message from the page")
        await good.keys(b"new\r")
        await good.wait_for("Choose a name:")
        await good.close()


async def test_a_hello_with_a_bad_size_is_refused_with_a_bye(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        ws = await http.ws_connect(ws_url(app))
        page = Page(ws)
        await ws.send_str(json.dumps(HELLO | {"rows": 3}))
        await page.closed()
        assert page.bye is not None and "rows" in page.bye
        assert b"Name:" not in page.raw


async def test_keys_before_the_hello_are_refused(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        ws = await http.ws_connect(ws_url(app))
        page = Page(ws)
        await ws.send_bytes(b"alice\r")
        await page.closed()
        assert page.bye is not None and "hello" in page.bye


async def test_an_oversized_message_closes_only_that_connection(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path, max_buffer=4096)) as app:
        big = await Page.open(http, ws_url(app))
        good = await Page.open(http, ws_url(app))
        await big.wait_for("Name:")
        await good.wait_for("Name:")
        await big.keys(b"x" * 10_000)
        await big.closed()
        assert big.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        await good.keys(b"new\r")
        await good.wait_for("Choose a name:")
        await good.close()


def test_control_messages_are_hello_resize_or_ignored() -> None:
    hello = parse_control(json.dumps(HELLO), first=True)
    assert (hello.cols, hello.rows, hello.term) == (80, 24, "xterm-256color")  # type: ignore[union-attr]
    assert parse_control('{"type": "ping"}', first=False) is None
    with pytest.raises(ValueError, match="first message must be a hello"):
        parse_control('{"type": "resize", "cols": 80, "rows": 24}', first=True)
    with pytest.raises(ValueError, match="bad term"):
        parse_control(json.dumps(HELLO | {"term": "x\x1b]0;pwned"}), first=True)


# -- the Origin check ----------------------------------------------------------------------


async def test_a_foreign_origin_is_refused_with_403_before_the_upgrade(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(ws_url(app), origin="https://evil.example")
        assert refused.value.status == 403
        assert app.limiter.total == 0


async def test_the_pages_own_origin_and_configured_ones_may_connect(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    config = web_config(tmp_path)
    config = replace(config, server=replace(config.server,
                                            web_origins=("https://bbs.example.org",)))
    async with running(config) as app:
        port = app.ports["web"]
        for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}",
                       "https://bbs.example.org"):
            page = await Page.open(http, ws_url(app), origin=origin)
            await page.wait_for("Name:")
            await page.close()


def test_origin_rules() -> None:
    own = "door.example:8080"
    assert origin_allowed(None, own, 8080, ())  # not a browser
    assert origin_allowed("http://door.example:8080", own, 8080, ())
    assert origin_allowed("http://LOCALHOST:8080", "127.0.0.1:8080", 8080, ())
    assert not origin_allowed("http://door.example:9999", own, 8080, ())
    assert not origin_allowed("http://door.example.evil.com:8080", own, 8080, ())
    assert not origin_allowed("null", own, 8080, ())
    assert origin_allowed("https://bbs.example.org", own, 8080, ("https://bbs.example.org",))
    assert not origin_allowed("http://bbs.example.org", own, 8080, ("https://bbs.example.org",))
    assert origin_allowed("https://anything.example", own, 8080, ("*",))
    assert origin_allowed("https://door.example", "door.example", 443, ())


def test_a_malformed_allowed_origin_is_a_config_error(tmp_path: Path) -> None:
    toml = tmp_path / "door.toml"
    toml.write_text('[server]\nweb_origins = ["bbs.example.org/page"]\n')
    with pytest.raises(ConfigError, match="web_origins"):
        load_config(toml)
    toml.write_text('[server]\nweb_tls_cert = "cert.pem"\n')
    with pytest.raises(ConfigError, match="web_tls_key"):
        load_config(toml)


# -- HTTP: the page, its name, the headers ---------------------------------------------------


async def test_every_http_answer_carries_the_security_headers(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        answers = [
            await http.get(http_url(app, "/")),
            await http.get(http_url(app, "/name.json")),
            await http.get(http_url(app, "/no-such-file.js")),
            await http.get(http_url(app, "/ws")),  # not an upgrade
            await http.get(http_url(app, "/ws"), headers={
                "Origin": "https://evil.example", "Upgrade": "websocket",
                "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            }),
        ]  # fmt: skip
        assert [a.status for a in answers] == [200, 200, 404, 426, 403]
        for answer in answers:
            for name, value in SECURITY_HEADERS.items():
                assert answer.headers.get(name) == value, (answer.url, name)
            assert answer.headers["Server"] == "door"  # no library versions
        policy = dict(
            d.strip().split(" ", 1) for d in SECURITY_HEADERS["Content-Security-Policy"].split(";")
        )
        assert policy["frame-ancestors"] == "'none'"
        assert policy["script-src"] == "'self'"  # no inline script, no other origin


async def test_the_page_shows_the_servers_name_from_name_json(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        answer = await http.get(http_url(app, "/name.json"))
        assert answer.headers["Content-Type"].startswith("application/json")
        assert await answer.json() == {"name": "Test BBS"}


async def test_the_page_is_served_with_its_type_an_etag_and_revalidation(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        first = await http.get(http_url(app, "/"))
        assert first.status == 200
        assert first.headers["Content-Type"] == "text/html; charset=utf-8"
        assert first.headers["Cache-Control"] == "no-cache"
        assert (await first.read()) == load_assets()["index.html"].body
        again = await http.get(http_url(app, "/"), headers={"If-None-Match": first.headers["ETag"]})
        assert again.status == 304


async def test_only_the_pages_own_files_are_served(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        for path in ("/../config.py", "/%2e%2e/app.py", "/door/app.py", "/web/static/index.html"):
            answer = await http.get(http_url(app, path))
            assert answer.status == 404, path


def test_every_file_of_the_page_has_a_content_type() -> None:
    assets = load_assets()
    assert "index.html" in assets
    for name, asset in assets.items():
        assert asset.content_type != "application/octet-stream" or name.endswith(".bin"), name
        assert isinstance(asset, Asset)


# -- limits ------------------------------------------------------------------------------


async def test_the_per_address_limit_refuses_one_more_with_a_bye(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path, max_per_address=2)) as app:
        pages = [await Page.open(http, ws_url(app)) for _ in range(2)]
        for page in pages:
            await page.wait_for("Name:")
        extra = await Page.open(http, ws_url(app))
        await extra.closed()
        assert extra.bye == ADDRESS_FULL
        assert app.limiter.total == 2
        for page in pages:
            await page.close()


async def test_the_pre_login_deadline_ends_a_web_connection(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path, login_deadline_s=0.5)) as app:
        page = await Page.open(http, ws_url(app))
        await page.wait_for("Name:")
        await page.closed(timeout=5)
        assert page.bye == LOGIN_TIME_UP
        assert LOGIN_TIME_UP in page.text()
        assert app.limiter.total == 0


async def test_the_deadline_stops_after_login(tmp_path: Path, http: aiohttp.ClientSession) -> None:
    async with running(web_config(tmp_path, login_deadline_s=1.0), runner=echo_runner) as app:
        await app.services.accounts.register("alice", "secret1")
        page = await Page.open(http, ws_url(app))
        await page.wait_for("Name:")
        await page.keys(b"alice\rsecret1\r")
        await page.wait_for("SESSION user=alice")
        await asyncio.sleep(1.5)
        await page.keys(b"x")
        await page.wait_for("EVENT Text(text='x')")
        assert page.bye is None
        await page.close()


async def test_wrong_passwords_from_the_web_count_against_the_address(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path, login_failures_block=2)) as app:
        await app.services.accounts.register("alice", "secret1")
        page = await Page.open(http, ws_url(app))
        await page.wait_for("Name:")
        await page.keys(b"alice\rwrong\r")
        await page.wait_for("Unknown name or wrong password")
        await page.keys(b"alice\rwrong\r")
        await page.closed(timeout=10)
        assert app.guard.blocked_for("127.0.0.1") > 0
        again = await Page.open(http, ws_url(app))
        await again.closed()
        assert again.bye is not None and "Too many failed logins" in again.bye


async def test_shutdown_says_goodbye_to_web_sessions(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    app = App(web_config(tmp_path, shutdown_grace_s=2.0))
    await app.start(web_port=0)
    page = await Page.open(http, ws_url(app))
    await page.wait_for("Name:")
    await app.shutdown()
    await page.closed()
    assert "shutting down" in page.text()
    assert page.bye == "The server is shutting down for a moment."


async def test_shutdown_lets_a_web_session_finish_what_it_is_doing(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async def slow_to_leave(terminal: Any, services: Any, user: Any, *, start: Any = None
                            ) -> None:
        terminal.write("SESSION\r\n")
        await terminal.drain()
        while not isinstance(await terminal.read_event(), Hangup):
            pass
        await asyncio.sleep(2.5)  # a move being saved, say: longer than aiohttp would wait
        terminal.write("SAVED\r\n")
        await terminal.drain()

    app = App(web_config(tmp_path, shutdown_grace_s=6.0), runner=slow_to_leave)
    await app.start(web_port=0)
    await app.services.accounts.register("alice", "secret1")
    page = await Page.open(http, ws_url(app))
    await page.wait_for("Name:")
    await page.keys(b"alice\rsecret1\r")
    await page.wait_for("SESSION")
    await app.shutdown()
    await page.closed()
    assert "SAVED" in page.text()


async def test_a_socket_that_stops_answering_pings_is_closed(
    http: aiohttp.ClientSession,
) -> None:
    ended = asyncio.Event()

    async def session(terminal: Any) -> None:
        while not isinstance(await terminal.read_event(), Hangup):
            pass
        ended.set()

    settings = WebSettings(connection_settings(Config()), negotiation_wait=0.3, heartbeat=0.4)
    server = await start_web("127.0.0.1", 0, session, settings=settings)
    try:
        ws = await http.ws_connect(f"ws://127.0.0.1:{server.port}/ws", autoping=False)
        await ws.send_str(json.dumps(HELLO))
        # never answering the server's pings (and never reading: a dead peer)
        await asyncio.wait_for(ended.wait(), 5)
        await ws.close()
    finally:
        server.close()
        await server.wait_closed()


async def test_a_client_asking_only_for_unknown_subprotocols_is_told_and_closed(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        ws = await http.ws_connect(ws_url(app), protocols=("base64",))
        page = Page(ws)
        await page.closed()
        assert page.bye == "unsupported subprotocol"
        assert b"Name:" not in page.raw


# -- TLS -----------------------------------------------------------------------------------


def make_cert(folder: Path, name: str) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for 127.0.0.1 whose subject is ``name``
    (cryptography comes with asyncssh)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ))  # fmt: skip
    return cert_path, key_path


def tls_config(tmp_path: Path, name: str) -> Config:
    cert, key = make_cert(tmp_path, name)
    config = web_config(tmp_path)
    return replace(config, server=replace(
        config.server, web_tls_cert=str(cert), web_tls_key=str(key)
    ))  # fmt: skip


def trusting(cert: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(cert))
    return context


async def peer_subject(port: int) -> str:
    """The common name of the certificate a new TLS connection to ``port`` is shown."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    _, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    der = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
    writer.close()
    name = x509.load_der_x509_certificate(der).subject
    return str(name.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value)


async def test_with_a_certificate_the_page_and_socket_are_https_and_wss(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    config = tls_config(tmp_path, "first")
    async with running(config) as app:
        context = trusting(tmp_path / "cert.pem")
        answer = await http.get(f"https://127.0.0.1:{app.ports['web']}/", ssl=context)
        assert answer.status == 200
        assert app.web_url() == f"https://127.0.0.1:{app.ports['web']}/"
        page = await Page.open(http, ws_url(app, "wss"), ssl=context)
        await page.wait_for("Name:")
        await page.close()


async def test_reloading_the_certificate_shows_new_connections_the_new_one(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    config = tls_config(tmp_path, "first")
    async with running(config) as app:
        port = app.ports["web"]
        live = await Page.open(http, ws_url(app, "wss"), ssl=trusting(tmp_path / "cert.pem"))
        await live.wait_for("Name:")
        assert await peer_subject(port) == "first"
        make_cert(tmp_path, "second")  # renewed in place
        app.reload_tls()
        assert await peer_subject(port) == "second"
        await live.keys(b"new\r")  # the session begun before goes on
        await live.wait_for("Choose a name:")
        await live.close()


async def test_a_broken_certificate_on_reload_keeps_the_old_one(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    config = tls_config(tmp_path, "first")
    async with running(config) as app:
        (tmp_path / "cert.pem").write_text("not a certificate\n")
        assert app.web is not None and app.web.reload_tls() is False
        assert await peer_subject(app.ports["web"]) == "first"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_door_serve_prints_the_url_and_reloads_the_certificate_on_sighup(
    tmp_path: Path,
) -> None:
    cert, key = make_cert(tmp_path, "first")
    port = free_port()
    toml = tmp_path / "door.toml"
    toml.write_text(
        f'[server]\ntelnet_port = 0\nssh_port = 0\nweb_tls_cert = "{cert}"\n'
        f'web_tls_key = "{key}"\n[games]\nbots = false\n'
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "door", "serve", "--config", str(toml), "--data-dir",
        str(tmp_path / "data"), "--host", "127.0.0.1", "--web-port", str(port),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path),
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        ready = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert b"serving" in ready and f"web on port {port}".encode() in ready
        url = await asyncio.wait_for(proc.stdout.readline(), 10)
        assert url.decode().strip() == f"Web: https://127.0.0.1:{port}/"
        assert await peer_subject(port) == "first"
        make_cert(tmp_path, "second")
        proc.send_signal(signal.SIGHUP)
        loop = asyncio.get_running_loop()
        end = loop.time() + 10
        while await peer_subject(port) != "second":
            assert loop.time() < end, "the certificate was not reloaded"
            await asyncio.sleep(0.1)
        assert proc.returncode is None  # SIGHUP did not stop it
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 30)


def test_serve_takes_the_web_port_from_the_command_line(tmp_path: Path) -> None:
    from door.cli import build_parser
    from door.cli.serve import config_from_args

    args = build_parser().parse_args(["serve", "--data-dir", str(tmp_path), "--web-port", "8080"])
    assert config_from_args(args).server.web_port == 8080
    assert config_from_args(build_parser().parse_args(["serve"])).server.web_port == 0
    with pytest.raises(ConfigError, match="--web-port"):
        config_from_args(build_parser().parse_args(["serve", "--web-port", "70000"]))


# -- game records over HTTP ------------------------------------------------------------------


async def finished_game(app: App) -> int:
    """A backgammon game between two new users, given up at once (so it is finished)."""
    from tests.export.play import begin_backgammon

    accounts = app.services.accounts
    alice = await accounts.register("Alice", "alice-pw")
    bob = await accounts.register("Bob", "bob-pw1")
    game_id = await begin_backgammon(app.services.games, alice, bob, {"match_length": 1})
    await app.services.games.resign(game_id, alice.id)
    assert (await app.services.games.get(game_id)).info.status == "finished"
    return game_id


async def test_a_finished_games_record_is_served_as_its_exporter_writes_it(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        game_id = await finished_game(app)
        for fmt in ("mat", "sgf", "json"):
            answer = await http.get(http_url(app, f"/games/{game_id}.{fmt}"))
            assert answer.status == 200, fmt
            expected = await app.services.exporter.export(game_id, fmt, None)
            assert await answer.text() == expected.text
            assert f'filename="game{game_id}.{fmt}"' in answer.headers["Content-Disposition"]
            assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert "Bob" in await (await http.get(http_url(app, f"/games/{game_id}.mat"))).text()


async def test_a_missing_hidden_or_mismatched_record_is_the_same_404(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    config = web_config(tmp_path)
    config = replace(config, games=replace(config.games, public_finished=False))
    async with running(config) as app:
        game_id = await finished_game(app)  # finished, and private to its players
        answers = [
            await http.get(http_url(app, f"/games/{game_id}.mat")),  # hidden
            await http.get(http_url(app, f"/games/{game_id + 100}.mat")),  # missing
            await http.get(http_url(app, f"/games/{game_id}.pdf")),  # no such format
            await http.get(http_url(app, "/games/99999999999999999999999.sgf")),
        ]
        assert [a.status for a in answers] == [404] * 4
        bodies = {await a.text() for a in answers}
        assert len(bodies) == 1


async def test_the_other_games_format_is_a_404_too(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running(web_config(tmp_path)) as app:
        game_id = await finished_game(app)
        answer = await http.get(http_url(app, f"/games/{game_id}.txt"))  # Spectrangle's
        assert answer.status == 404


@pytest.mark.postgres
async def test_workers_share_the_web_port_and_the_supervisor_prints_the_url_once(
    pg_db: str, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    port = free_port()
    config = write_config(tmp_path, pg_db)
    served = await asyncio.to_thread(serve, tmp_path, config, "--web-port", str(port))
    try:
        assert f"web on port {port}" in served.line
        assert served.proc.stdout is not None
        url = await asyncio.wait_for(asyncio.to_thread(served.proc.stdout.readline), 10)
        assert url.decode().strip() == f"Web: http://127.0.0.1:{port}/"
        pages = []
        for _ in range(4):  # the kernel spreads them over the workers
            page = await Page.open(http, f"ws://127.0.0.1:{port}/ws")
            await page.wait_for("Name:")
            pages.append(page)
        for page in pages:
            await page.close()
    finally:
        await asyncio.to_thread(served.stop)
