"""Safety of what players write to each other (issue 17, point 5).

:func:`clean_message` is applied to every note, chat line, mail and page before it is
stored or shown: a hostile sender's bytes must never reach another player's terminal as
anything but plain printable text. :class:`RateLimit` turns a flood away with
:data:`SLOW_DOWN`. :func:`refusal_for_muted` is the one mute rule of chat, mail and pages.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime

from door.services.clock import Clock
from door.store.repository import Repository

SLOW_DOWN = "Slow down: you are sending too fast; wait a few seconds and try again."
"""What a sender over their rate limit is told."""

_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
"""Bidi embeddings, overrides, isolates and marks: they reorder the text around them."""

_ESC = "\x1b"
_CSI = "\x9b"
_STRINGS_8BIT = frozenset("\x90\x98\x9d\x9e\x9f")  # DCS, SOS, OSC, PM, APC
_STRINGS_7BIT = frozenset("PX]^_")  # ESC P / X / ] / ^ / _
_ST = "\x9c"


def _is_control(ch: str) -> bool:
    """C0, DEL, C1, and Unicode's other control/format/surrogate/private/unassigned
    characters (a terminal may act on any of them)."""
    if ch in _BIDI:
        return True
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")


def _skip_string(text: str, i: int) -> int:
    """Index after a control string (OSC/DCS/SOS/PM/APC body) starting at ``i``: it ends
    at BEL, ST (ESC \\ or 0x9C), or the end of the text."""
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in ("\x07", _ST):
            return i + 1
        if ch == _ESC:
            return i + 2 if i + 1 < n and text[i + 1] == "\\" else i + 1
        i += 1
    return n


def _skip_csi(text: str, i: int) -> int:
    """Index after a CSI sequence's parameters, intermediates and final byte from ``i``."""
    n = len(text)
    while i < n and "\x20" <= text[i] <= "\x3f":
        i += 1
    if i < n and "\x40" <= text[i] <= "\x7e":
        return i + 1
    return i


def _strip_sequences(text: str) -> str:
    """``text`` with every escape sequence (7-bit ESC forms and 8-bit C1 forms) removed
    whole, so none of its bytes can be printed as a half sequence."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == _ESC:
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt == "[":
                i = _skip_csi(text, i + 2)
            elif nxt in _STRINGS_7BIT:
                i = _skip_string(text, i + 2)
            elif nxt and "\x20" <= nxt <= "\x2f":  # ESC intermediates then a final byte
                i += 2
                while i < n and "\x20" <= text[i] <= "\x2f":
                    i += 1
                i += 1 if i < n and "\x30" <= text[i] <= "\x7e" else 0
            elif nxt and "\x30" <= nxt <= "\x7e":
                i += 2  # a two-character escape (ESC c, ESC 7, ESC =, ...)
            else:
                i += 1
            continue
        if ch == _CSI:
            i = _skip_csi(text, i + 1)
            continue
        if ch in _STRINGS_8BIT:
            i = _skip_string(text, i + 1)
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def clean_message(text: str, limit: int, *, multiline: bool = False) -> str:
    """``text`` as it may be stored and shown: no ESC or escape sequence (CSI, OSC
    including OSC 52, DCS, SOS, PM, APC, in 7-bit and 8-bit forms), no other C0 or C1
    control, DEL, bidi control, format or surrogate character; tabs and line ends become
    spaces (with ``multiline`` a line end stays as ``\\n``); at most ``limit`` characters
    (none for a ``limit`` below 1). Never raises: anything not a ``str`` gives ``""``."""
    if not isinstance(text, str) or limit < 1:
        return ""
    text = _strip_sequences(text.replace("\r\n", "\n").replace("\r", "\n"))
    out: list[str] = []
    for ch in text:
        if ch == "\n":
            out.append("\n" if multiline else " ")
        elif ch == "\t":
            out.append(" ")
        elif not _is_control(ch):
            out.append(ch)
    return "".join(out)[:limit]


def refusal_for_muted(repo: Repository, user_id: int, now: datetime) -> str | None:
    """Inside the sender's transaction: what a user a sysop muted (``mutes``, until a
    time still ahead of ``now``) is told instead of sending, else None."""
    until = repo.mute_until(user_id)
    if until is None or until <= now:
        return None
    return f"You are muted until {until:%Y-%m-%d %H:%M} UTC: you cannot send messages until then."


class RateLimit:
    """A token bucket per user: ``burst`` messages at once, then ``per_minute`` a minute.

    One per process (a flood from one session is refused where it is typed); the buckets
    live on the instance, nothing is shared through the module.
    """

    def __init__(self, clock: Clock, per_minute: int, burst: int) -> None:
        self.clock = clock
        self.rate = max(per_minute, 1) / 60.0
        """Tokens a second."""
        self.burst = float(max(burst, 1))
        self._buckets: dict[int, tuple[float, datetime]] = {}

    def allow(self, user_id: int) -> bool:
        """True (and one message counted) when ``user_id`` may send now; False when they
        are over their limit (then nothing is counted)."""
        now = self.clock.now()
        tokens, at = self._buckets.get(user_id, (self.burst, now))
        elapsed = max((now - at).total_seconds(), 0.0)
        tokens = min(self.burst, tokens + elapsed * self.rate)
        if tokens < 1.0:
            self._buckets[user_id] = (tokens, now)
            return False
        self._buckets[user_id] = (tokens - 1.0, now)
        if len(self._buckets) > 10_000:  # forget the full buckets of the long quiet
            self._forget_full(now)
        return True

    def _forget_full(self, now: datetime) -> None:
        for uid, (tokens, at) in list(self._buckets.items()):
            if tokens + (now - at).total_seconds() * self.rate >= self.burst:
                del self._buckets[uid]
