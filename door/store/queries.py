"""Every statement door runs, each written once with SQLAlchemy Core from the tables.

:class:`Queries` builds them all when a :class:`~door.store.db.Database` is made (none at
import time); :class:`~door.store.repository.Repository` runs them. Each :class:`Query`
carries the function that turns one of its rows into a record (``door/store/records.py``).
Named parameters are bound with ``bindparam``; a list parameter (``IN``) is ``expanding``.

The game lists are written for SQLite's planner as much as for PostgreSQL's, so that no
call's cost grows with every game ever played (``tests/store/test_list_plans.py`` reads
their plans): a user's own lists start from their seats, with ``status || ''`` keeping
SQLite off the status index (which would visit every game of that status); the open
list checks each open game's seats by primary key; the other lists read
``ix_games_status_updated_at`` newest first and stop at the page's end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

from sqlalchemy import (
    JSON,
    BigInteger,
    ColumnElement,
    Float,
    Insert,
    Integer,
    Select,
    String,
    Table,
    and_,
    bindparam,
    case,
    cast,
    delete,
    exists,
    extract,
    func,
    insert,
    or_,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.sql.dml import Update
from sqlalchemy.sql.expression import Executable

from door.store.models import (
    AuditRow,
    BbsIdentityRow,
    BlockRow,
    ClaimRow,
    GameChatRow,
    GameEventRow,
    GameRow,
    GameTalkRow,
    MailRow,
    MuteRow,
    NoticePrefsRow,
    OutboxRow,
    PresenceRow,
    RatingChangeRow,
    RatingRow,
    ReportRow,
    SeatRow,
    SignupRow,
    SshKeyRow,
    UserRow,
    UTCDateTime,
    VacationRow,
    table_of,
)
from door.store.records import (
    AuditRecord,
    ChatRecord,
    EventRecord,
    FinishedGame,
    GameRecord,
    KeyRecord,
    MailRecord,
    MoveSaved,
    NoticePrefsRecord,
    OutboxRecord,
    OverdueGame,
    PresenceRecord,
    RankedRating,
    RatingChangeRecord,
    RatingRecord,
    ReminderDue,
    ReportRecord,
    SeatActivity,
    SeatRecord,
    SignupCounts,
    UserRecord,
    VacationRecord,
)
from door.store.runner import Query
from door.store.tournaments import TournamentQueries

ListWhich = Literal["invited", "open", "active", "mine", "waiting", "finished"]
LISTS: tuple[ListWhich, ...] = ("invited", "open", "active", "mine", "waiting", "finished")


# --- rows into records ------------------------------------------------------------------------
# Each takes a row in the column order of its statement (``select(table)`` is the table's
# own order, which the records follow).


def _user(v: Sequence[Any]) -> UserRecord:
    return UserRecord(
        v[0], v[1], v[2], v[3], bool(v[4]), bool(v[5]), bool(v[6]), dict(v[7] or {}), v[8], v[9],
        v[10], v[11], bool(v[12]), v[13],
    )  # fmt: skip


def _key(v: Sequence[Any]) -> KeyRecord:
    return KeyRecord(v[0], v[1], v[2], v[3], v[4], v[5], v[6])


def _game(v: Sequence[Any]) -> GameRecord:
    return GameRecord(
        v[0], v[1], dict(v[2] or {}), v[3], v[4], v[5], v[6], v[7], v[8], bool(v[9]),
        v[10], v[11], v[12], v[13], v[14] or "", None if v[15] is None else dict(v[15]), v[16],
        None if v[17] is None else bytes(v[17]), int(v[18] or 0), int(v[19] or 0),
        bool(v[20]), v[21], v[22],
    )  # fmt: skip


def seat_record(v: Sequence[Any]) -> SeatRecord:
    # the seats table's columns, then the user's name
    return SeatRecord(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[9], v[7] or "", int(v[8] or 0))


GAME_COLUMNS = 23  # the games table's columns, which lead each row of game_with_seats

MOVE_COLUMNS = (
    "snapshot", "to_act", "deadline", "updated_at", "summary", "last_seq", "chance_count",
    "turn_started_at", "move_deadline",
)  # fmt: skip
"""The columns of a game that a move changes (with ``version``) when the game goes on."""
SAVED_COLUMNS = ("status", *MOVE_COLUMNS, "finished_at", "outcome")
"""Every column of a game that a versioned write may change (with ``version``)."""


class GameWrites(NamedTuple):
    """A versioned game write that answers with a seat's last-seen mark, the actor's
    ban and the clock check (:class:`MoveSaved`): by itself, and with the move's events
    appended in the same statement (for PostgreSQL; see
    ``Repository.save_game_seen_appending``)."""

    alone: Query[MoveSaved]
    appending: Query[MoveSaved]


def game_and_seat(v: Sequence[Any]) -> tuple[GameRecord, SeatRecord | None]:
    """A row of ``game_with_seats``: the game and one of its seats (None for a game
    without seats)."""
    return _game(v), None if v[GAME_COLUMNS] is None else seat_record(v[GAME_COLUMNS:])


def _row(v: Sequence[Any]) -> Sequence[Any]:
    return v


def _event(v: Sequence[Any]) -> EventRecord:
    return EventRecord(v[0], v[1], v[2], v[3], dict(v[4] or {}), v[5])


def _rating(v: Sequence[Any]) -> RatingRecord:
    return RatingRecord(v[0], v[1], float(v[2]), v[3], v[4], v[5])


def _ranked(v: Sequence[Any]) -> RankedRating:
    return RankedRating(v[0], v[1], float(v[2]), v[3], v[4], v[5])


def _finished_seat(
    v: Sequence[Any],
) -> tuple[FinishedGame, bool, int | None, str | None]:
    """A row of ``finished_seats``: the game (no users yet), whether a seat came with it,
    that seat's user and computer level."""
    game = FinishedGame(
        v[0], v[1], dict(v[2] or {}), None if v[3] is None else dict(v[3]), v[4], ()
    )
    return game, v[5] is not None, v[6], v[7]


def _id_and_name(v: Sequence[Any]) -> tuple[int, str]:
    return int(v[0]), str(v[1])


def _rating_change(v: Sequence[Any]) -> RatingChangeRecord:
    return RatingChangeRecord(
        v[0], v[1], v[2], v[3], float(v[4]), float(v[5]), v[6], v[7], v[8], v[9]
    )


def _activity(v: Sequence[Any]) -> SeatActivity:
    return SeatActivity(v[0], v[1], v[2], v[3], v[4], v[5], v[6], int(v[7]), int(v[8]))


def _insert(table: Table, *names: str) -> Insert:
    """INSERT of the named columns, each from the parameter of the same name."""
    return insert(table).values({table.c[n]: bindparam(n) for n in names})


def _update(table: Table, *names: str) -> Update:
    """UPDATE setting the named columns, each from the parameter of the same name (the
    WHERE clause's parameters are named ``w_…``)."""
    return update(table).values({table.c[n]: bindparam(n) for n in names})


