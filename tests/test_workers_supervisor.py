"""The worker supervisor (door/workers.py) on tiny stand-in workers: ready lines, start-up
failures, restarts with a growing back-off, and a graceful stop."""

from __future__ import annotations

import asyncio
import logging
import re
import sys

import pytest

from door.workers import Supervisor, WorkerStartError

READY = "import sys; print('ready', flush=True); "


def worker(body: str) -> list[str]:
    return [sys.executable, "-c", READY + body]


async def test_start_returns_each_workers_ready_line_and_passes_later_lines_on() -> None:
    said: list[str] = []
    supervisor = Supervisor(
        [worker("print('later', flush=True); sys.stdin.read()")] * 2,
        ready_prefix="ready", stop_timeout=5, out=said.append,
    )  # fmt: skip
    assert await supervisor.start() == ["ready", "ready"]
    assert len(set(supervisor.pids)) == 2
    running = asyncio.create_task(supervisor.run())
    for _ in range(200):
        if len(said) == 2:
            break
        await asyncio.sleep(0.02)
    supervisor.request_stop()
    assert await running == 0
    assert said == ["later", "later"]


async def test_a_worker_that_exits_before_it_is_ready_fails_the_start_and_stops_the_rest(
) -> None:
    supervisor = Supervisor(
        [worker("sys.stdin.read()"), [sys.executable, "-c", "raise SystemExit(3)"]],
        ready_prefix="ready", stop_timeout=5,
    )  # fmt: skip
    with pytest.raises(WorkerStartError, match=r"worker 2 \(pid \d+\) exited with status 3"):
        await supervisor.start()
    assert all(w.proc is not None and w.proc.returncode is not None for w in supervisor.workers)


async def test_a_worker_that_keeps_dying_young_is_started_again_ever_later(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="door.workers")
    supervisor = Supervisor(
        [worker("raise SystemExit(1)")], ready_prefix="ready", stop_timeout=5,
        first_backoff=0.1, max_backoff=0.4, min_uptime=60,
    )  # fmt: skip
    await supervisor.start()
    running = asyncio.create_task(supervisor.run())
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while caplog.text.count("starting it again") < 4 and loop.time() < end:
        await asyncio.sleep(0.05)
    supervisor.request_stop()
    await running
    delays = [float(d) for d in re.findall(r"starting it again in ([\d.]+) s", caplog.text)]
    assert delays[:4] == [0.1, 0.2, 0.4, 0.4]
    assert "exited with status 1" in caplog.text


async def test_stop_sends_sigterm_and_waits_for_the_worker_to_finish() -> None:
    # ready only once the SIGTERM handler is in place
    command = [sys.executable, "-c", (
        "import signal, sys, time; signal.signal(signal.SIGTERM, lambda *a: "
        "(print('bye', flush=True), sys.exit(0))); print('ready', flush=True); time.sleep(30)"
    )]  # fmt: skip
    said: list[str] = []
    supervisor = Supervisor([command], ready_prefix="ready", stop_timeout=5,
                            out=said.append)  # fmt: skip
    await supervisor.start()
    supervisor.request_stop()
    assert await supervisor.run() == 0
    assert said == ["bye"]
    assert supervisor.workers[0].proc is not None
    assert supervisor.workers[0].proc.returncode == 0
