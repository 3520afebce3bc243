"""gnubg move notation: ``24/18 13/11``, ``8/5*/4``, ``bar/22``, ``6/off``, ``13/7(2)``.

:func:`format_play` writes a play the way gnubg does: moves sorted from the highest
starting point down (higher destination first on ties), consecutive moves of one checker
chained with the intermediate point written only where it hit, ``*`` after a point where
a blot was hit, ``(n)`` for n identical moves.

:func:`parse_text` reads the notation into checker moves (it accepts ``-`` as well as
``/``, ``b`` for ``bar``, ``o`` for ``off``, any case, commas or spaces between moves);
matching them against the legal plays is the rules' job (``reading.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from door.games.backgammon.movegen import Step
from door.games.base import InvalidMoveError

BAR_POINT = 25
OFF_POINT = 0


def point_name(p: int) -> str:
    """``bar`` for 25, ``off`` for 0, else the number."""
    if p == BAR_POINT:
        return "bar"
    if p == OFF_POINT:
        return "off"
    return str(p)


def format_play(steps: tuple[Step, ...] | list[Step], full_path: bool = False) -> str:
    """The gnubg notation of a play given as its steps (empty play: ``""``).

    Follows gnubg's ``FormatMove``: a point where a blot was hit keeps its ``*`` and, as an
    intermediate point, stays written in every chain through it; when several moves end on
    a hit point, the first one written carries the ``*``. ``full_path`` keeps every
    intermediate point (``24/22/17``), which shows the order the dice must be played in;
    gnubg writes that play ``24/17``.

    >>> format_play(((8, 5, 3, False), (6, 5, 1, False)))
    '8/5 6/5'
    >>> steps = ((24, 22, 2, False), (22, 17, 5, False))
    >>> format_play(steps), format_play(steps, full_path=True)
    ('24/17', '24/22/17')
    """
    hit_points = {s[1] for s in steps if s[3]}
    moves = sorted(((s[0], s[1]) for s in steps), key=lambda m: (-m[0], -m[1]))
    chains: list[list[int]] = []
    used = [False] * len(moves)
    for i, (src, dst) in enumerate(moves):
        if used[i]:
            continue
        used[i] = True
        pts = [src, dst]
        for j in range(i + 1, len(moves)):
            if used[j] or pts[-1] == OFF_POINT:
                continue
            s2, d2 = moves[j]
            if s2 == pts[-1]:
                used[j] = True
                if pts[-1] not in hit_points and not full_path:
                    pts.pop()  # no hit there: the intermediate point is not written
                pts.append(d2)
        chains.append(pts)
    # Group identical chains: "13/11(2)".
    groups: list[tuple[list[int], int]] = []
    for pts in chains:
        for k, (gp, n) in enumerate(groups):
            if gp == pts:
                groups[k] = (gp, n + 1)
                break
        else:
            groups.append((pts, 1))
    starred: set[int] = set()
    parts = []
    for pts, n in groups:
        text = point_name(pts[0])
        for p in pts[1:-1]:
            star = p in hit_points
            text += "/" + point_name(p) + ("*" if star else "")
            if star:
                starred.add(p)
        last = pts[-1]
        text += "/" + point_name(last)
        if last in hit_points and last not in starred:
            text += "*"
            starred.add(last)
        if n > 1:
            text += f"({n})"
        parts.append(text)
    return " ".join(parts)


@dataclass(frozen=True)
class WrittenMove:
    """One ``from/to`` hop as written, with ``*`` if the writer marked a hit at ``to``."""

    src: int
    dst: int
    starred: bool


_TOKEN = re.compile(r"^(?P<chain>[0-9a-z/*\-]+?)(?:\((?P<n>[0-9]+)\))?$")


def _read_point(word: str, text: str) -> int:
    w = word.lower()
    if w in ("bar", "b"):
        return BAR_POINT
    if w in ("off", "o"):
        return OFF_POINT
    if w.isdigit():
        n = int(w)
        if 1 <= n <= 25:
            return n
        raise InvalidMoveError(f"there is no point {n}: points go from 1 to 24 ({text!r})")
    raise InvalidMoveError(
        f"{word!r} is not a point: write numbers 1-24, bar or off, e.g. 24/18 13/11"
    )


def parse_text(text: str) -> list[WrittenMove]:
    """Read checker-play notation into hops (chains split, ``(n)`` expanded).

    ``InvalidMoveError`` when it cannot be read; legality is not checked here.

    >>> [(w.src, w.dst, w.starred) for w in parse_text("24/18 13/11*")]
    [(24, 18, False), (13, 11, True)]
    """
    return list(_parse_text(text))


def _parse_text(text: str) -> tuple[WrittenMove, ...]:
    cleaned = text.strip().lower().replace(",", " ")
    if not cleaned:
        raise InvalidMoveError("no move given: write a play such as 24/18 13/11")
    out: list[WrittenMove] = []
    for token in cleaned.split():
        m = _TOKEN.match(token)
        if not m:
            raise InvalidMoveError(
                f"cannot read {token!r}: write moves as from/to, e.g. 24/18, bar/22, 6/off"
            )
        chain = m.group("chain").replace("-", "/")
        count = int(m.group("n")) if m.group("n") else 1
        if not 1 <= count <= 4:
            raise InvalidMoveError(f"{token!r}: a move can be repeated 1 to 4 times")
        words = chain.split("/")
        if len(words) < 2 or any(not w for w in words):
            raise InvalidMoveError(
                f"cannot read {token!r}: write moves as from/to, e.g. 24/18, bar/22, 6/off"
            )
        points: list[tuple[int, bool]] = []
        for k, w in enumerate(words):
            star = w.endswith("*")
            core = w.rstrip("*")
            if k == 0 and star:
                raise InvalidMoveError(f"{token!r}: a hit (*) is marked where a checker lands")
            points.append((_read_point(core, text), star))
        for k in range(len(points) - 1):
            src = points[k][0]
            dst, star = points[k + 1]
            if k == 0 and src == OFF_POINT:
                raise InvalidMoveError(f"{token!r}: a checker cannot move from off the board")
            if k > 0 and src in (OFF_POINT, BAR_POINT):
                raise InvalidMoveError(f"{token!r}: bar and off can only start or end a move")
            if dst == BAR_POINT:
                raise InvalidMoveError(f"{token!r}: a checker cannot move onto the bar")
            if dst >= src:
                raise InvalidMoveError(
                    f"{token!r}: checkers move from higher points to lower ones (24 towards 1)"
                )
        for _ in range(count):
            for k in range(len(points) - 1):
                out.append(WrittenMove(points[k][0], points[k + 1][0], points[k + 1][1]))
    return tuple(out)


_HOP_TOKEN = re.compile(r"^(?P<chain>(?:[0-9]+|bar|off|b|o)\*?(?:[/\-](?:[0-9]+|bar|off|b|o)\*?)+)"
                        r"(?P<count>\([0-9]+\))?$", re.IGNORECASE)
_POINT_WORD = re.compile(r"[0-9]+")


def flip_points(text: str) -> str:
    """``text`` with every point number ``p`` of its moves written as ``25 - p`` (the
    same points numbered from the other player's side); ``bar``, ``off``, hits,
    ``(n)`` counts and words that are not moves (``roll``, ``double``) stay. Applying it
    twice gives ``text`` back.

    >>> flip_points("24/18 13/10*")
    '1/7 12/15*'
    """
    out: list[str] = []
    for token in text.split(" "):
        m = _HOP_TOKEN.match(token)
        if m is None:
            out.append(token)
            continue
        chain = _POINT_WORD.sub(
            lambda n: str(25 - int(n.group())) if 1 <= int(n.group()) <= 24 else n.group(),
            m.group("chain"),
        )
        out.append(chain + (m.group("count") or ""))
    return " ".join(out)


def from_viewpoint(text: str, mover_seat: int | None, viewer_seat: int | None) -> str:
    """A move written by ``mover_seat`` (in that seat's own point numbers, as the log
    keeps it) as ``viewer_seat`` numbers its board: unchanged for the mover, each point
    ``p`` read as ``25 - p`` for the other seat (FIBS and DailyGammon do the same).
    ``None`` for either seat (a system event, a spectator shown White's side as seat 0)
    is handled by the caller; here ``None`` leaves the text as it is."""
    if mover_seat is None or viewer_seat is None or mover_seat == viewer_seat:
        return text
    return flip_points(text)
