"""A real ``door serve`` for the end-to-end tests: started, waited for until it says it
serves, and stopped (terminated, killed if it will not go) whatever the test did."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

WAIT_S = 30.0


@contextlib.contextmanager
def door_serving(
    data: Path, config: Path, *, cwd: Path, env: Mapping[str, str], log: Path,
    extra: Sequence[str] = (), wait_s: float = WAIT_S,
) -> Iterator[subprocess.Popen[bytes]]:  # fmt: skip
    """``door serve --data-dir data --config config [extra]`` in ``cwd``, its output in
    ``log``; yields the process once it serves (AssertionError with the log if it
    exits or takes longer than ``wait_s``)."""
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "door", "serve", "--data-dir", str(data),
             "--config", str(config), *extra],
            cwd=cwd, env=dict(env), stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        end = time.monotonic() + wait_s
        while "door: serving" not in log.read_text():
            if proc.poll() is not None or time.monotonic() > end:
                raise AssertionError(f"door serve did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
