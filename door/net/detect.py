"""Encoding and size detection: terminal-type lists, LANG, and the cursor-position probe.

The decision, strongest first: the player's remembered choice; the probe (a zero-width
no-break space sent as UTF-8 moves a CP437 terminal's cursor three columns and a UTF-8
terminal's not at all); LANG; the terminal type (ENiGMA½'s lists); CP437 by default, since
dedicated BBS terminals are CP437 and Unix terminals announce themselves.
"""

from __future__ import annotations

import re

from door.ui.terminal import Encoding

# Terminal types that render CP437 bytes directly (BBS terminals).
CP437_TERMS = (
    "ansi",
    "pcansi",
    "pc-ansi",
    "ansi-bbs",
    "qansi",
    "scoansi",
    "syncterm",
    "cterm",
    "ansi-256color",
    "ansi-256color-rgb",
    "pc3",
)

# Terminal families that expect UTF-8 (Unix terminals and emulators).
UTF8_TERM_FAMILIES = (
    "xterm",
    "linux",
    "screen",
    "tmux",
    "dumb",
    "rxvt",
    "konsole",
    "gnome",
    "x11 terminal emulator",
    "putty",
    "alacritty",
    "kitty",
    "foot",
    "wezterm",
    "iterm",
)

# Terminal families that report clicks as xterm SGR mouse reports (modes 1000/1002 with
# 1006 coordinates) when asked. Not "ansi", "vt100", "linux" (the console has no mouse
# reports), "dumb" or fTelnet's "ansi-bbs": a terminal that does not say it can gets
# none of it.
MOUSE_TERM_FAMILIES = (
    "xterm",
    "screen",
    "tmux",
    "putty",
    "syncterm",
    "cterm",
    "rxvt",
    "konsole",
    "gnome",
    "alacritty",
    "kitty",
    "foot",
    "wezterm",
    "iterm",
    "iterm2",
    "vte",
    "contour",
    "mintty",
)

FALLBACK_WIDTH = 80
FALLBACK_HEIGHT = 24
MIN_WIDTH, MAX_WIDTH = 20, 400
MIN_HEIGHT, MAX_HEIGHT = 8, 200

# The probe: save the cursor, move to the far bottom-right, report (= the screen size),
# restore, then print U+FEFF as UTF-8 at column 1 and report again.
SIZE_PROBE = b"\r\x1b[s\x1b[255B\x1b[255C\x1b[6n\x1b[u\r"
UTF8_PROBE = b"\r\xef\xbb\xbf\x1b[6n"
PROBE = SIZE_PROBE + UTF8_PROBE
PROBE_CLEANUP = b"\r\x1b[K"


def encoding_from_term(term: str | None) -> Encoding | None:
    """CP437 or UTF-8 for a known terminal type; ``None`` when the type says nothing."""
    if not term:
        return None
    t = term.strip().lower()
    if t in CP437_TERMS:
        return "cp437"
    # "xterm-256color", "screen.xterm-256color", "rxvt-unicode": the family is the first word.
    family = re.split(r"[-.]", t, maxsplit=1)[0]
    if t in UTF8_TERM_FAMILIES or family in UTF8_TERM_FAMILIES:
        return "utf-8"
    return None


def mouse_from_term(term: str | None) -> bool:
    """Whether a terminal of type ``term`` reports mouse clicks (SGR 1006) when asked:
    its family (the first word, as for the encoding) is one that does."""
    if not term:
        return False
    t = term.strip().lower()
    family = re.split(r"[-.]", t, maxsplit=1)[0]
    return t in MOUSE_TERM_FAMILIES or family in MOUSE_TERM_FAMILIES


_ZONE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}")


def zone_hint(value: object) -> str | None:
    """A client's TZ (or browser zone) as a hint of an IANA zone name: ``Europe/Berlin``
    (a leading ``:`` dropped, as POSIX TZ allows); None for anything else (a POSIX rule
    such as ``CET-1CEST``, a path, garbage)."""
    if not isinstance(value, str):
        return None
    text = value.strip().removeprefix(":")
    if len(text) > 64 or not _ZONE_RE.fullmatch(text) or text.startswith("/"):
        return None
    if "/" not in text and text != "UTC":
        return None  # "CET", "EST5EDT" and the like: rules or abbreviations, not places
    return text


def encoding_from_lang(lang: str | None) -> Encoding | None:
    """UTF-8 when LANG (or LC_ALL) names it; ``None`` otherwise."""
    if not lang:
        return None
    norm = lang.lower().replace("-", "").replace("_", "")
    if "utf8" in norm:
        return "utf-8"
    if "437" in norm:
        return "cp437"
    return None


def encoding_from_probe(column: int | None) -> Encoding | None:
    """Interpret the column reported after printing U+FEFF (UTF-8 bytes) at column 1."""
    if column is None or column <= 0:
        return None
    return "utf-8" if column < 3 else "cp437"


def decide_encoding(
    *,
    choice: str | None = None,
    probe: Encoding | None = None,
    lang: str | None = None,
    term: str | None = None,
    default: Encoding = "cp437",
) -> Encoding:
    """Pick the encoding from everything known, strongest evidence first."""
    if choice in ("cp437", "utf-8"):
        return choice  # type: ignore[return-value]
    return probe or encoding_from_lang(lang) or encoding_from_term(term) or default


def clamp_size(width: int | None, height: int | None) -> tuple[int, int]:
    """A sane (width, height): each out-of-range or missing value falls back to 80×24."""
    w = width if width is not None and MIN_WIDTH <= width <= MAX_WIDTH else FALLBACK_WIDTH
    h = height if height is not None and MIN_HEIGHT <= height <= MAX_HEIGHT else FALLBACK_HEIGHT
    return w, h


def wants_probe(term: str | None, have_size: bool) -> bool:
    """Probe only when the terminal type or the size is unknown: known types are trusted."""
    return encoding_from_term(term) is None or not have_size
