"""Checking a game's dice from its record: the revealed seed against the commitment, and
every chance event against the seed (the ``door-dice-v1`` scheme, docs/fair-dice.md).

:func:`verify_record` reads a record as ``door export --format json`` writes it (a JSON
object, already parsed) and returns a :class:`Verdict`. The keys it reads:

- ``commitment_hex``: ``SHA-256(seed)`` in hex; missing or empty: the game was created
  before provable dice, so nothing can be checked;
- ``seed_hex``: the seed, revealed when the game is over; missing or empty: not yet;
- ``game_id`` (an integer) and ``words`` (one dice word per seat, in seat order);
- ``chance``: every chance event of the game in log order, each ``{"k": k, ...}`` plus
  the rules' JSON of the event (``{"dice": [3, 1]}``, ``{"draw": [...], "seats": [...]}``);
- ``kind`` (``backgammon`` unless the events are draws), ``options`` (the game's
  options; a top-level ``match_length`` is read too) and ``seats`` (a count or a list;
  else one seat per word);
- the log in order, under ``events``, ``log`` or ``moves`` (the first found): each item
  a move's text, or an object with ``move`` (and ``seat``), or a system event with
  ``action`` (and ``seat``, ``reason``), or ``{"kind": ..., "seat": ..., "data": ...}``
  (or ``"payload"``) with the payload as the game service logs it, as ``door export``
  writes its ``moves``. Chance items in the log are compared with ``chance`` and otherwise
  skipped: ``chance`` is what is checked.

Without a log, backgammon dice are recomputed one by one (a roll removed from the end
cannot then be seen). With the log the game is replayed through the rules
(:func:`door.games.replay.apply_event`, door's one replay path): the k-th chance entry is
taken whenever the rules say chance is due, must equal
``rules.chance_from_bytes(state_before, event_stream(seed, game_id, k, words))``, and every
chance event the game needed must be there, none more. Spectrangle draws depend on the bag,
so they need the log.

Pure: no I/O, no state between calls.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from door.games import fairdice
from door.games.base import GameRules
from door.games.registry import build_registry
from door.games.replay import Event, ReplayError, apply_event

AnyRules = GameRules[Any, Any, Any]

Status = Literal["ok", "mismatch", "unrevealed", "unprovable", "malformed"]
"""``ok``: every chance event checks; ``mismatch``: some do not (or the seed does not
match the commitment); ``unrevealed``: the seed is not out yet; ``unprovable``: the game
has no commitment; ``malformed``: the record cannot be read as a record."""

LOG_KEYS = ("events", "log", "moves")
"""Where a record may keep its log, in the order they are looked for (a full log before a
list of moves, which may leave out system events such as a forfeit)."""


@dataclass(frozen=True)
class Verdict:
    """What checking a record found. ``summary`` is one line for people ("all 57 rolls
    check"); ``problems`` names each event that does not check, first one first;
    ``checked`` counts the chance events that check."""

    status: Status
    summary: str
    problems: tuple[str, ...] = ()
    checked: int = 0

    @property
    def ok(self) -> bool:
        """True when the seed matches the commitment and every chance event checks."""
        return self.status == "ok"

    def lines(self) -> list[str]:
        """The summary, then one line per problem."""
        return [self.summary, *self.problems]


class _Unreadable(ValueError):
    """The record lacks something the check needs (the message says what)."""


@dataclass
class _Check:
    """The running check of one record: the seed, the chance entries and what was found."""

    rules: AnyRules
    seed: bytes
    game_id: int
    words: tuple[str, ...]
    entries: list[Mapping[str, Any]]
    noun: str
    problems: list[str] = field(default_factory=list)
    checked: int = 0
    differ: int = 0
    stopped: bool = False
    taken: int = 0
    expected_k: int = 0
    last_k: int = -1

    def take(self, state: Any | None) -> Any | None:
        """Check the next chance entry against the seed (from ``state``, the state before
        it, or on its own for backgammon without a log) and return the record's event;
        ``None`` (a problem noted) when it cannot be read."""
        entry = self.entries[self.taken]
        self.taken += 1
        k = entry.get("k")
        if not isinstance(k, int) or isinstance(k, bool):
            self.problems.append(f"chance entry {self.taken} has no k")
            return None
        if k > self.expected_k:
            self.problems.append(_missing(self.expected_k, k - 1))
        elif k < self.expected_k:
            self.problems.append(
                f"event k={k} is out of order (the event after k={self.expected_k - 1})"
            )
        self.expected_k = max(self.expected_k, k + 1)
        self.last_k = k
        body = {key: value for key, value in entry.items() if key != "k"}
        try:
            event = self.rules.chance_from_json(body)
        except (ValueError, TypeError) as exc:
            self.problems.append(f"{self.noun} k={k} cannot be read: {exc}")
            return None
        if state is None:
            derived = self.rules.chance_from_json(
                {"dice": list(fairdice.dice(self.seed, self.game_id, k, self.words))}
            )
        else:
            stream = fairdice.event_stream(self.seed, self.game_id, k, self.words)
            derived = self.rules.chance_from_bytes(state, stream)
        if derived == event:
            self.checked += 1
        else:
            self.differ += 1
            self.problems.append(
                f"{self.noun} k={k}: the record says {self.show(event)}, "
                f"the seed gives {self.show(derived)}"
            )
        return body

    def show(self, event: Any) -> str:
        """A chance event as people write it: ``6-5``, or pieces with their seats."""
        data = self.rules.chance_to_json(event)
        if isinstance(data, dict) and "dice" in data:
            return "-".join(str(d) for d in data["dice"])
        if isinstance(data, dict) and "draw" in data:
            pairs = zip(data["draw"], data.get("seats", []), strict=False)
            return ", ".join(f"{name} (seat {seat})" for name, seat in pairs)
        return repr(data)


def verify_record(record: Mapping[str, object]) -> Verdict:
    """Check a game record's revealed seed and every chance event in it (see the module
    doc for the keys read)."""
    if not isinstance(record, Mapping):
        return Verdict("malformed", "this is not a game record (a JSON object)")
    commitment = record.get("commitment_hex")
    if commitment in (None, ""):
        return Verdict("unprovable", "dice not provable for this game")
    if not isinstance(commitment, str):
        return Verdict("malformed", "commitment_hex is not text")
    seed_hex = record.get("seed_hex")
    if seed_hex in (None, ""):
        return Verdict(
            "unrevealed",
            f"this record has no seed yet (the game is not over): the commitment is {commitment}",
        )
    if not isinstance(seed_hex, str):
        return Verdict("malformed", "seed_hex is not text")
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return Verdict("malformed", "seed_hex is not hexadecimal")
    if fairdice.commitment(seed) != commitment.strip().lower():
        return Verdict(
            "mismatch",
            "the seed does not match the commitment",
            (f"SHA-256 of the seed is {hashlib.sha256(seed).hexdigest()}, "
             f"the commitment is {commitment}",),
        )  # fmt: skip
    try:
        return _verify_events(record, seed)
    except _Unreadable as exc:
        return Verdict("malformed", f"the record cannot be checked: {exc}")


def _verify_events(record: Mapping[str, object], seed: bytes) -> Verdict:
    """The chance events of a record whose seed matches its commitment."""
    game_id = record.get("game_id")
    if not isinstance(game_id, int) or isinstance(game_id, bool):
        raise _Unreadable("game_id is not a number")
    words = record.get("words")
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise _Unreadable("words is not a list of texts")
    raw = record.get("chance")
    if not isinstance(raw, list) or not all(isinstance(e, Mapping) for e in raw):
        raise _Unreadable("chance is not a list of events")
    entries: list[Mapping[str, Any]] = list(raw)
    kind = record.get("kind")
    if kind is None:
        kind = "spectrangle" if any("draw" in e for e in entries) else "backgammon"
    registry = build_registry()
    if not isinstance(kind, str) or kind not in registry:
        raise _Unreadable(f"door knows no game {kind!r}")
    rules = registry[kind]
    noun = "roll" if kind == "backgammon" else "draw"
    check = _Check(rules, seed, game_id, tuple(words), entries, noun)
    log = _log_items(record)
    if log is None:
        if kind != "backgammon":
            raise _Unreadable(f"a {rules.title} record needs its moves to check its draws")
        while check.taken < len(entries):
            check.take(None)
    else:
        _replay(check, record, log)
    return _verdict(check)


def _verdict(check: _Check) -> Verdict:
    n, noun = len(check.entries), check.noun
    if check.problems:
        if check.stopped:
            summary = (
                f"the {noun}s do not check ({check.checked} of {n} checked before the "
                f"replay had to stop)"
            )
        elif check.differ:
            summary = f"{check.differ} of {n} {noun}s do not check"
        else:
            summary = f"the {noun}s do not check"
        return Verdict("mismatch", summary, tuple(check.problems), check.checked)
    if n == 0:
        return Verdict("ok", f"the seed matches the commitment; there are no {noun}s")
    if n == 1:
        return Verdict("ok", f"the one {noun} checks", checked=1)
    return Verdict("ok", f"all {n} {noun}s check", checked=n)


def _replay(check: _Check, record: Mapping[str, object], log: list[Event]) -> None:
    """Replay ``log`` through the rules, taking chance entries whenever chance is due."""
    rules = check.rules
    options = _options(record)
    seats = _seats(record, len(check.words))
    try:
        state = rules.new_game(seats, options)
    except Exception as exc:  # a record is anyone's file: any failure is a reason, not a crash
        raise _Unreadable(f"the record's options do not make a game: {exc}") from None
    inline: list[Any] = []
    taken_bodies: list[Mapping[str, Any]] = []

    def settle(at: str) -> bool:
        """Take chance entries while the game needs one; False if the replay must stop."""
        nonlocal state
        while rules.outcome(state) is None and rules.chance_pending(state):
            if check.taken >= len(check.entries):
                check.problems.append(
                    f"event k={check.expected_k} is missing: {at} needs a {check.noun} first"
                )
                return False
            body = check.take(state)
            if body is None:
                return False
            taken_bodies.append(body)
            try:
                state = _apply(rules, state, Event("chance", None, {"chance": body}))
            except ReplayError as exc:
                check.problems.append(f"{check.noun} k={check.last_k} does not fit: {exc}")
                return False
        return True

    for number, event in enumerate(log, start=1):
        if event.kind == "chance":
            inline.append(event.payload.get("chance", {}))
            continue
        what = f"log item {number} ({_describe(event)})"
        if not settle(what):
            check.stopped = True
            return
        try:
            state = _apply(rules, state, event)
        except ReplayError as exc:
            check.problems.append(f"the record's moves do not replay at {what}: {exc}")
            check.stopped = True
            return
    if not settle("the end of the game"):
        check.stopped = True
        return
    for entry in check.entries[check.taken :]:
        check.problems.append(
            f"event k={entry.get('k')} is not in the game: its moves never needed it"
        )
    if inline and len(inline) != len(taken_bodies):
        check.problems.append(
            f"the log has {len(inline)} chance events, the chance list {len(taken_bodies)}"
        )
    for n, (logged, taken) in enumerate(zip(inline, taken_bodies, strict=False)):
        if not _same_chance(rules, logged, taken):
            check.problems.append(
                f"the log's chance event {n + 1} ({logged!r}) is not chance k={n} ({taken!r})"
            )
            break


def _apply(rules: AnyRules, state: Any, event: Event) -> Any:
    """:func:`door.games.replay.apply_event`, with any failure of the rules on a damaged
    record (say a forfeit by a seat the game does not have) a :class:`ReplayError` too."""
    try:
        return apply_event(rules, state, event)
    except ReplayError:
        raise
    except Exception as exc:  # a record is anyone's file: any failure is a reason, not a crash
        raise ReplayError(f"the {event.kind} event {dict(event.payload)!r}: {exc!r}") from exc


def _same_chance(rules: AnyRules, a: Any, b: Mapping[str, Any]) -> bool:
    """Do two chance events' JSON say the same (keys the rules do not read aside)?"""
    try:
        return bool(rules.chance_from_json(a) == rules.chance_from_json(dict(b)))
    except (ValueError, TypeError, KeyError, AttributeError):
        return False


