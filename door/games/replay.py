"""Replaying a game's event log through its rules: the one place that knows what each
logged event does to a state.

A game's log is a sequence of events, each with a ``kind``, a ``seat`` and a JSON
``payload``, as the game service stores them (DESIGN.md, "Persistence"):

- ``move``: ``{"move": text}``, a seat's action in the game's notation
  (``parse_move`` then ``apply``);
- ``chance``: ``{"chance": json}``, dice or a tile draw (``chance_from_json`` then
  ``apply_chance``);
- ``system``: ``{"action": "timeout"}`` (``on_timeout``), ``{"action": "forfeit",
  "reason": r}`` for ``seat`` (``forfeit``); other actions (``join``, ``leave``,
  ``start``, the sysop's ``abandon``) leave the state as it is.

:func:`replay` walks a log from a state and yields one :class:`Step` per event (the
event, the state before and after it, the parsed move), so each caller folds it as it
needs: the service and ``door check`` keep the last state, the screens the moves, the
game review scores each decision. Pure and deterministic: no RNG, no I/O.

>>> from door.games.backgammon.rules import BackgammonRules
>>> rules = BackgammonRules()
>>> log = [
...     Event("chance", None, {"chance": {"dice": [3, 1]}}),
...     Event("move", 0, {"move": "8/5 6/5"}),
... ]
>>> steps = list(replay(rules, rules.new_game(2, {"match_length": 0}), log))
>>> [(s.event.kind, s.move is not None) for s in steps]
[('chance', False), ('move', True)]
>>> final_state(rules, rules.new_game(2, {"match_length": 0}), log) == steps[-1].after
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from door.games.base import GameRules


class LoggedEvent(Protocol):
    """What replay reads of a logged event (the service's ``GameEvent`` has it)."""

    @property
    def kind(self) -> str: ...

    @property
    def seat(self) -> int | None: ...

    @property
    def payload(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class Event:
    """A logged event on its own, for callers that hold ``(kind, seat, payload)``."""

    kind: str
    seat: int | None
    payload: Mapping[str, Any]


class ReplayError(ValueError):
    """A logged event does not fit the state it is replayed on (a broken or tampered
    log, or a rules change that no longer reads an old log). Not a refusal to show a
    player: the message names the event and why, for logs and ``door check``."""


S = TypeVar("S")
M = TypeVar("M")
C = TypeVar("C")
E = TypeVar("E", bound=LoggedEvent)


@dataclass(frozen=True)
class Step(Generic[S, M, E]):
    """One event of a replay: the state before and after it; ``move`` is the parsed move
    of a ``move`` event (``None`` for chance and system events)."""

    event: E
    before: S
    after: S
    move: M | None = None


def apply_event(rules: GameRules[S, M, C], state: S, event: LoggedEvent) -> S:
    """The state after one logged event; :class:`ReplayError` if it does not fit.

    >>> from door.games.backgammon.rules import BackgammonRules
    >>> rules = BackgammonRules()
    >>> apply_event(rules, rules.new_game(2, {}), Event("note", None, {}))
    Traceback (most recent call last):
    ...
    door.games.replay.ReplayError: unknown event kind 'note'
    """
    return _step(rules, state, event).after


def replay(
    rules: GameRules[S, M, C], state: S, events: Iterable[E]
) -> Iterator[Step[S, M, E]]:
    """Replay ``events`` in order from ``state``, yielding a :class:`Step` for each.

    :class:`ReplayError` (at the event that does not fit, with its place in ``events``
    from 1) stops the walk; the steps before it have been yielded.
    """
    for number, event in enumerate(events, start=1):
        try:
            step = _step(rules, state, event)
        except ReplayError as exc:
            raise ReplayError(f"event {number} of the log: {exc}") from exc.__cause__
        yield step
        state = step.after


def final_state(rules: GameRules[S, M, C], state: S, events: Iterable[LoggedEvent]) -> S:
    """The state after replaying ``events`` from ``state`` (see :func:`replay`)."""
    for step in replay(rules, state, events):
        state = step.after
    return state


def _step(rules: GameRules[S, M, C], state: S, event: E) -> Step[S, M, E]:
    """``event`` applied to ``state``, every failure turned into a :class:`ReplayError`."""
    kind, payload = event.kind, event.payload
    try:
        if kind == "move":
            move = rules.parse_move(state, str(payload["move"]))
            return Step(event, state, rules.apply(state, move), move)
        if kind == "chance":
            chance = rules.chance_from_json(payload["chance"])
            return Step(event, state, rules.apply_chance(state, chance))
        if kind == "system":
            return Step(event, state, _system(rules, state, event.seat, payload))
    except ReplayError:
        raise
    except KeyError as exc:
        raise ReplayError(f"a {kind} event without {exc} in {dict(payload)!r}") from exc
    except (ValueError, TypeError) as exc:
        raise ReplayError(f"the {kind} event {dict(payload)!r} does not replay: {exc}") from exc
    raise ReplayError(f"unknown event kind {kind!r}")


def _system(
    rules: GameRules[S, M, C], state: S, seat: int | None, payload: Mapping[str, Any]
) -> S:
    """The state after a system event (only timeouts and forfeits change the game)."""
    action = payload.get("action")
    if action == "timeout":
        return rules.on_timeout(state)
    if action == "forfeit":
        if seat is None:
            raise ReplayError("a forfeit event without a seat")
        return rules.forfeit(state, seat, str(payload.get("reason", "forfeit")))
    return state
