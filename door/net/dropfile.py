"""BBS drop files: DOOR32.SYS, DOOR.SYS and DORINFOx.DEF.

Recognised by file name first, then by content. CRLF or LF line endings, CP437 text,
missing trailing lines tolerated (the fields a door needs come early). The caller gets a
:class:`DropFile` or a :class:`DropFileError` whose message says what is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from door.games.base import Refusal

DropFormat = Literal["door32", "doorsys", "dorinfo"]

MAX_BYTES = 64 * 1024


class DropFileError(Refusal):
    """The drop file is missing, unreadable or not in a format we know."""


@dataclass(frozen=True)
class DropFile:
    """The caller as the BBS describes them.

    ``alias`` is the identity (with the BBS tag from the config it names a door user);
    ``minutes_left`` is ``None`` when the file does not say; ``ansi`` is False for plain
    ASCII callers; ``rows`` is the page length when given.
    """

    format: DropFormat
    alias: str
    real_name: str
    user_number: int | None
    minutes_left: int | None
    ansi: bool
    rows: int | None
    node: int | None
    bbs_name: str = ""


# What each number a drop file holds may be (inclusive). Wider than any BBS writes (a
# 16-bit "unlimited" time is 32767 minutes), narrow enough that nothing downstream
# overflows: a number outside is a broken or hostile file, refused with its line.
TIME_LEFT_MINUTES = (-99_999, 99_999)
TIME_LEFT_SECONDS = (TIME_LEFT_MINUTES[0] * 60, TIME_LEFT_MINUTES[1] * 60)
SCREEN_ROWS = (0, 999)
NODE = (0, 65_535)
USER_NUMBER = (0, 2**31 - 1)
GRAPHICS_MODE = (0, 99)


def _number(
    lines: list[str], number: int, what: str, bounds: tuple[int, int], source: str
) -> int | None:
    """Line ``number`` as a whole number within ``bounds``; None when absent or not one.

    Leading digits count (``"45 min"`` is 45); a number outside ``bounds`` is a
    :class:`DropFileError` that names ``source``, the line and the range.
    """
    m = re.match(r"\s*(-?)0*(\d+)", _line(lines, number) or "")
    if m is None:
        return None
    low, high = bounds
    digits = m.group(2)
    # More digits than the bound has cannot be in range (and int() of 5,000 raises).
    value = int(m.group(1) + digits) if len(digits) <= len(str(max(-low, high))) else None
    if value is None or not low <= value <= high:
        raise DropFileError(f"{source} line {number} ({what}) must be {low} to {high}")
    return value


def _line(lines: list[str], number: int) -> str | None:
    """1-based line ``number`` (stripped), or None when the file is shorter."""
    return lines[number - 1].strip() if len(lines) >= number else None


def _clean(text: str) -> str:
    return "".join(ch for ch in text if ch.isprintable()).strip()


def detect_format(name: str, lines: list[str]) -> DropFormat | None:
    """Which format ``lines`` are in, from the file ``name`` and then the content."""
    low = name.lower()
    if low == "door32.sys":
        return "door32"
    if low == "door.sys":
        return "doorsys"
    if re.fullmatch(r"dorinfo[0-9a-z]?\.def", low):
        return "dorinfo"
    first = lines[0].strip().upper() if lines else ""
    if re.fullmatch(r"COM\d+:?", first) and first.endswith(":"):
        return "doorsys"
    if first in ("0", "1", "2") and len(lines) <= 12:
        return "door32"
    if len(lines) >= 7 and re.fullmatch(r"(COM\d+|\d+)", (_line(lines, 4) or "").upper()):
        return "dorinfo"
    if re.fullmatch(r"COM\d+:?", first):
        return "doorsys"
    return None


def parse_dropfile(text: str, name: str = "") -> DropFile:
    """Parse drop-file ``text`` (``name`` helps recognise the format)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    fmt = detect_format(name, lines)
    if fmt is None:
        raise DropFileError(
            f"{name or 'the drop file'} is not DOOR32.SYS, DOOR.SYS or DORINFOx.DEF"
        )
    if fmt == "door32":
        return _door32(lines)
    if fmt == "doorsys":
        return _doorsys(lines)
    return _dorinfo(lines, name)


