"""The composition root: config → services (database upgraded) → listeners → shutdown.

:class:`App` owns one server process: it builds the services, starts the telnet, SSH and
rlogin listeners the config asks for, routes each new terminal through logging in to the
session, and on :meth:`App.shutdown` tells every session, waits for them to finish (their
open transactions complete: nothing is cancelled mid-write) and closes the services.
:func:`serve` runs it until SIGTERM or SIGINT.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import is_dataclass, replace
from typing import TYPE_CHECKING, Any

from door.config import Config, ConfigError, LimitsConfig
from door.games.base import Refusal
from door.net.base import BaseTerminal, ConnectionSettings
from door.net.limits import (
    ADDRESS_BLOCKED,
    ConnectionLimiter,
    LoginGuard,
    ThrottledAccounts,
    hashing_slots,
)
from door.net.login import LoginAborted, login_dialogue, printable, register_dialogue
from door.runtime import raise_open_files, tune_runtime
from door.ui.terminal import Terminal

if TYPE_CHECKING:  # (asyncssh and aiohttp are imported when they start, not with the app)
    from door.net.ssh import ExecRequest, ExecResult
    from door.net.web import WebServer

log = logging.getLogger(__name__)

SHUTDOWN_MESSAGE = "The server is shutting down for a moment. Your games are saved."
SUSPENDED_MESSAGE = "Your account has been suspended."
"""What every live session of a user is told when the user is banned."""

SessionRunner = Callable[..., Awaitable[None]]


def session_runner() -> SessionRunner:
    """``door.session.run_session`` (imported late: the UI is heavy and tests swap it),
    with one set of render caches for every session it runs."""
    from functools import partial

    from door.session import run_session
    from door.ui.caches import RenderCaches

    return partial(run_session, caches=RenderCaches())


async def enter_session(
    terminal: Terminal,
    services: Any,
    user: Any,
    *,
    start: str | None = None,
    runner: SessionRunner | None = None,
) -> None:
    """Hand a signed-in ``user`` to the session, applying their remembered charset."""
    if user.is_banned:
        await terminal.close("Your account is suspended. Ask the sysop.")
        return
    if getattr(user, "is_pending", False):
        from door.services.signups import PENDING_MESSAGE

        await terminal.close(PENDING_MESSAGE)
        return
    if isinstance(terminal, BaseTerminal):
        terminal.logged_in()
    charset = getattr(user.settings, "charset", "auto")
    if charset == "cp437":
        terminal.set_encoding("cp437")
    elif charset == "utf-8":
        terminal.set_encoding("utf-8")
    from door.store.db import DatabaseFailure  # (late, as the services are)

    # the session shows "your last visit was …" from the login before this one
    try:
        previous = await services.accounts.record_login(user.id)
    except DatabaseFailure as exc:
        # A full disk (or a lost database server) must not keep people out: they can
        # still look at their games, and every move they try says it could not be saved.
        log.warning("could not record %s's login: %s", printable(user.name), exc)
        previous = getattr(user, "last_login_at", None)
    if is_dataclass(user) and not isinstance(user, type) and hasattr(user, "last_login_at"):
        user = replace(user, last_login_at=previous)
    bans = getattr(services, "bans", None)
    if bans is None:  # services without a ban watch (some tests build their own)
        await (runner or session_runner())(terminal, services, user, start=start)
        return
    # A ban ends the session at once, whichever process makes it (door/services/bans.py);
    # one made while this user was logging in is caught by the look that follows.
    with bans.watch(user.id, lambda: terminal.close(SUSPENDED_MESSAGE)):
        if await bans.is_banned(user.id):
            await terminal.close(SUSPENDED_MESSAGE)
            return
        await (runner or session_runner())(terminal, services, user, start=start)


class App:
    """One door server process. ``start()``, then ``shutdown()``; ``ports`` after start.

    ``services`` (built here if not given; then closed on shutdown) and ``runner`` (the
    session entry point, default ``door.session.run_session``) can be passed in for tests.
    ``share_ports`` listens with SO_REUSEPORT, so that the other workers of ``door serve
    --workers`` can listen on the same ports.
    """

    def __init__(
        self,
        config: Config,
        *,
        services: Any | None = None,
        runner: SessionRunner | None = None,
        share_ports: bool = False,
    ) -> None:
        self.config = config
        self.share_ports = share_ports
        self.services = services
        self._own_services = services is None
        limits = config.limits
        self.limiter = ConnectionLimiter(
            limits.max_connections,
            limits.max_per_address,
            max_preauth=limits.max_preauth,
            max_preauth_per_address=limits.max_preauth_per_address,
            login_deadline=limits.login_deadline_s,
        )
        self.guard = login_guard(limits, on_block=self._drop_blocked)
        self.accounts: Any = None  # the accounts service, hashing throttled (after start)
        self.sessions: set[BaseTerminal] = set()
        self.ports: dict[str, int] = {}
        self.web: WebServer | None = None  # the web listener, if started
        self._servers: list[Any] = []
        self._stopping = asyncio.Event()
        self._runner: SessionRunner = runner or session_runner()

    def _drop_blocked(self, address: str) -> None:
        """An address just got blocked: end its connections still logging in. Soon, not at
        once, so the failure's own "wrong password" reaches the person first."""
        asyncio.get_running_loop().call_soon(
            self.limiter.drop_preauth, address, ADDRESS_BLOCKED
        )

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self, *, telnet_port: int | None = None, ssh_port: int | None = None,
                    rlogin_port: int | None = None, web_port: int | None = None) -> None:
        """Build the services (if not given) and start the configured listeners.

        Port arguments override the config for tests: ``0`` there means "any free port",
        ``None`` means "as configured" (where 0 means off).
        """
        from door.net.rlogin import RloginSettings, TrustedBbs, start_rlogin
        from door.net.ssh import SSHSettings, load_host_key, start_ssh
        from door.net.telnet import TelnetSettings, start_telnet

        cfg = self.config
        limits = cfg.limits
        if self.services is None:
            from door.store.files import make_private_dir

            make_private_dir(cfg.data_dir)  # 0700 when made here: it holds the secrets
        # the key before the database: a key file that cannot be used stops the start early
        ssh_wanted = ssh_port is not None or bool(cfg.server.ssh_port)
        host_key = load_host_key(cfg.host_key_path) if ssh_wanted else None
        if self.services is None:
            from door.services import build_services

            self.services = await build_services(cfg)
        self.accounts = ThrottledAccounts(
            self.services.accounts, hashing_slots(limits.login_concurrency)
        )
        host = cfg.server.host
        connection = connection_settings(cfg)
        port = cfg.server.telnet_port if telnet_port is None else telnet_port
        if telnet_port is not None or port:
            server = await start_telnet(
                host,
                port,
                self._telnet_session,
                settings=TelnetSettings(connection, negotiation_wait=limits.negotiation_wait_s),
                limiter=self.limiter,
                guard=self.guard,
                sessions=self.sessions,
                reuse_port=self.share_ports,
            )
            self._servers.append(server)
            self.ports["telnet"] = server.sockets[0].getsockname()[1]
        port = cfg.server.ssh_port if ssh_port is None else ssh_port
        if host_key is not None:
            acceptor = await start_ssh(
                host,
                port,
                self._ssh_session,
                accounts=self.accounts,
                host_key=host_key,
                settings=SSHSettings(
                    connection,
                    login_timeout=limits.login_deadline_s or 120.0,
                    max_tries=limits.max_auth_tries,
                    version=cfg.server.ssh_version,
                ),
                limiter=self.limiter,
                guard=self.guard,
                sessions=self.sessions,
                reuse_port=self.share_ports,
                on_exec=self._ssh_exec,
            )
            self._servers.append(acceptor)
            self.ports["ssh"] = acceptor.get_port()
        port = cfg.server.rlogin_port if rlogin_port is None else rlogin_port
        if rlogin_port is not None or port:
            bbs = tuple(
                TrustedBbs(b.tag, b.addresses, b.secret, b.max_callers) for b in cfg.rlogin.bbs
            )
            server = await start_rlogin(
                host,
                port,
                self._rlogin_session,
                settings=RloginSettings(connection, bbs=bbs),
                limiter=self.limiter,
                sessions=self.sessions,
                reuse_port=self.share_ports,
            )
            self._servers.append(server)
            self.ports["rlogin"] = server.sockets[0].getsockname()[1]
        port = cfg.server.web_port if web_port is None else web_port
        if web_port is not None or port:
            from door.net.web import WebSettings, start_web

            tls = cfg.web_tls
            web = await start_web(
                host,
                port,
                self._web_session,
                settings=WebSettings(
                    connection,
                    negotiation_wait=limits.negotiation_wait_s,
                    server_name=cfg.server.name,
                    origins=cfg.server.web_origins,
                    tls_cert=tls[0] if tls else None,
                    tls_key=tls[1] if tls else None,
                ),
                limiter=self.limiter,
                guard=self.guard,
                sessions=self.sessions,
                records=self._web_record,
                reuse_port=self.share_ports,
                unsubscribe=self._unsubscribe,
            )
            self.web = web
            self._servers.append(web)
            self.ports["web"] = web.port
        log.info("door serving %s", ", ".join(f"{k} on {v}" for k, v in self.ports.items()))

    def web_url(self) -> str | None:
        """The web page's address for people (``http://localhost:8080/``), if serving it."""
        return None if self.web is None else str(self.web.url(self.config.server.host))

    def reload_tls(self) -> None:
        """SIGHUP: load the web certificate and key again (a renewal), keeping sessions."""
        if self.web is not None:
            self.web.reload_tls()

    def request_stop(self) -> None:
        """Ask :meth:`wait` to return (signal handlers call this)."""
        self._stopping.set()

    async def wait(self) -> None:
        await self._stopping.wait()

    async def shutdown(self, message: str = SHUTDOWN_MESSAGE) -> None:
        """Stop listening, tell every session, let them finish, close the services."""
        for server in self._servers:
            server.close()
        for terminal in list(self.sessions):
            with contextlib.suppress(Exception):
                terminal.write("\r\n" + message + "\r\n")
            terminal.hangup_soon("shutdown")
        grace = self.config.limits.shutdown_grace_s
        loop = asyncio.get_running_loop()
        end = loop.time() + grace
        while self.sessions and loop.time() < end:
            await asyncio.sleep(0.05)
        for terminal in list(self.sessions):
            await terminal.close()
        for server in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), timeout=1.0)
        self._servers.clear()
        if self.services is not None and self._own_services:
            await self.services.close()

    # -- per-transport flows --------------------------------------------------------------

    async def _telnet_session(self, terminal: Any) -> None:
        log.info("telnet connection from %s", terminal.peer)
        await self._login_and_play(terminal)

    async def _login_and_play(self, terminal: Any) -> None:
        """The plain-text login (or sign-up), then the session."""
        services = self.services
        assert services is not None
        try:
            user = await login_dialogue(
                terminal,
                self.accounts,
                self.guard,
                address=terminal.address,
                server_name=self.config.server.name,
                max_len=self.config.limits.max_line,
                max_tries=self.config.limits.max_auth_tries,
                sign_ups=self.config.accounts.signup != "closed",
            )
            if user is None:
                return
            await enter_session(terminal, services, user, runner=self._runner)
        except LoginAborted:
            return

    async def _ssh_exec(self, request: ExecRequest) -> ExecResult:
        """A command on the ssh command line (``ssh alice@host export 12``): see
        door/services/remote.py."""
        from door.net.ssh import ExecResult
        from door.services.remote import RemoteCommands

        services = self.services
        assert services is not None
        commands = RemoteCommands(services.accounts, services.games, services.exporter)
        reply = await commands.run(request.user_id, request.command)
        return ExecResult(reply.stdout, reply.stderr or None, reply.status)

    async def _unsubscribe(self, token: str) -> bool:
        """``POST /unsubscribe/TOKEN``: no more notices for the token's player."""
        outbox = getattr(self.services, "outbox", None)
        return outbox is not None and bool(await outbox.unsubscribe(token))

    async def _web_record(self, game_id: int, fmt: str) -> tuple[str, bytes] | None:
        """``GET /games/N.FMT``: game N's record as anyone may have it (no viewer), or
        None when there is none to give (missing, hidden, another game's format)."""
        from door.services.export import FORMATS, RecordRefused

        exporter = getattr(self.services, "exporter", None)
        if exporter is None or fmt not in FORMATS:
            return None
        try:
            record = await exporter.export(game_id, fmt, None)
        except RecordRefused:
            return None
        return record.filename, record.text.encode("utf-8")

    async def _web_session(self, terminal: Any) -> None:
        """A web connection: the page's own framing, or telnet in WebSocket messages (an
        fTelnet-style client); the same login as telnet either way."""
        log.info("web connection from %s (%s)", terminal.peer, terminal.caps.transport)
        await self._login_and_play(terminal)

    async def _ssh_session(self, terminal: Any, user: Any | None) -> None:
        services = self.services
        assert services is not None
        log.info("ssh connection from %s", terminal.peer)
        try:
            if user is None:
                user = await register_dialogue(
                    terminal,
                    self.accounts,
                    max_len=self.config.limits.max_line,
                    address=terminal.address,
                    escape_to="leave",  # SSH has no name prompt to go back to
                )
                if user is None:
                    return
            await enter_session(terminal, services, user, runner=self._runner)
        except LoginAborted:
            return

    async def _rlogin_session(self, terminal: Any) -> None:
        services = self.services
        assert services is not None
        log.info("rlogin connection from %s", terminal.peer)
        request = terminal.request
        try:
            user = await services.accounts.bbs_user(request.tag, request.alias, source="rlogin")
        except Refusal as exc:
            await terminal.close(f"Sorry: {printable(str(exc))}")
            return
        start = request.start if request.start in known_kinds(services) else None
        await enter_session(terminal, services, user, start=start, runner=self._runner)