def _write(name: str, statement: Executable) -> Query[None]:
    """A statement that returns no rows."""
    return Query(name, statement)


def _one_int(v: Sequence[Any]) -> int:
    return int(v[0])


def _one_bool(v: Sequence[Any]) -> bool:
    return bool(v[0])


def _move_saved(v: Sequence[Any]) -> MoveSaved:
    return MoveSaved(int(v[0]), bool(v[1]), bool(v[2]))


def _signup_counts(v: Sequence[Any]) -> SignupCounts:
    return SignupCounts(int(v[0]), int(v[1] or 0))


def _vacation(v: Sequence[Any]) -> VacationRecord:
    return VacationRecord(v[0], v[1], v[2], v[3])


def _mail(v: Sequence[Any]) -> MailRecord:
    # the mail table's columns, then the sender's name (an outer join: may be missing)
    return MailRecord(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] or "")


def _presence(v: Sequence[Any]) -> PresenceRecord:
    return PresenceRecord(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])


def _audit(v: Sequence[Any]) -> AuditRecord:
    return AuditRecord(v[0], v[1], v[2], v[3], v[4], v[5], v[6])


def _report(v: Sequence[Any]) -> ReportRecord:
    return ReportRecord(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])


def _chat(v: Sequence[Any]) -> ChatRecord:
    return ChatRecord(v[0], v[1], v[2], v[3], v[4], v[5], v[6])


def _overdue(v: Sequence[Any]) -> OverdueGame:
    return OverdueGame(int(v[0]), int(v[1]))


