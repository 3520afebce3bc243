"""What the repository hands back and takes: typed, immutable records of the tables.

Each record mirrors one table's row (or one query's columns) with real Python types:
times are aware UTC ``datetime``s, JSON columns are plain ``dict``s (copies, owned by
whoever holds the record), booleans are ``bool``. The services build their own dataclasses
from these; nothing above ``door/store`` sees a database row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, TypeAlias

JSON: TypeAlias = "str | int | float | bool | list[JSON] | dict[str, JSON] | None"
"""A value as a JSON column stores it."""

JSONObject: TypeAlias = "dict[str, JSON]"

ID_MAX = 2**31 - 1
"""The largest id (or sequence number, or count) every backend's ``INTEGER`` column holds:
PostgreSQL's is 32-bit (SQLite's 64-bit), and door's ids count up from 1. A number from
outside beyond it names nothing stored; handed to a driver it would be an overflow error."""


def is_stored_id(value: object) -> bool:
    """True when ``value`` could be the id of a stored row: an ``int`` from 1 to
    :data:`ID_MAX` (not a ``bool``)."""
    return type(value) is int and 0 < value <= ID_MAX


def clamp_count(value: int) -> int:
    """``value`` held to 0 … :data:`ID_MAX` (a sequence number or an offset from outside)."""
    return min(max(int(value), 0), ID_MAX)


GameStatus = Literal["open", "active", "finished", "abandoned"]
SeatKind = Literal["open", "reserved", "user", "bot"]
EventKind = Literal["move", "chance", "system"]


@dataclass(frozen=True, slots=True)
class UserRecord:
    """A ``users`` row."""

    id: int
    name: str
    name_key: str
    password_hash: str | None
    is_sysop: bool
    is_banned: bool
    is_bot: bool
    settings: JSONObject
    created_at: datetime
    last_login_at: datetime | None
    skeleton: str | None = None
    skeleton_cased: str | None = None
    is_pending: bool = False
    time_zone: str | None = None
    """The player's IANA time zone (None: the server's)."""


@dataclass(frozen=True, slots=True)
class SignupCounts:
    """Sign-up attempts from one address since some time: all of them, and those that
    made an account."""

    attempts: int
    made: int


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """An ``ssh_keys`` row."""

    id: int
    user_id: int
    fingerprint: str
    key_type: str
    key_data: str
    comment: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A ``games`` row: the snapshot of a game and its bookkeeping.

    ``version`` is the optimistic lock: :meth:`Repository.save_game` writes a record only
    over the version it was derived from.
    """

    id: int
    kind: str
    options: JSONObject
    status: GameStatus
    snapshot: str
    version: int
    to_act: int | None
    deadline: datetime | None
    deadline_hours: int
    hints_allowed: bool
    created_by: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    summary: str
    outcome: JSONObject | None
    last_seq: int
    dice_seed: bytes | None = field(default=None, repr=False)
    """The secret seed of the game's provable dice (door/games/fairdice.py); None for a
    game made before there were any. Never shown before the game is over (nor in the
    record's repr, which a log line or a traceback might show)."""
    chance_count: int = 0
    """How many chance events the game has logged: the k of the next one."""
    bank_s: int = 0
    """Each seat's time bank to begin with, seconds (0: none)."""
    weekends_off: bool = False
    """Whether the clock stops on Saturday and Sunday in the mover's zone."""
    turn_started_at: datetime | None = None
    """When the current turn began (None: not running, or from before the clock)."""
    move_deadline: datetime | None = None
    """When the move's own time runs out and the mover's bank begins to run."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A ``seats`` row with the seated (or expected) user's name, when there is one."""

    game_id: int
    seat: int
    kind: SeatKind
    user_id: int | None
    bot_level: str | None
    timeouts: int
    last_seen_seq: int
    user_name: str | None
    dice_word: str = ""
    """The word the seat's player gave for the dice ('' for none)."""
    bank_s: int = 0
    """The seat's time bank left, seconds."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event about to be appended to a game's log (its number and time come with it)."""

    seat: int | None
    kind: EventKind
    payload: JSONObject


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A ``game_events`` row."""

    game_id: int
    seq: int
    seat: int | None
    kind: EventKind
    payload: JSONObject
    created_at: datetime


@dataclass(frozen=True, slots=True)
class VacationRecord:
    """A ``vacations`` row: the user's clocks stand still from ``starts_at`` to
    ``ends_at``."""

    id: int
    user_id: int
    starts_at: datetime
    ends_at: datetime


@dataclass(frozen=True, slots=True)
class PlayerClock:
    """What a player's clock depends on: their zone (None: the server's) and their
    vacations that end after some time, oldest first."""

    user_id: int
    time_zone: str | None
    vacations: tuple[tuple[datetime, datetime], ...]


@dataclass(frozen=True, slots=True)
class ClockCheck:
    """Whose clocks a turn's times depend on (at most two players: the mover, whose bank
    pays, and the next to act) and from when: their vacations that end after ``since``."""

    user_ids: tuple[int, ...]
    since: datetime


@dataclass(frozen=True, slots=True)
class MoveSaved:
    """What a move's versioned write answers with: the mover's seat's last-seen mark as
    it stands, whether the acting user is banned, and whether a player of its
    :class:`ClockCheck` has a vacation ending after its ``since``."""

    last_seen_seq: int
    actor_banned: bool
    vacation: bool


@dataclass(frozen=True, slots=True)
class OverdueGame:
    """A running game whose turn deadline has passed, as the sweep finds it."""

    id: int
    version: int


@dataclass(frozen=True, slots=True)
class SeatActivity:
    """One of a user's seats (one they sit in, or one kept for them: ``kind`` "reserved")
    with what happened in its game since the seat last looked: ``moves`` by other seats
    and ``events`` of any kind after ``last_seen_seq``."""

    game_id: int
    seat: int
    kind: SeatKind
    last_seen_seq: int
    status: GameStatus
    to_act: int | None
    last_seq: int
    moves: int
    events: int


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A ``ratings`` row (one user, one kind of game)."""

    user_id: int
    kind: str
    rating: float
    experience: int
    wins: int
    losses: int