def connection_settings(config: Config) -> ConnectionSettings:
    """What every terminal and listener takes from ``[limits]`` and ``[server]``."""
    limits = config.limits
    return ConnectionSettings(
        idle_timeout=float(limits.idle_timeout_s),
        idle_warning=float(limits.idle_warning_s),
        max_buffer=limits.max_buffer,
        probe_timeout=limits.probe_timeout_s,
        backlog=config.server.backlog,
    )


def login_guard(
    limits: LimitsConfig, on_block: Callable[[str], Any] | None = None
) -> LoginGuard:
    """The failed-login bookkeeping ``[limits]`` describes (delays double up to 8x)."""
    return LoginGuard(
        block_after=limits.login_failures_block,
        window=limits.login_block_window_s,
        base_delay=limits.login_delay_s,
        max_delay=limits.login_delay_s * 8,
        account_lock_after=limits.account_failures_lock,
        account_window=limits.account_window_s,
        account_lock=limits.account_lock_s,
        on_block=on_block,
    )


def known_kinds(services: Any) -> set[str]:
    """Game kinds the server offers (for door codes such as ``xtrn=backgammon``)."""
    try:
        return {kind for kind, _ in services.games.kinds()}
    except Exception:
        return set()


async def start_server(config: Config, *, share_ports: bool = False) -> App:
    """Start ``door serve``'s :class:`App`, then tune the runtime if ``[server]`` asks."""
    limit = raise_open_files(config.limits.max_connections + 64)
    if limit < config.limits.max_connections + 64:
        log.warning("only %d open files allowed: fewer than max_connections needs", limit)
    app = App(config, share_ports=share_ports)
    await app.start()
    tune_runtime(config.server.tune_runtime)
    return app


