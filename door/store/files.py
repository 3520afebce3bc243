"""The database's files on disk: private to door's own user, whatever the umask.

The SQLite file holds password hashes, so the data folder is created 0700 and the
database, its ``-wal`` and ``-shm`` files and its backups 0600. The file is created here
(``os.open`` with mode 0600, then ``fchmod``, so no umask can widen or narrow it) before
SQLite first opens it; SQLite gives the ``-wal`` and ``-shm`` files it creates later the
database file's own mode (``findCreateFileMode`` and ``unixOpenSharedMemory`` in
``os_unix.c``), so they follow. No process-wide ``umask`` change is involved: that would
race with every other thread creating files.

Files made before this (0644 under the usual umask) are the sysop's to fix or door's to
tighten: :func:`wide_modes` lists them (``door check`` prints them, with the ``chmod``),
:func:`tighten` narrows the database files (``door serve`` and ``door local`` do, and
log it) but leaves a folder it did not create alone (it may be a folder the sysop chose
and shares on purpose; the files in it are what holds the secrets).
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
SIDE_SUFFIXES = ("-wal", "-shm", "-journal")
"""SQLite's side files of a database (the journal only outside WAL mode)."""


@dataclass(frozen=True)
class WideMode:
    """A file or folder that users other than its owner may read (or enter)."""

    path: Path
    mode: int
    is_dir: bool

    @property
    def wanted(self) -> int:
        return DIR_MODE if self.is_dir else FILE_MODE

    def advice(self) -> str:
        """One line for a sysop: what is wrong and the command that fixes it."""
        what = "folder" if self.is_dir else "file"
        return (
            f"the {what} {self.path} can be read by other users (mode {self.mode:04o}); "
            f"fix it with: chmod {self.wanted:o} {_quoted(self.path)}"
        )


def make_private_dir(path: Path) -> None:
    """Create the folder ``path`` (and its parents) if missing; a folder made here is 0700
    whatever the umask. An existing folder is left as it is (see the module docstring)."""
    if path.is_dir():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        return  # made meanwhile by someone else, or a file: the caller's open says so
    os.chmod(path, DIR_MODE)  # mkdir's mode passed through the umask


def create_private_file(path: Path) -> bool:
    """Create ``path`` empty with mode 0600 (whatever the umask) unless something exists
    there; True if it was created here."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return False
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    return True


def prepare_database_file(path: Path) -> None:
    """Make the SQLite file's folder (0700 when made here) and the file itself (0600),
    before SQLite opens it; an existing file is not touched."""
    make_private_dir(path.parent)
    with contextlib.suppress(OSError):  # a directory in the way, no permission: the
        create_private_file(path)  # opening of the database reports it clearly


def database_files(path: Path) -> list[Path]:
    """The SQLite file and whichever of its side files exist."""
    return [path] + [p for p in (Path(f"{path}{s}") for s in SIDE_SUFFIXES) if p.exists()]


def wide_modes(paths: list[Path], folders: list[Path]) -> list[WideMode]:
    """Those of ``paths`` (files) and ``folders`` that group or others may access."""
    found: list[WideMode] = []
    for path, is_dir in [*((p, False) for p in paths), *((f, True) for f in folders)]:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if is_dir != stat.S_ISDIR(st.st_mode):
            continue
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o077:
            found.append(WideMode(path, mode, is_dir))
    return found


def tighten(files: list[Path]) -> list[WideMode]:
    """chmod each of ``files`` that others may read to 0600; what was changed (as it was)."""
    changed: list[WideMode] = []
    for wide in wide_modes(files, []):
        try:
            os.chmod(wide.path, FILE_MODE)
        except OSError:
            continue  # not ours (another owner): door check keeps saying so
        changed.append(wide)
    return changed


def _quoted(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))