@dataclass(frozen=True, slots=True)
class RankedRating:
    """A rating with its player's name, for the rank listings."""

    user_id: int
    name: str
    rating: float
    experience: int
    wins: int
    losses: int


@dataclass(frozen=True, slots=True)
class RatingChangeRecord:
    """A ``rating_changes`` row: one player's rating moved by one finished game."""

    id: int
    game_id: int
    user_id: int
    kind: str
    rating_before: float
    rating_after: float
    experience_after: int
    wins_after: int
    losses_after: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What rated a finished game: its kind, options, outcome and the user in each seat
    (seat order; None for a seat without one), with each seat's computer level (None for
    a person)."""

    id: int
    kind: str
    options: JSONObject
    outcome: JSONObject | None
    finished_at: datetime | None
    users: tuple[int | None, ...]
    levels: tuple[str | None, ...] = ()


@dataclass(frozen=True, slots=True)
class NoticePrefsRecord:
    """A ``notice_prefs`` row: how a player wants to hear of their games outside door."""

    user_id: int
    email: str | None
    email_confirmed: bool
    code_hash: str | None
    code_expires_at: datetime | None
    push_url: str | None
    kinds: str
    digest: bool
    unsubscribe_token: str
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class OutboxRecord:
    """An ``outbox`` row: one notice to send (or sent, or given up) over one channel."""

    id: int
    user_id: int
    game_id: int
    kind: str
    channel: str
    address: str
    title: str
    body: str
    ref: str
    digest: bool
    status: str
    created_at: datetime
    due_at: datetime
    attempts: int
    last_error: str
    sent_at: datetime | None
    lease_owner: str
    lease_until: float


@dataclass(frozen=True, slots=True)
class NewOutbox:
    """A notice to write to the outbox (what ``Repository.enqueue_notice`` takes)."""

    user_id: int
    game_id: int
    kind: str
    channel: str
    address: str
    title: str
    body: str
    due_at: datetime
    ref: str = ""
    digest: bool = False


@dataclass(frozen=True, slots=True)
class ReminderDue:
    """An active game whose deadline is near, with the user to act."""

    game_id: int
    user_id: int
    deadline: datetime


@dataclass(frozen=True, slots=True)
class MailRecord:
    """A ``mail`` row, with its sender's name ("" for an account that is gone)."""

    id: int
    sender_id: int | None
    recipient_id: int
    subject: str
    body: str
    sent_at: datetime
    read_at: datetime | None
    sender_name: str = ""


@dataclass(frozen=True, slots=True)
class PresenceRecord:
    """A ``presence`` row: one signed-in session of some process."""

    origin: str
    session: int
    user_id: int
    name: str
    transport: str
    where_text: str
    last_key_at: datetime
    heartbeat_at: datetime


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """An ``audit_log`` row."""

    id: int
    sysop_id: int | None
    sysop_name: str
    action: str
    target: str
    detail: str
    at: datetime


@dataclass(frozen=True, slots=True)
class ReportRecord:
    """A ``reports`` row."""

    id: int
    reporter_id: int | None
    about_id: int | None
    channel: str
    item: int | None
    text: str
    created_at: datetime
    resolved_at: datetime | None


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """A ``tournaments`` row (see door/store/models.py TournamentRow)."""

    id: int
    name: str
    kind: str
    format: str
    options: JSONObject
    size: int
    min_entrants: int
    min_rating: float | None
    bots_allowed: bool
    status: str
    rounds_made: int
    winner_id: int | None
    template_id: int | None
    created_by: int | None
    created_at: datetime
    opens_at: datetime | None
    starts_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    note: str
    version: int


@dataclass(frozen=True, slots=True)
class EntryRecord:
    """A ``tournament_entries`` row, with the entrant's name and whether it is a bot."""

    tournament_id: int
    user_id: int
    rating: float
    entered_at: datetime
    withdrawn: bool
    forfeited: bool
    position: int | None
    user_name: str = ""
    is_bot: bool = False


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A ``tournament_games`` row with its game's status and outcome (None for a bye)."""

    tournament_id: int
    round_no: int
    table_no: int
    seats: tuple[int, ...]
    game_id: int | None
    game_status: str | None = None
    outcome: JSONObject | None = None


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """A ``game_chat`` row with its author's name (None: the author's account is gone)."""

    id: int
    game_id: int
    user_id: int | None
    channel: str
    text: str
    created_at: datetime
    user_name: str | None