class Queries:
    """All of door's statements, built once per database from the ``Table`` objects."""

    def __init__(self) -> None:
        self.users = table_of(UserRow)
        self.ssh_keys = table_of(SshKeyRow)
        self.bbs_identities = table_of(BbsIdentityRow)
        self.games = table_of(GameRow)
        self.seats = table_of(SeatRow)
        self.game_events = table_of(GameEventRow)
        self.ratings = table_of(RatingRow)
        self.signups = table_of(SignupRow)
        self._users_and_keys()
        self._signups()
        self._games_and_seats()
        self._game_writes()
        self._log_and_lists()
        self._ratings()
        self._claims()
        self._clock()
        self._mail()
        self._talk()
        self.archive = ArchiveQueries(self.games, self.seats)
        outbox, prefs = table_of(OutboxRow), table_of(NoticePrefsRow)
        self.outbox_pg = OutboxQueries(
            outbox, prefs, self.games, self.seats,
            cast(extract("epoch", func.clock_timestamp()), Float), postgresql.insert,
        )  # fmt: skip
        self.outbox_sqlite = OutboxQueries(
            outbox, prefs, self.games, self.seats,
            (func.julianday("now") - 2440587.5) * 86400.0, sqlite.insert,
        )  # fmt: skip
        self.tournaments = TournamentQueries()

    def _users_and_keys(self) -> None:
        """Accounts, SSH keys, BBS identities."""
        users, keys, bbs = self.users, self.ssh_keys, self.bbs_identities
        p = bindparam
        self.user_by_id = Query("user_by_id", select(users).where(users.c.id == p("id")), _user)
        self.user_by_key = Query(
            "user_by_key", select(users).where(users.c.name_key == p("key")), _user
        )
        # the same, read to be rewritten (Repository.lock_user): PostgreSQL's row lock
        # holds any other writer of the row off until this transaction ends; NO KEY
        # UPDATE (the id never changes), so rows referring to the user (seats, ratings,
        # keys) can still be written meanwhile
        self.lock_user_by_id = Query(
            "lock_user_by_id",
            select(users).where(users.c.id == p("id")).with_for_update(key_share=True),
            _user,
        )
        self.lock_user_by_key = Query(
            "lock_user_by_key",
            select(users).where(users.c.name_key == p("key")).with_for_update(key_share=True),
            _user,
        )
        self.insert_user = Query(
            "insert_user",
            _insert(users, "name", "name_key", "password_hash", "is_sysop", "is_banned",
                    "is_bot", "settings", "created_at", "last_login_at", "skeleton",
                    "skeleton_cased", "is_pending").returning(users.c.id),
            _one_int,
        )  # fmt: skip
        # the bans: which of these (online) users are banned; is this one banned
        self.banned_among = Query(
            "banned_among",
            select(users.c.id).where(
                and_(users.c.id.in_(p("ids", expanding=True)), users.c.is_banned)
            ),
            _one_int,
        )
        self.user_is_banned = Query(
            "user_is_banned", select(users.c.is_banned).where(users.c.id == p("id")), _one_bool
        )
        self.update_user = _write(
            "update_user",
            _update(users, "name", "password_hash", "is_sysop", "is_banned", "is_bot",
                    "settings", "last_login_at", "is_pending", "time_zone")
            .where(users.c.id == p("w_id")),
        )  # fmt: skip
        either = (users.c.skeleton, users.c.skeleton_cased)
        self.user_by_looks = Query(
            "user_by_looks",
            select(users)
            .where(or_(*(c == p(k) for c in either for k in ("folded", "cased"))))
            .order_by(users.c.id)
            .limit(1),
            _user,
        )
        self.pending_users = Query(
            "pending_users",
            select(users).where(users.c.is_pending == true()).order_by(users.c.id),
            _user,
        )
        # SSH keys and BBS identities
        self.key_owner = Query(
            "key_owner",
            select(keys.c.user_id).where(keys.c.fingerprint == p("fingerprint")),
            _one_int,
        )
        self.insert_key = _write(
            "insert_key",
            _insert(keys, "user_id", "fingerprint", "key_type", "key_data", "comment",
                    "created_at"),
        )  # fmt: skip
        self.keys_of_user = Query(
            "keys_of_user",
            select(keys).where(keys.c.user_id == p("user_id")).order_by(keys.c.id),
            _key,
        )
        self.delete_key = _write(
            "delete_key",
            delete(keys).where(
                and_(keys.c.user_id == p("user_id"), keys.c.fingerprint == p("fingerprint"))
            ),
        )
        self.bbs_identity_user = Query(
            "bbs_identity_user",
            select(bbs.c.user_id).where(
                and_(
                    bbs.c.source == p("source"),
                    bbs.c.tag == p("tag"),
                    bbs.c.alias_key == p("alias_key"),
                )
            ),
            _one_int,
        )
        self.insert_bbs_identity = _write(
            "insert_bbs_identity",
            _insert(bbs, "source", "tag", "alias", "alias_key", "user_id", "created_at"),
        )

    def _signups(self) -> None:
        """The sign-up log behind the per-address limits."""
        signups = self.signups
        p = bindparam
        self.signup_counts = Query(
            "signup_counts",
            select(
                func.count(),
                func.coalesce(func.sum(case((signups.c.ok == true(), 1), else_=0)), 0),
            ).where(and_(signups.c.address == p("address"), signups.c.created_at >= p("since"))),
            _signup_counts,
        )
        self.insert_signup = _write(
            "insert_signup", _insert(signups, "address", "created_at", "ok", "user_id")
        )
        # PostgreSQL only (Repository.lock_signups): sign-ups from one address, one at a time
        self.advisory_xact_lock = Query(
            "advisory_xact_lock",
            select(func.pg_advisory_xact_lock(bindparam("key", type_=BigInteger))),
            _row,
        )
        self.delete_old_signups = _write(
            "delete_old_signups", delete(signups).where(signups.c.created_at < p("before"))
        )

    def _games_and_seats(self) -> None:
        """Reading games and their seats."""
        users, games, seats = self.users, self.games, self.seats
        p = bindparam
        named_seats = select(seats, users.c.name.label("user_name")).outerjoin(
            users, users.c.id == seats.c.user_id
        )
        self.insert_game = Query(
            "insert_game",
            _insert(games, *(c.key for c in games.c if c.key != "id")).returning(games.c.id),
            _one_int,
        )
        self.game_by_id = Query("game_by_id", select(games).where(games.c.id == p("id")), _game)
        self.games_by_ids = Query(
            "games_by_ids",
            select(games).where(games.c.id.in_(p("ids", expanding=True))),
            _game,
        )
        # one statement for a game and its seats: every action on a game starts here
        self.game_with_seats = Query(
            "game_with_seats",
            select(games, *seats.c, users.c.name.label("user_name"))
            .select_from(
                games.outerjoin(seats, seats.c.game_id == games.c.id).outerjoin(
                    users, users.c.id == seats.c.user_id
                )
            )
            .where(games.c.id == p("id"))
            .order_by(seats.c.seat),
            _row,
        )
        self.seats_of_game = Query(
            "seats_of_game",
            named_seats.where(seats.c.game_id == p("game_id")).order_by(seats.c.seat),
            seat_record,
        )
        self.seats_of_games = Query(
            "seats_of_games",
            named_seats.where(seats.c.game_id.in_(p("ids", expanding=True))).order_by(
                seats.c.game_id, seats.c.seat
            ),
            seat_record,
        )

    def _game_writes(self) -> None:
        """The optimistic lock, seats' changes, and the reads of whole tables."""
        games, seats = self.games, self.seats
        p = bindparam
        # the optimistic lock: every changeable column, only over the version read
        self.save_game = _write("save_game", self._versioned(SAVED_COLUMNS))
        # the same write, answering with one seat's last-seen mark as it stands (a move
        # made on a cached game needs the mover's, and this saves reading the seats),
        # whether the acting user is banned (a ban takes effect at the next move, at no
        # cost of a statement of its own) and whether one of two players has a vacation
        # ending after a time (the clock check: a move's deadline is worked out without
        # reading their clocks first, see GameCore.commit); and, on PostgreSQL, with the
        # move's events appended in the same statement (GameWrites)
        self.save_game_seen = self._game_writes_seen("save_game", SAVED_COLUMNS)
        # a move that leaves the game's status, finish and outcome as they were (every
        # move but a game's last) writes only the columns a move changes: SETting
        # ``status`` again, to the same value, made SQLite rewrite the entries of the
        # three indexes that begin with it (bench/commit_moves.py)
        self.save_move_seen = self._game_writes_seen("save_move", MOVE_COLUMNS)
        self.insert_seats = _write(
            "insert_seats",
            _insert(seats, "game_id", "seat", "kind", "user_id", "bot_level", "timeouts",
                    "last_seen_seq", "dice_word", "bank_s"),
        )  # fmt: skip
        self.update_seat = _write(
            "update_seat",
            _update(seats, "kind", "user_id", "bot_level", "timeouts", "dice_word", "bank_s").where(
                and_(seats.c.game_id == p("w_game_id"), seats.c.seat == p("w_seat"))
            ),
        )
        self.mark_seen = _write(
            "mark_seen",
            update(seats)
            .where(
                and_(
                    seats.c.game_id == p("w_game_id"),
                    seats.c.user_id == p("w_user_id"),
                    seats.c.last_seen_seq < p("seq"),
                )
            )
            .values(last_seen_seq=p("seq")),
        )
        self.set_snapshot = _write(
            "set_snapshot",
            update(games).where(games.c.id == p("w_id")).values(snapshot=p("snapshot")),
        )
        self.all_game_ids = Query(
            "all_game_ids", select(games.c.id).order_by(games.c.id), _one_int
        )
        self.overdue_games = Query(
            "overdue_games",
            select(games.c.id, games.c.version)
            .where(and_(games.c.status == "active", games.c.deadline <= p("now")))
            .order_by(games.c.deadline)
            .limit(p("limit")),
            _overdue,
        )

    def _versioned(self, columns: Sequence[str]) -> Update:
        """The versioned UPDATE of ``columns`` of a game (``version`` set to
        ``new_version``), only over the stored game at ``w_version`` with ``w_snapshot``."""
        games, p = self.games, bindparam
        return (
            _update(games, *columns)
            .values(version=p("new_version"))
            .where(
                and_(
                    games.c.id == p("w_id"),
                    games.c.version == p("w_version"),
                    games.c.snapshot == p("w_snapshot"),
                )
            )
        )

    def _game_writes_seen(self, name: str, columns: Sequence[str]) -> GameWrites:
        """The versioned write of ``columns`` answering with the seat ``w_seat``'s
        last-seen mark, whether the user ``w_actor`` is banned and whether the user
        ``w_clock_a`` or ``w_clock_b`` has a vacation ending after ``w_since``; alone, and
        (for PostgreSQL) with the move's events appended in the same statement."""
        games, seats, users, events = self.games, self.seats, self.users, self.game_events
        vacations = table_of(VacationRow)
        p = bindparam
        seen = (
            select(seats.c.last_seen_seq)
            .where(seats.c.game_id == games.c.id, seats.c.seat == p("w_seat"))
            .scalar_subquery()
        )
        banned = select(users.c.is_banned).where(users.c.id == p("w_actor")).scalar_subquery()
        # two EXISTS rather than one ``user_id IN (?, ?)``: SQLite builds a table for
        # the IN list, which made the write 7 µs slower (bench/commit_moves.py)
        vacation = or_(
            *(
                exists().where(vacations.c.user_id == p(k), vacations.c.ends_at > p("w_since"))
                for k in ("w_clock_a", "w_clock_b")
            )
        )
        alone = Query(
            f"{name}_seen",
            self._versioned(columns).returning(seen, banned, vacation),
            _move_saved,
        )
        # The INSERT reads the UPDATE's RETURNING, so it runs after the UPDATE took the
        # row lock and only if the version matched; a data-modifying WITH always runs to
        # completion, read or not. SQLite has no such WITH.
        saved = (
            self._versioned(columns)
            .returning(
                games.c.id, seen.label("seen"), banned.label("banned"), vacation.label("vacation")
            )
            .cte("saved")
        )
        logged = func.unnest(
            p("e_seq", type_=ARRAY(Integer)),
            p("e_seat", type_=ARRAY(Integer)),
            p("e_kind", type_=ARRAY(String)),
            p("e_payload", type_=ARRAY(JSON)),
        ).table_valued("seq", "seat", "kind", "payload").render_derived()
        appended = insert(events).from_select(
            ["game_id", "seq", "seat", "kind", "payload", "created_at"],
            select(
                saved.c.id, logged.c.seq, logged.c.seat, logged.c.kind, logged.c.payload,
                p("created_at", type_=UTCDateTime),
            ).select_from(saved.join(logged, true())),
        ).cte("appended")  # fmt: skip
        appending = Query(
            f"{name}_seen_appending",
            select(saved.c.seen, saved.c.banned, saved.c.vacation).add_cte(appended),
            _move_saved,
        )
        return GameWrites(alone, appending)

    def _log_and_lists(self) -> None:
        """The event log, what seats have not seen, and the game lists."""
        events = self.game_events
        p = bindparam
        self.insert_events = _write(
            "insert_events",
            _insert(events, "game_id", "seq", "seat", "kind", "payload", "created_at"),
        )
        self.events_since = Query(
            "events_since",
            select(events)
            .where(and_(events.c.game_id == p("game_id"), events.c.seq > p("since")))
            .order_by(events.c.seq),
            _event,
        )
        self.seat_activity = Query("seat_activity", self._seat_activity(), _activity)
        self.unseen_events = Query("unseen_events", self._unseen_events(), _event)

        # the game lists: (which, a user given, a kind given) → (count, page of games)
        self.lists: dict[tuple[ListWhich, bool, bool], tuple[Query[int], Query[GameRecord]]] = {}
        for which in LISTS:
            for with_user in (False, True):
                for with_kind in (False, True):
                    self.lists[which, with_user, with_kind] = self._list(
                        which, with_user, with_kind
                    )

    def _ratings(self) -> None:
        """Ratings and the rank listings."""
        users, ratings = self.users, self.ratings
        p = bindparam
        of_users = select(ratings).where(
            and_(ratings.c.kind == p("kind"), ratings.c.user_id.in_(p("ids", expanding=True)))
        )
        self.ratings_of = Query("ratings_of", of_users, _rating)
        self.insert_rating = _write(
            "insert_rating",
            _insert(ratings, "user_id", "kind", "rating", "experience", "wins", "losses"),
        )
        self.update_rating = _write(
            "update_rating",
            _update(ratings, "rating", "experience", "wins", "losses").where(
                and_(ratings.c.user_id == p("w_user_id"), ratings.c.kind == p("w_kind"))
            ),
        )
        # A finished game's players' rows, made to exist without a race (a row another
        # transaction is inserting makes this one wait for it, then do nothing), then
        # read under a row lock in user-id order, so two games sharing a player take
        # turns and two games never deadlock. SQLite has no FOR UPDATE (the compiler
        # leaves it out): its BEGIN IMMEDIATE already lets one writer in at a time.
        columns = ("user_id", "kind", "rating", "experience", "wins", "losses")
        values: dict[Any, Any] = {ratings.c[n]: p(n) for n in columns}
        self.ensure_rating = {
            "sqlite": _write(
                "ensure_rating",
                sqlite.insert(ratings).values(values).on_conflict_do_nothing(),
            ),
            "postgresql": _write(
                "ensure_rating",
                postgresql.insert(ratings).values(values).on_conflict_do_nothing(),
            ),
        }
        self.lock_ratings = Query(
            "lock_ratings",
            of_users.order_by(ratings.c.user_id).with_for_update(),
            _rating,
        )
        self.rating_changes = changes = table_of(RatingChangeRow)
        self.insert_rating_change = _write(
            "insert_rating_change",
            _insert(changes, *(c.key for c in changes.c if c.key != "id")),
        )
        # door check: every rating, every change, every finished game's rating inputs,
        # read in one snapshot (Repository.one_snapshot)
        self.all_ratings = Query(
            "all_ratings", select(ratings).order_by(ratings.c.kind, ratings.c.user_id), _rating
        )
        self.all_rating_changes = Query(
            "all_rating_changes", select(changes).order_by(changes.c.id), _rating_change
        )
        # door check --repair-ratings: every rating locked while the history is rewritten
        self.lock_all_ratings = Query(
            "lock_all_ratings",
            select(ratings).order_by(ratings.c.kind, ratings.c.user_id).with_for_update(),
            _rating,
        )
        self.delete_rating_changes = _write("delete_rating_changes", delete(changes))
        self.rated_names = Query(
            "rated_names",
            select(users.c.id, users.c.name).where(users.c.id.in_(select(ratings.c.user_id))),
            _id_and_name,
        )
        games, seats = self.games, self.seats
        self.finished_seats = Query(
            "finished_seats",
            select(
                games.c.id, games.c.kind, games.c.options, games.c.outcome,
                games.c.finished_at, seats.c.seat, seats.c.user_id, seats.c.bot_level,
            )
            .select_from(games.outerjoin(seats, seats.c.game_id == games.c.id))
            .where(games.c.status == "finished")
            .order_by(games.c.finished_at, games.c.id, seats.c.seat),
            _finished_seat,
        )  # fmt: skip
        ranked = select(
            ratings.c.user_id,
            users.c.name,
            ratings.c.rating,
            ratings.c.experience,
            ratings.c.wins,
            ratings.c.losses,
        ).join(users, users.c.id == ratings.c.user_id)
        self.rank_page = Query(
            "rank_page",
            ranked.where(and_(ratings.c.kind == p("kind"), ratings.c.experience >= p("min_xp")))
            .order_by(ratings.c.rating.desc(), ratings.c.experience.desc(), ratings.c.user_id)
            .limit(p("limit"))
            .offset(p("offset")),
            _ranked,
        )
        self.ranked_user = Query(
            "ranked_user",
            ranked.where(and_(ratings.c.kind == p("kind"), ratings.c.user_id == p("user_id"))),
            _ranked,
        )
        self.ranked_ahead = Query("ranked_ahead", self._ranked_ahead(), _one_int)

    def _seat_activity(self) -> Select[Any]:
        """A user's seats (kept ones too: their invitations) with, for each seat whose
        game moved on since it last looked, the moves by other seats and all events since
        (0 and 0 otherwise): what happened in all of the user's games, in one statement."""
        seats, games, events = self.seats, self.games, self.game_events
        unseen = and_(events.c.game_id == seats.c.game_id, events.c.seq > seats.c.last_seen_seq)
        moves = (
            select(func.count())
            .where(
                unseen,
                events.c.kind == "move",
                events.c.seat.is_not(None),
                events.c.seat != seats.c.seat,
            )
            .scalar_subquery()
        )
        all_events = select(func.count()).where(unseen).scalar_subquery()
        behind = games.c.last_seq > seats.c.last_seen_seq
        return (
            select(
                seats.c.game_id,
                seats.c.seat,
                seats.c.kind,
                seats.c.last_seen_seq,
                games.c.status,
                games.c.to_act,
                games.c.last_seq,
                case((behind, moves), else_=0).label("moves"),
                case((behind, all_events), else_=0).label("events"),
            )
            .join(games, games.c.id == seats.c.game_id)
            .where(
                and_(
                    seats.c.user_id == bindparam("user_id"),
                    seats.c.kind.in_(("user", "bot", "reserved")),
                )
            )
            .order_by(seats.c.game_id, seats.c.seat)
        )

    def _unseen_events(self) -> Select[Any]:
        """The moves of other seats and the system events (joins, leaves, resignations,
        timeouts, the user's own seat's too) in the user's games (invitations too) after
        each seat's last-seen mark and made after ``since``: what "since your last
        visit" tells. Newest games first, at most ``limit`` events."""
        seats, events = self.seats, self.game_events
        return (
            select(events)
            .join(
                seats,
                and_(events.c.game_id == seats.c.game_id, events.c.seq > seats.c.last_seen_seq),
            )
            .where(
                and_(
                    seats.c.user_id == bindparam("user_id"),
                    seats.c.kind.in_(("user", "bot", "reserved")),
                    events.c.kind.in_(("move", "system")),
                    events.c.created_at > bindparam("since"),
                    or_(
                        events.c.seat.is_(None),
                        events.c.seat != seats.c.seat,
                        events.c.kind == "system",  # e.g. the seat's own turn timed out
                    ),
                )
            )
            .order_by(events.c.game_id.desc(), events.c.seq)
            .limit(bindparam("limit"))
        )

    def _ranked_ahead(self) -> Select[Any]:
        """How many players of a kind stand ahead of a rating: the better-rated and the
        equally rated ahead, counted apart (each is one range of ix_ratings_kind_rating;
        an OR of the two makes SQLite read every rating of the kind)."""
        r = self.ratings
        p = bindparam
        base = and_(r.c.kind == p("kind"), r.c.experience >= p("min_xp"))
        better = select(func.count()).where(base, r.c.rating > p("rating")).scalar_subquery()
        level = (
            select(func.count())
            .where(
                base,
                r.c.rating == p("rating"),
                or_(
                    r.c.experience > p("experience"),
                    and_(r.c.experience == p("experience"), r.c.user_id < p("user_id")),
                ),
            )
            .scalar_subquery()
        )
        return select(better + level)

    def _list(
        self, which: ListWhich, with_user: bool, with_kind: bool
    ) -> tuple[Query[int], Query[GameRecord]]:
        """The count and the page of one game list (see the module docstring)."""
        games, seats = self.games, self.seats
        s = seats.alias("s")
        user: ColumnElement[bool] = (
            s.c.user_id == bindparam("user_id") if with_user else s.c.user_id.is_(None)
        )
        unindexed_status = games.c.status.concat("")
        conds: list[ColumnElement[bool]] = []
        source: Any = games
        if which == "invited":
            # open games with a seat kept for the user: their named invitations
            source = s.join(games, games.c.id == s.c.game_id)
            conds.append(user)
            conds.append(s.c.kind == "reserved")
            conds.append(unindexed_status == "open")
        elif which == "open":
            conds.append(games.c.status == "open")
            conds.append(
                exists().where(
                    s.c.game_id == games.c.id,
                    or_(s.c.kind == "open", and_(s.c.kind == "reserved", user)),
                )
            )
            if with_user:
                mine = seats.alias("mine")
                conds.append(
                    ~exists().where(
                        mine.c.game_id == games.c.id,
                        mine.c.user_id == bindparam("user_id"),
                        mine.c.kind == "user",
                    )
                )
        elif which == "active":
            conds.append(games.c.status == "active")
        elif which == "mine":
            conds.append(unindexed_status.in_(("open", "active")))
            conds.append(
                games.c.id.in_(select(s.c.game_id).where(user, s.c.kind.in_(("user", "reserved"))))
            )
        elif which == "waiting":
            # the seat whose turn it is, of each of the user's seats: (game_id, seat) is
            # the seats' primary key, so the join yields each game at most once
            source = s.join(games, games.c.id == s.c.game_id)
            conds.append(user)
            conds.append(s.c.kind.in_(("user", "bot")))
            conds.append(unindexed_status == "active")
            conds.append(games.c.to_act == s.c.seat)
        elif which == "finished":
            if with_user:
                conds.append(unindexed_status.in_(("finished", "abandoned")))
                conds.append(games.c.id.in_(select(s.c.game_id).where(user)))
            else:
                conds.append(games.c.status.in_(("finished", "abandoned")))
        if with_kind:
            conds.append(games.c.kind == bindparam("kind"))
        where = and_(*conds)
        order = (
            (games.c.deadline.asc(), games.c.id.asc())
            if which == "waiting"
            else (games.c.updated_at.desc(), games.c.id.desc())
        )
        name = f"list_{which}{'_user' if with_user else ''}{'_kind' if with_kind else ''}"
        count = Query(
            name + "_count", select(func.count()).select_from(source).where(where), _one_int
        )
        page = Query(
            name,
            select(games)
            .select_from(source)
            .where(where)
            .order_by(*order)
            .limit(bindparam("limit"))
            .offset(bindparam("offset")),
            _game,
        )
        return count, page

    def _clock(self) -> None:
        """Vacations and what a player's clock depends on (door/services/timecontrol.py)."""
        users, games, seats = self.users, self.games, self.seats
        vacations = self.vacations = table_of(VacationRow)
        p = bindparam
        # each player's zone and every vacation of theirs that ends after ``since``: one
        # statement for both players of a move (a player without any gives one row of NULLs)
        self.player_clocks = Query(
            "player_clocks",
            select(users.c.id, users.c.time_zone, vacations.c.starts_at, vacations.c.ends_at)
            .select_from(
                users.outerjoin(
                    vacations,
                    and_(vacations.c.user_id == users.c.id, vacations.c.ends_at > p("since")),
                )
            )
            .where(users.c.id.in_(p("ids", expanding=True)))
            .order_by(users.c.id, vacations.c.starts_at),
            _row,
        )
        self.users_on_vacation = Query(
            "users_on_vacation",
            select(vacations.c.user_id)
            .where(
                and_(
                    vacations.c.user_id.in_(p("ids", expanding=True)),
                    vacations.c.ends_at > p("at"),
                    vacations.c.starts_at <= p("at"),
                )
            )
            .distinct(),
            _one_int,
        )
        self.vacations_of = Query(
            "vacations_of",
            select(vacations)
            .where(and_(vacations.c.user_id == p("user_id"), vacations.c.ends_at > p("since")))
            .order_by(vacations.c.starts_at),
            _vacation,
        )
        self.insert_vacation = Query(
            "insert_vacation",
            _insert(vacations, "user_id", "starts_at", "ends_at").returning(vacations.c.id),
            _one_int,
        )
        self.end_vacation = _write(
            "end_vacation",
            update(vacations)
            .where(and_(vacations.c.id == p("w_id"), vacations.c.user_id == p("w_user_id")))
            .values(ends_at=p("ends_at")),
        )
        self.delete_vacation = _write(
            "delete_vacation",
            delete(vacations).where(
                and_(vacations.c.id == p("w_id"), vacations.c.user_id == p("w_user_id"))
            ),
        )
        # the running games whose turn is ``user_id``'s (their deadline follows the
        # player's vacations and zone)
        self.games_to_act = Query(
            "games_to_act",
            select(games)
            .join(
                seats,
                and_(seats.c.game_id == games.c.id, seats.c.seat == games.c.to_act),
            )
            .where(
                and_(
                    seats.c.user_id == p("user_id"),
                    seats.c.kind.in_(("user", "bot")),
                    games.c.status == "active",
                )
            )
            .order_by(games.c.id),
            _game,
        )
        # a new deadline for the turn as it stands (no new version: nothing of the game
        # changed but when its clock runs out; a move since then wins)
        self.set_deadline = _write(
            "set_deadline",
            update(games)
            .where(and_(games.c.id == p("w_id"), games.c.version == p("w_version")))
            .values(deadline=p("deadline"), move_deadline=p("move_deadline")),
        )

    def _mail(self) -> None:
        """Private messages (see the mail section below)."""
        _mail_queries(self)

    insert_mail: Query[int]
    inbox: Query[MailRecord]
    one_mail: Query[MailRecord]
    unread_mail: Query[int]
    mark_mail_read: Query[None]
    delete_mail: Query[None]
    delete_presence: Query[None]
    insert_audit: Query[None]
    recent_audit: Query[AuditRecord]
    insert_report: Query[int]
    open_reports: Query[ReportRecord]
    resolve_report: Query[None]
    delete_mute: Query[None]
    insert_mute: Query[None]
    mute_until: Query[Sequence[Any]]
    users_by_prefix: Query[UserRecord]
    moves_since: Query[int]
    pg_database_size: Query[int]
    insert_presence: Query[None]
    fresh_presence: Query[PresenceRecord]
    forget_presence_before: Query[None]

    def _talk(self) -> None:
        """Blocks between users; the chat and kibitz lines of games (issue 17)."""
        p = bindparam
        blocks = self.blocks = table_of(BlockRow)
        chat = self.game_chat = table_of(GameChatRow)
        talk = self.game_talk = table_of(GameTalkRow)
        users = self.users
        self.insert_block = _write(
            "insert_block", _insert(blocks, "user_id", "blocked_id", "created_at")
        )
        self.delete_block = _write(
            "delete_block",
            delete(blocks).where(
                and_(blocks.c.user_id == p("user_id"), blocks.c.blocked_id == p("blocked_id"))
            ),
        )
        self.blocked_by = Query(
            "blocked_by",
            select(blocks.c.blocked_id).where(blocks.c.user_id == p("user_id")),
            _one_int,
        )
        self.is_blocked = Query(
            "is_blocked",
            select(func.count()).where(
                and_(blocks.c.user_id == p("user_id"), blocks.c.blocked_id == p("blocked_id"))
            ),
            _one_bool,
        )
        self.insert_chat = Query(
            "insert_chat",
            _insert(chat, "game_id", "user_id", "channel", "text", "created_at").returning(
                chat.c.id
            ),
            _one_int,
        )
        # the newest ``limit`` lines of a game, with their authors' names
        self.recent_chat = Query(
            "recent_chat",
            select(*chat.c, users.c.name)
            .select_from(chat.outerjoin(users, users.c.id == chat.c.user_id))
            .where(chat.c.game_id == p("game_id"))
            .order_by(chat.c.id.desc())
            .limit(p("limit")),
            _chat,
        )
        self.kibitz_open = Query(
            "kibitz_open",
            select(func.count()).where(
                and_(talk.c.game_id == p("game_id"), talk.c.kibitz_open == true())
            ),
            _one_bool,
        )
        self.delete_talk = _write(
            "delete_talk", delete(talk).where(talk.c.game_id == p("game_id"))
        )
        self.insert_talk = _write("insert_talk", _insert(talk, "game_id", "kibitz_open"))

    def _claims(self) -> None:
        """Claims on work one process must do at a time (see the section's comment)."""
        games = self.games
        p = bindparam
        # the next overdue game nobody else is timing out, locked until this transaction
        # ends (SQLite renders no FOR UPDATE: its write transactions are one at a time anyway)
        self.claim_overdue_game = Query(
            "claim_overdue_game",
            select(games.c.id, games.c.version)
            .where(
                and_(
                    games.c.status == "active",
                    games.c.deadline <= p("now"),
                    games.c.id.not_in(p("skip", expanding=True)),
                )
            )
            .order_by(games.c.deadline, games.c.id)
            .limit(1)
            .with_for_update(skip_locked=True),
            _overdue,
        )
        claims = table_of(ClaimRow)
        self.claims = claims
        self.leases_pg = LeaseQueries(
            claims, cast(extract("epoch", func.clock_timestamp()), Float), postgresql.insert
        )
        # julianday('now') counts days (to the millisecond) since noon, 24 November 4714 BC
        self.leases_sqlite = LeaseQueries(
            claims, (func.julianday("now") - 2440587.5) * 86400.0, sqlite.insert
        )



