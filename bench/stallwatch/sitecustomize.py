"""Event-loop stall watch for a benchmarked ``door serve`` (imported by ``site`` at start).

``bench/load.py`` puts this folder first on the server's ``PYTHONPATH`` with
``DOOR_STALL_FILE`` set. Every callback the event loop runs (a task step, a protocol's
``data_received``, a timer) is timed; a callback's duration is exactly how long the loop
could serve nobody else. When the server exits, the file gets JSON: the number of
callbacks, and ``[end, seconds, what]`` for each that ran longer than a millisecond
and ``[end, seconds, generation]`` for each garbage collection that took over 5 ms
(``end`` on ``time.monotonic()``, the system-wide clock the benchmark reads too, so it
can pick the steady window). The timing costs two clock reads a callback, the same for
any version of door.
"""

from __future__ import annotations

import atexit
import json
import os
import time

_FILE = os.environ.get("DOOR_STALL_FILE")

if _FILE:
    import asyncio.events

    _count = [0]
    _long: list[tuple[float, float, str]] = []
    _original = asyncio.events.Handle._run
    _clock = time.monotonic

    def _timed_run(self: asyncio.events.Handle) -> None:
        t0 = _clock()
        try:
            _original(self)
        finally:
            t1 = _clock()
            _count[0] += 1
            if t1 - t0 > 0.001:
                _long.append((t1, t1 - t0, _what(self) if t1 - t0 > 0.05 else ""))

    def _what(handle: asyncio.events.Handle) -> str:
        """The callback, and for a task's step the coroutine it ran (where it is now)."""
        task = getattr(getattr(handle, "_callback", None), "__self__", None)
        coro = task.get_coro() if isinstance(task, asyncio.Task) else None
        if coro is None:
            return repr(handle)[:160]
        frame, names = coro, []
        while frame is not None and len(names) < 6:
            names.append(getattr(frame, "__qualname__", type(frame).__name__))
            frame = getattr(frame, "cr_await", None)
        return " > ".join(names)[:300]

    asyncio.events.Handle._run = _timed_run  # type: ignore[method-assign]

    import gc

    _gc: list[tuple[float, float, int]] = []  # [end, seconds, generation] over 5 ms
    _gc_start = [0.0]

    def _gc_timer(phase: str, info: dict[str, int]) -> None:
        # a collection stops every thread, the loop's included: these are the pauses
        # that show up as a long callback of whatever allocated last
        now = _clock()
        if phase == "start":
            _gc_start[0] = now
        elif now - _gc_start[0] > 0.005:
            _gc.append((now, now - _gc_start[0], info.get("generation", -1)))

    gc.callbacks.append(_gc_timer)

    if os.environ.get("DOOR_GC_CENSUS"):
        # what a middle-generation pass has to walk, by type (a diagnosis aid: slow)
        from collections import Counter

        _census: list[tuple[float, int, list[tuple[str, int]]]] = []
        _last = [0.0]

        def _gc_census(phase: str, info: dict[str, int]) -> None:
            if phase != "start" or info.get("generation") != 1:
                return
            now = _clock()
            if now - _last[0] < 10.0:
                return
            _last[0] = now
            objs = gc.get_objects(0) + gc.get_objects(1)
            kinds = Counter(type(o).__qualname__ for o in objs)
            _census.append((now, len(objs), kinds.most_common(15)))

        gc.callbacks.append(_gc_census)
        _gc_extra = _census
    else:
        _gc_extra = []

    def _write() -> None:
        with open(_FILE, "w", encoding="utf-8") as out:
            json.dump({"callbacks": _count[0], "long": _long, "gc": _gc, "census": _gc_extra}, out)

    atexit.register(_write)
