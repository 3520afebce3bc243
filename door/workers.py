"""Run N copies of one program as worker processes and keep them running.

:class:`Supervisor` knows nothing of what the workers do. It starts each one (its own
command line), waits until each says it is ready (a line on its standard output that
starts with ``ready_prefix``; later lines are passed through), starts one that dies
unexpectedly again after a back-off that doubles while it keeps dying young, and on
:meth:`Supervisor.request_stop` sends every worker SIGTERM, waits for them to finish (then
SIGKILL) and returns.

Each worker's standard input is a pipe from the supervisor that is never written: when the
supervisor dies, even by SIGKILL, every worker reads end of file and can stop by itself
(:func:`watch_parent`), so no orphan keeps serving the ports.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 30.0
MIN_UPTIME_S = 10.0
"""A worker that ran at least this long before dying starts again after the first back-off;
one that died younger doubles the wait (a worker that cannot start must not spin)."""


class WorkerStartError(Exception):
    """A worker exited before it was ready, while the workers were starting."""


@dataclass
class Worker:
    """One worker: its number (1…N), its process now, and its history of deaths."""

    number: int
    command: list[str]
    proc: asyncio.subprocess.Process | None = None
    pid: int | None = None
    started_at: float = 0.0
    quick_deaths: int = 0
    ready: asyncio.Future[str] | None = None
    pump: asyncio.Task[None] | None = None


def describe_exit(status: int | None) -> str:
    """``exited with status 3`` / ``was killed by SIGKILL`` for a process's return code."""
    if status is None:
        return "is still running"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"was killed by {name}"
    return f"exited with status {status}"