# --- mail ------------------------------------------------------------------------------
# Private messages (issue 17, door/services/mail.py): a recipient reads only their own
# rows, through ix_mail_recipient_id_id; every write names the recipient too, so a
# message id from a player's keys cannot reach another player's mail.


def _mail_queries(q: Queries) -> None:
    mail, users = table_of(MailRow), q.users
    p = bindparam
    q.insert_mail = Query(
        "insert_mail",
        _insert(mail, "sender_id", "recipient_id", "subject", "body", "sent_at")
        .returning(mail.c.id),
        _one_int,
    )
    with_sender = select(mail, users.c.name).select_from(
        mail.outerjoin(users, users.c.id == mail.c.sender_id)
    )
    q.inbox = Query(
        "inbox",
        with_sender.where(mail.c.recipient_id == p("user_id"))
        .order_by(mail.c.id.desc()).limit(p("limit")),
        _mail,
    )
    q.one_mail = Query(
        "one_mail",
        with_sender.where(and_(mail.c.id == p("id"), mail.c.recipient_id == p("user_id"))),
        _mail,
    )
    q.unread_mail = Query(
        "unread_mail",
        select(func.count()).where(
            and_(mail.c.recipient_id == p("user_id"), mail.c.read_at.is_(None))
        ),
        _one_int,
    )
    q.mark_mail_read = _write(
        "mark_mail_read",
        update(mail).values(read_at=p("now")).where(
            and_(mail.c.id == p("id"), mail.c.recipient_id == p("user_id"),
                 mail.c.read_at.is_(None))
        ),
    )
    presence = table_of(PresenceRow)
    # each process rewrites its own sessions' rows (delete, then insert: no upsert, the
    # same on both backends); readers skip rows whose heartbeat is old (a dead process)
    q.delete_presence = _write(
        "delete_presence", delete(presence).where(presence.c.origin == p("origin"))
    )
    q.insert_presence = _write(
        "insert_presence",
        _insert(presence, "origin", "session", "user_id", "name", "transport", "where_text",
                "last_key_at", "heartbeat_at"),
    )  # fmt: skip
    q.fresh_presence = Query(
        "fresh_presence",
        select(presence).where(presence.c.heartbeat_at >= p("since")),
        _presence,
    )
    q.forget_presence_before = _write(
        "forget_presence_before", delete(presence).where(presence.c.heartbeat_at < p("before"))
    )
    # --- the sysop's console: audit log, reports, mutes, finding users, health
    audit, reports, mutes = table_of(AuditRow), table_of(ReportRow), table_of(MuteRow)
    q.insert_audit = _write(
        "insert_audit",
        _insert(audit, "sysop_id", "sysop_name", "action", "target", "detail", "at"),
    )
    q.recent_audit = Query(
        "recent_audit", select(audit).order_by(audit.c.id.desc()).limit(p("limit")), _audit
    )
    q.insert_report = Query(
        "insert_report",
        _insert(reports, "reporter_id", "about_id", "channel", "item", "text", "created_at")
        .returning(reports.c.id),
        _one_int,
    )
    q.open_reports = Query(
        "open_reports",
        select(reports).where(reports.c.resolved_at.is_(None))
        .order_by(reports.c.id).limit(p("limit")),
        _report,
    )
    q.resolve_report = _write(
        "resolve_report",
        update(reports).values(resolved_at=p("now")).where(
            and_(reports.c.id == p("id"), reports.c.resolved_at.is_(None))
        ),
    )
    q.delete_mute = _write("delete_mute", delete(mutes).where(mutes.c.user_id == p("user_id")))
    q.insert_mute = _write("insert_mute", _insert(mutes, "user_id", "until", "reason"))
    q.mute_until = Query(
        "mute_until", select(mutes.c.until).where(mutes.c.user_id == p("user_id")), _row
    )
    q.users_by_prefix = Query(
        "users_by_prefix",
        select(users).where(users.c.name_key.like(p("pattern"), escape="\\"))
        .order_by(users.c.name_key).limit(p("limit")),
        _user,
    )
    events = q.game_events
    q.moves_since = Query(
        "moves_since",
        select(func.count()).where(
            and_(events.c.kind == "move", events.c.created_at >= p("since"))
        ),
        _one_int,
    )
    q.pg_database_size = Query(
        "pg_database_size", select(func.pg_database_size(func.current_database())), _one_int
    )
    q.delete_mail = _write(
        "delete_mail",
        delete(mail).where(and_(mail.c.id == p("id"), mail.c.recipient_id == p("user_id"))),
    )


