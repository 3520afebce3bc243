"""SSH with asyncssh: password and public-key login against the accounts, ``new`` registers.

The ed25519 host key is generated on first start and kept (mode 0600) in one file
(``[server] host_key``, in the data directory by default) that every process serving the
same callers shares, so clients never see it change. Keys arrive raw (``line_editor=False``,
``encoding=None``); window changes become :class:`~door.ui.terminal.Resize` events; the
pty's TERM and the client's LANG feed the encoding decision.

A command on the ssh command line (an *exec* request, ``ssh alice@host export 12``) is
not a session: the logged-in account's :class:`ExecRequest` goes to the ``on_exec``
handler the composition root gives :func:`start_ssh`, and its :class:`ExecResult` is sent
back raw (bytes on stdout, a message on stderr, no pty needed) before the channel closes
with the result's exit status. This module knows nothing of what the commands mean.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh
from asyncssh.auth import KbdIntChallenge, KbdIntResponse

from door.net import detect
from door.net.base import BaseTerminal, ConnectionSettings, describe_peer, run_terminal_session
from door.net.limits import Admission, ConnectionLimiter, LoginGuard
from door.ui.terminal import Caps, Resize

log = logging.getLogger(__name__)

HOST_KEY_NAME = "ssh_host_ed25519_key"
"""The host key's file name in the data dir unless `[server] host_key` says otherwise."""
NEW_USER_NAMES = ("new", "apply")

# (terminal, user or None for a `new` sign-up)
SSHHandler = Callable[["SSHTerminal", Any | None], Awaitable[None]]

MAX_COMMAND = 1024
"""The longest exec command line looked at (characters); a longer one is refused."""
EXEC_USAGE_STATUS = 2
"""The exit status of a command refused before it ran (as a shell's usage errors)."""
EXEC_FAILED_STATUS = 1
"""The exit status of a command that could not be answered (timeout, server trouble)."""


@dataclass(frozen=True)
class ExecRequest:
    """A command a logged-in account sent on the ssh command line."""

    user_id: int
    user_name: str
    command: str
    """The command line as the client sent it (at most :data:`MAX_COMMAND` characters)."""
    peer: str
    """``host:port`` of the client (for the log)."""


@dataclass(frozen=True)
class ExecResult:
    """What a command answers: ``stdout`` sent as it is (no line-ending translation), an
    optional one-line ``stderr`` message, and the exit status."""

    stdout: bytes = b""
    stderr: str | None = None
    status: int = 0


ExecHandler = Callable[[ExecRequest], Awaitable[ExecResult]]
"""Answers an exec request (given to :func:`start_ssh` by the composition root)."""

ONE_SESSION = "One session per connection, please."
NO_COMMANDS = "this server runs no commands: connect without one for the menus"
NEW_USER_COMMAND = (
    "signing up needs the menus: connect with `ssh -t new@host`, without a command"
)
COMMAND_TOO_LONG = f"the command is too long (at most {MAX_COMMAND} characters)"
COMMAND_TIMED_OUT = "the command took too long and was stopped; try again later"
COMMAND_FAILED = "something went wrong on the server; nothing was changed"


@dataclass(frozen=True)
class SSHSettings:
    """An SSH listener's knobs: the shared ones, and how long authentication may take."""

    connection: ConnectionSettings
    login_timeout: float = 120.0
    max_tries: int = 3
    exec_timeout: float = 60.0
    """Seconds a command on the ssh command line may take to answer, and then again for
    the client to read the answer (a client that stops reading is cut off)."""
    version: str = "door"
    """The software version in the SSH version line (asyncssh's own names it and its release)."""


class HostKeyError(Exception):
    """The SSH host key's file cannot be used: unreadable, damaged, or readable by others."""


