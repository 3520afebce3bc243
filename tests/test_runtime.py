"""door/runtime.py: the server's collector and allocator tuning, applied only when asked."""

from __future__ import annotations

import gc
import platform
from collections.abc import Iterator

import pytest

from door.runtime import GC_THRESHOLDS, raise_open_files, tune_malloc, tune_runtime


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    """Give the test process its collector back as it was (tuning is process-wide)."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_switched_off_it_leaves_the_collector_as_it_was() -> None:
    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    assert tune_runtime(False) is None
    assert gc.get_threshold() == thresholds
    assert gc.get_freeze_count() == frozen


def test_switched_on_the_collector_runs_at_the_module_thresholds() -> None:
    tuning = tune_runtime(True)
    assert tuning is not None and tuning.gc_thresholds == GC_THRESHOLDS
    assert gc.get_threshold() == GC_THRESHOLDS


def test_switched_on_what_start_up_built_is_frozen_out_of_collections() -> None:
    survivor = [object()]
    tune_runtime(True)
    assert gc.get_freeze_count() > 0
    assert not any(obj is survivor for obj in gc.get_objects())


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_takes_the_fixed_mmap_threshold() -> None:
    assert tune_malloc() is True


def test_open_files_limit_is_raised_towards_what_the_connections_need() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 300:
        pytest.skip("the hard limit on open files is below 300 here")
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        assert raise_open_files(300) == 300
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 300
        assert raise_open_files(100) == 300  # never lowered
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