def _missing(first: int, last: int) -> str:
    if first == last:
        return f"event k={first} is missing"
    return f"events k={first} to k={last} are missing"


def _describe(event: Event) -> str:
    if event.kind == "move":
        return f"seat {event.seat}'s move {event.payload.get('move')!r}"
    return f"{event.kind} {dict(event.payload)!r}"


def _options(record: Mapping[str, object]) -> dict[str, Any]:
    options = record.get("options")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise _Unreadable("options is not an object")
    result = dict(options)
    if "match_length" in record and "match_length" not in result:
        result["match_length"] = record["match_length"]
    return result


def _seats(record: Mapping[str, object], words: int) -> int:
    seats = record.get("seats", record.get("players"))
    if isinstance(seats, int) and not isinstance(seats, bool):
        return seats
    if isinstance(seats, list):
        return len(seats)
    return words


def _log_items(record: Mapping[str, object]) -> list[Event] | None:
    """The record's log as events for :func:`door.games.replay.apply_event`, or ``None``
    if it has none."""
    for key in LOG_KEYS:
        if key in record and record[key] is not None:
            items = record[key]
            if not isinstance(items, list):
                raise _Unreadable(f"{key} is not a list")
            return [_log_event(item, n) for n, item in enumerate(items, start=1)]
    return None


def _log_event(item: object, number: int) -> Event:
    """One log item in any of the shapes the module doc lists."""
    if isinstance(item, str):
        return Event("move", None, {"move": item})
    if not isinstance(item, Mapping):
        raise _Unreadable(f"log item {number} is neither a move nor an event")
    seat = item.get("seat")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
        raise _Unreadable(f"log item {number} has a seat that is not a number")
    payload = item.get("payload", item.get("data"))
    kind = item.get("kind")
    if isinstance(payload, Mapping) and isinstance(kind, str):
        return Event(kind, seat, payload)
    flat = {key: value for key, value in item.items() if key not in ("kind", "seat", "seq")}
    if "move" in item:
        return Event("move", seat, flat)
    if "action" in item:
        return Event("system", seat, flat)
    if kind == "chance" or "chance" in item or "dice" in item or "draw" in item:
        chance = item.get("chance", {k: v for k, v in flat.items() if k != "k"})
        return Event("chance", seat, {"chance": chance})
    raise _Unreadable(f"log item {number} is neither a move nor an event: {dict(item)!r}")
