"""What the game use-cases hand out and refuse with: seats, games, events, snapshots.

Event payloads (``game_events.payload``, replayed by :mod:`door.games.replay`):

* ``move``   ``{"move": "<canonical notation>"}``
* ``chance`` ``{"chance": <rules.chance_to_json(event)>}``
* ``system`` ``{"action": "join"|"leave"|"start"|"timeout"|"forfeit", …}`` — only
  ``timeout`` (``rules.on_timeout``) and ``forfeit`` (``rules.forfeit(seat, reason)``)
  change the game state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from door.games.base import GameRules, Outcome, Refusal
from door.services.dice import DiceProof
from door.store.records import JSON, EventKind, GameStatus, JSONObject, SeatKind

AnyRules = GameRules[Any, Any, Any]
Status = GameStatus
ListWhich = Literal["invited", "open", "active", "mine", "waiting", "finished"]


# --- refusals ------------------------------------------------------------------------------


class StaleVersionError(Refusal):
    """The game changed since the player looked; ``snapshot`` is the game as it is now."""

    def __init__(self, snapshot: GameSnapshot, message: str | None = None) -> None:
        super().__init__(message or "the game changed while you were looking; here it is again")
        self.snapshot = snapshot


class NotYourTurnError(Refusal):
    """Someone tried to act when it is not their turn (or in a game they do not play)."""


class GameClosedError(Refusal):
    """The game is over (or not started yet) and takes no more moves."""


class LobbyError(Refusal):
    """A lobby action (begin, join, leave, look up) was refused; the message says why."""


class BannedError(Refusal):
    """The user acting is banned: nothing they ask of the game service is done."""

    def __init__(self, message: str = "your account has been suspended; ask the sysop") -> None:
        super().__init__(message)


# --- data ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatSpec:
    """How ``begin`` fills a seat: the creator ("me"), anyone ("open"), a named user
    ("user", ``name`` = user name) or the computer ("bot", ``name`` = bot level)."""

    kind: Literal["me", "open", "user", "bot"]
    name: str | None = None


@dataclass(frozen=True)
class SeatInfo:
    """A seat as it stands. ``reserved`` seats wait for the named user (``user_id``/
    ``name`` are theirs); ``bot`` seats have the bot's account id and ``name`` = level."""

    seat: int
    kind: SeatKind
    user_id: int | None
    name: str | None
    timeouts: int
    bank_s: int = 0
    """The seat's time bank as it stood when the current turn began, seconds."""


@dataclass(frozen=True)
class GameInfo:
    """A game as the lists and screens show it (its rules state is in :class:`GameSnapshot`)."""

    id: int
    kind: str
    title: str
    options: dict[str, JSON]
    status: Status
    seats: tuple[SeatInfo, ...]
    to_act: int | None
    version: int
    deadline: datetime | None
    deadline_hours: int
    hints_allowed: bool
    created_by: int
    created_at: datetime
    updated_at: datetime
    summary: str
    outcome: Outcome | None
    last_seq: int
    dice: DiceProof | None = None
    """The dice proof as it may be shown now (the seed only once the game is over)."""
    bank_s: int = 0
    """Each seat's time bank to begin with, seconds (0: none)."""
    weekends_off: bool = False
    """Whether the clock stops on Saturday and Sunday in the mover's zone."""
    move_deadline: datetime | None = None
    """When the move's own time runs out (the mover's bank runs from then to
    ``deadline``, the timeout)."""
    tournament: str | None = None
    """"<tournament>, round N" for a tournament game (filled in the game lists and
    records; None elsewhere and for an ordinary game)."""

    def seat_of(self, user_id: int) -> int | None:
        """The (first) seat ``user_id`` plays, or None."""
        for s in self.seats:
            if s.user_id == user_id and s.kind in ("user", "bot"):
                return s.seat
        return None

    def is_waiting_on(self, user_id: int) -> bool:
        """True when the game is running and it is ``user_id``'s turn."""
        if self.status != "active" or self.to_act is None:
            return False
        for s in self.seats:
            if s.seat == self.to_act:
                return s.user_id == user_id and s.kind in ("user", "bot")
        return False


@dataclass(frozen=True)
class GameEvent:
    """One event of a game's log."""

    seq: int
    seat: int | None
    kind: EventKind
    payload: JSONObject
    created_at: datetime


@dataclass(frozen=True)
class GameSnapshot:
    """A game and its rules state (unfiltered: show it through ``rules.view``).

    ``my_seat`` is the viewer's seat (None for a spectator); ``last_seen_seq`` is how far
    the viewer had looked before this (0 for a spectator).
    """

    info: GameInfo
    state: Any
    my_seat: int | None
    last_seen_seq: int


@dataclass(frozen=True)
class GameNews:
    """What happened in one of a user's games since they last looked at it.

    ``moves`` are the other seats' moves, oldest first, as ``(seat, move text)`` in the
    mover's own notation (a screen shows them in the viewer's); ``joined``/``left`` the
    seats that took or gave back a seat; ``timeouts`` the seats whose turn timed out
    (without ending the game). ``invited``: the game waits for the user's answer to a
    named invitation. ``declined``: a named player declined, and the game was
    cancelled. ``my_seat`` is the user's seat (a kept seat for an invitation).
    """

    info: GameInfo
    my_seat: int | None
    moves: tuple[tuple[int, str], ...] = ()
    joined: tuple[int, ...] = ()
    left: tuple[int, ...] = ()
    timeouts: tuple[int, ...] = ()
    invited: bool = False
    declined: bool = False

    @property
    def is_finished(self) -> bool:
        return self.info.status == "finished"

    @property
    def is_waiting_on_me(self) -> bool:
        info = self.info
        return self.my_seat is not None and info.status == "active" and info.to_act == self.my_seat


@dataclass(frozen=True)
class VisitSummary:
    """What happened in a user's games since they last looked.

    ``news`` has one entry per game with something to tell, in the order a summary
    lists them: invitations, finished games, games waiting on the user (most urgent
    first), then the rest (newest first).
    """

    moves_against_you: int
    finished: list[GameInfo]
    waiting: list[GameInfo]
    new_events: int
    news: list[GameNews] = field(default_factory=list)
    invitations: list[GameInfo] = field(default_factory=list)


# --- conversions ---------------------------------------------------------------------------


def outcome_to_json(outcome: Outcome) -> JSONObject:
    return {
        "winners": list(outcome.winners),
        "scores": list(outcome.scores),
        "placings": list(outcome.placings),
        "reason": outcome.reason,
        "detail": outcome.detail,
        "extra": dict(outcome.extra),
    }


def outcome_from_json(data: Mapping[str, Any] | None) -> Outcome | None:
    if not data:
        return None
    return Outcome(
        winners=tuple(data.get("winners", ())),
        scores=tuple(data.get("scores", ())),
        placings=tuple(data.get("placings", ())),
        reason=str(data.get("reason", "normal")),
        detail=str(data.get("detail", "")),
        extra=dict(data.get("extra") or {}),
    )


def dump_state(rules: AnyRules, state: Any) -> str:
    """The snapshot text: ``snapshot_id`` where the rules offer it, else ``to_id``."""
    snap = getattr(rules, "snapshot_id", None)
    if callable(snap):
        return str(snap(state))
    return rules.to_id(state)


def load_state(rules: AnyRules, text: str, options: Mapping[str, Any]) -> Any:
    """Read a snapshot written by :func:`dump_state`."""
    load = getattr(rules, "from_snapshot", None)
    if callable(load):
        return load(text, options)
    return rules.from_id(text, options)