class Supervisor:
    """Start ``len(commands)`` workers, keep them running, stop them on request."""

    def __init__(
        self,
        commands: Sequence[list[str]],
        *,
        ready_prefix: str,
        stop_timeout: float,
        start_timeout: float = 120.0,
        first_backoff: float = FIRST_BACKOFF_S,
        max_backoff: float = MAX_BACKOFF_S,
        min_uptime: float = MIN_UPTIME_S,
        out: Callable[[str], None] | None = None,
    ) -> None:
        self.workers = [Worker(i, list(c)) for i, c in enumerate(commands, 1)]
        self.ready_prefix = ready_prefix
        self.stop_timeout = stop_timeout
        self.start_timeout = start_timeout
        self.first_backoff = first_backoff
        self.max_backoff = max_backoff
        self.min_uptime = min_uptime
        self._out = out or _print
        self._stopping = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def pids(self) -> list[int]:
        return [w.pid for w in self.workers if w.pid is not None]

    def request_stop(self) -> None:
        """Stop every worker and let :meth:`run` return (signal handlers call this)."""
        self._stopping.set()

    async def start(self) -> list[str]:
        """Start every worker at once and wait until all are ready; their ready lines.

        If one exits first, the start takes longer than ``start_timeout`` or a stop is
        requested meanwhile, every worker is stopped and :class:`WorkerStartError` says why.
        """
        for worker in self.workers:
            await self._spawn(worker)
        readies = [w.ready for w in self.workers if w.ready is not None]
        stop = asyncio.ensure_future(self._stopping.wait())
        loop = asyncio.get_running_loop()
        end = loop.time() + self.start_timeout
        pending: set[asyncio.Future[Any]] = {*readies, stop}
        why = ""
        try:
            while not why and not all(f.done() for f in readies):
                done, pending = await asyncio.wait(
                    pending, timeout=max(0.0, end - loop.time()),
                    return_when=asyncio.FIRST_COMPLETED,
                )  # fmt: skip
                if not done:
                    why = "the workers did not all become ready in time"
                elif stop in done:
                    why = "stopped while the workers were starting"
                for worker in self.workers:
                    if worker.ready in done and worker.ready.exception() is not None:
                        why = f"worker {worker.number} {worker.ready.exception()}"
        finally:
            stop.cancel()
        if why:
            await self._stop_all()
            for f in readies:  # retrieved, so asyncio does not complain of them
                if f.done() and not f.cancelled():
                    f.exception()
            raise WorkerStartError(why)
        return [f.result() for f in readies]

    async def run(self) -> int:
        """Watch the (started) workers until :meth:`request_stop`; then stop them. 0."""
        self._tasks = [asyncio.create_task(self._watch(w)) for w in self.workers]
        await self._stopping.wait()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._stop_all()
        return 0

    # -- one worker ---------------------------------------------------------------------

    async def _spawn(self, worker: Worker) -> None:
        loop = asyncio.get_running_loop()
        worker.ready = loop.create_future()
        worker.proc = await asyncio.create_subprocess_exec(
            *worker.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        worker.pid = worker.proc.pid
        worker.started_at = loop.time()
        worker.pump = asyncio.create_task(self._pump(worker.proc, worker.ready))

    async def _pump(self, proc: asyncio.subprocess.Process, ready: asyncio.Future[str]) -> None:
        """Pass the worker's output on; its first ready line settles ``ready`` instead."""
        assert proc.stdout is not None
        while True:
            raw = await proc.stdout.readline()
            if not raw:
                break
            line = raw.decode(errors="replace").rstrip("\n")
            if not ready.done() and line.startswith(self.ready_prefix):
                ready.set_result(line)
                continue
            self._out(line)
        status = await proc.wait()
        if not ready.done():
            ready.set_exception(
                WorkerStartError(f"(pid {proc.pid}) {describe_exit(status)} before it was ready")
            )

    async def _watch(self, worker: Worker) -> None:
        """Start ``worker`` again each time it dies, after its back-off."""
        loop = asyncio.get_running_loop()
        while True:
            assert worker.proc is not None and worker.pump is not None
            # shielded: cancelling this watch (at stop) must not cancel the pump itself
            await asyncio.shield(worker.pump)
            status = worker.proc.returncode
            lived = loop.time() - worker.started_at
            worker.quick_deaths = worker.quick_deaths + 1 if lived < self.min_uptime else 0
            delay = min(self.max_backoff, self.first_backoff * 2 ** max(0, worker.quick_deaths - 1))
            log.warning(
                "worker %d (pid %s) %s after %.1f s; starting it again in %.1f s",
                worker.number, worker.pid, describe_exit(status), lived, delay,
            )  # fmt: skip
            await asyncio.sleep(delay)
            await self._spawn(worker)
            assert worker.ready is not None
            with contextlib.suppress(WorkerStartError):
                await asyncio.shield(worker.ready)
                log.warning("worker %d is serving again (pid %s)", worker.number, worker.pid)

    async def _stop_all(self) -> None:
        """SIGTERM every live worker, wait ``stop_timeout`` for them all, SIGKILL the rest."""
        live = [w for w in self.workers if w.proc is not None and w.proc.returncode is None]
        for w in live:
            assert w.proc is not None
            with contextlib.suppress(ProcessLookupError):
                w.proc.send_signal(signal.SIGTERM)
        waits = [asyncio.ensure_future(w.proc.wait()) for w in live if w.proc is not None]
        if waits:
            _, pending = await asyncio.wait(waits, timeout=self.stop_timeout)
            for w in live:
                if w.proc is not None and w.proc.returncode is None:
                    log.warning("worker %d (pid %s) did not stop in time: killed",
                                w.number, w.pid)  # fmt: skip
                    with contextlib.suppress(ProcessLookupError):
                        w.proc.kill()
            if pending:
                await asyncio.wait(pending)
        for w in self.workers:
            if w.pump is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(w.pump), 5.0)


def _print(line: str) -> None:
    print(line, flush=True)


async def watch_parent(on_gone: Callable[[], None]) -> asyncio.BaseTransport:
    """In a worker: call ``on_gone`` when the supervisor's pipe on standard input closes
    (the supervisor exited or was killed). Returns the transport (keep it open)."""

    class _Watch(asyncio.Protocol):
        def connection_lost(self, exc: Exception | None) -> None:
            on_gone()

        def eof_received(self) -> bool:
            on_gone()
            return False

    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_read_pipe(_Watch, sys.stdin)
    return transport


def port_taken(host: str, port: int) -> bool:
    """Whether some socket already listens on ``host:port`` (shared or not): binding
    without SO_REUSEPORT fails then. SO_REUSEADDR, as listeners set it, so connections
    of an earlier run left in TIME_WAIT do not count."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)  # fmt: skip
    except OSError:
        return False  # the listener itself will say what is wrong with the address
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(address)
            except OSError:
                return True
    return False