HOST_KEY_MODE = 0o600


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The server's ed25519 host key from the file ``path``; made there (mode 0600) if
    there is none yet.

    Several processes may start at once on one shared file (``door serve --workers``,
    several machines behind one load balancer): each new key is written whole to a private
    temporary file beside ``path`` and hard-linked into place, which fails if another
    process got there first; the loser then reads the winner's key. So the file never
    appears half-written and every process ends up serving the same key. A key file that
    other users may read is refused, as sshd refuses one.
    """
    try:
        return _read_host_key(path)
    except FileNotFoundError:
        pass
    if not path.parent.is_dir():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    if _publish_once(path, key.export_private_key()):
        with contextlib.suppress(OSError):  # only a convenience for the sysop
            _write_private(Path(f"{path}.pub"), key.export_public_key(), mode=0o644)
        log.info("made a new SSH host key in %s", path)
        return key
    return _read_host_key(path)


def _read_host_key(path: Path) -> asyncssh.SSHKey:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise HostKeyError(f"cannot read the SSH host key {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode & 0o777
        if mode & 0o077:
            raise HostKeyError(
                f"the SSH host key {path} can be read by other users (mode {mode:04o}); "
                f"fix it with: chmod 600 {path}"
            )
        data = fh.read()
    try:
        return asyncssh.import_private_key(data)
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise HostKeyError(f"the SSH host key {path} is not a usable private key: {exc}") from None


def _write_private(path: Path, data: bytes, *, mode: int = HOST_KEY_MODE) -> None:
    """Write ``data`` to a new file beside ``path`` and rename it over ``path``."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    _write_new(tmp, data, mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Create ``path`` (it must not exist) with exactly ``mode`` and ``data``, synced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        os.fchmod(fd, mode)  # the umask narrowed (or an odd one widened) the mode
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _publish_once(path: Path, data: bytes) -> bool:
    """Put ``data`` at ``path`` unless a file is there already; True if this call did.

    The content is complete before the name appears (link of a synced temporary file);
    where hard links are not supported the file is created exclusively instead.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    _write_new(tmp, data, HOST_KEY_MODE)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    except OSError:  # no hard links here (some network or FUSE file systems)
        try:
            _write_new(path, data, HOST_KEY_MODE)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return True


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
                      transport="ssh", time_zone=detect.zone_hint(process.env.get("TZ"))),
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


PASSWORD_PROMPT = "Password:"
"""The keyboard-interactive prompt (OpenSSH shows it as ``(name@host) Password:``)."""
NOTHING_TYPED_PROMPT = "Password (nothing was typed):"
"""The prompt that follows an empty answer, so the second prompt says why it came."""
MAX_NOTHING_TYPED = 3
"""Empty answers one connection gets asked again for free; later ones count as tries
(a client answering nothing in a loop must still reach ``max_tries``)."""
MAX_KEY_OFFERS = 10
"""Public keys one connection may offer (not guesses, but each costs a database look-up)."""
REFUSED_GRACE = 5.0
"""Seconds a refused connection stays open, for its client to show the banner saying why."""


class DoorSSHServer(asyncssh.SSHServer):
    """Authentication against the accounts service; ``new`` gets in to register.

    Every password try is counted by the guard (address and name) before it runs; the
    address block and the name's lock are checked before each try, not only when the
    connection opens; after ``max_tries`` wrong passwords, or once refused, the
    connection is closed (asyncssh has no MaxAuthTries of its own, and would let one
    connection try passwords for as long as it likes).
    """

    def __init__(
        self,
        accounts: Any,
        guard: LoginGuard | None,
        limiter: ConnectionLimiter | None,
        max_tries: int = 3,
    ) -> None:
        self._accounts = accounts
        self._guard = guard
        self._limiter = limiter
        self._max_tries = max_tries
        self._tries = 0
        self._nothing_typed = 0
        self._key_offers = 0
        self._address = "?"
        self._username: str | None = None
        self._conn: asyncssh.SSHServerConnection | None = None
        self.admission: Admission | None = None
        self.user: Any | None = None
        self.refused: str | None = None
        self.sessions = 0
        self._lost = False

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        _, self._address = describe_peer(conn.get_extra_info("peername"))
        if self._guard is not None:
            self.refused = self._guard.refusal(self._address)
        if self.refused is None and self._limiter is not None:
            got = self._limiter.admit(self._address, self._drop)
            if isinstance(got, str):
                self.refused = got
            else:
                self.admission = got
        if self.refused is not None:
            conn.set_extra_info(door_refused=self.refused)
            # A refused connection holds no slot, so it must not linger until asyncssh's
            # login timeout: long enough for the banner that says why, then closed.
            asyncio.get_running_loop().call_later(REFUSED_GRACE, self._drop, self.refused)

    def _drop(self, message: str) -> None:
        if self._conn is not None and not self._lost:
            self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, message)

    def drop_now(self, message: str) -> None:
        """Close this connection now with ``message`` (safe once it is gone)."""
        self._drop(message)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        if self.admission is not None:
            self.admission.release()

    def begin_auth(self, username: str) -> bool:
        self._username = username
        if self.refused is not None:
            self._banner(self.refused)
            return True  # only keys are offered, and refused (see password_auth_supported)
        # `new` signs up inside the session: no authentication for it.
        if username.lower() in NEW_USER_NAMES:
            return False
        if self._guard is not None:
            locked = self._guard.refusal(self._address, username)
            if locked is not None:
                self._banner(locked)  # a key may still log in: only passwords are off
        return True

    def _banner(self, message: str) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.send_auth_banner(message + "\r\n")

    def _refuse_if_barred(self, username: str | None) -> None:
        """Close the connection (PermissionDenied) if it may not try again."""
        reason = self.refused
        if reason is None and self._guard is not None:
            reason = self._guard.refusal(self._address, username)
        if reason is None and self._tries >= self._max_tries:
            reason = "Too many wrong passwords. Goodbye."
        if reason is not None:
            raise asyncssh.PermissionDenied(reason)

    def password_auth_supported(self) -> bool:
        # A refused connection is asked for no password (nor, as asyncssh ties the two,
        # by keyboard-interactive): nothing typed there could log in, the banner has said
        # why, and the client says "Permission denied" at once instead of a prompt that
        # waits for a password only to be cut off. So is one for a name locked just now.
        if self.refused is not None:
            return False
        if self._guard is not None and self._username is not None:
            return self._guard.refusal(self._address, self._username) is None
        return True

    def kbdint_auth_supported(self) -> bool:
        # Offered exactly when passwords are (asyncssh's own default), but answered here,
        # so that an empty answer can be asked again with a prompt that says so.
        return self.password_auth_supported()

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> KbdIntChallenge:
        return ("", "", asyncssh.DEFAULT_LANG, ((PASSWORD_PROMPT, False),))

    async def validate_kbdint_response(
        self, username: str, responses: KbdIntResponse
    ) -> KbdIntChallenge:
        if len(responses) != 1:
            return False
        if self._nothing_was_typed(username, responses[0]):
            return ("", "", asyncssh.DEFAULT_LANG, ((NOTHING_TYPED_PROMPT, False),))
        return await self.validate_password(username, responses[0])

    def _nothing_was_typed(self, username: str, password: str) -> bool:
        """Whether ``password`` is an empty answer to ask again for, costing no try.

        An Enter that reaches the client just after its prompt (pressed twice at the
        shell, or typed ahead while the connection was made) answers with nothing: no
        account has an empty password, so it is no guess, and counting it as a wrong one
        showed a second, unexplained "Password:" after the guard's delay, and used up a
        try and a step towards the name's lock.
        """
        if password or self._nothing_typed >= MAX_NOTHING_TYPED:
            return False
        self._refuse_if_barred(username)
        self._nothing_typed += 1
        return True

    async def validate_password(self, username: str, password: str) -> bool:
        if self._nothing_was_typed(username, password):
            return False  # the `password` method: the client says so and asks again
        self._refuse_if_barred(username)
        self._tries += 1  # before the check: a try cancelled by the next request counts
        attempt = None
        if self._guard is not None:
            got = await self._guard.start(self._address, username)
            if isinstance(got, str):
                raise asyncssh.PermissionDenied(got)
            attempt = got
        try:
            user = await self._accounts.authenticate(username, password)
        except BaseException:
            if attempt is not None:
                attempt.failed()  # abandoned half-way: it counts, never a free guess
            raise
        if user is not None:
            if attempt is not None:
                attempt.succeeded()
            self.user = user
            return True
        delay = attempt.failed() if attempt is not None else 0.0
        await asyncio.sleep(delay)
        self._refuse_if_barred(None)
        return False

    def public_key_auth_supported(self) -> bool:
        # Offered even on a refused connection (where a key is turned away too): with no
        # method at all in the list, OpenSSH falls back to its own list and asks for a
        # password anyway.
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # Key logins are not guesses: only the address block (and the offer cap) apply.
        reason = self.refused
        if reason is None and self._guard is not None:
            reason = self._guard.refusal(self._address)
        if reason is not None:
            raise asyncssh.PermissionDenied(reason)
        self._key_offers += 1
        if self._key_offers > MAX_KEY_OFFERS:
            raise asyncssh.PermissionDenied("Too many keys offered. Goodbye.")
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
    reuse_port: bool = False,
    on_exec: ExecHandler | None = None,
) -> asyncssh.SSHAcceptor:
    """Listen for SSH on ``host:port`` (0 = any free port); returns the acceptor.

    ``reuse_port`` (SO_REUSEPORT) lets several processes listen on the same port, the
    kernel spreading the connections between them (``door serve --workers``).
    ``on_exec`` answers commands sent on the ssh command line (without it every command
    is refused, status 2); a session without a command is the interactive one.
    """

    async def handle(process: asyncssh.SSHServerProcess[Any]) -> None:
        conn = process.get_extra_info("connection")
        owner = conn.get_owner() if conn is not None else None
        refused = conn.get_extra_info("door_refused") if conn is not None else None
        if refused:
            process.stdout.write(refused.encode() + b"\r\n")
            process.exit(1)
            return
        if not isinstance(owner, DoorSSHServer):
            process.exit(1)
            return
        # One session per connection: more would each hold a login dialogue (``new``)
        # or a session without a connection slot of their own (commands too: one
        # connection must not run many at once on one slot).
        command = process.command
        owner.sessions += 1
        if owner.sessions > 1:
            if command is not None:  # a command's output may be a file: say it aside
                process.stderr.write(ONE_SESSION.encode() + b"\n")
            else:
                process.stdout.write(ONE_SESSION.encode() + b"\r\n")
            process.exit(1)
            return
        if command is not None:
            await run_exec(process, owner, command, on_exec, settings.exec_timeout)
            return
        if process.get_terminal_type() is None:
            process.stdout.write(b"door needs an interactive terminal: connect with ssh -t\r\n")
            process.exit(1)
            return
        terminal = SSHTerminal(process, settings.connection)
        terminal.admission = owner.admission
        user = owner.user
        await run_terminal_session(
            terminal, lambda: on_terminal(terminal, user), sessions=sessions, transport="ssh"
        )

    return await asyncssh.listen(
        host,
        port,
        server_factory=lambda: DoorSSHServer(accounts, guard, limiter, settings.max_tries),
        server_version=settings.version,
        server_host_keys=[host_key],
        process_factory=handle,
        line_editor=False,
        encoding=None,
        backlog=settings.connection.backlog,
        reuse_port=reuse_port or None,
        login_timeout=settings.login_timeout,
        allow_scp=False,
        agent_forwarding=False,
        x11_forwarding=False,
    )


async def run_exec(
    process: asyncssh.SSHServerProcess[Any],
    owner: DoorSSHServer,
    command: str,
    on_exec: ExecHandler | None,
    timeout: float,
) -> None:
    """Answer one exec request and close its channel with the exit status.

    The account has logged in (its slot leaves the pre-login pool, as an interactive
    login's does). The handler has ``timeout`` seconds to answer (else the client is told
    so, status 1), and the client as long again to read the answer (else the connection
    is dropped). A failure ends this connection only.
    """
    peer, _ = describe_peer(process.get_extra_info("peername"))
    user = owner.user
    if user is None:  # `new`: there is no account yet to run anything for
        result = ExecResult(stderr=NEW_USER_COMMAND, status=EXEC_USAGE_STATUS)
    elif on_exec is None:
        result = ExecResult(stderr=NO_COMMANDS, status=EXEC_USAGE_STATUS)
    elif len(command) > MAX_COMMAND:
        result = ExecResult(stderr=COMMAND_TOO_LONG, status=EXEC_USAGE_STATUS)
    else:
        if owner.admission is not None:
            owner.admission.promote()
        request = ExecRequest(int(user.id), str(user.name), command, peer)
        log.info("ssh command from %s (%r): %.60r", peer, request.user_name, command)
        try:
            result = await asyncio.wait_for(on_exec(request), timeout)
        except TimeoutError:
            log.warning("ssh command from %s timed out after %.0f s", peer, timeout)
            result = ExecResult(stderr=COMMAND_TIMED_OUT, status=EXEC_FAILED_STATUS)
        except Exception:
            log.exception("ssh command from %s failed", peer)
            result = ExecResult(stderr=COMMAND_FAILED, status=EXEC_FAILED_STATUS)
    try:
        if result.stdout:
            process.stdout.write(result.stdout)
        if result.stderr:
            process.stderr.write(result.stderr.encode("utf-8", "replace") + b"\n")
        await asyncio.wait_for(process.stdout.drain(), timeout)
        process.exit(result.status)
    except TimeoutError:
        # the client stopped reading: it must not hold its slot (or our buffer) for ever
        log.info("ssh command from %s: the client stopped reading; dropped", peer)
        owner.drop_now("The command's answer was not read in time.")
    except (asyncssh.Error, ConnectionError, OSError, RuntimeError):
        return  # the client went away mid-answer: only its own connection ends
