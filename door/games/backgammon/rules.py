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

Moves, checked and unchecked (python-chess's ``Board.push`` beside ``push_san``): a
:class:`BgMove` is a plain value, and two equal moves always do the same. A play's steps
fix the position it reaches (``movegen.play_result``), so ``apply`` needs no search to
make it: it checks each step (a legal single step of an unused die), and only a play that
uses fewer dice than the roll needs the list of every play, to rule out a longer one.
``apply_unchecked`` skips the checks, for moves just taken from ``legal_moves`` or
``parse_move`` of the same state. Phases are ``position.Phase``, a ``StrEnum``.

The work is split by job: ``phases`` (the phase machine and scoring), ``matchid`` (the
ID codec), ``reading`` (reading and checking plays, and saying what is wrong) and
``options``; this module puts them behind the ``GameRules`` contract.

>>> rules = BackgammonRules()
>>> state = rules.apply_chance(rules.new_game(2, {"match_length": 3}), (3, 1))
>>> rules.describe(state)
'3-pt match, 0-0, White to play 3-1'
>>> move = rules.parse_move(state, "8/5 6/5")
>>> rules.format_move(state, move), rules.describe(rules.apply(state, move))
('8/5 6/5', '3-pt match, 0-0, Black to roll')
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from door.games import fairdice
from door.games.backgammon import matchid, notation, phases, reading
from door.games.backgammon.movegen import PlayResult, play_result
from door.games.backgammon.moves import (
    EMPTY_PLAY,
    NO_PLAY,
    BgMove,
    Dice,
)
from door.games.backgammon.options import (
    MAX_MATCH_LENGTH,
    default_options,
    fit_options,
    option_choices,
    options_dict,
    options_of,
    validate_options,
)
from door.games.backgammon.phases import (
    SEAT_NAMES,
    can_double,
    game_value,
    mover_sides,
    seat_name,
)
from door.games.backgammon.position import (
    BAR,
    DECIDE,
    DICE,
    DOUBLED,
    MOVING,
    OPENING,
    OVER,
    RESIGN_WORDS,
    RESIGNING,
    BackgammonState,
    Options,
)
from door.games.base import IllegalMoveError, JSONValue, Outcome

__all__ = [
    "MAX_MATCH_LENGTH",
    "SEAT_NAMES",
    "BackgammonRules",
    "can_double",
    "game_value",
    "mover_sides",
    "seat_name",
]


MEMO_SIZE = 4096
"""How many states' IDs, and typed moves, one :class:`BackgammonRules` remembers."""


class BackgammonRules:
    """Backgammon under the standard rules; see the module doc for phases and moves.

    Each rules object keeps one bounded memo of two pure answers that recur: a state's ID
    (:meth:`to_id`: every snapshot a server writes, and a roll keeps the board) and a
    typed move read in a state (:meth:`parse_move`: every move a player types is read
    here first, and the same plays are typed over and over). Equal states and texts give
    equal answers, so the memo can never be stale; it belongs to the object (the
    composition root builds the rules, ``door.games.registry.build_registry``), never to
    the module. ``memo_size`` 0 remembers nothing.
    """

    kind = "backgammon"
    title = "Backgammon"
    min_seats = 2
    max_seats = 2

    def __init__(self, memo_size: int = MEMO_SIZE) -> None:
        self._ids = functools.lru_cache(maxsize=memo_size)(matchid.state_to_id)
        self._reads = functools.lru_cache(maxsize=memo_size)(reading.read_move)

    # --- set-up and identity -------------------------------------------------------
    def default_options(self) -> dict[str, JSONValue]:
        """A 5-point match with the cube and the Crawford rule (the money-only options off)."""
        return default_options()

    def validate_options(
        self, seats: int, options: Mapping[str, JSONValue]
    ) -> dict[str, JSONValue]:
        """Checked, complete options; a ``Refusal`` (a ``ValueError``) names the first
        problem."""
        return validate_options(seats, options)

    def option_choices(
        self, seats: int, options: Mapping[str, JSONValue]
    ) -> dict[str, tuple[JSONValue, ...]]:
        """The values each option may take beside the others (one value: it does not
        apply); for set-up screens."""
        return option_choices(options)

    def fit_options(self, seats: int, wanted: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
        """``wanted`` with each option that does not apply beside the others at its one
        value, checked."""
        return fit_options(wanted)

    def options_of(self, options: Mapping[str, JSONValue]) -> Options:
        """The frozen ``Options`` for checked option values."""
        return options_of(options)

    @staticmethod
    def options_dict(o: Options) -> dict[str, JSONValue]:
        """``o`` as plain option values."""
        return options_dict(o)

    def new_game(self, seats: int, options: Mapping[str, JSONValue]) -> BackgammonState:
        """A new match (or money game): the opening roll is pending."""
        return BackgammonState(options=options_of(validate_options(seats, options)))

    def to_id(self, state: BackgammonState) -> str:
        """``POSITIONID:MATCHID[:extras]`` (see the module doc)."""
        return self._ids(state)

    def from_id(
        self, text: str, options: Mapping[str, JSONValue] | None = None
    ) -> BackgammonState:
        """Read ``to_id`` output, or a bare gnubg ``POSITIONID:MATCHID`` (``options`` fill in
        what the IDs cannot hold). ``ValueError`` says what is wrong."""
        return matchid.state_from_id(text, options)

    # --- whose turn ----------------------------------------------------------------
    def to_act(self, state: BackgammonState) -> int | None:
        return phases.to_act(state)

    def chance_pending(self, state: BackgammonState) -> bool:
        return phases.chance_pending(state)

    def sample_chance(self, state: BackgammonState, rng: random.Random) -> Dice:
        if not phases.chance_pending(state):
            raise ValueError("no dice are due now")
        return (rng.randint(1, 6), rng.randint(1, 6))

    def chance_from_bytes(self, state: BackgammonState, stream: Iterator[int]) -> Dice:
        """Two dice, each a uniform choice among six from ``stream`` (the opening roll's
        first die is seat 0's)."""
        if not phases.chance_pending(state):
            raise ValueError("no dice are due now")
        return (fairdice.choose(stream, 6) + 1, fairdice.choose(stream, 6) + 1)

    def apply_chance(self, state: BackgammonState, event: Dice) -> BackgammonState:
        """Apply a roll: the opening roll (seat 0's die, seat 1's die) or the dice of the
        seat on roll. ``ValueError`` when no dice are due or the dice are not dice."""
        d1, d2 = self._check_dice(event)
        return phases.roll(state, d1, d2)

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
    def plays(self, state: BackgammonState) -> list[PlayResult]:
        """Every distinct checker play (with resulting sides) in the moving phase."""
        return reading.plays(state)

    def legal_moves(self, state: BackgammonState) -> Sequence[BgMove]:
        """Every legal action of the seat to act; in the moving phase every distinct play
        (or the empty play when the roll cannot be played)."""
        if state.phase == MOVING:
            plays = reading.plays(state)
            return [BgMove("play", p[0]) for p in plays] if plays else [EMPTY_PLAY]
        return phases.legal_actions(state)

    def apply(self, state: BackgammonState, move: BgMove) -> BackgammonState:
        """The state after ``move``; ``IllegalMoveError`` names the rule that forbids it.

        Checked, whatever the move's origin (see the module doc for what that costs)."""
        if state.phase == OVER:
            raise IllegalMoveError("the match is over")
        if phases.chance_pending(state):
            raise IllegalMoveError("the dice must be rolled first")
        if move.action != "play":
            return phases.apply_action(state, move.action, move.level)
        if state.phase != MOVING:
            raise IllegalMoveError(phases.not_now(state, "move checkers"))
        return phases.after_play(state, *reading.checked_play(state, move.steps))

    def apply_unchecked(self, state: BackgammonState, move: BgMove) -> BackgammonState:
        """``apply`` without the legality check of a checker play: the fast path, as
        python-chess's ``Board.push`` beside ``push_san``.

        Only for a move taken from ``legal_moves(state)`` or ``parse_move(state, ...)`` of
        this very state; anything else gives a state the rules never reach. Actions other
        than plays are checked as by ``apply`` (that costs nothing).

        >>> rules = BackgammonRules()
        >>> state = rules.apply_chance(rules.new_game(2, {}), (6, 5))
        >>> move = rules.legal_moves(state)[0]
        >>> rules.apply_unchecked(state, move) == rules.apply(state, move)
        True
        """
        if move.action != "play" or state.phase != MOVING:
            return self.apply(state, move)
        me, opp = mover_sides(state)
        return phases.after_play(state, *play_result(me, opp, move.steps))

    def parse_move(self, state: BackgammonState, text: str) -> BgMove:
        """Read an action or a checker play that is legal now; raises the error trio with
        a message fit to show the player."""
        move = self._reads(state, text)
        if move.action != "play":
            self.apply(state, move)  # an action not allowed now says why, here
        return move

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
        seat = phases.to_act(state)
        if seat is None:
            seat = state.turn
        return self.forfeit(state, seat, "timeout")

    def forfeit(self, state: BackgammonState, seat: int, reason: str) -> BackgammonState:
        """``seat`` gives up the whole match: the other seat wins it. In money play the
        game counts as lost with the gammon/backgammon the board shows."""
        return phases.forfeit(state, seat, reason)

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
            "options": options_dict(state.options),
            "id": self.to_id(state),
        }
        if seat in (0, 1):
            out["my_side"] = list(state.board[seat])
            out["their_side"] = list(state.board[1 - seat])
        return out

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
