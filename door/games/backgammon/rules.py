"""``BackgammonRules``: the GameRules contract for Backgammon matches and money games.

The state (``position.BackgammonState``) covers a whole match; ``outcome`` is set only
when the match (or the single money game) is over. Between games of a match the next
game's opening roll is a pending chance event.

Phases and who acts (``to_act``):

* ``opening`` — chance: the opening roll ``{"dice": [seat 0's die, seat 1's die]}``. Equal
  dice are rolled again (with automatic doubles, money play only, the first tie of a game
  doubles the cube, which stays in the middle). The higher die moves first with both numbers.
* ``decide`` — the seat on roll: ``roll`` or ``double``. When it cannot double (cube owned
  by the opponent, Crawford game, cube disabled, or in a match a dead cube: one that
  already covers the points this seat needs, as gnubg rules it) this phase is skipped and
  its dice are the pending chance event directly (``dice`` phase).
* ``dice`` — chance: the roll of the seat on roll.
* ``moving`` — the seat on roll plays its dice (``legal_moves`` lists every distinct play;
  when there is none, the only move is the empty play ``(no play)``).
* ``doubled`` — the other seat: ``take``, ``drop`` (``pass``), or ``beaver`` (money play
  with the beaver option: it takes, redoubles at once and keeps the cube). After a beaver
  the original doubler must ``take`` (the cube doubles again and stays with the beaverer)
  or ``drop`` (losing the beavered cube), as in gnubg.
* ``resigning`` — the other seat: ``accept`` or ``reject``.
* ``over`` — nobody.

``resign single|gammon|backgammon`` (``resign n|g|b``) is accepted from the seat on roll in
the ``decide`` and ``moving`` phases; it is not listed by ``legal_moves`` (bots would offer
it at random). Raccoons (re-redoubling a beaver) are not offered.

Scoring: a game is worth 1, 2 (gammon) or 3 (backgammon) times the cube; with the Jacoby
option (money play) gammons count single while the cube was never taken. A match ends when
a score reaches the length (points beyond it are dropped); the Crawford rule forbids
doubling in the game after a player first reaches length - 1. Match length 0 is one money
game; ``continue_session`` starts the next game of a money session with the running score.

IDs (``to_id``/``from_id``): ``POSITIONID:MATCHID`` exactly as gnubg writes them (the
Position ID from the view of the seat on roll), followed, only when needed, by ``:`` and
comma-separated extras that gnubg's IDs cannot hold: options (``beavers``, ``auto``,
``nocube``, ``nocrawford``; Jacoby is gnubg's own Match ID bit), ``rolled`` (the ``dice``
phase after choosing to roll), ``post`` (post-Crawford without the Crawford rule's usual trace) and
``last=W/V/C/P/REASON`` (the last finished game).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from door.games.backgammon import movegen, notation
from door.games.backgammon.ids import (
    MatchKey,
    decode_match,
    decode_position,
    encode_match,
    encode_position,
)
from door.games.backgammon.moves import (
    ACCEPT,
    BEAVER,
    DOUBLE,
    DROP,
    EMPTY_PLAY,
    NO_PLAY,
    REJECT,
    ROLL,
    TAKE,
    BgMove,
    Dice,
    resign,
)
from door.games.backgammon.position import (
    BAR,
    DECIDE,
    DICE,
    DOUBLED,
    MAX_CUBE,
    MOVING,
    OPENING,
    OVER,
    RESIGN_WORDS,
    RESIGNING,
    BackgammonState,
    GameResult,
    Options,
    Side,
    borne_off,
    check_board,
    start_side,
)

# ``replace`` below is position.evolve: dataclasses.replace for states, several times cheaper
from door.games.backgammon.position import evolve as replace
from door.games.base import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    JSONValue,
    Outcome,
)

SEAT_NAMES = ("White", "Black")
"""What ``describe`` and messages call seat 0 and seat 1."""

MAX_MATCH_LENGTH = 25


def seat_name(seat: int) -> str:
    return SEAT_NAMES[seat]


# --------------------------------------------------------------------------- helpers


def mover_sides(state: BackgammonState) -> tuple[Side, Side]:
    """(seat on roll's side, opponent's side)."""
    return state.board[state.turn], state.board[1 - state.turn]


def can_double(state: BackgammonState) -> bool:
    """May the seat on roll double now (ignoring the phase)?"""
    opts = state.options
    if not opts.cube or state.crawford_game:
        return False
    if state.cube_owner is not None and state.cube_owner != state.turn:
        return False
    if _dead_cube(state):
        return False
    return state.cube * 2 <= MAX_CUBE


def _dead_cube(state: BackgammonState) -> bool:
    # In a match the cube is dead for a player once it already covers the points he needs:
    # doubling could not gain him anything, and gnubg refuses it.
    return state.match_length > 0 and state.cube >= state.match_length - state.score[state.turn]


def _why_no_double(state: BackgammonState) -> str:
    if not state.options.cube:
        return "this game is played without the doubling cube"
    if state.crawford_game:
        return "nobody may double in the Crawford game"
    if state.cube_owner is not None and state.cube_owner != state.turn:
        return "the cube belongs to your opponent: only its owner may redouble"
    if _dead_cube(state):
        return "the cube is dead: winning this game at its present value wins you the match"
    if state.cube * 2 > MAX_CUBE:
        return f"the cube cannot go above {MAX_CUBE}"
    return "you can only double at the start of your turn, before rolling"


def _start_turn(state: BackgammonState) -> BackgammonState:
    """The seat on roll begins its turn: it decides, or its dice are due at once."""
    phase = DECIDE if can_double(state) else DICE
    return replace(state, phase=phase, dice=None, rolled=False, resigner=None, resign_level=0)


def game_value(winner_side: Side, loser_side: Side) -> int:
    """1 single, 2 gammon (loser bore off nothing), 3 backgammon (and has a checker on the
    bar or in the winner's home board)."""
    del winner_side
    if borne_off(loser_side) > 0:
        return 1
    if loser_side[BAR] or any(loser_side[18:24]):
        return 3
    return 2


def _jacoby_applies(state: BackgammonState) -> bool:
    # Money play only; "turned" means a double was offered and taken (an automatic double
    # on the opening roll does not turn the cube).
    return state.is_money and state.options.jacoby and state.cube_owner is None


def _end_game(state: BackgammonState, winner: int, value: int, reason: str) -> BackgammonState:
    """Score a finished game; start the next game of the match or end it."""
    if _jacoby_applies(state) and reason in ("normal", "resign"):
        value = 1
    points = value * state.cube
    result = GameResult(winner=winner, value=value, cube=state.cube, points=points, reason=reason)
    if state.is_money:
        return replace(
            state,
            phase=OVER,
            dice=None,
            resigner=None,
            resign_level=0,
            rolled=False,
            beavered=False,
            last_game=result,
            score=tuple(
                s + (points if seat == winner else 0) for seat, s in enumerate(state.score)
            ),
        )
    length = state.match_length
    score = list(state.score)
    score[winner] = min(length, score[winner] + points)  # points beyond the length don't count
    new_score = (score[0], score[1])
    if score[winner] >= length:
        return replace(
            state,
            phase=OVER,
            dice=None,
            resigner=None,
            resign_level=0,
            rolled=False,
            beavered=False,
            score=new_score,
            last_game=result,
        )
    post = state.post_crawford or state.crawford_game
    crawford = (
        state.options.crawford
        and not post
        and any(s == length - 1 for s in new_score)
    )
    return BackgammonState(
        board=(start_side(), start_side()),
        turn=0,
        phase=OPENING,
        dice=None,
        cube=1,
        cube_owner=None,
        score=new_score,
        crawford_game=crawford,
        post_crawford=post and state.options.crawford,
        last_game=result,
        options=state.options,
    )


def _resign_level(word: str) -> int:
    levels = {
        "": 1, "n": 1, "normal": 1, "s": 1, "single": 1, "1": 1,
        "g": 2, "gammon": 2, "2": 2,
        "b": 3, "bg": 3, "backgammon": 3, "3": 3,
    }
    try:
        return levels[word]
    except KeyError:
        raise InvalidMoveError(
            f"resign what? write resign single, resign gammon or resign backgammon (not {word!r})"
        ) from None


# ------------------------------------------------------------------------- the rules


class BackgammonRules:
    """Backgammon under the standard rules; see the module doc for phases and moves."""

    kind = "backgammon"
    title = "Backgammon"
    min_seats = 2
    max_seats = 2

    # --- set-up and identity -------------------------------------------------------
    def default_options(self) -> dict[str, JSONValue]:
        """A 5-point match with the cube and the Crawford rule (the money-only options off)."""
        return {
            "match_length": 5,
            "cube": True,
            "crawford": True,
            "jacoby": False,
            "beavers": False,
            "auto_doubles": False,
        }

    def validate_options(
        self, seats: int, options: Mapping[str, JSONValue]
    ) -> dict[str, JSONValue]:
        """Checked, complete options; ``ValueError`` names the first problem."""
        if seats != 2:
            raise ValueError("backgammon is for exactly 2 players")
        out = self.default_options()
        for key, value in options.items():
            if key not in out:
                known = ", ".join(out)
                raise ValueError(f"unknown backgammon option {key!r} (known: {known})")
            if key == "match_length":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ValueError("match_length must be a whole number (0 = money game)")
                if not 0 <= value <= MAX_MATCH_LENGTH:
                    raise ValueError(
                        f"match_length must be 0 (money game) to {MAX_MATCH_LENGTH} points"
                    )
            elif not isinstance(value, bool):
                raise ValueError(f"option {key} must be true or false")
            out[key] = value
        if out["match_length"] != 0:
            for key in ("jacoby", "beavers", "auto_doubles"):
                if out[key]:
                    raise ValueError(f"{key} applies to money play only (match_length 0)")
        else:
            out["crawford"] = False
        return out

    def options_of(self, options: Mapping[str, JSONValue]) -> Options:
        """The frozen ``Options`` for checked option values."""
        o = self.validate_options(2, options)
        return Options(
            match_length=int(o["match_length"]),
            cube=bool(o["cube"]),
            crawford=bool(o["crawford"]),
            jacoby=bool(o["jacoby"]),
            beavers=bool(o["beavers"]),
            auto_doubles=bool(o["auto_doubles"]),
        )

    def new_game(self, seats: int, options: Mapping[str, JSONValue]) -> BackgammonState:
        """A new match (or money game): the opening roll is pending."""
        checked = self.validate_options(seats, options)
        return BackgammonState(options=self.options_of(checked))

    def to_id(self, state: BackgammonState) -> str:
        """``POSITIONID:MATCHID[:extras]`` (see the module doc)."""
        me, opp = mover_sides(state)
        pos = encode_position(me, opp)
        game_state = 1
        if state.phase == OPENING:
            game_state = 0
        elif state.phase == OVER:
            reason = state.last_game.reason if state.last_game else "normal"
            game_state = {"normal": 2, "drop": 4}.get(reason, 3)
        act = self.to_act(state)
        key = MatchKey(
            cube=state.cube,
            cube_owner=state.cube_owner,
            dice_owner=state.turn,
            crawford=state.crawford_game,
            game_state=game_state,
            turn=state.turn if act is None else act,
            doubled=state.phase == DOUBLED,
            resign=state.resign_level if state.phase == RESIGNING else 0,
            dice=state.dice or (0, 0),
            match_length=state.match_length,
            score=state.score,
            jacoby=state.options.jacoby,
        )
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
        if state.phase == DICE and can_double(state):
            extras.append("rolled")
        if state.post_crawford != self._implied_post(state):
            extras.append("post" if state.post_crawford else "nopost")
        if state.last_game is not None:
            g = state.last_game
            extras.append(f"last={g.winner}/{g.value}/{g.cube}/{g.points}/{g.reason}")
        text = f"{pos}:{encode_match(key)}"
        if extras:
            text += ":" + ",".join(extras)
        return text

    @staticmethod
    def _implied_post(state: BackgammonState) -> bool:
        length = state.match_length
        # A 1-point match starts at "match point": it has no Crawford game.
        return (
            state.options.crawford
            and length > 1
            and not state.crawford_game
            and any(s == length - 1 for s in state.score)
        )

    def from_id(
        self, text: str, options: Mapping[str, JSONValue] | None = None
    ) -> BackgammonState:
        """Read ``to_id`` output, or a bare gnubg ``POSITIONID:MATCHID`` (``options`` fill in
        what the IDs cannot hold). ``ValueError`` says what is wrong."""
        parts = text.strip().split(":")
        if len(parts) == 1 and len(parts[0]) == 14:
            parts.append(encode_match(MatchKey(game_state=1, jacoby=False)))
        if len(parts) not in (2, 3):
            raise ValueError("a backgammon ID is POSITIONID:MATCHID (gnubg's two IDs)")
        me, opp = decode_position(parts[0])
        key = decode_match(parts[1])
        extras = [e for e in parts[2].split(",") if e] if len(parts) == 3 else []
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
            options_obj = self.options_of(opts)
        except ValueError as exc:
            raise ValueError(f"ID and options disagree: {exc}") from None
        last = None
        known = {"jacoby", "beavers", "auto", "nocube", "nocrawford", "rolled", "post", "nopost"}
        for e in extras:
            if e.startswith("last="):
                try:
                    w, v, c, p, why = e[5:].split("/")
                    last = GameResult(int(w), int(v), int(c), int(p), why)
                except ValueError:
                    raise ValueError(f"cannot read the last game in {e!r}") from None
                if last.winner not in (0, 1) or last.value not in (1, 2, 3):
                    raise ValueError(f"cannot read the last game in {e!r}")
            elif e not in known:
                raise ValueError(f"unknown ID extra {e!r}")
        turn = key.dice_owner
        board = (me, opp) if turn == 0 else (opp, me)
        check_board(board)
        length = key.match_length
        if length and any(s > length for s in key.score):
            raise ValueError("a score is above the match length")
        if length and any(s >= length for s in key.score) and key.game_state not in (2, 3, 4):
            raise ValueError("a player has already won this match")
        state = BackgammonState(
            board=board,
            turn=turn,
            dice=key.dice if key.dice[0] else None,
            cube=key.cube,
            cube_owner=key.cube_owner,
            score=key.score,
            crawford_game=key.crawford,
            last_game=last,
            options=options_obj,
        )
        implied_post = self._implied_post(state)
        post = ("post" in extras) or (implied_post and "nopost" not in extras)
        state = replace(state, post_crawford=post)
        if key.game_state == 0:
            return replace(state, phase=OPENING, dice=None)
        if key.game_state in (2, 3, 4):
            if last is None:
                last = self._infer_last(state, key)
            return replace(state, phase=OVER, dice=None, last_game=last)
        if key.doubled:
            if key.turn == turn:
                # The doubler answers a beaver: the beaverer owns the doubled cube.
                if not (options_obj.match_length == 0 and key.cube_owner == 1 - turn):
                    raise ValueError("Match ID: the doubled player must be the one to act")
                return replace(state, phase=DOUBLED, dice=None, beavered=True)
            return replace(state, phase=DOUBLED, dice=None)
        if key.resign:
            if key.turn == turn:
                raise ValueError("Match ID: a resignation must be answered by the other player")
            return replace(
                state, phase=RESIGNING, resigner=turn, resign_level=key.resign
            )
        if state.dice is not None:
            return replace(state, phase=MOVING)
        if "rolled" in extras:
            return replace(state, phase=DICE, rolled=True)
        return _start_turn(state)

    def _infer_last(self, state: BackgammonState, key: MatchKey) -> GameResult:
        # A bare gnubg ID of a finished game: the winner is whoever has no checkers left,
        # else (resigned/dropped) the player who did not act last.
        for seat in (0, 1):
            if sum(state.board[seat]) == 0:
                value = game_value(state.board[seat], state.board[1 - seat])
                return GameResult(seat, value, state.cube, value * state.cube, "normal")
        winner = key.turn
        reason = "drop" if key.game_state == 4 else "resign"
        return GameResult(winner, 1, state.cube, state.cube, reason)

    # --- whose turn ----------------------------------------------------------------
    def to_act(self, state: BackgammonState) -> int | None:
        if state.phase in (DECIDE, MOVING):
            return state.turn
        if state.phase in (DOUBLED, RESIGNING):
            if state.phase == RESIGNING and state.resigner is not None:
                return 1 - state.resigner
            return state.turn if state.beavered else 1 - state.turn
        return None

    def chance_pending(self, state: BackgammonState) -> bool:
        return state.phase in (OPENING, DICE)

    def sample_chance(self, state: BackgammonState, rng: random.Random) -> Dice:
        if not self.chance_pending(state):
            raise ValueError("no dice are due now")
        return (rng.randint(1, 6), rng.randint(1, 6))

    def apply_chance(self, state: BackgammonState, event: Dice) -> BackgammonState:
        """Apply a roll: the opening roll (seat 0's die, seat 1's die) or the dice of the
        seat on roll. ``ValueError`` when no dice are due or the dice are not dice."""
        d1, d2 = self._check_dice(event)
        if state.phase == OPENING:
            if d1 == d2:
                if (
                    state.is_money
                    and state.options.auto_doubles
                    and state.options.cube
                    and state.cube == 1
                ):
                    return replace(state, cube=2)
                return state
            turn = 0 if d1 > d2 else 1
            return replace(
                state,
                turn=turn,
                phase=MOVING,
                dice=(max(d1, d2), min(d1, d2)),
                rolled=False,
            )
        if state.phase == DICE:
            # Kept higher die first, as gnubg keeps them (and writes them in the Match ID).
            return replace(state, phase=MOVING, dice=(max(d1, d2), min(d1, d2)), rolled=False)
        raise ValueError(f"no dice are due now (the game is in its {state.phase} phase)")

    @staticmethod
    def _check_dice(event: Any) -> tuple[int, int]:
        try:
            d1, d2 = event
        except (TypeError, ValueError):
            raise ValueError("a roll is two dice, e.g. (3, 1)") from None
        for d in (d1, d2):
            if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
                raise ValueError(f"a die shows 1 to 6, not {d!r}")
        return d1, d2

    def chance_to_json(self, event: Dice) -> JSONValue:
        return {"dice": [event[0], event[1]]}

    def chance_from_json(self, data: JSONValue) -> Dice:
        if not isinstance(data, dict) or "dice" not in data:
            raise ValueError('a backgammon chance event looks like {"dice": [3, 1]}')
        d = data["dice"]
        if not isinstance(d, list) or len(d) != 2:
            raise ValueError('a backgammon chance event looks like {"dice": [3, 1]}')
        return self._check_dice((d[0], d[1]))

    # --- moves ---------------------------------------------------------------------
    def plays(self, state: BackgammonState) -> list[movegen.PlayResult]:
        """Every distinct checker play (with resulting sides) in the moving phase."""
        if state.phase != MOVING or state.dice is None:
            return []
        me, opp = mover_sides(state)
        return movegen.legal_plays(me, opp, state.dice[0], state.dice[1])

    def legal_moves(self, state: BackgammonState) -> Sequence[BgMove]:
        phase = state.phase
        if phase == MOVING:
            plays = self.plays(state)
            if not plays:
                return [EMPTY_PLAY]
            me, opp = mover_sides(state)
            dice = state.dice
            return [_trusted(BgMove("play", p[0]), me, opp, dice, p[1], p[2]) for p in plays]
        if phase == DECIDE:
            return [ROLL, DOUBLE] if can_double(state) else [ROLL]
        if phase == DOUBLED:
            out = [TAKE, DROP]
            if self._may_beaver(state) and not state.beavered:
                out.append(BEAVER)
            return out
        if phase == RESIGNING:
            return [ACCEPT, REJECT]
        return []

    @staticmethod
    def _may_beaver(state: BackgammonState) -> bool:
        return state.is_money and state.options.beavers and state.cube * 4 <= MAX_CUBE

    def apply(self, state: BackgammonState, move: BgMove) -> BackgammonState:
        """The state after ``move``; ``IllegalMoveError`` names the rule that forbids it."""
        a = move.action
        phase = state.phase
        if phase == OVER:
            raise IllegalMoveError("the match is over")
        if self.chance_pending(state):
            raise IllegalMoveError("the dice must be rolled first")
        if a == "play":
            if phase != MOVING:
                raise IllegalMoveError(self._not_now(state, "move checkers"))
            return self._apply_play(state, move)
        if a == "roll":
            if phase != DECIDE:
                raise IllegalMoveError(self._not_now(state, "roll"))
            return replace(state, phase=DICE, rolled=True)
        if a == "double":
            if phase != DECIDE:
                if phase == MOVING:
                    raise IllegalMoveError(
                        "you can only double at the start of your turn, before rolling"
                    )
                raise IllegalMoveError(self._not_now(state, "double"))
            if not can_double(state):
                raise IllegalMoveError(_why_no_double(state))
            return replace(state, phase=DOUBLED, rolled=False)
        if a in ("take", "drop", "beaver"):
            if phase != DOUBLED:
                raise IllegalMoveError(f"there is no double to {a}")
            if state.beavered:
                # The original doubler answers the beaver; the beaverer keeps the cube.
                if a == "take":
                    return replace(state, phase=DICE, cube=state.cube * 2, beavered=False)
                if a == "drop":
                    return _end_game(state, 1 - state.turn, 1, "drop")
                raise IllegalMoveError("a beaver cannot be beavered back (no raccoons here)")
            if a == "take":
                return replace(state, phase=DICE, cube=state.cube * 2, cube_owner=1 - state.turn)
            if a == "drop":
                return _end_game(state, state.turn, 1, "drop")
            if not self._may_beaver(state):
                raise IllegalMoveError(
                    "beavers are allowed only in money play with the beaver option"
                )
            return replace(state, cube=state.cube * 2, cube_owner=1 - state.turn, beavered=True)
        if a == "resign":
            if phase not in (DECIDE, MOVING):
                raise IllegalMoveError(self._not_now(state, "resign"))
            if move.level not in (1, 2, 3):
                raise IllegalMoveError("resign single, gammon or backgammon")
            return replace(state, phase=RESIGNING, resigner=state.turn, resign_level=move.level)
        if a in ("accept", "reject"):
            if phase != RESIGNING or state.resigner is None:
                raise IllegalMoveError(f"there is no resignation to {a}")
            if a == "accept":
                return _end_game(state, 1 - state.resigner, state.resign_level, "resign")
            back = replace(state, resigner=None, resign_level=0)
            if back.dice is not None:
                return replace(back, phase=MOVING)
            return _start_turn(back)
        raise IllegalMoveError(f"unknown action {a!r}")

    def _not_now(self, state: BackgammonState, what: str) -> str:
        phase = state.phase
        if phase == MOVING:
            return f"you cannot {what} now: play your roll first"
        if phase == DECIDE:
            return f"you cannot {what} now: roll (or double) first"
        if phase == DOUBLED:
            return f"you cannot {what} now: the double must be taken or dropped first"
        if phase == RESIGNING:
            return f"you cannot {what} now: the resignation must be accepted or rejected first"
        return f"you cannot {what} now"

    def _apply_play(self, state: BackgammonState, move: BgMove) -> BackgammonState:
        assert state.dice is not None
        me, opp = mover_sides(state)
        trusted = move.trusted
        if (
            trusted is not None
            and move.steps
            and trusted[0] == me
            and trusted[1] == opp
            and trusted[2] == state.dice
        ):
            # Proved legal for exactly these sides and dice by parse_move/legal_moves.
            return self._after_play(state, trusted[3], trusted[4])
        plays = self.plays(state)
        if not plays:
            if move.steps:
                raise IllegalMoveError("you have no legal move with this roll: the turn passes")
            after_me, after_opp = me, opp
        elif not move.steps:
            raise IllegalMoveError(
                "you have a legal move, so you must play: e.g. " + notation.format_play(plays[0][0])
            )
        else:
            result = self._walk_steps(state, move.steps)
            legal = {(p[1], p[2]) for p in plays}
            if result not in legal:
                raise IllegalMoveError(self._diagnose(state, plays, result, move.steps))
            after_me, after_opp = result
        return self._after_play(state, after_me, after_opp)

    @staticmethod
    def _after_play(state: BackgammonState, after_me: Side, after_opp: Side) -> BackgammonState:
        board = (after_me, after_opp) if state.turn == 0 else (after_opp, after_me)
        if sum(after_me) == 0:
            moved = replace(state, board=board)
            return _end_game(moved, state.turn, game_value(after_me, after_opp), "normal")
        return _start_turn(replace(state, board=board, turn=1 - state.turn))

    def _walk_steps(
        self, state: BackgammonState, steps: Sequence[movegen.Step]
    ) -> tuple[Side, Side]:
        """Make ``steps`` one at a time, each a legal single step with an unused die."""
        assert state.dice is not None
        me, opp = mover_sides(state)
        m, o = list(me), list(opp)
        d1, d2 = state.dice
        dice = [d1] * 4 if d1 == d2 else [d1, d2]
        for step in steps:
            src, dst, die, _hit = step
            if die not in dice:
                raise IllegalMoveError(
                    f"{notation.point_name(src)}/{notation.point_name(dst)} needs a {die}, "
                    f"which is not left of your {d1}-{d2}"
                )
            legal = movegen.single_steps(m, o, die)
            match = [s for s in legal if s[0] == src and s[1] == dst]
            if not match:
                raise IllegalMoveError(
                    f"{notation.point_name(src)}/{notation.point_name(dst)} "
                    f"is not a legal move of a {die}"
                )
            movegen.apply_step(m, o, match[0])
            dice.remove(die)
        return tuple(m), tuple(o)

    def _diagnose(
        self,
        state: BackgammonState,
        plays: list[movegen.PlayResult],
        result: tuple[Side, Side] | None,
        steps: Sequence[movegen.Step] = (),
    ) -> str:
        """Name the rule a wrong play breaks, with a legal example where that helps."""
        assert state.dice is not None
        d1, d2 = state.dice
        need = len(plays[0][0])
        example = notation.format_play(plays[0][0])
        used = len(steps)
        if result is not None and used < need:
            # Find a legal play that continues this one, to show what "both dice" means.
            for p in plays:
                if self._extends(state, steps, p):
                    example = notation.format_play(p[0], full_path=True)
                    break
            if d1 == d2:
                return (
                    f"you must play as many {d1}s as you can ({need}): {example} does"
                )
            if need == 2:
                return f"you must use both dice: {example} does"
        if need == 1 and d1 != d2 and used == 1 and steps and steps[0][2] != max(d1, d2):
            return (
                f"when only one die can be played it must be the larger one: {example} does"
            )
        return f"that play is not legal with {d1}-{d2}; for example {example} is"

    @staticmethod
    def _extends(
        state: BackgammonState, steps: Sequence[movegen.Step], play: movegen.PlayResult
    ) -> bool:
        assert state.dice is not None
        me, opp = mover_sides(state)
        m, o = list(me), list(opp)
        for s in steps:
            movegen.apply_step(m, o, s)
        d1, d2 = state.dice
        dice = [d1] * 4 if d1 == d2 else [d1, d2]
        for s in steps:
            if s[2] in dice:
                dice.remove(s[2])
        target = (play[1], play[2])
        return _reaches(m, o, dice, target)

    def parse_move(self, state: BackgammonState, text: str) -> BgMove:
        """Read an action or a checker play that is legal now; raises the error trio with
        a message fit to show the player."""
        move = self._read_move(state, text)
        if move.action != "play":
            self.apply(state, move)  # an action not allowed now says why, here
        return move

    def _read_move(self, state: BackgammonState, text: str) -> BgMove:
        words = " ".join(text.strip().lower().split())
        phase = state.phase
        if phase == OVER:
            raise IllegalMoveError("the match is over")
        if self.chance_pending(state):
            raise IllegalMoveError("the dice must be rolled first")
        first, _, rest = words.partition(" ")
        if words == "pass" and phase == MOVING and not self.plays(state):
            return EMPTY_PLAY  # "pass" with nothing to play means passing the turn
        if words in ("roll", "r"):
            return ROLL
        if words in ("double", "redouble", "d"):
            return DOUBLE
        if words in ("take", "drop", "pass", "beaver") or (
            words in ("accept", "reject", "ok") and phase == DOUBLED
        ):
            word = {"pass": "drop", "accept": "take", "ok": "take", "reject": "drop"}.get(
                words, words
            )
            return {"take": TAKE, "drop": DROP, "beaver": BEAVER}[word]
        if words in ("accept", "reject"):
            return ACCEPT if words == "accept" else REJECT
        if first == "resign":
            return resign(_resign_level(rest))
        if words in (NO_PLAY, "no play", "noplay", ""):
            if phase == MOVING and not self.plays(state):
                return EMPTY_PLAY
            if phase == MOVING:
                raise IllegalMoveError(
                    "you have a legal move, so you must play: e.g. "
                    + notation.format_play(self.plays(state)[0][0])
                )
            raise InvalidMoveError("no move given")
        if first in ("move", "m"):
            words = rest
        written = notation.parse_text(words)
        if phase != MOVING:
            raise IllegalMoveError(self._not_now(state, "move checkers"))
        return self._match_play(state, written, words)

    def _match_play(
        self, state: BackgammonState, written: list[notation.WrittenMove], text: str
    ) -> BgMove:
        assert state.dice is not None
        me, opp = mover_sides(state)
        try:
            quick: tuple[Side, Side] | None = self._written_result(state, written)
        except IllegalMoveError:
            quick = None  # said again below, after the checks that come first
        if quick is not None:
            # A play of every die that reaches the written position is legal; finding it
            # costs a fraction of listing every play (which errors and hits left out of
            # the writing still need).
            d1, d2 = state.dice
            steps = movegen.find_full_play(me, opp, d1, d2, quick)
            if steps is not None:
                return _trusted(BgMove("play", steps), me, opp, state.dice, *quick)
        plays = self.plays(state)
        if not plays:
            raise IllegalMoveError(
                "you have no legal move with this roll: the turn passes (play (no play))"
            )
        result = self._written_result(state, written)
        exact = [p for p in plays if (p[1], p[2]) == result]
        if exact:
            return _trusted(BgMove("play", exact[0][0]), me, opp, state.dice, *result)
        # The writer may have left out a hit on the way ("24/20" for "24/23*/20").
        same_me = [p for p in plays if p[1] == result[0]]
        if len(same_me) == 1:
            p = same_me[0]
            return _trusted(BgMove("play", p[0]), me, opp, state.dice, p[1], p[2])
        if len(same_me) > 1:
            readings = " or ".join(notation.format_play(p[0]) for p in same_me)
            raise AmbiguousMoveError(f"{text!r} could mean {readings}: say which")
        steps_ = self._steps_for(state, result)
        if steps_ is None:
            self._check_higher_die(state, written)
        return self._raise_illegal(state, plays, result, steps_, text)

    @staticmethod
    def _written_result(
        state: BackgammonState, written: list[notation.WrittenMove]
    ) -> tuple[Side, Side]:
        """The sides after the written checker moves, or the error the writing makes."""
        me, opp = mover_sides(state)
        m, o = list(me), list(opp)
        hit_marks: set[int] = set()
        for w in sorted(written, key=lambda w: -w.src):
            if m[BAR] and w.src != 25:
                raise IllegalMoveError(
                    "you have a checker on the bar: it must enter before any other checker moves"
                )
            if m[w.src - 1] <= 0:
                raise IllegalMoveError(
                    f"you have no checker on {notation.point_name(w.src)} to move"
                )
            if w.dst:
                theirs = o[24 - w.dst]
                if theirs >= 2:
                    raise IllegalMoveError(
                        f"you cannot land on {w.dst}: your opponent holds that point"
                    )
            m[w.src - 1] -= 1
            if w.dst:
                m[w.dst - 1] += 1
                if o[24 - w.dst] == 1:
                    o[24 - w.dst] = 0
                    o[BAR] += 1
                    hit_marks.add(w.dst)
                elif w.starred and w.dst not in hit_marks:
                    raise IllegalMoveError(f"there is no blot on {w.dst} to hit")
        if any(w.dst == 0 for w in written) and any(m[6:25]):
            raise IllegalMoveError(
                "you may bear off only when all your checkers are in your home board"
            )
        return tuple(m), tuple(o)

    @staticmethod
    def _check_higher_die(state: BackgammonState, written: list[notation.WrittenMove]) -> None:
        """Name the bear-off rule when a checker was borne off with a number too large."""
        assert state.dice is not None
        me, _opp = mover_sides(state)
        for w in written:
            if w.dst == 0 and w.src not in state.dice and any(me[w.src : 6]):
                raise IllegalMoveError(
                    f"{w.src}/off needs a {w.src}: a larger number bears off only from your "
                    "highest point"
                )

    def _steps_for(
        self, state: BackgammonState, result: tuple[Side, Side]
    ) -> tuple[movegen.Step, ...] | None:
        """A way to reach ``result`` with fewer than all the dice, if there is one."""
        assert state.dice is not None
        me, opp = mover_sides(state)
        d1, d2 = state.dice
        dice = [d1] * 4 if d1 == d2 else [d1, d2]
        return _find_prefix(list(me), list(opp), dice, result)

    def _raise_illegal(
        self,
        state: BackgammonState,
        plays: list[movegen.PlayResult],
        result: tuple[Side, Side],
        steps: tuple[movegen.Step, ...] | None,
        text: str,
    ) -> BgMove:
        assert state.dice is not None
        if steps is None:
            d1, d2 = state.dice
            example = notation.format_play(plays[0][0])
            raise IllegalMoveError(
                f"{text} cannot be played with {d1}-{d2}; for example {example} can"
            )
        raise IllegalMoveError(self._diagnose(state, plays, result, steps))

    def format_move(self, state: BackgammonState, move: BgMove) -> str:
        """Canonical text: gnubg notation for plays, ``(no play)``, or the action word."""
        if move.action == "play":
            return notation.format_play(move.steps) if move.steps else NO_PLAY
        if move.action == "resign":
            return f"resign {RESIGN_WORDS.get(move.level, 'single')}"
        return move.action

    def outcome(self, state: BackgammonState) -> Outcome | None:
        if state.phase != OVER or state.last_game is None:
            return None
        g = state.last_game
        w = g.winner
        scores: tuple[int, ...]
        if state.is_money:
            scores = tuple(g.points if seat == w else 0 for seat in (0, 1))
            what = "the money game"
        else:
            scores = state.score
            what = f"the {state.match_length}-point match {scores[w]}-{scores[1 - w]}"
        kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[g.value]
        how = {
            "normal": f"with {kind}",
            "resign": f"by resignation ({kind})",
            "drop": "when the double was dropped",
            "timeout": "on time",
            "forfeit": "by forfeit",
        }.get(g.reason, f"({g.reason})")
        detail = f"{seat_name(w)} wins {what} {how}, {g.points} point{'s' * (g.points != 1)}."
        return Outcome(
            winners=(w,),
            scores=scores,
            placings=(1, 2) if w == 0 else (2, 1),
            reason=g.reason,
            detail=detail,
            extra={
                "game_value": g.value,
                "cube": g.cube,
                "points": g.points,
                "match_length": state.match_length,
            },
        )

    def continue_session(self, state: BackgammonState) -> BackgammonState:
        """The next game of a money session: a finished money game's state with a fresh
        board, the opening roll pending and ``score`` (the session's running totals) kept.
        ``ValueError`` unless ``state`` is a finished money game."""
        if not state.is_money or state.phase != OVER:
            raise ValueError("only a finished money game can be followed by another")
        return BackgammonState(score=state.score, last_game=state.last_game, options=state.options)

    # --- things the service does to a game -----------------------------------------
    def on_timeout(self, state: BackgammonState) -> BackgammonState:
        """The seat that let its deadline pass loses the match."""
        seat = self.to_act(state)
        if seat is None:
            seat = state.turn
        return self.forfeit(state, seat, "timeout")

    def forfeit(self, state: BackgammonState, seat: int, reason: str) -> BackgammonState:
        """``seat`` gives up the whole match: the other seat wins it. In money play the
        game counts as lost with the gammon/backgammon the board shows."""
        if state.phase == OVER:
            return state
        winner = 1 - seat
        value = game_value(state.board[winner], state.board[seat])
        if state.phase == OPENING:
            value = 1
        ended = _end_game(state, winner, value, reason)
        if state.is_money:
            return ended
        g = ended.last_game
        assert g is not None
        score = list(ended.score)
        score[winner] = state.match_length
        return replace(
            ended,
            phase=OVER,
            board=state.board,
            turn=state.turn,
            cube=state.cube,
            cube_owner=state.cube_owner,
            crawford_game=state.crawford_game,
            post_crawford=state.post_crawford,
            score=(score[0], score[1]),
            dice=None,
        )

    # --- what people may see -------------------------------------------------------
    def view(self, state: BackgammonState, seat: int | None) -> dict[str, JSONValue]:
        """Everything (nothing is hidden in backgammon), as plain JSON-able data."""
        out: dict[str, JSONValue] = {
            "kind": self.kind,
            "phase": state.phase,
            "turn": state.turn,
            "to_act": self.to_act(state),
            "viewer": seat,
            "board": [list(state.board[0]), list(state.board[1])],
            "bar": [state.board[0][BAR], state.board[1][BAR]],
            "off": [state.off(0), state.off(1)],
            "pips": [state.pips(0), state.pips(1)],
            "dice": list(state.dice) if state.dice else None,
            "cube": state.cube,
            "cube_owner": state.cube_owner,
            "can_double": state.phase == DECIDE and can_double(state),
            "beavered": state.beavered,
            "match_length": state.match_length,
            "score": list(state.score),
            "crawford": state.crawford_game,
            "post_crawford": state.post_crawford,
            "resign_offer": (
                {"by": state.resigner, "level": state.resign_level}
                if state.phase == RESIGNING
                else None
            ),
            "last_game": (
                {
                    "winner": state.last_game.winner,
                    "value": state.last_game.value,
                    "cube": state.last_game.cube,
                    "points": state.last_game.points,
                    "reason": state.last_game.reason,
                }
                if state.last_game
                else None
            ),
            "options": self.options_dict(state.options),
            "id": self.to_id(state),
        }
        if seat in (0, 1):
            out["my_side"] = list(state.board[seat])
            out["their_side"] = list(state.board[1 - seat])
        return out

    @staticmethod
    def options_dict(o: Options) -> dict[str, JSONValue]:
        return {
            "match_length": o.match_length,
            "cube": o.cube,
            "crawford": o.crawford,
            "jacoby": o.jacoby,
            "beavers": o.beavers,
            "auto_doubles": o.auto_doubles,
        }

    def describe(self, state: BackgammonState) -> str:
        """E.g. ``5-pt match, 2-1, Black to roll``."""
        if state.is_money:
            head = "money game" + (f", cube {state.cube}" if state.cube > 1 else "")
        else:
            head = f"{state.match_length}-pt match, {state.score[0]}-{state.score[1]}"
            if state.crawford_game:
                head += " (Crawford)"
        who = seat_name(state.turn)
        phase = state.phase
        if phase == OPENING:
            tail = "opening roll"
        elif phase in (DECIDE, DICE):
            tail = f"{who} to roll"
        elif phase == MOVING:
            assert state.dice is not None
            tail = f"{who} to play {state.dice[0]}-{state.dice[1]}"
        elif phase == DOUBLED and state.beavered:
            tail = f"{who} to take or drop a beaver to {state.cube * 2}"
        elif phase == DOUBLED:
            tail = f"{seat_name(1 - state.turn)} to take or drop a double to {state.cube * 2}"
        elif phase == RESIGNING:
            other = 1 - (state.resigner if state.resigner is not None else state.turn)
            level = RESIGN_WORDS.get(state.resign_level, "single")
            tail = f"{seat_name(other)} to accept or reject a {level} resignation"
        else:
            g = state.last_game
            tail = f"{seat_name(g.winner)} won" if g else "over"
        return f"{head}, {tail}"


# --------------------------------------------------------------------- search helpers


def _trusted(
    move: BgMove, me: Side, opp: Side, dice: Dice | None, after_me: Side, after_opp: Side
) -> BgMove:
    """``move`` marked as proved legal from (me, opp, dice) to (after_me, after_opp)."""
    object.__setattr__(move, "trusted", (me, opp, dice, after_me, after_opp))
    return move


def _reaches(m: list[int], o: list[int], dice: list[int], target: tuple[Side, Side]) -> bool:
    """Can the remaining ``dice`` (in some order) take (m, o) to ``target``?"""
    if (tuple(m), tuple(o)) == target:
        return True
    for die in sorted(set(dice)):
        rest = list(dice)
        rest.remove(die)
        for step in movegen.single_steps(m, o, die):
            movegen.apply_step(m, o, step)
            ok = _reaches(m, o, rest, target)
            movegen.undo_step(m, o, step)
            if ok:
                return True
    return False


def _find_prefix(
    m: list[int], o: list[int], dice: list[int], target: tuple[Side, Side]
) -> tuple[movegen.Step, ...] | None:
    """Steps with some of ``dice`` that reach ``target`` (None if no prefix of a roll does)."""
    seen: set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = set()
    path: list[movegen.Step] = []

    def rec(rest: list[int]) -> tuple[movegen.Step, ...] | None:
        here = (tuple(m), tuple(o))
        if here == target:
            return tuple(path)
        key = (here[0], here[1], tuple(sorted(rest)))
        if key in seen:
            return None
        seen.add(key)
        for die in sorted(set(rest)):
            r2 = list(rest)
            r2.remove(die)
            for step in movegen.single_steps(m, o, die):
                movegen.apply_step(m, o, step)
                path.append(step)
                found = rec(r2)
                path.pop()
                movegen.undo_step(m, o, step)
                if found is not None:
                    return found
        return None

    return rec(list(dice))
