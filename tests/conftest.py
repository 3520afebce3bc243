"""Shared fixtures. Tests mirror door/; each test checks one behaviour, named for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.pgcluster import Cluster, start_cluster


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of a throwaway PostgreSQL database (the cluster lives for the test session)."""
    cluster: Cluster | None = start_cluster()
    if cluster is None:
        pytest.skip("no PostgreSQL binaries on this machine (apt-get install postgresql)")
    try:
        yield cluster.url
    finally:
        cluster.stop()