READY_PREFIX = "door: serving"
"""How ``door serve`` says it is listening (its first line), and a worker that it is ready."""


async def serve(config: Config, *, worker: int | None = None) -> int:
    """Run the server until SIGTERM/SIGINT, then shut down gracefully; the exit status.

    ``worker`` (1…N) runs it as one worker of ``door serve --workers N``: the ports are
    shared with the other workers, and the server also stops when its supervisor does
    (the pipe on standard input closes).
    """
    app = await start_server(config, share_ports=worker is not None)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, app.request_stop)
    if config.web_tls is not None:
        # Only then: otherwise SIGHUP keeps its old meaning (the terminal went away: stop).
        with contextlib.suppress(NotImplementedError, RuntimeError, AttributeError):
            loop.add_signal_handler(signal.SIGHUP, app.reload_tls)
    parent = None
    if worker is not None:
        from door.workers import watch_parent

        parent = await watch_parent(app.request_stop)
    print(
        READY_PREFIX + " " + ", ".join(f"{k} on port {v}" for k, v in app.ports.items()),
        flush=True,
    )
    url = app.web_url()
    if url is not None and worker is None:  # (the supervisor says it once for all)
        print(f"Web: {url}", flush=True)
    await app.wait()
    await app.shutdown()
    if parent is not None:
        parent.close()
    else:
        print("door: stopped", flush=True)
    return 0


