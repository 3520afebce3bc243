"""``SpectrangleRules``: the :class:`door.games.base.GameRules` contract for Spectrangle.

Choices the reference leaves open, fixed here:

- Starting draw: every seat draws one piece (one chance event for all). The highest value
  starts; seats tied for the highest put their pieces back into the bag and draw again
  (another chance event), until one is highest. Each seat keeps the piece of its *last*
  starting draw, and one more chance event fills every hand to 4.
- A placement is followed by one draw for the mover while the bag is not empty. A swap is
  followed by one draw for the swapper; the swapped piece stays in the hand until then, so
  the draw comes first and the old piece goes back afterwards (it cannot come straight
  back).
- Timeout: the late seat passes (even if it could place). It counts towards the safety
  end only if the seat could not place.
- Forfeit: with 2 players the other wins; in the team variant the forfeiting team loses;
  with 3-4 players the seat drops out, its hand goes back into the bag, its turns are
  skipped and the game goes on while two or more remain. Dropped seats place below every
  seat still playing, ranked among themselves by score.
- Safety end: the game also ends after a full round of turns (one per seat still playing)
  in which nobody placed and nobody could place.
- Team variant (4 seats, 0+2 against 1+3): each seat keeps its own entry in SPN, and
  ``Outcome.scores`` gives every seat its team's total.

``to_id`` is SPN; it omits the set-up phase, pending draws, the safety-end counter, dropped
seats and the end reason. ``snapshot_id`` / ``from_snapshot`` carry the complete state.

>>> import random
>>> rules, rng = SpectrangleRules(), random.Random(1)
>>> state = rules.new_game(2, {})
>>> while rules.chance_pending(state):  # the starting draws
...     state = rules.apply_chance(state, rules.sample_chance(state, rng))
>>> rules.to_act(state), len(rules.legal_moves(state))
(1, 351)
>>> move = rules.parse_move(state, "PPP6@0:0")
>>> rules.format_move(state, move), rules.apply(state, move).scores
('PPP6@0:0', (0, 6))
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence

from door.games import fairdice
from door.games.base import IllegalMoveError, JSONValue, Outcome, Refusal
from door.games.spectrangle import notation, spn
from door.games.spectrangle.board import FIELD_COUNT, fields
from door.games.spectrangle.moves import (
    Move,
    can_place,
    placement_score,
    scored_moves,
    why_illegal,
)
from door.games.spectrangle.pieces import (
    HAND_SIZE,
    PIECE_COUNT,
    entry_for,
    hand_value,
    piece,
    piece_index,
)
from door.games.spectrangle.state import Draw, Phase, Placement, SpectrangleState

_OPTION_KEYS = ("mirror", "teams")


def _with(t: tuple[int, ...], *add: int) -> tuple[int, ...]:
    return tuple(sorted((*t, *add)))


def _without(t: tuple[int, ...], *drop: int) -> tuple[int, ...]:
    gone = set(drop)
    return tuple(x for x in t if x not in gone)


def _set(t: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return (*t[:i], value, *t[i + 1 :])


class SpectrangleRules:
    """Spectrangle for 2-4 seats (team variant for 4). Stateless; one instance serves all."""

    kind = "spectrangle"
    title = "Spectrangle"
    min_seats = 2
    max_seats = 4

    # --- set-up and identity -------------------------------------------------------
    def default_options(self) -> dict[str, JSONValue]:
        """``mirror``: pieces may be turned over (double-sided trangs); ``teams``: the
        2-v-2 variant for 4 seats."""
        return {"mirror": True, "teams": False}

    def validate_options(
        self, seats: int, options: Mapping[str, JSONValue]
    ) -> dict[str, JSONValue]:
        """Checked, complete options; a ``Refusal`` (a ``ValueError``) names the problem."""
        if not self.min_seats <= seats <= self.max_seats:
            raise Refusal(f"Spectrangle is for 2 to 4 players, not {seats}")
        unknown = sorted(set(options) - set(_OPTION_KEYS))
        if unknown:
            raise Refusal(
                f"unknown option {unknown[0]!r}: Spectrangle knows {', '.join(_OPTION_KEYS)}"
            )
        result = self.default_options()
        for key in _OPTION_KEYS:
            if key in options:
                value = options[key]
                if not isinstance(value, bool):
                    raise Refusal(f"option {key!r} is yes or no (true/false), not {value!r}")
                result[key] = value
        if result["teams"] and seats != 4:
            raise Refusal("the team variant needs exactly 4 players")
        return result

    def new_game(self, seats: int, options: Mapping[str, JSONValue]) -> SpectrangleState:
        """Empty board, all 36 pieces in the bag, the starting draw pending for every seat."""
        opts = self.validate_options(seats, options)
        return SpectrangleState(
            players=seats,
            board=(None,) * FIELD_COUNT,
            hands=((),) * seats,
            scores=(0,) * seats,
            turn=None,
            bag=tuple(range(PIECE_COUNT)),
            phase=Phase.START,
            pending=tuple(range(seats)),
            mirror=bool(opts["mirror"]),
            teams=bool(opts["teams"]),
        )

    def _opts(self, options: Mapping[str, JSONValue] | None) -> tuple[bool, bool]:
        o = self.default_options()
        o.update(options or {})
        return bool(o.get("mirror", True)), bool(o.get("teams", False))

    def to_id(self, state: SpectrangleState) -> str:
        """The SPN (reference §5.1)."""
        return spn.to_spn(state)

    def from_id(
        self, text: str, options: Mapping[str, JSONValue] | None = None
    ) -> SpectrangleState:
        """Read an SPN (or a snapshot); the options supply mirroring and teams."""
        mirror, teams = self._opts(options)
        return spn.from_snapshot(text, mirror=mirror, teams=teams)

    def snapshot_id(self, state: SpectrangleState) -> str:
        """SPN plus everything SPN omits; :meth:`from_snapshot` reads it back exactly."""
        return spn.to_snapshot(state)

    def from_snapshot(
        self, text: str, options: Mapping[str, JSONValue] | None = None
    ) -> SpectrangleState:
        mirror, teams = self._opts(options)
        return spn.from_snapshot(text, mirror=mirror, teams=teams)

    # --- whose turn ----------------------------------------------------------------
    def to_act(self, state: SpectrangleState) -> int | None:
        if state.phase != Phase.PLAY or state.pending:
            return None
        return state.turn

    def chance_pending(self, state: SpectrangleState) -> bool:
        return state.phase != Phase.OVER and bool(state.pending)

    def sample_chance(self, state: SpectrangleState, rng: random.Random) -> Draw:
        """Draw the pending pieces from the bag with ``rng`` (one per pending seat)."""
        if not self.chance_pending(state):
            raise ValueError("no draw is pending")
        drawn = rng.sample(state.bag, len(state.pending))
        return Draw(tuple(drawn), state.pending)

    def chance_from_bytes(self, state: SpectrangleState, stream: Iterator[int]) -> Draw:
        """The pending pieces from ``stream``: one after another, each a uniform choice
        among the pieces still in the bag, in the bag's sorted order."""
        if not self.chance_pending(state):
            raise ValueError("no draw is pending")
        left = list(state.bag)
        drawn = [left.pop(fairdice.choose(stream, len(left))) for _ in state.pending]
        return Draw(tuple(drawn), state.pending)

    def apply_chance(self, state: SpectrangleState, event: Draw) -> SpectrangleState:
        if not self.chance_pending(state):
            raise ValueError("no draw is pending")
        if tuple(event.seats) != state.pending:
            raise ValueError(
                f"the draw is for seats {list(event.seats)}, but seats "
                f"{list(state.pending)} are due to draw"
            )
        if len(event.pieces) != len(event.seats) or len(set(event.pieces)) != len(event.pieces):
            raise ValueError("a draw names one different piece per seat entry")
        missing = [piece(p).name for p in event.pieces if p not in state.bag]
        if missing:
            raise ValueError(f"{', '.join(missing)} is not in the bag")
        hands = list(state.hands)
        for p, s in zip(event.pieces, event.seats, strict=True):
            hands[s] = _with(hands[s], p)
        bag = _without(state.bag, *event.pieces)
        after = state.evolve(hands=tuple(hands), bag=bag, pending=())
        if state.phase == Phase.START:
            return self._resolve_start(after, tuple(dict.fromkeys(event.seats)))
        if state.phase == Phase.DEAL:
            return after.evolve(phase=Phase.PLAY)
        if state.swap_out is not None:
            seat = event.seats[0]
            hands[seat] = _without(hands[seat], state.swap_out)
            after = after.evolve(hands=tuple(hands), bag=_with(bag, state.swap_out), swap_out=None)
        return self._settle(after)

    def _resolve_start(
        self, state: SpectrangleState, contenders: tuple[int, ...]
    ) -> SpectrangleState:
        """Decide the starter among ``contenders`` (each holding its drawn piece)."""
        values = {s: max((piece(p).value for p in state.hands[s]), default=0) for s in contenders}
        best = max(values.values())
        tied = tuple(s for s in contenders if values[s] == best)
        if len(tied) > 1:
            hands = list(state.hands)
            back: list[int] = []
            for s in tied:
                back.extend(hands[s])
                hands[s] = ()
            return state.evolve(hands=tuple(hands), bag=_with(state.bag, *back), pending=tied)
        starter = tied[0]
        deal: list[int] = []
        for s in state.active_seats():
            deal.extend([s] * (HAND_SIZE - len(state.hands[s])))
        return state.evolve(phase=Phase.DEAL, turn=starter, pending=tuple(deal))

    def chance_to_json(self, event: Draw) -> JSONValue:
        return {"draw": [piece(p).name for p in event.pieces], "seats": list(event.seats)}

    def chance_from_json(self, data: JSONValue) -> Draw:
        try:
            names = data["draw"]
            seats = data["seats"]
            pieces_ = tuple(piece_index(str(n)) for n in names)
            seat_t = tuple(int(s) for s in seats)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a Spectrangle draw: {data!r} ({exc})") from None
        if len(pieces_) != len(seat_t):
            raise ValueError("a draw lists one seat per piece")
        return Draw(pieces_, seat_t)

    # --- moves ---------------------------------------------------------------------
    def legal_moves(self, state: SpectrangleState) -> Sequence[Move]:
        """Every legal action of the seat to act, best-scoring first (see
        :func:`door.games.spectrangle.moves.scored_moves`)."""
        return [m for m, _ in scored_moves(state)]

    def scored_moves(self, state: SpectrangleState) -> list[tuple[Move, int]]:
        """Legal actions with the points each scores, best first."""
        return scored_moves(state)

    def move_score(self, state: SpectrangleState, move: Move) -> int:
        """Points ``move`` would score (0 for pass and swap); it is not checked."""
        if move.kind != "place" or move.piece is None or move.field is None:
            return 0
        return piece(move.piece).value * placement_score(state, move.field)

    def apply(self, state: SpectrangleState, move: Move) -> SpectrangleState:
        seat = self.to_act(state)
        if seat is None:
            raise IllegalMoveError("it is nobody's turn to move now")
        if move.kind == "place":
            if move.piece is None or move.field is None:
                raise IllegalMoveError("a placement names a piece and a field")
            move = notation.canonical(state, move)
            assert move.piece is not None and move.field is not None
            reason = why_illegal(state, move.piece, move.field, move.rotation, move.mirror)
            if reason is not None:
                raise IllegalMoveError(f"{notation.format_move(move)}: {reason}")
            return self._place(state, seat, move)
        if move.kind not in ("pass", "swap") or (move.kind == "swap" and move.piece is None):
            raise IllegalMoveError("not a Spectrangle move: place a piece, pass or swap one")
        # Pass and swap are checked by the parser (same rules, same messages).
        notation.parse_move(state, notation.format_move(move))
        if move.kind == "pass":
            return self._pass(state, seat, could_place=False)
        assert move.piece is not None
        return state.evolve(
            turn=state.next_seat(seat),
            pending=(seat,),
            swap_out=move.piece,
            idle=state.idle + 1,
        )

    def _place(self, state: SpectrangleState, seat: int, move: Move) -> SpectrangleState:
        assert move.piece is not None and move.field is not None
        p = piece(move.piece)
        points = self.move_score(state, move)
        sides = entry_for(p.code, fields()[move.field].up, move.rotation, move.mirror)
        board = list(state.board)
        board[move.field] = Placement(move.piece, sides)
        after = state.evolve(
            board=tuple(board),
            hands=tuple(
                _without(h, move.piece) if s == seat else h for s, h in enumerate(state.hands)
            ),
            scores=_set(state.scores, seat, state.scores[seat] + points),
            turn=state.next_seat(seat),
            pending=(seat,) if state.bag else (),
            idle=0,
        )
        return self._settle(after)

    def _pass(self, state: SpectrangleState, seat: int, *, could_place: bool) -> SpectrangleState:
        after = state.evolve(turn=state.next_seat(seat), idle=0 if could_place else state.idle + 1)
        return self._settle(after)

    def _settle(self, state: SpectrangleState) -> SpectrangleState:
        """End the game if it is over: every hand empty, or the bag empty and nobody able
        to place, or a full round in which nobody could place."""
        if state.phase != Phase.PLAY or state.pending:
            return state
        active = state.active_seats()
        if all(not state.hands[s] for s in active):
            return self._finish(state, "normal")
        if not state.bag and not any(can_place(state, s) for s in active):
            return self._finish(state, "normal")
        if state.idle >= len(active):
            return self._finish(state, "stuck")
        return state

    def _finish(self, state: SpectrangleState, end: str) -> SpectrangleState:
        """Subtract each hand's face values and close the game. A game abandoned during
        the set-up (a forfeit before the first turn) ends with no penalty: nobody has
        played yet."""
        if state.phase == Phase.PLAY:
            pairs = zip(state.scores, state.hands, strict=True)
            scores = tuple(sc - hand_value(h) for sc, h in pairs)
        else:
            scores = state.scores
        return state.evolve(
            scores=scores, phase=Phase.OVER, turn=None, pending=(), swap_out=None, end=end
        )

    def parse_move(self, state: SpectrangleState, text: str) -> Move:
        return notation.parse_move(state, text)

    def format_move(self, state: SpectrangleState, move: Move) -> str:
        return notation.format_move(notation.canonical(state, move))

    def outcome(self, state: SpectrangleState) -> Outcome | None:
        if not state.is_over:
            return None
        n = state.players
        if state.teams:
            team_total = {t: sum(state.scores[s] for s in range(n) if s % 2 == t) for t in (0, 1)}
            shown = tuple(team_total[s % 2] for s in range(n))
        else:
            shown = state.scores
        units = sorted({state.team_of(s) for s in range(n)})

        def key(unit: int) -> tuple[int, int]:
            seat = next(s for s in range(n) if state.team_of(s) == unit)
            return (0 if seat in state.out else 1, shown[seat])

        place_of = {u: 1 + sum(1 for v in units if key(v) > key(u)) for u in units}
        placings = tuple(place_of[state.team_of(s)] for s in range(n))
        winners = tuple(s for s in range(n) if placings[s] == 1)
        end = state.end or "normal"
        reason = "normal" if end in ("normal", "stuck") else end
        if end == "stuck":
            detail = "Nobody could place for a full round; hands were counted off."
        elif reason == "normal":
            detail = "No more pieces could be placed; hands were counted off."
        else:
            detail = f"Ended by {reason}: seat(s) {', '.join(map(str, state.out))} left."
        extra: dict[str, JSONValue] = {"dropped": list(state.out)}
        if state.teams:
            extra["seat_scores"] = list(state.scores)
        return Outcome(winners, shown, placings, reason, detail, extra)

    # --- things the service does to a game -----------------------------------------
    def on_timeout(self, state: SpectrangleState) -> SpectrangleState:
        """The late seat passes (a system action: allowed even if it could place)."""
        seat = self.to_act(state)
        if seat is None:
            raise ValueError("no seat is due to move")
        return self._pass(state, seat, could_place=can_place(state, seat))

    def forfeit(self, state: SpectrangleState, seat: int, reason: str) -> SpectrangleState:
        """``seat`` leaves: see the module docstring for what happens to the game."""
        if state.is_over:
            raise ValueError("the game is already over")
        if not 0 <= seat < state.players or seat in state.out:
            raise ValueError(f"seat {seat} is not playing in this game")
        dropped = tuple(s for s in range(state.players) if state.team_of(s) == state.team_of(seat))
        back = [p for s in dropped for p in state.hands[s]]
        hands = tuple(() if s in dropped else h for s, h in enumerate(state.hands))
        swap_out = state.swap_out
        if state.pending and state.pending[0] in dropped:
            swap_out = None
        after = state.evolve(
            hands=hands,
            bag=_with(state.bag, *back),
            pending=tuple(s for s in state.pending if s not in dropped),
            swap_out=swap_out,
            out=_with(state.out, *dropped),
        )
        remaining = after.active_seats()
        if len({after.team_of(s) for s in remaining}) < 2:
            return self._finish(after, reason)
        if after.turn is not None and after.turn in dropped:
            after = after.evolve(turn=after.next_seat(after.turn))
        if after.phase == Phase.START and not after.pending:
            return self._resolve_start(after, remaining)
        if after.phase == Phase.DEAL and not after.pending:
            return after.evolve(phase=Phase.PLAY)
        return self._settle(after)

    # --- what people may see -------------------------------------------------------
    def view(self, state: SpectrangleState, seat: int | None) -> dict[str, JSONValue]:
        """Hands are public; the bag is shown only as a count."""
        return {
            "kind": self.kind,
            "seat": seat,
            "players": state.players,
            "phase": state.phase,
            "board": [None if p is None else p.entry for p in state.board],
            "hands": [[piece(p).name for p in h] for h in state.hands],
            "scores": list(state.scores),
            "turn": self.to_act(state),
            "bag_count": len(state.bag),
            "out": list(state.out),
            "team_scores": (
                [sum(state.scores[s] for s in range(state.players) if s % 2 == t) for t in (0, 1)]
                if state.teams
                else None
            ),
            "mirror": state.mirror,
            "teams": state.teams,
            "spn": spn.to_spn(state),
        }

    def describe(self, state: SpectrangleState) -> str:
        scores = "-".join(str(s) for s in state.scores)
        if state.is_over:
            o = self.outcome(state)
            won = ", ".join(f"P{s + 1}" for s in (o.winners if o else ()))
            return f"finished {scores}; won by {won}"
        if state.phase in (Phase.START, Phase.DEAL):
            return "drawing pieces to see who starts"
        who = self.to_act(state)
        whose = f"P{who + 1} to move" if who is not None else "drawing"
        return f"{scores}, {whose}, {len(state.bag)} in the bag"
