"""The state's text ID: ``POSITIONID:MATCHID[:extras]`` (see ``rules``' module doc).

gnubg's Position ID (from the view of the seat on roll) and Match ID, exactly as gnubg
writes them, then, only when needed, comma-separated extras that gnubg's IDs cannot hold.

>>> from door.games.backgammon.position import BackgammonState
>>> state_to_id(BackgammonState())
'4HPwATDgc/ABMA:MACgAAAAAAAE'
>>> state_from_id('4HPwATDgc/ABMA:MACgAAAAAAAE') == BackgammonState()
True
"""

from __future__ import annotations

from collections.abc import Mapping

from door.games.backgammon.ids import (
    MatchKey,
    decode_match,
    decode_position,
    encode_match,
    encode_position,
)
from door.games.backgammon.options import options_of
from door.games.backgammon.phases import (
    can_double,
    game_value,
    mover_sides,
    start_turn,
    to_act,
)
from door.games.backgammon.position import (
    BackgammonState,
    GameResult,
    Options,
    Phase,
    check_board,
)
from door.games.base import JSONValue

_FLAGS = {"jacoby", "beavers", "auto", "nocube", "nocrawford", "rolled", "post", "nopost"}
"""The extras that are single words (``last=...`` is the other kind)."""

_OVER_STATES = (2, 3, 4)
"""Match ID game states of a finished game: ended normally, resigned, dropped."""


# --- writing -------------------------------------------------------------------------------


def state_to_id(state: BackgammonState) -> str:
    """``POSITIONID:MATCHID[:extras]`` for ``state``."""
    me, opp = mover_sides(state)
    text = f"{encode_position(me, opp)}:{encode_match(_match_key(state))}"
    extras = _extras(state)
    if extras:
        text += ":" + ",".join(extras)
    return text


def _match_key(state: BackgammonState) -> MatchKey:
    game_state = 1
    if state.phase == Phase.OPENING:
        game_state = 0
    elif state.phase == Phase.OVER:
        reason = state.last_game.reason if state.last_game else "normal"
        game_state = {"normal": 2, "drop": 4}.get(reason, 3)
    act = to_act(state)
    return MatchKey(
        cube=state.cube,
        cube_owner=state.cube_owner,
        dice_owner=state.turn,
        crawford=state.crawford_game,
        game_state=game_state,
        turn=state.turn if act is None else act,
        doubled=state.phase == Phase.DOUBLED,
        resign=state.resign_level if state.phase == Phase.RESIGNING else 0,
        dice=state.dice or (0, 0),
        match_length=state.match_length,
        score=state.score,
        jacoby=state.options.jacoby,
    )


def _extras(state: BackgammonState) -> list[str]:
    extras = []
    o = state.options
    if o.beavers:
        extras.append("beavers")
    if o.auto_doubles:
        extras.append("auto")
    if not o.cube:
        extras.append("nocube")
    if not o.crawford and not state.is_money:
        extras.append("nocrawford")
    if state.phase == Phase.DICE and can_double(state):
        extras.append("rolled")
    if state.post_crawford != implied_post(state):
        extras.append("post" if state.post_crawford else "nopost")
    if state.last_game is not None:
        g = state.last_game
        extras.append(f"last={g.winner}/{g.value}/{g.cube}/{g.points}/{g.reason}")
    return extras


def implied_post(state: BackgammonState) -> bool:
    """Is this a post-Crawford game by the score alone (what the ID leaves unsaid)?"""
    length = state.match_length
    # A 1-point match starts at "match point": it has no Crawford game.
    return (
        state.options.crawford
        and length > 1
        and not state.crawford_game
        and any(s == length - 1 for s in state.score)
    )


# --- reading -------------------------------------------------------------------------------


def state_from_id(text: str, options: Mapping[str, JSONValue] | None = None) -> BackgammonState:
    """Read :func:`state_to_id` output, or a bare gnubg ``POSITIONID:MATCHID`` (``options``
    fill in what the IDs cannot hold). ``ValueError`` says what is wrong."""
    position_id, match_id, extras = _split(text)
    me, opp = decode_position(position_id)
    key = decode_match(match_id)
    opts = _read_options(key, extras, options)
    last = _read_last(extras)
    turn = key.dice_owner
    board = (me, opp) if turn == 0 else (opp, me)
    check_board(board)
    _check_score(key)
    state = BackgammonState(
        board=board,
        turn=turn,
        dice=key.dice if key.dice[0] else None,
        cube=key.cube,
        cube_owner=key.cube_owner,
        score=key.score,
        crawford_game=key.crawford,
        last_game=last,
        options=opts,
    )
    post = ("post" in extras) or (implied_post(state) and "nopost" not in extras)
    return _with_phase(state.evolve(post_crawford=post), key, extras)