# --- claims -------------------------------------------------------------------------------
# Work that exactly one process may do (issue 15): the deadline sweep claims each overdue
# game with a row lock inside its own timeout transaction; a bot's turn, thought about
# outside any transaction, is claimed with a lease row in ``claims`` (models.ClaimRow).


class LeaseQueries:
    """The lease statements for one backend: the same SQL but for the database's clock and
    the dialect's ``INSERT … ON CONFLICT`` (PostgreSQL and SQLite 3.35+ both have it)."""

    def __init__(
        self,
        claims: Table,
        now: ColumnElement[float],
        upsert: Callable[[Table], postgresql.Insert | sqlite.Insert],
    ) -> None:
        p = bindparam
        c = claims.c
        expires = now + p("ttl", type_=Float)
        self.clock = Query("db_clock", select(now), _one_float)
        taking = upsert(claims).values(
            kind=p("kind"), item=p("item"), owner=p("owner"), expires_at=expires
        )
        # one atomic statement: a new lease, or the old one taken over once it expired
        # (or renewed by its own holder); no row back means someone else holds it
        self.take = Query(
            "take_lease",
            taking.on_conflict_do_update(
                index_elements=[c.kind, c.item],
                set_={"owner": taking.excluded.owner, "expires_at": taking.excluded.expires_at},
                where=or_(c.expires_at < now, c.owner == taking.excluded.owner),
            ).returning(c.owner),
            _row,
        )
        self.holder = Query(
            "lease_holder",
            select(c.owner, c.expires_at - now).where(
                and_(c.kind == p("kind"), c.item == p("item"))
            ),
            _holder,
        )
        self.renew = _write(
            "renew_lease",
            update(claims)
            .where(and_(c.kind == p("w_kind"), c.item == p("w_item"), c.owner == p("w_owner")))
            .values(expires_at=expires),
        )
        self.release = _write(
            "release_lease",
            delete(claims).where(
                and_(c.kind == p("kind"), c.item == p("item"), c.owner == p("owner"))
            ),
        )
        self.expired = Query(
            "expired_leases",
            select(c.item).where(and_(c.kind == p("kind"), c.expires_at < now)).order_by(c.item),
            _one_int,
        )


