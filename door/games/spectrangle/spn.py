"""SPN (Spectrangle Position Notation) and door's snapshot text.

SPN is ``BOARD HANDS SCORES TURN BAG`` exactly as reference §5.1 defines it. It holds
what a player sees; it omits the table options (mirroring, teams: pass them in), the
set-up phase, a pending draw (and the piece a swapping seat gives back), the safety-end
counter, the seats that dropped out and why a game ended. :func:`to_snapshot` appends
those as ``key=value`` words after a ``~`` so the service can store the complete state:

    <SPN> ~ phase=play turn=0 pending=1 swap=RRY5 idle=0 out=2 end=-

:func:`from_snapshot` reads both forms (plain SPN means: play phase, nothing pending).
"""

from __future__ import annotations

from door.games.spectrangle.board import FIELD_COUNT, fields
from door.games.spectrangle.pieces import PIECE_COUNT, identify_entry, piece, piece_index
from door.games.spectrangle.state import Phase, Placement, SpectrangleState

_PHASES: tuple[Phase, ...] = tuple(Phase)


def to_spn(state: SpectrangleState) -> str:
    """The SPN of ``state`` (hands in piece-table order)."""
    board = "/".join("-" if p is None else p.entry for p in state.board)
    hands = "|".join(",".join(piece(i).name for i in sorted(h)) if h else "-" for h in state.hands)
    scores = ",".join(str(s) for s in state.scores)
    turn = "-" if state.turn is None or state.is_over else str(state.turn)
    return f"{board} {hands} {scores} {turn} {len(state.bag)}"


def _parse_piece(text: str, where: str) -> int:
    try:
        return piece_index(text)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def from_spn(text: str, *, mirror: bool = True, teams: bool = False) -> SpectrangleState:
    """Read an SPN; ``ValueError`` says what is wrong. ``mirror``/``teams`` are the table
    options (SPN does not carry them). TURN ``-`` gives a finished game.

    >>> state = from_spn("-/" * 35 + "- RRR6,GGG6|YYY6 0,0 1 33", mirror=False)
    >>> state.players, state.turn, len(state.bag)
    (2, 1, 33)
    >>> from_spn("-/" * 35 + "- RRR6|RRR6 0,0 0 41")
    Traceback (most recent call last):
    ...
    ValueError: RRR6 appears twice
    """
    parts = text.split()
    if len(parts) != 5:
        raise ValueError(
            f"an SPN has 5 fields separated by spaces (BOARD HANDS SCORES TURN BAG), "
            f"not {len(parts)}"
        )
    board_text, hands_text, scores_text, turn_text, bag_text = parts
    seen: set[int] = set()
    board = _read_board(board_text, mirror, seen)
    hands = _read_hands(hands_text, seen)
    players = len(hands)
    scores = _read_scores(scores_text, players, teams)
    bag = _read_bag(bag_text, seen)
    turn = _read_turn(turn_text, players)
    return SpectrangleState(
        players=players,
        board=board,
        hands=hands,
        scores=scores,
        turn=turn,
        bag=bag,
        phase=Phase.OVER if turn is None else Phase.PLAY,
        end="normal" if turn is None else None,
        mirror=mirror,
        teams=teams,
    )


def _read_board(text: str, mirror: bool, seen: set[int]) -> tuple[Placement | None, ...]:
    """The BOARD field; adds the pieces on it to ``seen``."""
    entries = text.split("/")
    if len(entries) != FIELD_COUNT:
        raise ValueError(f"BOARD has 36 entries separated by '/', not {len(entries)}")
    board: list[Placement | None] = []
    for i, e in enumerate(entries):
        if e == "-":
            board.append(None)
            continue
        if len(e) != 4 or not e[3].isdigit():
            raise ValueError(f"BOARD field {i}: {e!r} is not three colours and a value")
        try:
            idx, o = identify_entry(e[:3], fields()[i].up)
        except ValueError as exc:
            raise ValueError(f"BOARD field {i}: {exc}") from None
        p = piece(idx)
        if int(e[3]) != p.value:
            raise ValueError(f"BOARD field {i}: {p.name} is worth {p.value}, not {e[3]}")
        if o.mirror and not mirror:
            raise ValueError(f"BOARD field {i}: {e} lies mirrored, but mirroring is off")
        _see(idx, seen)
        board.append(Placement(idx, o.sides))
    return tuple(board)


def _see(idx: int, seen: set[int]) -> None:
    if idx in seen:
        raise ValueError(f"{piece(idx).name} appears twice")
    seen.add(idx)


