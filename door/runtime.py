"""Process-wide tuning of the allocator and the garbage collector for ``door serve``.

Both settings change the whole process, so they are applied once, by the server's entry
point (:func:`door.app.start_server`) after start-up, and only when the config's
``[server] tune_runtime`` is true (the default). An embedded :class:`door.app.App` (tests,
tools) leaves the interpreter as it found it.

What it buys (bench/PROFILE.md, ``bench/load.py``):

* The collector. Every session keeps the canvas its terminal shows: thousands of
  GC-tracked cells each, living until that person's next key. With CPython's default
  thresholds the older generations held a million objects and each full pass stopped the
  event loop for ~0.27 s; at 300 players the collector took 11.2 s of a 70 s run.
  Freezing what start-up built (modules, tables, the schema) keeps it out of every later
  pass: with a young threshold of 20,000 that gave 2.3 s of 70, and a 300-player p99 of
  205 ms instead of 1,107 ms. A young pass walks every reference made since the last
  one, so at 20,000 each still took 20-80 ms at 300 players and 50-195 ms at 550; at
  2,000 one takes 2.8 ms (p50). What outlives it (a pending read, the screen shown) lives
  seconds, so the middle generation is collected rarely (about once a minute, 60-160 ms);
  cycles are still collected, just less often. Those pauses were most of the tail that
  the second round of work took from a 550-player p99 of 376 ms to 44-48 ms.
* The allocator. Every login hashes with scrypt, which borrows 16 MiB in a worker thread.
  glibc raises its mmap threshold after the first such block is freed, so later ones come
  from the threads' heap arenas and stay resident: about 100 MiB for nothing on a busy
  server. A fixed threshold keeps them mmapped, and returned as soon as the hash is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from dataclasses import dataclass

GC_THRESHOLDS = (2_000, 100, 100)
"""``gc.set_threshold`` for a server: young pass every 2,000 allocations, older ones rarely."""

MMAP_THRESHOLD = 128 * 1024
"""glibc ``M_MMAP_THRESHOLD`` (bytes): blocks this big or bigger are mmapped, never pooled."""

_M_MMAP_THRESHOLD = -3  # the mallopt parameter number, from glibc's malloc.h


@dataclass(frozen=True)
class Tuning:
    """What :func:`tune_runtime` did: whether glibc took the threshold; the GC thresholds."""

    malloc: bool
    gc_thresholds: tuple[int, int, int]


def tune_runtime(enabled: bool) -> Tuning | None:
    """Tune the allocator and the collector when ``enabled``; ``None`` (nothing done) if not.

    Call it after start-up: what exists then is frozen out of every later collection.
    """
    if not enabled:
        return None
    malloc = tune_malloc()
    tune_gc()
    return Tuning(malloc=malloc, gc_thresholds=GC_THRESHOLDS)


def tune_malloc() -> bool:
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD`; False where there is no glibc."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False  # not glibc: nothing to tune
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def tune_gc() -> None:
    """Collect, freeze what survives (start-up's objects), then set :data:`GC_THRESHOLDS`."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def raise_open_files(needed: int) -> int:
    """Raise the soft limit on open files towards ``needed`` (at most the hard limit).

    Every connection is a file descriptor; the usual soft limit (1024) is about the
    default ``max_connections`` (1000) plus nothing, so a full server would fail to accept
    at random instead of refusing with a message. Returns the soft limit now in force.
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return int(soft)
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return int(soft)
    return int(target)