def _door32(lines: list[str]) -> DropFile:
    alias = _clean(_line(lines, 7) or "")
    real = _clean(_line(lines, 6) or "")
    if not alias:
        alias = real
    if not alias:
        raise DropFileError("DOOR32.SYS has no user alias (line 7) or name (line 6)")
    source = "DOOR32.SYS"
    emulation = _number(lines, 10, "emulation", GRAPHICS_MODE, source)
    return DropFile(
        format="door32",
        alias=alias,
        real_name=real,
        user_number=_number(lines, 5, "user number", USER_NUMBER, source),
        minutes_left=_number(lines, 9, "time left, minutes", TIME_LEFT_MINUTES, source),
        ansi=emulation is None or emulation != 0,
        rows=None,
        node=_number(lines, 11, "node", NODE, source),
        bbs_name=_clean(_line(lines, 4) or ""),
    )


def _doorsys(lines: list[str]) -> DropFile:
    real = _clean(_line(lines, 10) or "")
    alias = _clean(_line(lines, 36) or "") or real
    if not alias:
        raise DropFileError("DOOR.SYS has no user name (line 10)")
    source = "DOOR.SYS"
    minutes = _number(lines, 19, "time left, minutes", TIME_LEFT_MINUTES, source)
    if minutes is None:
        seconds = _number(lines, 18, "time left, seconds", TIME_LEFT_SECONDS, source)
        minutes = None if seconds is None else seconds // 60
    graphics = (_line(lines, 20) or "GR").upper()
    rows = _number(lines, 21, "screen rows", SCREEN_ROWS, source)
    return DropFile(
        format="doorsys",
        alias=alias,
        real_name=real,
        user_number=_number(lines, 26, "user number", USER_NUMBER, source),
        minutes_left=minutes,
        ansi=graphics != "NG" and graphics != "7E",
        rows=rows if rows and rows > 0 else None,
        node=_number(lines, 4, "node", NODE, source),
    )


def _dorinfo(lines: list[str], name: str) -> DropFile:
    first = _clean(_line(lines, 7) or "")
    last = _clean(_line(lines, 8) or "")
    alias = f"{first} {last}".strip()
    if not alias:
        raise DropFileError("DORINFO has no caller name (line 7)")
    source = "DORINFO"
    graphics = _number(lines, 10, "graphics", GRAPHICS_MODE, source)
    m = re.fullmatch(r"dorinfo([0-9])\.def", name.lower())
    return DropFile(
        format="dorinfo",
        alias=alias,
        real_name=alias,
        user_number=None,
        minutes_left=_number(lines, 12, "time left, minutes", TIME_LEFT_MINUTES, source),
        # ANSI is 2 in the RBBS convention and 1 in QuickBBS/RA: anything but 0 is ANSI.
        ansi=graphics is None or graphics != 0,
        rows=None,
        node=int(m.group(1)) if m else None,
        bbs_name=_clean(_line(lines, 1) or ""),
    )


def read_dropfile(path: str | Path) -> DropFile:
    """Read and parse the drop file at ``path``; :class:`DropFileError` if it cannot."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except FileNotFoundError as exc:
        raise DropFileError(f"drop file {p} does not exist") from exc
    except IsADirectoryError as exc:
        raise DropFileError(f"drop file {p} is a directory, not a file") from exc
    except PermissionError as exc:
        raise DropFileError(f"drop file {p} cannot be read: permission denied") from exc
    except OSError as exc:
        raise DropFileError(f"drop file {p} cannot be read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_BYTES:
        raise DropFileError(f"drop file {p} is too large to be a drop file")
    if not raw.strip():
        raise DropFileError(f"drop file {p} is empty")
    return parse_dropfile(raw.decode("cp437"), p.name)