def _one_float(v: Sequence[Any]) -> float:
    return float(v[0])


def _holder(v: Sequence[Any]) -> tuple[str, float]:
    return str(v[0]), float(v[1])


# --- the archive --------------------------------------------------------------------------
# Finished games, newest first by when they ended, searched by players, kind and a span of
# time (issue 20), a page at a time. Without players the page is read from
# ix_games_status_finished_at in its order and the read stops at the page's end; with
# players it starts from the first one's seats (ix_seats_user_id), with ``status || ''``
# keeping SQLite off the status index (which would visit every finished game), so a
# search costs what that player's games cost, not what every game ever played costs.

ARCHIVE_USERS_MAX = 3
"""Players a search may require a game to have: two named ones, and the viewer when
finished games are their players' only."""


class ArchiveQueries:
    """The archive's count and page, one pair per (players required, kind given).

    Parameters: ``since`` and ``until`` (the span: ``since <= finished_at < until``;
    always bound, so the span is always an index range), ``user0`` … (the players),
    ``kind``, ``offset``, ``limit``."""

    def __init__(self, games: Table, seats: Table) -> None:
        self.variants: dict[tuple[int, bool], tuple[Query[int], Query[GameRecord]]] = {}
        for users in range(ARCHIVE_USERS_MAX + 1):
            for with_kind in (False, True):
                self.variants[users, with_kind] = _archive_queries(games, seats, users, with_kind)