def _read_hands(text: str, seen: set[int]) -> tuple[tuple[int, ...], ...]:
    """The HANDS field; adds the pieces in them to ``seen``."""
    hands: list[tuple[int, ...]] = []
    for n, h in enumerate(text.split("|")):
        if h == "-":
            hands.append(())
            continue
        names = h.split(",")
        if len(names) > 4:
            raise ValueError(f"HANDS: player {n} holds {len(names)} pieces; at most 4")
        hand = []
        for name in names:
            idx = _parse_piece(name, f"HANDS, player {n}")
            if piece(idx).name != name.upper():
                raise ValueError(f"HANDS, player {n}: write {piece(idx).name}, not {name!r}")
            _see(idx, seen)
            hand.append(idx)
        hands.append(tuple(sorted(hand)))
    return tuple(hands)


def _read_scores(text: str, players: int, teams: bool) -> tuple[int, ...]:
    try:
        scores = tuple(int(s) for s in text.split(","))
    except ValueError:
        raise ValueError(f"SCORES {text!r} is not integers separated by ','") from None
    if not 2 <= players <= 4:
        raise ValueError(f"2 to 4 players, not {players}")
    if len(scores) != players:
        raise ValueError(f"{players} hands but {len(scores)} scores")
    if teams and players != 4:
        raise ValueError("the team variant needs 4 players")
    return scores


def _read_bag(text: str, seen: set[int]) -> tuple[int, ...]:
    """The bag: every piece not ``seen``, as many as the BAG field says."""
    if not text.isdigit():
        raise ValueError(f"BAG {text!r} is not a number of pieces")
    bag_count = int(text)
    bag = tuple(i for i in range(PIECE_COUNT) if i not in seen)
    if len(bag) != bag_count:
        raise ValueError(
            f"board and hands hold {len(seen)} pieces, so the bag holds {len(bag)}, not {bag_count}"
        )
    return bag


def _read_turn(text: str, players: int) -> int | None:
    if text == "-":
        return None
    if text.isdigit() and int(text) < players:
        return int(text)
    raise ValueError(f"TURN {text!r} is not a player 0-{players - 1} or '-'")


def _seats(text: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(int(s) for s in text.split(","))


def to_snapshot(state: SpectrangleState) -> str:
    """SPN plus the state SPN omits (see the module docstring); reads back exactly."""
    swap = "-" if state.swap_out is None else piece(state.swap_out).name
    pending = ",".join(str(s) for s in state.pending) or "-"
    out = ",".join(str(s) for s in state.out) or "-"
    turn = "-" if state.turn is None else str(state.turn)
    end = state.end or "-"
    return (
        f"{to_spn(state)} ~ phase={state.phase} turn={turn} pending={pending} "
        f"swap={swap} idle={state.idle} out={out} end={end}"
    )


def from_snapshot(text: str, *, mirror: bool = True, teams: bool = False) -> SpectrangleState:
    """Read :func:`to_snapshot` output (or a plain SPN); ``ValueError`` if malformed."""
    spn, sep, extra = text.partition("~")
    if not sep:
        return from_spn(spn, mirror=mirror, teams=teams)
    words: dict[str, str] = {}
    for word in extra.split():
        key, eq, value = word.partition("=")
        if not eq:
            raise ValueError(f"snapshot: {word!r} is not key=value")
        words[key] = value
    try:
        phase_text = words["phase"]
        phase = next(p for p in _PHASES if p == phase_text)
        turn_text = words["turn"]
        turn = None if turn_text == "-" else int(turn_text)
        pending = _seats(words["pending"])
        swap_text = words["swap"]
        swap = None if swap_text == "-" else piece_index(swap_text)
        idle = int(words["idle"])
        out = _seats(words["out"])
        end = None if words["end"] == "-" else words["end"]
    except (KeyError, StopIteration, ValueError) as exc:
        raise ValueError(f"snapshot: bad or missing extra field ({exc})") from None
    base = from_spn(spn.strip(), mirror=mirror, teams=teams)
    if swap is not None and not (pending and swap in base.hands[pending[0]]):
        # A swapping seat keeps the piece it gives back until the new one is drawn.
        raise ValueError("snapshot: the piece being swapped is not in the swapping hand")
    for s in (turn, *pending, *out):
        if s is not None and not 0 <= s < base.players:
            raise ValueError(f"snapshot: no seat {s}")
    return base.evolve(
        phase=phase, turn=turn, pending=pending, swap_out=swap, idle=idle, out=out, end=end
    )