def _split(text: str) -> tuple[str, str, list[str]]:
    parts = text.strip().split(":")
    if len(parts) == 1 and len(parts[0]) == 14:
        parts.append(encode_match(MatchKey(game_state=1, jacoby=False)))
    if len(parts) not in (2, 3):
        raise ValueError("a backgammon ID is POSITIONID:MATCHID (gnubg's two IDs)")
    extras = [e for e in parts[2].split(",") if e] if len(parts) == 3 else []
    return parts[0], parts[1], extras


def _read_options(
    key: MatchKey, extras: list[str], options: Mapping[str, JSONValue] | None
) -> Options:
    opts: dict[str, JSONValue] = {
        "match_length": key.match_length,
        "cube": "nocube" not in extras,
        "crawford": key.match_length > 0 and "nocrawford" not in extras,
        # gnubg's Jacoby bit (an old ID without it reads as Jacoby on, as in gnubg).
        "jacoby": key.match_length == 0 and (key.jacoby or "jacoby" in extras),
        "beavers": "beavers" in extras,
        "auto_doubles": "auto" in extras,
    }
    if options:
        opts.update({k: v for k, v in options.items() if k != "match_length"})
        if key.match_length == 0:
            opts["crawford"] = False
    try:
        return options_of(opts)
    except ValueError as exc:
        raise ValueError(f"ID and options disagree: {exc}") from None


def _read_last(extras: list[str]) -> GameResult | None:
    """The ``last=W/V/C/P/REASON`` extra, if any; ``ValueError`` for an unknown extra."""
    last = None
    for e in extras:
        if e.startswith("last="):
            try:
                w, v, c, p, why = e[5:].split("/")
                last = GameResult(int(w), int(v), int(c), int(p), why)
            except ValueError:
                raise ValueError(f"cannot read the last game in {e!r}") from None
            if last.winner not in (0, 1) or last.value not in (1, 2, 3):
                raise ValueError(f"cannot read the last game in {e!r}")
        elif e not in _FLAGS:
            raise ValueError(f"unknown ID extra {e!r}")
    return last


def _check_score(key: MatchKey) -> None:
    length = key.match_length
    if length and any(s > length for s in key.score):
        raise ValueError("a score is above the match length")
    if length and any(s >= length for s in key.score) and key.game_state not in _OVER_STATES:
        raise ValueError("a player has already won this match")


def _with_phase(state: BackgammonState, key: MatchKey, extras: list[str]) -> BackgammonState:
    """``state`` in the phase the Match ID (and the ``rolled`` extra) says."""
    turn = state.turn
    if key.game_state == 0:
        return state.evolve(phase=Phase.OPENING, dice=None)
    if key.game_state in _OVER_STATES:
        last = state.last_game or _infer_last(state, key)
        return state.evolve(phase=Phase.OVER, dice=None, last_game=last)
    if key.doubled:
        if key.turn == turn:
            # The doubler answers a beaver: the beaverer owns the doubled cube.
            if not (state.is_money and key.cube_owner == 1 - turn):
                raise ValueError("Match ID: the doubled player must be the one to act")
            return state.evolve(phase=Phase.DOUBLED, dice=None, beavered=True)
        return state.evolve(phase=Phase.DOUBLED, dice=None)
    if key.resign:
        if key.turn == turn:
            raise ValueError("Match ID: a resignation must be answered by the other player")
        return state.evolve(phase=Phase.RESIGNING, resigner=turn, resign_level=key.resign)
    if state.dice is not None:
        return state.evolve(phase=Phase.MOVING)
    if "rolled" in extras:
        return state.evolve(phase=Phase.DICE, rolled=True)
    return start_turn(state)


def _infer_last(state: BackgammonState, key: MatchKey) -> GameResult:
    # A bare gnubg ID of a finished game: the winner is whoever has no checkers left,
    # else (resigned/dropped) the player who did not act last.
    for seat in (0, 1):
        if sum(state.board[seat]) == 0:
            value = game_value(state.board[seat], state.board[1 - seat])
            return GameResult(seat, value, state.cube, value * state.cube, "normal")
    winner = key.turn
    reason = "drop" if key.game_state == 4 else "resign"
    return GameResult(winner, 1, state.cube, state.cube, reason)