def _archive_queries(
    games: Table, seats: Table, users: int, with_kind: bool
) -> tuple[Query[int], Query[GameRecord]]:
    p = bindparam
    conds: list[ColumnElement[bool]] = [
        games.c.finished_at >= p("since"),
        games.c.finished_at < p("until"),
    ]
    if users:
        conds.append(games.c.status.concat("") == "finished")
        for i in range(users):
            s = seats.alias(f"player{i}")
            conds.append(games.c.id.in_(select(s.c.game_id).where(s.c.user_id == p(f"user{i}"))))
    else:
        conds.append(games.c.status == "finished")
    if with_kind:
        conds.append(games.c.kind == p("kind"))
    where = and_(*conds)
    name = f"archive_{users}{'_kind' if with_kind else ''}"
    count = Query(name + "_count", select(func.count()).select_from(games).where(where), _one_int)
    page = Query(
        name,
        select(games)
        .where(where)
        .order_by(games.c.finished_at.desc(), games.c.id.desc())
        .limit(p("limit"))
        .offset(p("offset")),
        _game,
    )
    return count, page


# --- the outbox ---------------------------------------------------------------------------
# Notices outside door (issue 18, door/services/outbox.py): written in the event's own
# transaction; a sender claims due rows with a lease (``FOR UPDATE SKIP LOCKED`` on
# PostgreSQL while it takes it, so concurrent senders each get different rows), sends them
# outside any transaction and marks them sent, retried or failed.


