"""The key decoder: a byte (or character) stream in, :class:`Key`/:class:`Text` events out.

Accepts both terminal families a door meets: CTerm/ANSI-BBS (SyncTERM, NetRunner: ``CSI K``
is End, ``CSI V``/``CSI U`` are PgUp/PgDn, ``CSI @`` Insert) and xterm/VT (``CSI 1~`` …
``CSI 6~``, ``SS3 P`` F1, application-mode arrows). CR, CR LF, CR NUL and LF are each one
Enter; 0x08 and 0x7F are Backspace (0x7F is Delete for SyncTERM, which sends 0x08 for
Backspace: set ``del_is_delete``). xterm mouse reports become :class:`Mouse` events:
SGR (mode 1006) ``CSI < b ; x ; y M`` (press) / ``m`` (release), and the older X10/normal
``CSI M b x y`` (three raw bytes); a report that is malformed, cut off or too long is
dropped whole, never typed into a field. An ESC with nothing after it is held until
:meth:`KeyDecoder.flush` (the transport calls it after a short timeout) and then becomes
``Key("escape")``. Terminal replies to probes (cursor position, device attributes) come out
as :class:`Report` events, which the transport consumes.

The decoder never raises on input: unknown sequences are dropped, undecodable bytes become
U+FFFD.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from door.ui.terminal import Encoding, InputEvent, Key, Mouse, MouseAction, MouseButton, Text

ESC = "\x1b"

# Final byte of a parameterless (or modifier-only) CSI sequence → key name.
_CSI_FINAL = {
    "A": "up",
    "B": "down",
    "C": "right",
    "D": "left",
    "H": "home",
    "F": "end",
    "K": "end",  # CTerm / ANSI-BBS
    "V": "pgup",  # CTerm / ANSI-BBS
    "U": "pgdn",  # CTerm / ANSI-BBS
    "@": "insert",  # CTerm / ANSI-BBS
    "Z": "shift-tab",
    "P": "f1",
    "Q": "f2",
    "R": "f3",
    "S": "f4",
    "E": "center",
    "G": "center",
}

# ``CSI n ~`` (VT220 / xterm / rxvt / CTerm function keys).
_CSI_TILDE = {
    1: "home",
    2: "insert",
    3: "delete",
    4: "end",
    5: "pgup",
    6: "pgdn",
    7: "home",
    8: "end",
    11: "f1",
    12: "f2",
    13: "f3",
    14: "f4",
    15: "f5",
    17: "f6",
    18: "f7",
    19: "f8",
    20: "f9",
    21: "f10",
    23: "f11",
    24: "f12",
}

# ``SS3 x`` (application cursor/keypad mode, xterm F1-F4).
_SS3 = {
    "A": "up",
    "B": "down",
    "C": "right",
    "D": "left",
    "H": "home",
    "F": "end",
    "P": "f1",
    "Q": "f2",
    "R": "f3",
    "S": "f4",
    "M": "enter",
}

# Linux console F1-F5: ``CSI [ A`` … ``CSI [ E``.
_LINUX_F = {"A": "f1", "B": "f2", "C": "f3", "D": "f4", "E": "f5"}

# Characters that end a run of ordinary text (C0, DEL, C1; ESC is among them).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

# Longest escape sequence we wait for; anything longer is garbage and is dropped.
_MAX_SEQUENCE = 32


@dataclass(frozen=True)
class Report:
    """A terminal's answer to a probe, not a key.

    ``kind`` is ``"cpr"`` (cursor position: ``values == (row, col)``) or ``"da"`` (device
    attributes; ``raw`` holds the parameter text, e.g. ``"=67;84;101;114;109;1"`` for CTerm).
    """

    kind: str
    values: tuple[int, ...] = ()
    raw: str = ""


DecodedEvent = InputEvent | Report


def _incremental(encoding: Encoding) -> codecs.IncrementalDecoder:
    return codecs.getincrementaldecoder(encoding)(errors="replace")


class KeyDecoder:
    """Turns terminal input into events. Feed it bytes (or str) in any chunking.

    ``encoding`` decides how bytes ≥ 0x80 become characters (CP437 or UTF-8); it can be
    changed with :meth:`set_encoding` as detection learns more.
    """

    def __init__(self, encoding: Encoding = "utf-8", *, del_is_delete: bool = False) -> None:
        # SyncTERM (CTerm) sends 0x08 for Backspace and 0x7F for Delete; everyone else
        # sends 0x7F for Backspace (and CSI 3~ for Delete).
        self.del_is_delete = del_is_delete
        self._encoding: Encoding = encoding
        self._bytes = _incremental(encoding)
        self._buf = ""  # an incomplete escape sequence (starts with ESC)
        self._after_cr = False  # swallow the LF or NUL that may follow a CR
        self._skipping = False  # inside an over-long CSI sequence: drop up to its final byte
        self._swallow = 0  # raw bytes still owed by an X10 mouse report cut off by flush
        self._report_left = 0  # inside a broken SGR mouse report: drop up to its M/m
        self._flushed = ""  # what the last flush dropped, when the rest may still come

    @property
    def encoding(self) -> Encoding:
        return self._encoding

    def set_encoding(self, encoding: Encoding) -> None:
        """Decode later bytes as ``encoding`` (pending partial characters are dropped)."""
        if encoding != self._encoding:
            self._encoding = encoding
            self._bytes = _incremental(encoding)

    @property
    def pending(self) -> bool:
        """True while an escape sequence is incomplete: call :meth:`flush` after a pause."""
        return bool(self._buf)

    def feed(self, data: bytes | str) -> list[DecodedEvent]:
        """Decode ``data`` and return the complete events it finishes."""
        text = self._bytes.decode(data) if isinstance(data, bytes) else data
        if not text:
            return []
        return self._parse(self._buf + text)

    def flush(self) -> list[DecodedEvent]:
        """The input paused: a held ESC is the Escape key; a cut-off sequence is dropped."""
        if not self._buf:
            return []
        buf, self._buf = self._buf, ""
        # A lone ESC is the Escape key; a sequence cut off mid-way is line noise. The rest
        # of a cut-off mouse report may still come (a slow link): it is dropped too, not
        # typed into a field as "12;5M".
        if buf.startswith(ESC + "[<"):
            self._report_left = _MAX_SEQUENCE
        elif buf.startswith(ESC + "[M"):
            self._swallow = max(6 - len(buf), 0)
        self._flushed = buf if buf in (ESC, ESC + "[") else ""
        return [Key("escape")] if buf == ESC else []

    # -- parsing --------------------------------------------------------------------------

    def _parse(self, s: str) -> list[DecodedEvent]:
        events: list[DecodedEvent] = []
        text: list[str] = []
        self._buf = ""

        def emit(event: DecodedEvent) -> None:
            if text:
                events.append(Text("".join(text)))
                text.clear()
            events.append(event)

        flushed, self._flushed = self._flushed, ""
        if (flushed == ESC and s.startswith("[")) or (flushed == ESC + "[" and s[:1] == "<"):
            # The rest of a sequence whose start came before a pause (a lone ESC was taken
            # for Escape): read as the sequence, not typed as "[<0;5;9M" or "[A".
            s = flushed + s
        i, n = 0, len(s)
        while i < n:
            ch = s[i]
            if self._report_left:
                if " " <= ch <= "~":
                    i += 1
                    if ch in "Mm":
                        self._report_left = 0
                    elif not ("0" <= ch <= "9" or ch == ";"):
                        self._report_left -= 1  # garbage: dropped, but only so much of it
                    continue
                self._report_left = 0  # a control ends it (and is input)
            if self._swallow:
                self._swallow -= 1
                i += 1
                continue
            if self._skipping:
                if "\x20" <= ch <= "\x3f":
                    i += 1
                    continue
                self._skipping = False
                if "\x40" <= ch <= "\x7e":
                    i += 1
                    continue
            if self._after_cr:
                self._after_cr = False
                if ch in "\n\x00":
                    i += 1
                    continue
            if ch == ESC:
                consumed, event = self._escape(s, i)
                if consumed == 0:  # incomplete: hold it until more input or a timeout
                    self._buf = s[i:]
                    break
                if event is not None:
                    emit(event)
                i += consumed
                continue
            i += 1
            if ch == "\r":
                self._after_cr = True
                emit(Key("enter"))
            elif ch == "\n":
                emit(Key("enter"))
            elif ch == "\x7f" and self.del_is_delete:
                emit(Key("delete"))
            elif ch in "\x08\x7f":
                emit(Key("backspace"))
            elif ch == "\t":
                emit(Key("tab"))
            elif ch == "\x00":
                continue  # NUL: padding, or a door's stdin with no console
            elif "\x01" <= ch <= "\x1a":
                emit(Key("ctrl-" + chr(ord(ch) + 96)))
            elif ch < " " or "\x80" <= ch <= "\x9f":
                continue  # other C0/C1 controls carry no key
            else:
                # A run of ordinary characters is taken whole: a pasted megabyte must
                # not cost a trip round this loop per character.
                m = _CONTROL.search(s, i)
                j = n if m is None else m.start()
                text.append(s[i - 1 : j])
                i = j
        if text:
            events.append(Text("".join(text)))
        return events

    def _escape(self, s: str, i: int) -> tuple[int, DecodedEvent | None]:
        """Decode the escape sequence at ``s[i]``: (characters consumed, event or None).

        Returns ``(0, None)`` when the sequence is not complete yet.
        """
        n = len(s)
        if i + 1 >= n:
            return 0, None
        intro = s[i + 1]
        if intro == "[":
            return self._csi(s, i)
        if intro == "O":
            if i + 2 >= n:
                return 0, None
            name = _SS3.get(s[i + 2])
            return 3, Key(name) if name else None
        if intro == ESC:
            # ESC ESC: the first is a real Escape key press (some users tap it twice).
            return 1, Key("escape")
        # ESC followed by an ordinary key (Alt/Meta-key): report Escape, keep the key.
        return 1, Key("escape")

    def _csi(self, s: str, i: int) -> tuple[int, DecodedEvent | None]:
        n = len(s)
        j = i + 2
        if j < n and s[j] == "[":  # linux console F1-F5: CSI [ A..E
            if j + 1 >= n:
                return 0, None
            name = _LINUX_F.get(s[j + 1])
            return j + 2 - i, Key(name) if name else None
        if j < n and s[j] == "<":
            return self._sgr_report(s, i)
        while j < n and "\x20" <= s[j] <= "\x3f":  # parameter and intermediate bytes
            j += 1
            if j - i > _MAX_SEQUENCE:
                self._skipping = True  # runaway sequence: drop it, up to its final byte
                return j - i, None
        if j >= n:
            return 0, None
        final = s[j]
        consumed = j + 1 - i
        params = s[i + 2 : j]
        if not ("\x40" <= final <= "\x7e"):
            # Not a valid final byte: drop the introducer, reparse the rest as input.
            return 2, None
        if final == "M" and not params:
            # X10/normal mouse report: CSI M then three raw bytes (button, column, row).
            if j + 3 >= n:
                return 0, None
            return consumed + 3, _x10_mouse(s[j + 1 : j + 4])
        return consumed, _csi_event(params, final)

    def _sgr_report(self, s: str, i: int) -> tuple[int, DecodedEvent | None]:
        """``CSI <`` at ``s[i]``: a mouse report, read up to its ``M``/``m``. Anything
        printable before that (a garbled report) is part of it and dropped with it; a
        control character breaks it off (the control is input); one longer than
        :data:`_MAX_SEQUENCE` is dropped up to its end."""
        n = len(s)
        j = i + 3
        while j < n:
            ch = s[j]
            if ch in "Mm":
                return j + 1 - i, _sgr_mouse(s[i + 2 : j], ch)
            if not " " <= ch <= "~":
                return j - i, None
            j += 1
            if j - i > _MAX_SEQUENCE:
                self._report_left = _MAX_SEQUENCE
                return j - i, None
        return 0, None


def _numbers(params: str) -> tuple[int, ...] | None:
    parts = params.split(";")
    try:
        return tuple(int(p) if p else 0 for p in parts)
    except ValueError:
        return None


MAX_MOUSE_COORDINATE = 9999
"""A reported column or row above this is line noise, not a terminal."""


def _mouse(code: int, x: int, y: int, release: bool) -> Mouse | None:
    """The event for xterm button code ``code`` at the 1-based cell (``x``, ``y``)."""
    if not (1 <= x <= MAX_MOUSE_COORDINATE and 1 <= y <= MAX_MOUSE_COORDINATE):
        return None
    if code < 0 or code >= 128:
        return None  # buttons 8-11 (code 128+): nothing door uses
    low = code & 3
    button: MouseButton
    if code & 64:
        if low > 1:
            return None  # the horizontal wheel
        button = "wheel-up" if low == 0 else "wheel-down"
        if release:
            return None  # SGR reports a wheel "release" some terminals send: not a turn
    else:
        button = ("left", "middle", "right", "none")[low]
    action: MouseAction = "release" if release else ("drag" if code & 32 else "press")
    if button == "none" and action != "release":
        return None  # motion with no button held (mode 1003): not asked for
    return Mouse(
        x - 1, y - 1, button, action,
        shift=bool(code & 4), alt=bool(code & 8), ctrl=bool(code & 16),
    )  # fmt: skip


def _sgr_mouse(params: str, final: str) -> Mouse | None:
    """``CSI < b ; x ; y M`` (``m``: released); ``None`` when it is malformed."""
    parts = params[1:].split(";")
    if final not in "Mm" or len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
        return None
    if any(len(p) > 5 for p in parts):
        return None
    code, x, y = (int(p) for p in parts)
    return _mouse(code, x, y, release=final == "m")


def _x10_mouse(raw: str) -> Mouse | None:
    """The three bytes after ``CSI M``: button + 32, column + 32, row + 32 (1-based)."""
    code, x, y = (ord(c) - 32 for c in raw)
    if code < 0 or x < 1 or y < 1 or max(code, x, y) > 223:
        return None
    release = code & 3 == 3 and not code & 64
    return _mouse(code, x, y, release=release)


def _csi_event(params: str, final: str) -> DecodedEvent | None:
    if final == "c" and params[:1] in ("?", "=", ">"):
        return Report("da", raw=params)
    if final == "R" and ";" in params:
        nums = _numbers(params)
        # "CSI 1;5R" is also xterm's Ctrl-F3, but a CPR with row 1 col 5 is far likelier
        # here: we only ever see it right after a probe.
        if nums is not None and len(nums) == 2:
            return Report("cpr", values=nums)
        return None
    if final == "~":
        nums = _numbers(params.split(";")[0]) if params else None
        if nums:
            name = _CSI_TILDE.get(nums[0])
            return Key(name) if name else None
        return None
    name = _CSI_FINAL.get(final)
    if name is None:
        return None
    if params and not all(c.isdigit() or c == ";" for c in params):
        return None
    # "CSI 1;5A" (modified arrows) and bare "CSI A" both mean the key itself.
    return Key(name)
