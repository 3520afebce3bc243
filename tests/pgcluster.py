"""A throwaway PostgreSQL cluster for the PostgreSQL-backed tests.

Started once per test session on a Unix socket in a temporary folder (no TCP port), with
trust authentication, and stopped at the end. Debian's binaries live in
/usr/lib/postgresql/<version>/bin; as root, initdb must run as the ``postgres`` user.
``DOOR_TEST_PG_URL`` in the environment points at an existing server instead.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass


def find_bindir() -> str | None:
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
    for d in reversed(dirs):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    return None


@dataclass
class Cluster:
    url: str
    bindir: str | None
    tmp: str | None
    prefix: list[str]

    def stop(self) -> None:
        if self.bindir and self.tmp:
            subprocess.run(
                [*self.prefix, f"{self.bindir}/pg_ctl", "-D", f"{self.tmp}/data", "-m", "immediate", "stop"],
                capture_output=True,
                check=False,
            )
            shutil.rmtree(self.tmp, ignore_errors=True)


def start_cluster() -> Cluster | None:
    """Start a cluster, or return ``None`` when no PostgreSQL binaries exist here."""
    if os.environ.get("DOOR_TEST_PG_URL"):
        return Cluster(os.environ["DOOR_TEST_PG_URL"], None, None, [])
    bindir = find_bindir()
    if bindir is None:
        return None
    tmp = tempfile.mkdtemp(prefix="door-pg-")
    prefix: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    subprocess.run(
        [*prefix, f"{bindir}/initdb", "-D", f"{tmp}/data", "-A", "trust", "-U", "door"],
        check=True,
        capture_output=True,
    )
    opts = f"-k {tmp} -c listen_addresses='' -c max_connections=300 -c fsync=off"
    subprocess.run(
        [*prefix, f"{bindir}/pg_ctl", "-D", f"{tmp}/data", "-o", opts, "-l", f"{tmp}/log", "-w", "start"],
        check=True,
        capture_output=True,
    )
    return Cluster(f"postgresql+asyncpg://door@/postgres?host={tmp}", bindir, tmp, prefix)
