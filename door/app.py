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
import ctypes
import ctypes.util
import gc
import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any

from door.config import Config
from door.net.base import BaseTerminal
from door.net.limits import ConnectionLimiter, LoginGuard, ThrottledAccounts, hashing_slots
from door.net.login import LoginAborted, login_dialogue, printable, register_dialogue
from door.ui.terminal import Terminal

log = logging.getLogger(__name__)

SHUTDOWN_MESSAGE = "The server is shutting down for a moment. Your games are saved."

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
    charset = getattr(user.settings, "charset", "auto")
    if charset == "cp437":
        terminal.set_encoding("cp437")
    elif charset == "utf-8":
        terminal.set_encoding("utf-8")
    await services.accounts.record_login(user.id)
    await (runner or session_runner())(terminal, services, user, start=start)


class App:
    """One door server process. ``start()``, then ``shutdown()``; ``ports`` after start.

    ``services`` (built here if not given; then closed on shutdown) and ``runner`` (the
    session entry point, default ``door.session.run_session``) can be passed in for tests.
    """

    def __init__(
        self,
        config: Config,
        *,
        services: Any | None = None,
        runner: SessionRunner | None = None,
    ) -> None:
        self.config = config
        self.services = services
        self._own_services = services is None
        limits = config.limits
        self.limiter = ConnectionLimiter(limits.max_connections, limits.max_per_address)
        self.guard = LoginGuard(
            block_after=limits.login_failures_block,
            window=limits.login_block_window_s,
            base_delay=limits.login_delay_s,
            max_delay=limits.login_delay_s * 8,
        )
        self.accounts: Any = None  # the accounts service, hashing throttled (after start)
        self.sessions: set[BaseTerminal] = set()
        self.ports: dict[str, int] = {}
        self._servers: list[Any] = []
        self._stopping = asyncio.Event()
        self._runner: SessionRunner = runner or session_runner()

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self, *, telnet_port: int | None = None, ssh_port: int | None = None,
                    rlogin_port: int | None = None) -> None:
        """Build the services (if not given) and start the configured listeners.

        Port arguments override the config for tests: ``0`` there means "any free port",
        ``None`` means "as configured" (where 0 means off).
        """
        from door.net.rlogin import RloginSettings, start_rlogin
        from door.net.ssh import SSHSettings, load_host_key, start_ssh
        from door.net.telnet import TelnetSettings, start_telnet

        cfg = self.config
        limits = cfg.limits
        if self.services is None:
            from door.services import build_services

            cfg.data_dir.mkdir(parents=True, exist_ok=True)
            self.services = await build_services(cfg)
        self.accounts = ThrottledAccounts(
            self.services.accounts, hashing_slots(limits.login_concurrency)
        )
        host = cfg.server.host
        common: dict[str, Any] = dict(
            idle_timeout=float(limits.idle_timeout_s),
            idle_warning=float(limits.idle_warning_s),
            max_buffer=limits.max_buffer,
            probe_timeout=limits.probe_timeout_s,
            backlog=cfg.server.backlog,
        )
        port = cfg.server.telnet_port if telnet_port is None else telnet_port
        if telnet_port is not None or port:
            server = await start_telnet(
                host,
                port,
                self._telnet_session,
                settings=TelnetSettings(negotiation_wait=limits.negotiation_wait_s, **common),
                limiter=self.limiter,
                guard=self.guard,
                sessions=self.sessions,
            )
            self._servers.append(server)
            self.ports["telnet"] = server.sockets[0].getsockname()[1]
        port = cfg.server.ssh_port if ssh_port is None else ssh_port
        if ssh_port is not None or port:
            acceptor = await start_ssh(
                host,
                port,
                self._ssh_session,
                accounts=self.accounts,
                host_key=load_host_key(cfg.data_dir),
                settings=SSHSettings(**common),
                limiter=self.limiter,
                guard=self.guard,
                sessions=self.sessions,
            )
            self._servers.append(acceptor)
            self.ports["ssh"] = acceptor.get_port()
        port = cfg.server.rlogin_port if rlogin_port is None else rlogin_port
        if rlogin_port is not None or port:
            rl = cfg.rlogin
            server = await start_rlogin(
                host,
                port,
                self._rlogin_session,
                settings=RloginSettings(
                    trusted=rl.trusted, secret=rl.secret, default_tag=rl.default_tag, **common
                ),
                limiter=self.limiter,
                sessions=self.sessions,
            )
            self._servers.append(server)
            self.ports["rlogin"] = server.sockets[0].getsockname()[1]
        log.info("door serving %s", ", ".join(f"{k} on {v}" for k, v in self.ports.items()))

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
            )
            if user is None:
                return
            await enter_session(terminal, services, user, runner=self._runner)
        except LoginAborted:
            return

    async def _ssh_session(self, terminal: Any, user: Any | None) -> None:
        services = self.services
        assert services is not None
        try:
            if user is None:
                user = await register_dialogue(
                    terminal, self.accounts, max_len=self.config.limits.max_line
                )
                if user is None:
                    return
            await enter_session(terminal, services, user, runner=self._runner)
        except LoginAborted:
            return

    async def _rlogin_session(self, terminal: Any) -> None:
        services = self.services
        assert services is not None
        request = terminal.request
        try:
            user = await services.accounts.bbs_user(request.tag, request.alias)
        except ValueError as exc:
            await terminal.close(f"Sorry: {printable(str(exc))}")
            return
        start = request.start if request.start in known_kinds(services) else None
        await enter_session(terminal, services, user, start=start, runner=self._runner)


