"""The contract every game's rules module implements, and what they share.

A rules module is pure: it never does I/O, never awaits, never draws random numbers it was
not handed. Everything above it (the game service, the screens, the bots, ``door rules``,
the tests) talks to a game only through :class:`GameRules`.

The life of a game, as the service drives it::

    state = rules.new_game(seats, options)
    while rules.outcome(state) is None:
        while rules.chance_pending(state):             # dice, tile draws
            event = rules.sample_chance(state, rng)    # rng handed in by the service
            state = rules.apply_chance(state, event)   # and the event is logged
        seat = rules.to_act(state)
        move = rules.parse_move(state, text)           # a player's action, in notation
        state = rules.apply(state, move)               # and the move is logged

Moves and chance events are stored as text (``format_move``) and JSON
(``chance_to_json``) respectively, so replaying the log through ``parse_move`` / ``apply``
and ``chance_from_json`` / ``apply_chance`` reproduces the game without any RNG.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

JSONValue = Any
"""A value that ``json.dumps`` accepts (kept loose: the rules decide the shape)."""


class Refusal(ValueError):
    """The root of every refusal a person may be shown: a rule, a stale version, not
    their turn, a bad name. Its message is written for the player.

    Anything else that escapes a handler is a bug: the session logs it with its
    traceback and tells the player "something went wrong, nothing was lost". A
    subclass of ``ValueError`` so that callers (the CLI, scripts) that already catch
    ``ValueError`` keep working; but a plain ``ValueError`` is never shown as a rule.
    """


class InvalidMoveError(Refusal):
    """The text could not be read as a move of this game at all.

    The message says what was expected, in words fit to show a player.
    """


class IllegalMoveError(Refusal):
    """The move was understood but the rules do not allow it here.

    The message names the rule that forbids it ("you must use both dice: 24/22/17 does").
    """


class AmbiguousMoveError(Refusal):
    """The text could mean more than one legal move; the message lists the readings."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``winners`` are seat numbers (several for a tie or a team); an empty tuple is a draw
    in which nobody won. ``scores`` has one entry per seat: match points for backgammon,
    final game score for Spectrangle. ``placings`` gives each seat's place, 1 = first,
    equal places for ties. ``reason`` is a short machine word ("normal", "resign",
    "drop", "timeout", "forfeit"); ``detail`` a sentence for people.
    """

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    placings: tuple[int, ...]
    reason: str = "normal"
    detail: str = ""
    extra: Mapping[str, JSONValue] = field(default_factory=dict)


S = TypeVar("S")
M = TypeVar("M")
C = TypeVar("C")


@runtime_checkable
class GameRules(Protocol[S, M, C]):
    """What the rest of door may ask of a game's rules.

    ``S`` is the game's frozen state, ``M`` its move type (every action a seat can take,
    such as a checker play, ``roll``, ``double``, ``pass``), ``C`` its chance event (dice,
    a tile draw). All methods are pure functions of their arguments.
    """

    kind: str
    """Registry name, e.g. ``"backgammon"``."""
    title: str
    """Name for people, e.g. ``"Backgammon"``."""
    min_seats: int
    max_seats: int

    # --- set-up and identity -------------------------------------------------------
    def default_options(self) -> dict[str, JSONValue]:
        """The options a new game gets when the creator changes nothing."""
        ...

    def validate_options(
        self, seats: int, options: Mapping[str, JSONValue]
    ) -> dict[str, JSONValue]:
        """Return the complete, checked options; raise a :class:`Refusal` (a
        ``ValueError``) whose message, fit to show the player, gives the reason."""
        ...

    def new_game(self, seats: int, options: Mapping[str, JSONValue]) -> S:
        """The state before any chance event or move (set-up draws are still pending)."""
        ...

    def to_id(self, state: S) -> str:
        """A text form of the complete state that ``from_id`` reads back exactly."""
        ...

    def from_id(self, text: str, options: Mapping[str, JSONValue] | None = None) -> S:
        """Read a state written by ``to_id``; ``InvalidMoveError`` is not used here:
        a malformed ID raises ``ValueError`` with the reason."""
        ...

    # --- whose turn ----------------------------------------------------------------
    def to_act(self, state: S) -> int | None:
        """The seat that must act now, or ``None`` while chance is pending or when over."""
        ...

    def chance_pending(self, state: S) -> bool:
        """True when the next thing to happen is a chance event (dice, a draw)."""
        ...

    def sample_chance(self, state: S, rng: random.Random) -> C:
        """Draw the pending chance event with the RNG the caller hands in."""
        ...

    def chance_from_bytes(self, state: S, stream: Iterator[int]) -> C:
        """Draw the pending chance event from ``stream``, uniform random bytes, by the
        provable-dice scheme (:mod:`door.games.fairdice`: each uniform choice among ``m``
        is :func:`~door.games.fairdice.choose`); ``ValueError`` when none is pending."""
        ...

    def apply_chance(self, state: S, event: C) -> S:
        """The state after a chance event; ``ValueError`` if it does not fit the state."""
        ...

    def chance_to_json(self, event: C) -> JSONValue: ...

    def chance_from_json(self, data: JSONValue) -> C: ...

    # --- moves ---------------------------------------------------------------------
    def legal_moves(self, state: S) -> Sequence[M]:
        """Every legal action of the seat to act, de-duplicated by resulting state."""
        ...

    def apply(self, state: S, move: M) -> S:
        """The state after a legal move; ``IllegalMoveError`` if it is not legal.

        Checked whatever the move's origin: equal moves always do the same."""
        ...

    def parse_move(self, state: S, text: str) -> M:
        """Read a move in the game's notation; raises the error trio above."""
        ...

    def format_move(self, state: S, move: M) -> str:
        """The move in the game's canonical notation (what ``parse_move`` reads back)."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """How the game (the whole match, for backgammon) ended, or ``None`` if it goes on."""
        ...

    # --- things the service does to a game -----------------------------------------
    def on_timeout(self, state: S) -> S:
        """Apply this game's rule for a seat that let its deadline pass.

        Backgammon: the late seat loses the match. Spectrangle: the late seat passes.
        """
        ...

    def forfeit(self, state: S, seat: int, reason: str) -> S:
        """The state after ``seat`` resigns the whole game or leaves it (reason is
        recorded in the outcome, e.g. ``"resign"``, ``"timeout"``, ``"forfeit"``)."""
        ...

    # --- what people may see -------------------------------------------------------
    def view(self, state: S, seat: int | None) -> dict[str, JSONValue]:
        """What ``seat`` (``None`` = a spectator) may see, as plain JSON-able data."""
        ...

    def describe(self, state: S) -> str:
        """One line for game lists: score, phase, whose turn."""
        ...