def _prefs(v: Sequence[Any]) -> NoticePrefsRecord:
    return NoticePrefsRecord(
        v[0], v[1], bool(v[2]), v[3], v[4], v[5], v[6] or "", bool(v[7]), v[8], v[9]
    )


def _outbox(v: Sequence[Any]) -> OutboxRecord:
    return OutboxRecord(
        v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], bool(v[9]), v[10], v[11], v[12],
        int(v[13]), v[14] or "", v[15], v[16] or "", float(v[17] or 0.0),
    )  # fmt: skip


def _reminder(v: Sequence[Any]) -> ReminderDue:
    return ReminderDue(int(v[0]), int(v[1]), v[2])


def _status_count(v: Sequence[Any]) -> tuple[str, int]:
    return str(v[0]), int(v[1])


def _sent_ref(v: Sequence[Any]) -> tuple[int, int, str]:
    return int(v[0]), int(v[1]), str(v[2])


OUTBOX_INSERT = (
    "user_id", "game_id", "kind", "channel", "address", "title", "body", "ref", "digest",
    "status", "created_at", "due_at", "attempts", "last_error", "lease_owner", "lease_until",
)  # fmt: skip
PREFS_COLUMNS = (
    "user_id", "email", "email_confirmed", "code_hash", "code_expires_at", "push_url",
    "kinds", "digest", "unsubscribe_token", "updated_at",
)  # fmt: skip


class OutboxQueries:
    """The outbox's and notice preferences' statements for one backend (its clock, for
    the leases, and its ``INSERT … ON CONFLICT``)."""

    def __init__(
        self,
        outbox: Table,
        prefs: Table,
        games: Table,
        seats: Table,
        now: ColumnElement[float],
        upsert: Callable[[Table], postgresql.Insert | sqlite.Insert],
    ) -> None:
        p = bindparam
        o, c = outbox, outbox.c
        self.prefs_of = Query(
            "notice_prefs_of",
            select(prefs).where(prefs.c.user_id.in_(p("ids", expanding=True))),
            _prefs,
        )
        self.prefs_by_token = Query(
            "notice_prefs_by_token",
            select(prefs).where(prefs.c.unsubscribe_token == p("token")),
            _prefs,
        )
        writing = upsert(prefs).values({prefs.c[n]: p(n) for n in PREFS_COLUMNS})
        self.save_prefs = _write(
            "save_notice_prefs",
            writing.on_conflict_do_update(
                index_elements=[prefs.c.user_id],
                set_={n: writing.excluded[n] for n in PREFS_COLUMNS if n != "user_id"},
            ),
        )
        enqueue = upsert(o).values({c[n]: p(n) for n in OUTBOX_INSERT})
        # a second pending notice of the same (user, game, kind, channel) is the first one
        self.enqueue = Query(
            "enqueue_notice",
            enqueue.on_conflict_do_nothing(
                index_elements=[c.user_id, c.game_id, c.kind, c.channel],
                index_where=text("status = 'pending'"),  # literal: PostgreSQL infers no bound one
            ).returning(c.id),
            _one_int,
        )
        due = (
            select(c.id)
            .where(and_(c.status == "pending", c.due_at <= p("now"), c.lease_until < now))
            .order_by(c.due_at, c.id)
            .limit(p("limit"))
            .with_for_update(skip_locked=True)
        )
        self.claim = Query(
            "claim_notices",
            update(o)
            .where(c.id.in_(due.scalar_subquery()))
            .values(lease_owner=p("owner"), lease_until=now + p("ttl", type_=Float))
            .returning(*o.c),
            _outbox,
        )
        mine = and_(c.id == p("w_id"), c.lease_owner == p("w_owner"), c.status == "pending")
        # a whole round's deliveries in one statement (one round trip on PostgreSQL)
        self.sent = Query(
            "notices_sent",
            update(o)
            .where(and_(c.id.in_(p("w_ids", expanding=True)), c.lease_owner == p("w_owner"),
                        c.status == "pending"))
            .values(status="sent", sent_at=p("sent_at"), lease_owner="", lease_until=0.0,
                    attempts=c.attempts + 1)
            .returning(c.id),
            _one_int,
        )  # fmt: skip
        self.retry = _write(
            "notice_retry",
            update(o).where(mine).values(
                due_at=p("due_at"), last_error=p("error"), lease_owner="", lease_until=0.0,
                attempts=c.attempts + 1,
            ),
        )  # fmt: skip
        self.failed = _write(
            "notice_failed",
            update(o).where(mine).values(
                status="failed", last_error=p("error"), lease_owner="", lease_until=0.0,
                attempts=c.attempts + 1,
            ),
        )  # fmt: skip
        self.drop_pending = _write(
            "drop_pending_notices",
            update(o)
            .where(and_(c.user_id == p("user_id"), c.status == "pending"))
            .values(status="failed", last_error=p("error")),
        )
        self.by_id = Query(
            "notice_by_id", select(o).where(c.id.in_(p("ids", expanding=True))), _outbox
        )
        self.counts = Query(
            "outbox_counts", select(c.status, func.count()).group_by(c.status), _status_count
        )
        self.recent = Query(
            "outbox_recent",
            select(o).where(c.status == p("status")).order_by(c.id.desc()).limit(p("limit")),
            _outbox,
        )
        self.all_of_user = Query(
            "outbox_of_user", select(o).where(c.user_id == p("user_id")).order_by(c.id), _outbox
        )
        # the games whose deadline falls within the window, and the user whose turn it is
        g, s = games, seats
        self.reminders_due = Query(
            "reminders_due",
            select(g.c.id, s.c.user_id, g.c.deadline)
            .select_from(g.join(s, and_(s.c.game_id == g.c.id, s.c.seat == g.c.to_act)))
            .where(
                and_(
                    g.c.status == "active",
                    g.c.deadline > p("now"),
                    g.c.deadline <= p("until"),
                    s.c.user_id.is_not(None),
                    s.c.kind == "user",
                )
            )
            .order_by(g.c.deadline, g.c.id),
            _reminder,
        )
        self.refs_written = Query(
            "reminder_refs_written",
            select(c.game_id, c.user_id, c.ref).where(
                and_(c.kind == p("kind"), c.game_id.in_(p("ids", expanding=True)))
            ),
            _sent_ref,
        )
