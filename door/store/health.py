"""Whether a database can be served at all: looked at once, before anything opens it.

SQLite: the file must be a readable, writable regular file (or absent, or empty: a new
database) that passes ``PRAGMA quick_check``. ``quick_check`` reads every page of the
file and checks each b-tree's structure (not that indexes match their tables, which
``integrity_check`` does, 2-3 times slower): it is O(size of the file). On 10,000
finished backgammon games (3 million events, a 262 MB file) it takes about 0.6 s with
the file in the page cache (bench/quick_check.py), once per start; a cold start adds
one read of the file. PostgreSQL has no such check (its pages
carry their own checksums when the cluster is made with them): there the server must
answer, and the schema must be one this door knows.

Every problem is a :class:`DatabaseUnusableError` whose message says what is wrong and
what to do, so that ``door serve`` and the other commands end with one clear paragraph and
a non-zero status, never a traceback.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from door.games.base import Refusal

QUICK_CHECK_LINES = 5
"""How many of ``quick_check``'s complaints a message quotes."""


class DatabaseUnusableError(Refusal):
    """The database cannot be used: damaged, not a database, unreadable, unreachable, or
    of a schema this door does not know. The message says what to do."""


def restore_advice(path: Path) -> str:
    """How a sysop gets a damaged SQLite file back from a backup (door has no restore
    command: a backup made by ``door db backup`` is a complete database file)."""
    return (
        f"To restore from a backup made with `door db backup BACKUP`: stop door, move "
        f"{path} (and any {path.name}-wal and {path.name}-shm beside it) aside, copy the "
        f"backup file to {path} (cp BACKUP {path}; chmod 600 {path}), then start door "
        f"again. With no backup, `sqlite3 {path} .recover` may save part of it "
        f"into a new file."
    )


def check_sqlite_file(path: Path) -> None:
    """Raise :class:`DatabaseUnusableError` unless ``path`` is absent, empty (SQLite reads
    an empty file as a new database) or an SQLite database that passes ``quick_check``.

    Opened with a plain ``sqlite3`` connection of its own (nothing else has opened the
    file yet); a WAL left by a crash is recovered by this first open, as it would be by
    door's own.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise DatabaseUnusableError(f"cannot look at the database {path}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise DatabaseUnusableError(
            f"{path} is a folder, not a database file; move it away (door then makes a "
            f"new database) or put the database file there. " + restore_advice(path)
        )
    if not stat.S_ISREG(st.st_mode):
        raise DatabaseUnusableError(f"{path} is not a regular file, so it cannot be the database")
    try:
        os.close(os.open(path, os.O_RDWR))
    except PermissionError:
        raise DatabaseUnusableError(
            f"door (user id {os.geteuid()}) cannot read and write the database {path} "
            f"(mode {stat.S_IMODE(st.st_mode):04o}, owner {st.st_uid}); run door as the "
            f"file's owner, or give it to door's user (chown) with mode 600"
        ) from None
    except OSError as exc:
        raise DatabaseUnusableError(f"cannot open the database {path}: {exc.strerror}") from None
    if st.st_size == 0:
        return
    problems = _quick_check(path)
    if problems:
        shown = "; ".join(problems[:QUICK_CHECK_LINES])
        more = len(problems) - QUICK_CHECK_LINES
        if more > 0:
            shown += f"; and {more} more"
        raise DatabaseUnusableError(
            f"the database {path} is damaged ({shown}), so door will not serve it. "
            + restore_advice(path)
        )


def _quick_check(path: Path) -> list[str]:
    """``quick_check``'s complaints (none for a sound file)."""
    uri = f"{path.resolve().as_uri().replace('file://', 'file:', 1)}?mode=rw"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=30)
    except sqlite3.Error as exc:
        return [f"it cannot be opened: {exc}"]
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        name = getattr(exc, "sqlite_errorname", "")
        if name == "SQLITE_NOTADB":
            return ["it is not an SQLite database at all"]
        return [str(exc)]
    finally:
        conn.close()
    lines = [str(r[0]) for r in rows]
    return [] if lines == ["ok"] else lines
