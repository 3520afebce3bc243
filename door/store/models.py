"""The tables, as SQLAlchemy 2 declarative models (Alembic compares against these).

Times are stored as UTC and always read back timezone-aware (SQLite keeps no zone).
JSON columns hold plain data: user settings, game options, event payloads, outcomes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeEngine

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class _SqliteUTCText(sqlite.DATETIME):
    """SQLite's DATETIME text ("YYYY-MM-DD HH:MM:SS.ffffff", what SQLAlchemy has always
    written here), converted with ``datetime.isoformat``/``fromisoformat`` instead of the
    dialect's %-formatting and regular expression: the same text, read and written about
    five times faster (every move writes four times and reads four)."""

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        def process(value: datetime | None) -> str | None:
            return None if value is None else value.isoformat(" ", "microseconds")

        return process

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        def process(value: str | None) -> datetime | None:
            return None if value is None else datetime.fromisoformat(value)

        return process


def _utc_from_sqlite(value: str | None) -> datetime | None:
    """A stored text as an aware UTC datetime, in one step: the text carries no zone, and
    ``fromisoformat`` of it with ``+00:00`` added gives ``UTC`` itself (``replace`` after
    the parse would cost as much again as the parse)."""
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value + "+00:00")
    except ValueError:  # a text written with its own offset (not by door)
        return datetime.fromisoformat(value).astimezone(UTC)


def _in_utc(value: datetime) -> datetime:
    """An aware datetime in UTC (``ValueError`` for a naive one)."""
    if value.tzinfo is None:
        raise ValueError("naive datetime given to a UTC column")
    if value.tzinfo is not UTC:  # the services' clocks give UTC already
        value = value.astimezone(UTC)
    return value


_SQLITE_TEXT = "%04d-%02d-%02d %02d:%02d:%02d.%06d"


def _utc_to_sqlite(value: datetime | None) -> str | None:
    """An aware datetime as the stored text (UTC, no zone), in one step: the text of
    ``isoformat(" ", "microseconds")`` without its "+00:00", formatted from the fields
    (an aware ``isoformat`` works out and writes the offset only to have it cut off:
    1.2 against 0.8 µs, and a move binds seven of these)."""
    if value is None:
        return None
    v = _in_utc(value)
    return _SQLITE_TEXT % (v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond)


class UTCDateTime(TypeDecorator[datetime]):
    """A datetime stored in UTC and returned timezone-aware on every backend.

    On SQLite each value is converted by one function each way (``_utc_from_sqlite``,
    ``_utc_to_sqlite``) rather than by the decorator's hooks wrapped around the text
    type's own processor: a game row has four of these columns, and the game lists
    read a page of rows on every switch (bench/session_keys.py)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(_SqliteUTCText())  # type: ignore[no-untyped-call]
        return dialect.type_descriptor(DateTime(timezone=True))

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            return _utc_to_sqlite
        return super().bind_processor(dialect)

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            return _utc_from_sqlite
        return super().result_processor(dialect, coltype)

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else _in_utc(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def table_of(model: type[Base]) -> Table:
    """The Core ``Table`` of a mapped row class (what the statements are built from)."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


class UserRow(Base):
    __tablename__ = "users"
    # unique indexes, not constraints: SQLite adds an index without rebuilding the table
    # (a rebuild would drop the old users table and cascade to its keys and identities)
    __table_args__ = (
        Index("ix_users_skeleton", "skeleton", unique=True),
        Index("ix_users_skeleton_cased", "skeleton_cased", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    # casefolded name: uniqueness ignores case on every backend
    name_key: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    is_sysop: Mapped[bool] = mapped_column(Boolean, default=False)
    is_banned: Mapped[bool] = mapped_column(Boolean, default=False)
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_login_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # what the name looks like (the two keys of door/services/names.py NameRules.looks):
    # unique, so no two accounts can look alike; NULL for the younger of two look-alikes
    # that existed before the columns did (migration 0003)
    skeleton: Mapped[str | None] = mapped_column(String(200))
    skeleton_cased: Mapped[str | None] = mapped_column(String(200))
    # signed up while sign-ups needed the sysop's approval, and not yet approved
    is_pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # the player's IANA time zone (migration 0010); NULL: the server's
    time_zone: Mapped[str | None] = mapped_column(String(64))


class SshKeyRow(Base):
    __tablename__ = "ssh_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    fingerprint: Mapped[str] = mapped_column(String(100), unique=True)
    key_type: Mapped[str] = mapped_column(String(60))
    key_data: Mapped[str] = mapped_column(Text)
    comment: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbsIdentityRow(Base):
    """A caller of a BBS linked to a door account. ``source`` keeps the identity spaces
    apart: ``rlogin`` (a BBS connecting over the network) or ``dropfile`` (``door
    local``, run by the BBS on this machine), so no rlogin tag reaches a drop-file user."""

    __tablename__ = "bbs_identities"
    __table_args__ = (
        UniqueConstraint("source", "tag", "alias_key", name="uq_bbs_identities_source_tag_alias"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tag: Mapped[str] = mapped_column(String(60))
    alias: Mapped[str] = mapped_column(String(100))
    alias_key: Mapped[str] = mapped_column(String(200))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    source: Mapped[str] = mapped_column(String(16), server_default="rlogin")


class SignupRow(Base):
    """One sign-up attempt (made or refused) from a network address: what the per-address
    sign-up limits count, kept in the database so that they hold across restarts and
    across the processes sharing a PostgreSQL database."""

    __tablename__ = "signups"
    __table_args__ = (Index("ix_signups_address_created_at", "address", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ok: Mapped[bool] = mapped_column(Boolean)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class GameRow(Base):
    __tablename__ = "games"
    __table_args__ = (
        Index("ix_games_status_deadline", "status", "deadline"),
        # the game lists: newest first within a status, without sorting every game
        Index("ix_games_status_updated_at", "status", "updated_at"),
        # the archive: finished games newest first by when they ended, and those of a
        # span of days, read in index order (the id orders games that ended together)
        Index("ix_games_status_finished_at", "status", "finished_at", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(40), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    snapshot: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer, default=0)
    to_act: Mapped[int | None] = mapped_column(Integer)
    deadline: Mapped[datetime | None] = mapped_column(UTCDateTime)
    deadline_hours: Mapped[int] = mapped_column(Integer)
    hints_allowed: Mapped[bool] = mapped_column(Boolean)
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    summary: Mapped[str] = mapped_column(Text, default="")
    # a running game's is SQL NULL, not the JSON text "null" (which every read of the
    # game would parse: a list page's fourteen games, fourteen json.loads)
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    last_seq: Mapped[int] = mapped_column(Integer, default=0)
    # provable dice (migration 0006, door/games/fairdice.py): the secret seed, NULL for a
    # game made before there was one (its dice cannot be proven), and how many chance
    # events the game has logged (the k of the next one)
    dice_seed: Mapped[bytes | None] = mapped_column(LargeBinary)
    chance_count: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    # the clock (migration 0010, door/services/timecontrol.py): each seat's bank to begin
    # with, whether weekends are off, and when the current turn began (the deadline is
    # worked out from it again when the mover's vacation or time zone changes)
    bank_s: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    weekends_off: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    turn_started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # when the move's own time runs out and the mover's bank begins to run (``deadline``
    # is when the bank is spent too: the timeout)
    move_deadline: Mapped[datetime | None] = mapped_column(UTCDateTime)


class SeatRow(Base):
    __tablename__ = "seats"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    # open / reserved / user / bot
    kind: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    bot_level: Mapped[str | None] = mapped_column(String(40))
    timeouts: Mapped[int] = mapped_column(Integer, default=0)
    last_seen_seq: Mapped[int] = mapped_column(Integer, default=0)
    # the seat's dice word, mixed into every roll (fairdice): '' when none was given
    dice_word: Mapped[str] = mapped_column(String(64), default="", server_default="")
    # the seat's time bank left, in seconds (migration 0010)
    bank_s: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))


class VacationRow(Base):
    """A player's vacation: every clock of theirs stands still from ``starts_at`` to
    ``ends_at`` (migration 0010)."""

    __tablename__ = "vacations"
    __table_args__ = (Index("ix_vacations_user_id_ends_at", "user_id", "ends_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BlockRow(Base):
    """``user_id`` blocks ``blocked_id``: nothing the blocked user writes (mail, pages,
    chat, invitations) reaches the blocker (migration 0008)."""

    __tablename__ = "blocks"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class GameChatRow(Base):
    """A line said in a game (migration 0008): ``channel`` ``chat`` (the players', seen
    by all on the game's screen) or ``kibitz`` (the spectators')."""

    __tablename__ = "game_chat"
    __table_args__ = (Index("ix_game_chat_game_id_id", "game_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    channel: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class GameTalkRow(Base):
    """A game whose players opened kibitz to themselves (migration 0008): a row per
    game that has one, none for the default (kibitz for spectators only)."""

    __tablename__ = "game_talk"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    kibitz_open: Mapped[bool] = mapped_column(Boolean, default=False)


class GameEventRow(Base):
    __tablename__ = "game_events"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int | None] = mapped_column(Integer)
    # move / chance / system
    kind: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RatingRow(Base):
    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_kind_rating", "kind", "rating"),)

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(40), primary_key=True)
    rating: Mapped[float] = mapped_column(Float, default=1500.0)
    experience: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)


class RatingChangeRow(Base):
    """One player's rating moved by one finished game, written in the transaction that
    finishes it: the history ``door check`` replays, and a player's rating history."""

    __tablename__ = "rating_changes"
    __table_args__ = (Index("ix_rating_changes_user_id_kind", "user_id", "kind", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(40))
    rating_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    experience_after: Mapped[int] = mapped_column(Integer)
    wins_after: Mapped[int] = mapped_column(Integer)
    losses_after: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ClaimRow(Base):
    """A lease on a piece of work that one process must do at a time (a bot's turn in a
    game: ``kind`` ``bot-turn``, ``item`` the game's id): the process ``owner`` holds it
    until ``expires_at`` unless it renews it. Times are seconds since the epoch on the
    *database's* clock, so the processes' own clocks need not agree. See
    ``door/services/claims.py``."""

    __tablename__ = "claims"

    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    item: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    owner: Mapped[str] = mapped_column(String(100))
    expires_at: Mapped[float] = mapped_column(Float)


class NoticePrefsRow(Base):
    """How a player wants to hear of their games outside door (issue 18): a confirmed
    e-mail address and/or a push URL, which kinds, single notices or one daily digest,
    and the token of the one-step unsubscribe link every notice carries."""

    __tablename__ = "notice_prefs"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    email: Mapped[str | None] = mapped_column(String(254))
    email_confirmed: Mapped[bool] = mapped_column(Boolean, default=False)
    # sha256 of the code mailed to ``email`` (never the code itself), until it expires
    code_hash: Mapped[str | None] = mapped_column(String(64))
    code_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    push_url: Mapped[str | None] = mapped_column(String(500))
    # the kinds asked for (door/services/noticeprefs.py KINDS), comma-separated
    kinds: Mapped[str] = mapped_column(String(200), default="")
    digest: Mapped[bool] = mapped_column(Boolean, default=False)
    unsubscribe_token: Mapped[str] = mapped_column(String(64), unique=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class OutboxRow(Base):
    """A notice to send outside door over one channel (``email`` or ``push``), written
    in the transaction of the event that causes it. ``status``: pending, sent, failed.
    A pending row being sent has a lease (``lease_owner`` until ``lease_until``, the
    database's clock in epoch seconds) so no two processes send it; at most one pending
    row per (user, game, kind, channel) (``ux_outbox_pending``, partial)."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index(
            "ux_outbox_pending", "user_id", "game_id", "kind", "channel", unique=True,
            sqlite_where=text("status = 'pending'"),
            postgresql_where=text("status = 'pending'"),
        ),
        Index("ix_outbox_status_due_at", "status", "due_at"),
        # "was this reminder for this deadline written already?"
        Index("ix_outbox_game_id_kind_ref", "game_id", "kind", "ref"),
    )  # fmt: skip

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # 0 for a notice of no game (a test, a confirmation code)
    game_id: Mapped[int] = mapped_column(Integer, default=0)
    kind: Mapped[str] = mapped_column(String(32))
    channel: Mapped[str] = mapped_column(String(8))
    address: Mapped[str] = mapped_column(String(500))
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    # what makes a reminder unique (the deadline it is for), else ''
    ref: Mapped[str] = mapped_column(String(40), default="")
    digest: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str] = mapped_column(Text, default="")
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    lease_owner: Mapped[str] = mapped_column(String(100), default="")
    lease_until: Mapped[float] = mapped_column(Float, default=0.0)


class MailRow(Base):
    """A private message from one player to another (issue 17, door/services/mail.py):
    kept until its recipient deletes it; ``read_at`` is empty until they open it. The
    text was cleaned (no control or escape sequences) before it was stored."""

    __tablename__ = "mail"
    # a recipient's inbox, newest first, and the count of its unread messages
    __table_args__ = (Index("ix_mail_recipient_id_id", "recipient_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sender_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    recipient_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    subject: Mapped[str] = mapped_column(String(80))
    body: Mapped[str] = mapped_column(Text)
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime)
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PresenceRow(Base):
    """One signed-in session, as its process last reported it (issue 17's W)ho across
    processes, door/services/presence.py): each process rewrites its own rows every few
    seconds, so the rows of a process that died stop being fresh and are not shown."""

    __tablename__ = "presence"
    __table_args__ = (Index("ix_presence_heartbeat_at", "heartbeat_at"),)

    origin: Mapped[str] = mapped_column(String(100), primary_key=True)
    session: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(40))
    transport: Mapped[str] = mapped_column(String(16))
    where_text: Mapped[str] = mapped_column(String(80))
    last_key_at: Mapped[datetime] = mapped_column(UTCDateTime)
    heartbeat_at: Mapped[datetime] = mapped_column(UTCDateTime)


class AuditRow(Base):
    """One thing a sysop did on the console (issue 17): who, what, to whom, when, and the
    detail (a reason). Never changed nor deleted by door."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sysop_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    sysop_name: Mapped[str] = mapped_column(String(40))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(80))
    detail: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class ReportRow(Base):
    """A message a player reported to the sysop, with a copy of its text as they saw it
    (``channel``: mail, page, chat, note; ``item``: that message's id where it has one)."""

    __tablename__ = "reports"
    __table_args__ = (Index("ix_reports_resolved_at_id", "resolved_at", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reporter_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    about_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    channel: Mapped[str] = mapped_column(String(16))
    item: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class MuteRow(Base):
    """A user who may not send mail, pages or chat until ``until``."""

    __tablename__ = "mutes"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    until: Mapped[datetime] = mapped_column(UTCDateTime)
    reason: Mapped[str] = mapped_column(Text)
class TournamentRow(Base):
    """A tournament, or (``is_template``) the template that opens its recurring editions.

    ``options`` holds the game's options (match length, cube, players per table), the
    clock (``clock``: today's per-move deadline, later issue 18's clock) and the format's
    settings (rounds, ladder reach and length, bots to fill with). ``rounds_made`` counts
    the rounds whose games exist: advancing a round is one transaction that writes the
    round's games and bumps it, so it happens once (see door/services/tournaments)."""

    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_status", "status", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(40))
    format: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    size: Mapped[int] = mapped_column(Integer)
    min_entrants: Mapped[int] = mapped_column(Integer)
    min_rating: Mapped[float | None] = mapped_column(Float)
    bots_allowed: Mapped[bool] = mapped_column(Boolean, default=True)
    # open (taking entries) / running / finished / cancelled; template for a template
    status: Mapped[str] = mapped_column(String(16))
    rounds_made: Mapped[int] = mapped_column(Integer, default=0)
    winner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    template_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id"), index=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    opens_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    starts_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    note: Mapped[str] = mapped_column(Text, default="")
    version: Mapped[int] = mapped_column(Integer, default=0)


class TournamentEntryRow(Base):
    """One entrant: the rating they were seeded by, whether they withdrew (before the
    start) or forfeit the rest (left a running event), and their ladder place."""

    __tablename__ = "tournament_entries"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    rating: Mapped[float] = mapped_column(Float)
    entered_at: Mapped[datetime] = mapped_column(UTCDateTime)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)
    forfeited: Mapped[bool] = mapped_column(Boolean, default=False)
    position: Mapped[int | None] = mapped_column(Integer)


class TournamentGameRow(Base):
    """One table of one round (a ladder challenge is a round of one table): its players
    in seat order and its game (NULL for a bye). The primary key makes a round's tables
    impossible to write twice; ``game_id`` is unique, so a game is in one event only."""

    __tablename__ = "tournament_games"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    round_no: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seats: Mapped[list[int]] = mapped_column(JSON)
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), unique=True
    )