def known_kinds(services: Any) -> set[str]:
    """Game kinds the server offers (for door codes such as ``xtrn=backgammon``)."""
    try:
        return {kind for kind, _ in services.games.kinds()}
    except Exception:
        return set()


def tune_malloc() -> bool:
    """Make glibc hand big freed blocks back to the OS (True if it could be told).

    Every login hashes with scrypt, which borrows 16 MiB in a worker thread. glibc raises
    its mmap threshold after the first such block is freed, so later ones come from the
    threads' heap arenas and stay resident: about 100 MiB for nothing on a busy server.
    A fixed threshold keeps them mmapped, and returned as soon as the hash is done.
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False  # not glibc: nothing to tune
    m_mmap_threshold = -3
    return bool(mallopt(m_mmap_threshold, 128 * 1024))


def tune_gc() -> None:
    """Make the cyclic garbage collector cheap for a server holding many sessions.

    Every session keeps the canvas its terminal shows: thousands of GC-tracked cells
    each, living until that person's next key, so with hundreds of sessions the
    collector's older generations hold a million objects and each full pass stopped the
    event loop for a quarter of a second (bench/load.py at 300 players: 11 s of 70 in
    the collector). Freezing what start-up built (modules, tables, the schema) keeps it
    out of every later pass. A young collection walks every reference of what was made
    since the last one, so it runs often enough to stay short (2,000; at 20,000 each
    took 20-80 ms at 300 players); what outlives it (a session's pending read, the
    screen it shows) lives seconds, so the middle generation is collected rarely (each
    pass there costs ~60-150 ms at 550 players) and objects reach the old generation
    seldom. Sessions draw into reused canvases (``Canvas.clear``), which keeps the young
    generation small. Cycles are still collected, just less often.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(2_000, 100, 100)


async def serve(config: Config) -> int:
    """Run the server until SIGTERM/SIGINT, then shut down gracefully; the exit status."""
    tune_malloc()
    app = App(config)
    await app.start()
    tune_gc()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, app.request_stop)
    print(
        "door: serving " + ", ".join(f"{k} on port {v}" for k, v in app.ports.items()),
        flush=True,
    )
    await app.wait()
    await app.shutdown()
    print("door: stopped", flush=True)
    return 0