WORKERS_NEED_POSTGRESQL = (
    "--workers needs PostgreSQL: live updates between processes use LISTEN/NOTIFY; "
    'set [database] url = "postgresql+asyncpg://…"'
)


def is_postgresql(url: str) -> bool:
    """Whether a SQLAlchemy database URL names PostgreSQL (any driver)."""
    return url.split(":", 1)[0].split("+", 1)[0] == "postgresql"


def listener_ports(config: Config) -> dict[str, int]:
    """The ports ``door serve`` listens on, by transport (0 = off, so left out)."""
    server = config.server
    wanted = {
        "telnet": server.telnet_port,
        "ssh": server.ssh_port,
        "rlogin": server.rlogin_port,
        "web": server.web_port,
    }
    return {name: port for name, port in wanted.items() if port}


async def prepare_shared(config: Config) -> None:
    """What the workers would otherwise all race to do at once: look at the database and
    upgrade it (as ``[database] auto_upgrade`` says), and make the SSH host key."""
    from door.net.ssh import load_host_key
    from door.store.db import Database

    db = Database(config.database_url, busy_timeout_ms=config.database.busy_timeout_ms)
    try:
        await db.verify(upgrading=config.database.auto_upgrade)
        if config.database.auto_upgrade:
            await db.upgrade()
    finally:
        await db.dispose()
    if config.server.ssh_port:
        load_host_key(config.host_key_path)


