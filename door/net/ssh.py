"""SSH with asyncssh: password and public-key login against the accounts, ``new`` registers.

The ed25519 host key is generated on first start and kept (mode 0600) in the data
directory, so clients never see it change. Keys arrive raw (``line_editor=False``,
``encoding=None``); window changes become :class:`~door.ui.terminal.Resize` events; the
pty's TERM and the client's LANG feed the encoding decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh

from door.net import detect
from door.net.base import BaseTerminal, ConnectionSettings, describe_peer, run_terminal_session
from door.net.limits import ConnectionLimiter, LoginGuard
from door.ui.terminal import Caps, Resize

log = logging.getLogger(__name__)

HOST_KEY_NAME = "ssh_host_ed25519_key"
NEW_USER_NAMES = ("new", "apply")

# (terminal, user or None for a `new` sign-up)
SSHHandler = Callable[["SSHTerminal", Any | None], Awaitable[None]]


@dataclass(frozen=True)
class SSHSettings:
    """An SSH listener's knobs: the shared ones, and how long authentication may take."""

    connection: ConnectionSettings
    login_timeout: float = 120.0


def load_host_key(data_dir: Path) -> asyncssh.SSHKey:
    """The server's ed25519 host key: read it, or create it (mode 0600) on first start."""
    path = data_dir / HOST_KEY_NAME
    if path.exists():
        return asyncssh.read_private_key(str(path))
    data_dir.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.export_private_key())
    (data_dir / (HOST_KEY_NAME + ".pub")).write_bytes(key.export_public_key())
    return key


class SSHTerminal(BaseTerminal):
    """A :class:`~door.ui.terminal.Terminal` over an asyncssh server process (a pty)."""

    def __init__(self, process: Any, settings: ConnectionSettings) -> None:
        peer, self.address = describe_peer(process.get_extra_info("peername"))
        term = (process.get_terminal_type() or "").lower()
        width, height, _, _ = process.get_terminal_size()
        w, h = detect.clamp_size(width or None, height or None)
        self.lang: str | None = process.env.get("LANG") or process.env.get("LC_ALL") or None
        encoding = detect.decide_encoding(lang=self.lang, term=term)
        super().__init__(
            caps=Caps(encoding=encoding, width=w, height=h, term=term or "unknown",
                      transport="ssh"),
            peer=peer,
            settings=settings,
        )
        self._process = process
        self.term = term

    async def detect(self) -> None:
        """Probe for UTF-8 when the pty's TERM and LANG did not settle it."""
        if self.lang is None and detect.encoding_from_term(self.term) is None:
            probed, _, _ = await self.detect_by_probe()
            if probed is not None:
                self.set_encoding(probed)

    async def _receive(self) -> bytes | Resize | None:
        while True:
            try:
                data = await self._process.stdin.read(4096)
            except asyncssh.TerminalSizeChanged as exc:
                return Resize(exc.width, exc.height)
            except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                continue
            except (asyncssh.Error, ConnectionError, OSError):
                return None
            if not data:
                return None
            return data if isinstance(data, bytes) else str(data).encode("utf-8")

    def _send(self, data: bytes) -> None:
        self._process.stdout.write(data)

    async def _drain(self) -> None:
        await self._process.stdout.drain()

    def _disconnect(self) -> None:
        self._process.exit(0)

    def _output_backlog(self) -> int:
        chan = self._process.channel
        with contextlib.suppress(Exception):
            return int(chan.get_write_buffer_size())
        return 0


class DoorSSHServer(asyncssh.SSHServer):
    """Authentication against the accounts service; ``new`` gets in to register."""

    def __init__(
        self,
        accounts: Any,
        guard: LoginGuard | None,
        limiter: ConnectionLimiter | None,
    ) -> None:
        self._accounts = accounts
        self._guard = guard
        self._limiter = limiter
        self._address = "?"
        self._slot = False
        self._conn: asyncssh.SSHServerConnection | None = None
        self.user: Any | None = None
        self.refused: str | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        _, self._address = describe_peer(conn.get_extra_info("peername"))
        if self._guard is not None and self._guard.blocked_for(self._address) > 0:
            self.refused = "Too many failed logins from your address. Try again later."
        elif self._limiter is not None:
            self.refused = self._limiter.try_acquire(self._address)
            self._slot = self.refused is None
        if self.refused is not None:
            conn.set_extra_info(door_refused=self.refused)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._slot and self._limiter is not None:
            self._limiter.release(self._address)
            self._slot = False

    def begin_auth(self, username: str) -> bool:
        if self.refused is not None:
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.send_auth_banner(self.refused + "\r\n")
            return True  # every method will fail
        # `new` signs up inside the session: no authentication for it.
        return username.lower() not in NEW_USER_NAMES

    def password_auth_supported(self) -> bool:
        return True

    async def validate_password(self, username: str, password: str) -> bool:
        if self.refused is not None:
            return False
        user = await self._accounts.authenticate(username, password)
        if user is not None:
            self.user = user
            return True
        if self._guard is not None:
            delay = self._guard.record_failure(self._address)
            await asyncio.sleep(delay)
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if self.refused is not None:
            return False
        line = key.export_public_key().decode("ascii", "replace").strip()
        user = await self._accounts.by_key(line)
        if user is None or user.is_banned or user.name.lower() != username.lower():
            return False
        self.user = user
        return True


async def start_ssh(
    host: str,
    port: int,
    on_terminal: SSHHandler,
    *,
    accounts: Any,
    host_key: asyncssh.SSHKey,
    settings: SSHSettings,
    limiter: ConnectionLimiter | None = None,
    guard: LoginGuard | None = None,
    sessions: set[BaseTerminal] | None = None,
) -> asyncssh.SSHAcceptor:
    """Listen for SSH on ``host:port`` (0 = any free port); returns the acceptor."""

    async def handle(process: asyncssh.SSHServerProcess[Any]) -> None:
        conn = process.get_extra_info("connection")
        owner = conn.get_owner() if conn is not None else None
        refused = conn.get_extra_info("door_refused") if conn is not None else None
        if refused:
            process.stdout.write(refused.encode() + b"\r\n")
            process.exit(1)
            return
        if process.get_terminal_type() is None:
            process.stdout.write(b"door needs an interactive terminal: connect with ssh -t\r\n")
            process.exit(1)
            return
        terminal = SSHTerminal(process, settings.connection)
        user = owner.user if isinstance(owner, DoorSSHServer) else None
        await run_terminal_session(
            terminal, lambda: on_terminal(terminal, user), sessions=sessions, transport="ssh"
        )

    return await asyncssh.listen(
        host,
        port,
        server_factory=lambda: DoorSSHServer(accounts, guard, limiter),
        server_host_keys=[host_key],
        process_factory=handle,
        line_editor=False,
        encoding=None,
        backlog=settings.connection.backlog,
        login_timeout=settings.login_timeout,
        allow_scp=False,
        agent_forwarding=False,
        x11_forwarding=False,
    )