async def serve_workers(config: Config, commands: list[list[str]]) -> int:
    """``door serve --workers N``: the database upgraded and the host key made once, then
    one worker process per command (each ``door serve`` as worker i), kept running until
    SIGTERM/SIGINT, which is passed on to them; the exit status.

    Each worker has its own ``[limits]`` (max_connections, per-address caps, the failed
    login counts): the kernel spreads connections over the workers by a hash of the
    addresses, not by load, so dividing the caps would refuse callers on one worker while
    another had room.
    """
    from door.workers import Supervisor, WorkerStartError, port_taken

    if not is_postgresql(config.database_url):
        raise ConfigError(WORKERS_NEED_POSTGRESQL)
    for name, port in listener_ports(config).items():
        if port_taken(config.server.host, port):
            raise OSError(f"the {name} port {port} is in use (by another door serve?)")
    await prepare_shared(config)
    supervisor = Supervisor(
        commands,
        ready_prefix=READY_PREFIX,
        stop_timeout=config.limits.shutdown_grace_s + 15.0,
    )
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, supervisor.request_stop)
    if config.web_tls is not None:
        # each worker reloads its own copy of the web certificate
        with contextlib.suppress(NotImplementedError, RuntimeError, AttributeError):
            loop.add_signal_handler(
                signal.SIGHUP, lambda: _pass_on(supervisor.pids, signal.SIGHUP)
            )
    try:
        lines = await supervisor.start()
    except WorkerStartError as exc:
        print(f"door serve: {exc}", file=sys.stderr, flush=True)
        return 1
    pids = ", ".join(str(pid) for pid in supervisor.pids)
    print(f"{lines[0]} with {len(commands)} workers (pids {pids})", flush=True)
    if config.server.web_port:
        from door.net.web import page_url

        server = config.server
        url = page_url(server.host, server.web_port, tls=config.web_tls is not None)
        print(f"Web: {url}", flush=True)
    status = await supervisor.run()
    print("door: stopped", flush=True)
    return status


def _pass_on(pids: list[int], signum: int) -> None:
    """Send ``signum`` to each of ``pids`` (the workers), ignoring those already gone."""
    import os

    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)
