"""The repository: door's reads and writes as typed methods inside one transaction.

A service hands a plain function of a :class:`Repository` to
:meth:`door.store.db.Database.transact` (a write, retried whole when the database is
momentarily locked) or :meth:`~door.store.db.Database.run_read`; the function runs in one
transaction and gets records back (``door/store/records.py``), never database rows. Each
method runs statements of :class:`~door.store.queries.Queries`, each written once.

:class:`ConflictError` (a uniqueness rule broken: someone inserted the same key first)
is the one database error a service is expected to handle.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

from door.store.queries import (
    ARCHIVE_USERS_MAX,
    GAME_COLUMNS,
    GameWrites,
    LeaseQueries,
    ListWhich,
    OutboxQueries,
    Queries,
    game_and_seat,
    seat_record,
)
from door.store.records import (
    AuditRecord,
    ChatRecord,
    ClockCheck,
    EventRecord,
    FinishedGame,
    GameRecord,
    JSONObject,
    KeyRecord,
    MailRecord,
    MoveSaved,
    NewEvent,
    NewOutbox,
    NoticePrefsRecord,
    OutboxRecord,
    OverdueGame,
    PlayerClock,
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
from door.store.runner import ConflictError, PgRunner, Runner
from door.store.tournaments import TournamentRepo

__all__ = ["ConflictError", "Repository"]

T = TypeVar("T")


class Repository:
    """Typed reads and writes on one open transaction (made by ``Database``)."""

    __slots__ = ("_q", "_run")

    def __init__(self, runner: Runner, queries: Queries) -> None:
        self._run = runner
        self._q = queries

    # --- users ---------------------------------------------------------------------------

    def user(self, user_id: int) -> UserRecord | None:
        return _first(self._run.rows(self._q.user_by_id, {"id": user_id}))

    def user_by_key(self, key: str) -> UserRecord | None:
        """The user whose casefolded name is ``key``."""
        return _first(self._run.rows(self._q.user_by_key, {"key": key}))

    def lock_user(self, user_id: int) -> UserRecord | None:
        """:meth:`user`, to be rewritten with :meth:`save_user`: the row stays locked
        until this transaction ends, so no other write to it comes in between (on
        PostgreSQL; SQLite's write transactions are one at a time already)."""
        return _first(self._run.rows(self._q.lock_user_by_id, {"id": user_id}))

    def lock_user_by_key(self, key: str) -> UserRecord | None:
        """:meth:`user_by_key`, locked as :meth:`lock_user` is."""
        return _first(self._run.rows(self._q.lock_user_by_key, {"key": key}))

    def insert_user(
        self,
        name: str,
        key: str,
        password_hash: str | None,
        is_bot: bool,
        now: datetime,
        settings: JSONObject,
        *,
        looks: tuple[str, str] | None = None,
        is_pending: bool = False,
    ) -> int:
        """A new account; returns its id (:class:`ConflictError` if the key or the
        look is taken; ``looks``: the two keys of ``NameRules.looks``)."""
        found = self._run.rows(
            self._q.insert_user,
            {
                "name": name,
                "name_key": key,
                "password_hash": password_hash,
                "is_sysop": False,
                "is_banned": False,
                "is_bot": is_bot,
                "settings": settings,
                "created_at": now,
                "last_login_at": None,
                "skeleton": None if looks is None else looks[0],
                "skeleton_cased": None if looks is None else looks[1],
                "is_pending": is_pending,
            },
        )
        return found[0]

    def user_by_looks(self, looks: tuple[str, str]) -> UserRecord | None:
        """The (oldest) user whose name shares a look key with ``looks`` (the two keys
        of ``door/services/names.py`` NameRules.looks)."""
        params = {"folded": looks[0], "cased": looks[1]}
        return _first(self._run.rows(self._q.user_by_looks, params))

    def pending_users(self) -> list[UserRecord]:
        """Accounts waiting for the sysop's approval, oldest first."""
        return self._run.rows(self._q.pending_users, {})

    def save_user(self, user: UserRecord) -> None:
        """Write the changeable columns of ``user`` (name, password, flags, settings,
        last login) over its row (read it with :meth:`lock_user` in this transaction:
        every column is written, so a change made since an unlocked read is undone)."""
        self._run.execute(
            self._q.update_user,
            {
                "w_id": user.id,
                "name": user.name,
                "password_hash": user.password_hash,
                "is_sysop": user.is_sysop,
                "is_banned": user.is_banned,
                "is_bot": user.is_bot,
                "settings": user.settings,
                "last_login_at": user.last_login_at,
                "is_pending": user.is_pending,
                "time_zone": user.time_zone,
            },
        )

    def banned_among(self, user_ids: Sequence[int]) -> list[int]:
        """Which of ``user_ids`` are banned (one lookup by primary key each)."""
        if not user_ids:
            return []
        return self._run.rows(self._q.banned_among, {"ids": list(user_ids)})

    def is_banned(self, user_id: int) -> bool:
        """True when the user is banned (False when there is no such user)."""
        found: list[bool] = self._run.rows(self._q.user_is_banned, {"id": user_id})
        return bool(found and found[0])

    def announce(self, channel: str, payload: str) -> None:
        """Tell the other processes on this database ``payload`` when this transaction
        commits: PostgreSQL's NOTIFY on ``channel`` (sent with the ``COMMIT``, in the
        same round trip; never for a transaction rolled back; ``ValueError`` for a
        payload of 7,900 bytes or more). SQLite has no such thing (nothing is sent: the
        other processes look for themselves)."""
        self._run.notify(channel, payload)

    # --- SSH keys and BBS identities ------------------------------------------------------

    def key_owner(self, fingerprint: str) -> int | None:
        return _first(self._run.rows(self._q.key_owner, {"fingerprint": fingerprint}))

    def insert_key(
        self,
        user_id: int,
        fingerprint: str,
        key_type: str,
        data: str,
        comment: str,
        now: datetime,
    ) -> None:
        self._run.execute(
            self._q.insert_key,
            {
                "user_id": user_id,
                "fingerprint": fingerprint,
                "key_type": key_type,
                "key_data": data,
                "comment": comment,
                "created_at": now,
            },
        )

    def keys_of(self, user_id: int) -> list[KeyRecord]:
        return self._run.rows(self._q.keys_of_user, {"user_id": user_id})

    def delete_key(self, user_id: int, fingerprint: str) -> bool:
        """Remove one of the user's keys; False if they had no such key."""
        params = {"user_id": user_id, "fingerprint": fingerprint}
        return self._run.execute(self._q.delete_key, params) > 0

    def bbs_identity_user(self, tag: str, alias_key: str, source: str = "rlogin") -> int | None:
        """The user behind ``alias_key`` of BBS ``tag`` in the identity space ``source``
        (``rlogin`` or ``dropfile``)."""
        params = {"source": source, "tag": tag, "alias_key": alias_key}
        return _first(self._run.rows(self._q.bbs_identity_user, params))

    def insert_bbs_identity(
        self,
        tag: str,
        alias: str,
        alias_key: str,
        user_id: int,
        now: datetime,
        source: str = "rlogin",
    ) -> None:
        self._run.execute(
            self._q.insert_bbs_identity,
            {"source": source, "tag": tag, "alias": alias, "alias_key": alias_key,
             "user_id": user_id, "created_at": now},
        )  # fmt: skip

    # --- the sign-up log -----------------------------------------------------------------

    def signup_counts(self, address: str, since: datetime) -> SignupCounts:
        """Sign-up attempts from ``address`` at or after ``since``."""
        found = self._run.rows(self._q.signup_counts, {"address": address, "since": since})
        return found[0] if found else SignupCounts(0, 0)

    def insert_signup(
        self, address: str, now: datetime, ok: bool, user_id: int | None = None
    ) -> None:
        params = {"address": address, "created_at": now, "ok": ok, "user_id": user_id}
        self._run.execute(self._q.insert_signup, params)

    def lock_signups(self, address: str) -> None:
        """Hold sign-ups from ``address`` back until this transaction ends, so a count and
        the insert it allows cannot interleave with another's. On PostgreSQL a
        transaction-scoped advisory lock; SQLite's write transactions (BEGIN IMMEDIATE)
        are one at a time already."""
        if isinstance(self._run, PgRunner):
            digest = hashlib.sha256(b"door-signups\0" + address.encode("utf-8")).digest()
            key = int.from_bytes(digest[:8], "big", signed=True)
            self._run.rows(self._q.advisory_xact_lock, {"key": key})

    def forget_signups_before(self, before: datetime) -> None:
        """Drop sign-up log rows older than ``before`` (the limits no longer count them)."""
        self._run.execute(self._q.delete_old_signups, {"before": before})

    # --- mail (door/services/mail.py) ------------------------------------------------

    def insert_mail(
        self, sender_id: int, recipient_id: int, subject: str, body: str, now: datetime
    ) -> int:
        """A new message; returns its id."""
        params = {"sender_id": sender_id, "recipient_id": recipient_id, "subject": subject,
                  "body": body, "sent_at": now}  # fmt: skip
        return self._run.rows(self._q.insert_mail, params)[0]

    def inbox(self, user_id: int, limit: int) -> list[MailRecord]:
        """``user_id``'s messages, newest first, at most ``limit``."""
        return self._run.rows(self._q.inbox, {"user_id": user_id, "limit": limit})

    def mail(self, user_id: int, mail_id: int) -> MailRecord | None:
        """One of ``user_id``'s messages (None: not theirs, or gone)."""
        return _first(self._run.rows(self._q.one_mail, {"id": mail_id, "user_id": user_id}))

    def unread_mail(self, user_id: int) -> int:
        return self._run.rows(self._q.unread_mail, {"user_id": user_id})[0]

    def mark_mail_read(self, user_id: int, mail_id: int, now: datetime) -> None:
        self._run.execute(self._q.mark_mail_read, {"id": mail_id, "user_id": user_id, "now": now})

    def delete_mail(self, user_id: int, mail_id: int) -> bool:
        """Delete one of ``user_id``'s messages; False if there was none."""
        return self._run.execute(self._q.delete_mail, {"id": mail_id, "user_id": user_id}) > 0

    # --- the sysop's console (door/services/sysop.py) --------------------------------

    def insert_audit(
        self, sysop_id: int | None, sysop_name: str, action: str, target: str, detail: str,
        now: datetime,
    ) -> None:  # fmt: skip
        self._run.execute(self._q.insert_audit, {
            "sysop_id": sysop_id, "sysop_name": sysop_name, "action": action,
            "target": target, "detail": detail, "at": now,
        })  # fmt: skip

    def recent_audit(self, limit: int) -> list[AuditRecord]:
        """The audit log, newest first."""
        return self._run.rows(self._q.recent_audit, {"limit": limit})

    def insert_report(
        self, reporter_id: int, about_id: int | None, channel: str, item: int | None,
        text: str, now: datetime,
    ) -> int:  # fmt: skip
        return self._run.rows(self._q.insert_report, {
            "reporter_id": reporter_id, "about_id": about_id, "channel": channel,
            "item": item, "text": text, "created_at": now,
        })[0]  # fmt: skip

    def open_reports(self, limit: int) -> list[ReportRecord]:
        """Reports not yet reviewed, oldest first."""
        return self._run.rows(self._q.open_reports, {"limit": limit})

    def resolve_report(self, report_id: int, now: datetime) -> bool:
        return self._run.execute(self._q.resolve_report, {"id": report_id, "now": now}) > 0

    def set_mute(self, user_id: int, until: datetime | None, reason: str = "") -> None:
        """Mute ``user_id`` until ``until`` (None: unmute)."""
        self._run.execute(self._q.delete_mute, {"user_id": user_id})
        if until is not None:
            params = {"user_id": user_id, "until": until, "reason": reason}
            self._run.execute(self._q.insert_mute, params)

    def mute_until(self, user_id: int) -> datetime | None:
        found = self._run.rows(self._q.mute_until, {"user_id": user_id})
        return found[0][0] if found else None

    def users_by_prefix(self, prefix: str, limit: int) -> list[UserRecord]:
        """Users whose name key starts with ``prefix``, by name."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params = {"pattern": escaped + "%", "limit": limit}
        return self._run.rows(self._q.users_by_prefix, params)

    def moves_since(self, since: datetime) -> int:
        return self._run.rows(self._q.moves_since, {"since": since})[0]

    def database_size(self) -> int | None:
        """PostgreSQL's size of this database in bytes (None on SQLite: see the file)."""
        if isinstance(self._run, PgRunner):
            return self._run.rows(self._q.pg_database_size, {})[0]
        return None

    # --- presence (door/services/presence.py) ----------------------------------------

    def replace_presence(self, origin: str, rows: Sequence[PresenceRecord]) -> None:
        """``origin``'s sessions are these now (none: it has none)."""
        self._run.execute(self._q.delete_presence, {"origin": origin})
        if rows:
            self._run.execute_many(self._q.insert_presence, [
                {"origin": r.origin, "session": r.session, "user_id": r.user_id,
                 "name": r.name, "transport": r.transport, "where_text": r.where_text,
                 "last_key_at": r.last_key_at, "heartbeat_at": r.heartbeat_at}
                for r in rows
            ])  # fmt: skip

    def fresh_presence(self, since: datetime) -> list[PresenceRecord]:
        """Every process's sessions reported at or after ``since``."""
        return self._run.rows(self._q.fresh_presence, {"since": since})

    def forget_presence_before(self, before: datetime) -> None:
        """Drop rows no process has renewed since ``before`` (processes that died)."""
        self._run.execute(self._q.forget_presence_before, {"before": before})

    # --- games and seats ------------------------------------------------------------------

    def insert_game(self, game: GameRecord) -> int:
        """Store a new game (``game.id`` is ignored); returns its id."""
        values = _game_values(game)
        del values["id"]
        return self._run.rows(self._q.insert_game, values)[0]

    def game(self, game_id: int) -> GameRecord | None:
        return _first(self._run.rows(self._q.game_by_id, {"id": game_id}))

    def games(self, ids: Sequence[int]) -> list[GameRecord]:
        """The games with these ids, in the order given (missing ones left out)."""
        if not ids:
            return []
        found = {g.id: g for g in self._run.rows(self._q.games_by_ids, {"ids": list(ids)})}
        return [found[i] for i in ids if i in found]

    def game_with_seats(self, game_id: int) -> tuple[GameRecord | None, list[SeatRecord]]:
        """The game and its seats in seat order, in one statement; (None, []) if there is
        no such game."""
        rows = self._run.rows(self._q.game_with_seats, {"id": game_id})
        if not rows:
            return None, []
        game, first = game_and_seat(rows[0])
        seats = [] if first is None else [first]
        seats += [seat_record(r[GAME_COLUMNS:]) for r in rows[1:]]
        return game, seats

    def seats(self, game_id: int) -> list[SeatRecord]:
        """The game's seats in seat order."""
        return self._run.rows(self._q.seats_of_game, {"game_id": game_id})

    def seats_of(self, game_ids: Sequence[int]) -> dict[int, list[SeatRecord]]:
        """The seats of several games, in seat order, by game id."""
        out: dict[int, list[SeatRecord]] = {g: [] for g in game_ids}
        if game_ids:
            for s in self._run.rows(self._q.seats_of_games, {"ids": list(game_ids)}):
                out[s.game_id].append(s)
        return out

    def save_game(
        self, game: GameRecord, expected_version: int, expected_snapshot: str
    ) -> bool:
        """The optimistic lock: write ``game``'s changeable columns with ``version =
        expected_version + 1``, only if the stored game is still at ``expected_version``
        with ``expected_snapshot``; False (nothing written) if anything else came first."""
        params = self._save_params(game, expected_version, expected_snapshot)
        return self._run.execute(self._q.save_game, params) == 1

    @staticmethod
    def _save_params(
        game: GameRecord, expected_version: int, expected_snapshot: str
    ) -> dict[str, object]:
        return {
            "w_id": game.id,
            "w_version": expected_version,
            "w_snapshot": expected_snapshot,
            "new_version": expected_version + 1,
            "status": game.status,
            "snapshot": game.snapshot,
            "to_act": game.to_act,
            "deadline": game.deadline,
            "updated_at": game.updated_at,
            "finished_at": game.finished_at,
            "summary": game.summary,
            "outcome": game.outcome,
            "last_seq": game.last_seq,
            "chance_count": game.chance_count,
            "turn_started_at": game.turn_started_at,
            "move_deadline": game.move_deadline,
        }

    def _save_seen(self, game: GameRecord, was: GameRecord) -> GameWrites:
        """The versioned write for ``game`` over ``was``: the narrow one when status,
        finish and outcome stay as they were (``Queries.save_move_seen``)."""
        q = self._q
        if (
            game.status == was.status
            and game.finished_at == was.finished_at
            and game.outcome == was.outcome
        ):
            return q.save_move_seen
        return q.save_game_seen

    def save_game_seen(
        self, game: GameRecord, was: GameRecord, seat: int, actor: int,
        check: ClockCheck | None = None,
    ) -> MoveSaved | None:  # fmt: skip
        """:meth:`save_game` over ``was`` (its version and snapshot), answering with
        ``seat``'s last-seen mark as it stands, whether the user ``actor`` is banned and
        whether a player of ``check`` has a vacation ending after its ``since``; None if
        nothing was written."""
        params = self._seen_params(game, was, seat, actor, check)
        return _first(self._run.rows(self._save_seen(game, was).alone, params))

    def _seen_params(
        self, game: GameRecord, was: GameRecord, seat: int, actor: int,
        check: ClockCheck | None,
    ) -> dict[str, object]:  # fmt: skip
        ids = check.user_ids if check is not None else ()
        assert len(ids) <= 2, ids
        return {
            **self._save_params(game, was.version, was.snapshot),
            "w_seat": seat,
            "w_actor": actor,
            # no user has id 0: an unused slot of the check finds nothing
            "w_clock_a": ids[0] if ids else 0,
            "w_clock_b": ids[-1] if ids else 0,
            "w_since": check.since if check is not None else game.updated_at,
        }

    def save_game_seen_appending(
        self, game: GameRecord, was: GameRecord, seat: int, actor: int,
        events: Sequence[NewEvent], now: datetime, check: ClockCheck | None = None,
    ) -> MoveSaved | None:  # fmt: skip
        """:meth:`save_game_seen`, then, if that wrote, :meth:`append_events` (numbered
        so that the last is ``game.last_seq``); on PostgreSQL one statement, one round
        trip."""
        first_seq = game.last_seq - len(events) + 1
        if not isinstance(self._run, PgRunner):
            found = self.save_game_seen(game, was, seat, actor, check)
            if found is not None:
                self.append_events(game.id, first_seq, events, now)
            return found
        params = {
            **self._seen_params(game, was, seat, actor, check),
            "e_seq": list(range(first_seq, first_seq + len(events))),
            "e_seat": [e.seat for e in events],
            "e_kind": [e.kind for e in events],
            "e_payload": [e.payload for e in events],
            "created_at": now,
        }
        return _first(self._run.rows(self._save_seen(game, was).appending, params))

    def insert_seats(self, seats: Sequence[SeatRecord]) -> None:
        self._run.execute_many(
            self._q.insert_seats,
            [
                {"game_id": s.game_id, "seat": s.seat, "kind": s.kind, "user_id": s.user_id,
                 "bot_level": s.bot_level, "timeouts": s.timeouts,
                 "last_seen_seq": s.last_seen_seq, "dice_word": s.dice_word,
                 "bank_s": s.bank_s}
                for s in seats
            ],
        )  # fmt: skip

    def save_seat(self, seat: SeatRecord) -> None:
        """Write who sits in ``seat``, its timeouts and its bank (its last-seen mark moves
        only through :meth:`mark_seen`)."""
        self._run.execute(
            self._q.update_seat,
            {"w_game_id": seat.game_id, "w_seat": seat.seat, "kind": seat.kind,
             "user_id": seat.user_id, "bot_level": seat.bot_level, "timeouts": seat.timeouts,
             "dice_word": seat.dice_word, "bank_s": seat.bank_s},
        )  # fmt: skip

    def mark_seen(self, game_id: int, user_id: int, seq: int) -> int:
        """Move the user's last-seen mark in the game forward to ``seq`` (never back);
        how many seats moved."""
        params = {"w_game_id": game_id, "w_user_id": user_id, "seq": seq}
        return self._run.execute(self._q.mark_seen, params)

    def set_snapshot(self, game_id: int, snapshot: str) -> None:
        """Overwrite a snapshot without touching the version (tests of ``door check``)."""
        self._run.execute(self._q.set_snapshot, {"w_id": game_id, "snapshot": snapshot})

    def all_game_ids(self) -> list[int]:
        return self._run.rows(self._q.all_game_ids, {})

    def overdue_games(self, now: datetime, limit: int = 500) -> list[OverdueGame]:
        """Running games whose deadline is ``now`` or earlier, most overdue first."""
        return self._run.rows(self._q.overdue_games, {"now": now, "limit": limit})

    def list_games(
        self,
        which: ListWhich,
        user_id: int | None,
        kind: str | None,
        offset: int,
        limit: int,
    ) -> tuple[list[GameRecord], int]:
        """A page of one game list and the list's length (``door.services`` says what
        each list holds); ``limit`` 0: the length only."""
        count, page = self._q.lists[which, user_id is not None, kind is not None]
        params: dict[str, object] = {"offset": offset, "limit": limit}
        if user_id is not None:
            params["user_id"] = user_id
        if kind is not None:
            params["kind"] = kind
        total = self._run.rows(count, params)[0]
        return (self._run.rows(page, params) if limit > 0 else []), total

    # --- the log --------------------------------------------------------------------------

    def append_events(
        self, game_id: int, first_seq: int, events: Sequence[NewEvent], now: datetime
    ) -> None:
        """Append ``events`` numbered from ``first_seq``, all made at ``now``
        (:class:`ConflictError` if one of those numbers is taken: another action won)."""
        self._run.execute_many(
            self._q.insert_events,
            [
                {"game_id": game_id, "seq": seq, "seat": e.seat, "kind": e.kind,
                 "payload": e.payload, "created_at": now}
                for seq, e in enumerate(events, first_seq)
            ],
        )  # fmt: skip

    def events(self, game_id: int, since_seq: int = 0) -> list[EventRecord]:
        """The game's log after ``since_seq``, oldest first."""
        return self._run.rows(self._q.events_since, {"game_id": game_id, "since": since_seq})

    def seat_activity(self, user_id: int) -> list[SeatActivity]:
        """Each of the user's seats, kept ones too, with what happened in its game since
        it last looked."""
        return self._run.rows(self._q.seat_activity, {"user_id": user_id})

    def unseen_events(self, user_id: int, since: datetime, limit: int) -> list[EventRecord]:
        """Other seats' moves and system events the user's seats have not seen, made
        after ``since`` (see ``Queries._unseen_events``), at most ``limit``, newest
        games first."""
        params = {"user_id": user_id, "since": since, "limit": limit}
        return self._run.rows(self._q.unseen_events, params)

    # --- ratings --------------------------------------------------------------------------

    def ratings(self, kind: str, user_ids: Sequence[int]) -> dict[int, RatingRecord]:
        if not user_ids:
            return {}
        params = {"kind": kind, "ids": list(user_ids)}
        return {r.user_id: r for r in self._run.rows(self._q.ratings_of, params)}

    def save_rating(self, rating: RatingRecord, *, exists: bool) -> None:
        """Write a rating: over its row if it ``exists``, else as a new row."""
        values: dict[str, object] = {
            "rating": rating.rating, "experience": rating.experience,
            "wins": rating.wins, "losses": rating.losses,
        }  # fmt: skip
        if exists:
            values.update(w_user_id=rating.user_id, w_kind=rating.kind)
            self._run.execute(self._q.update_rating, values)
        else:
            values.update(user_id=rating.user_id, kind=rating.kind)
            self._run.execute(self._q.insert_rating, values)

    def lock_ratings(
        self, kind: str, user_ids: Sequence[int], start: Mapping[int, float]
    ) -> dict[int, RatingRecord]:
        """The players' ratings of ``kind``, locked until this transaction ends (rows
        that did not exist are made at each player's ``start`` first): read them, then
        :meth:`update_rating` them, and no other transaction's update comes in between."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        dialect = "postgresql" if isinstance(self._run, PgRunner) else "sqlite"
        self._run.execute_many(
            self._q.ensure_rating[dialect],
            [{"user_id": u, "kind": kind,
              "rating": start[u],
              "experience": 0, "wins": 0, "losses": 0} for u in ids],
        )  # fmt: skip
        params = {"kind": kind, "ids": ids}
        return {r.user_id: r for r in self._run.rows(self._q.lock_ratings, params)}

    def update_rating(self, rating: RatingRecord) -> None:
        """Write a rating over its (existing, locked) row."""
        self.save_rating(rating, exists=True)

    def insert_rating_changes(self, changes: Sequence[RatingChangeRecord]) -> None:
        """Record rating changes (``id`` is ignored: the database numbers them in the
        order they are written)."""
        self._run.execute_many(
            self._q.insert_rating_change,
            [{"game_id": c.game_id, "user_id": c.user_id, "kind": c.kind,
              "rating_before": c.rating_before, "rating_after": c.rating_after,
              "experience_after": c.experience_after, "wins_after": c.wins_after,
              "losses_after": c.losses_after, "created_at": c.created_at}
             for c in changes],
        )  # fmt: skip

    def one_snapshot(self) -> None:
        """Let every later read of this transaction see the database as it was at the
        first: PostgreSQL's REPEATABLE READ, called before any other statement (SQLite's
        read transactions are one snapshot already)."""
        if isinstance(self._run, PgRunner):
            self._run.begin_snapshot()

    def all_ratings(self) -> list[RatingRecord]:
        """Every rating, by kind then user."""
        return self._run.rows(self._q.all_ratings, {})

    def rated_names(self) -> dict[int, str]:
        """The name of every user who has a rating."""
        return dict(self._run.rows(self._q.rated_names, {}))

    def lock_all_ratings(self) -> list[RatingRecord]:
        """Every rating, locked until this transaction ends (by kind then user: the order
        a finished game's own locks take, :meth:`lock_ratings`)."""
        return self._run.rows(self._q.lock_all_ratings, {})

    def delete_rating_changes(self) -> None:
        """Forget the whole rating history (it is about to be written again)."""
        self._run.execute(self._q.delete_rating_changes, {})

    def rating_changes(self) -> list[RatingChangeRecord]:
        """Every recorded rating change, in the order they were written."""
        return self._run.rows(self._q.all_rating_changes, {})

    def finished_games(self) -> list[FinishedGame]:
        """Every finished game's rating inputs, in the order they finished (then id)."""
        games: list[FinishedGame] = []
        users: list[list[int | None]] = []
        levels: list[list[str | None]] = []
        for game, seated, user, level in self._run.rows(self._q.finished_seats, {}):
            if not games or games[-1].id != game.id:
                games.append(game)
                users.append([])
                levels.append([])
            if seated:
                users[-1].append(user)
                levels[-1].append(level)
        return [
            replace(g, users=tuple(u), levels=tuple(lv))
            for g, u, lv in zip(games, users, levels, strict=True)
        ]

    def rank_page(
        self, kind: str, offset: int, limit: int, min_experience: int
    ) -> list[RankedRating]:
        """Players of ``kind`` by rating, best first (ties: more experience, then id)."""
        params = {"kind": kind, "min_xp": min_experience, "offset": offset, "limit": limit}
        return self._run.rows(self._q.rank_page, params)

    def rank_of(
        self, kind: str, user_id: int, min_experience: int
    ) -> tuple[RankedRating, int] | None:
        """The user's rating and place in the ``kind`` listing, or None if unlisted."""
        found = _first(self._run.rows(self._q.ranked_user, {"kind": kind, "user_id": user_id}))
        if found is None or found.experience < min_experience:
            return None
        ahead = self._run.rows(
            self._q.ranked_ahead,
            {"kind": kind, "min_xp": min_experience, "rating": found.rating,
             "experience": found.experience, "user_id": user_id},
        )[0]  # fmt: skip
        return found, ahead + 1

    # --- claims ---------------------------------------------------------------------------
    # Work exactly one process may do (issue 15): see door/services/claims.py and
    # door/services/games/deadlines.py.

    # --- talk: blocks, game chat --------------------------------------------------------

    def block(self, user_id: int, blocked_id: int, now: datetime) -> None:
        """``user_id`` blocks ``blocked_id`` (again: nothing changes)."""
        params = {"user_id": user_id, "blocked_id": blocked_id}
        if not self._run.rows(self._q.is_blocked, params)[0]:
            self._run.execute(self._q.insert_block, {**params, "created_at": now})

    def unblock(self, user_id: int, blocked_id: int) -> None:
        self._run.execute(self._q.delete_block, {"user_id": user_id, "blocked_id": blocked_id})

    def blocked_by(self, user_id: int) -> frozenset[int]:
        """The users ``user_id`` blocks."""
        return frozenset(self._run.rows(self._q.blocked_by, {"user_id": user_id}))

    def is_blocked(self, recipient_id: int, sender_id: int) -> bool:
        """True when ``recipient_id`` blocks ``sender_id``."""
        params = {"user_id": recipient_id, "blocked_id": sender_id}
        return self._run.rows(self._q.is_blocked, params)[0]

    def insert_chat(
        self, game_id: int, user_id: int, channel: str, text: str, now: datetime
    ) -> int:
        params = {"game_id": game_id, "user_id": user_id, "channel": channel, "text": text,
                  "created_at": now}  # fmt: skip
        return self._run.rows(self._q.insert_chat, params)[0]

    def recent_chat(self, game_id: int, limit: int) -> list[ChatRecord]:
        """The game's newest ``limit`` lines, oldest first."""
        rows = self._run.rows(self._q.recent_chat, {"game_id": game_id, "limit": limit})
        return rows[::-1]

    def kibitz_open(self, game_id: int) -> bool:
        """True when the game's players opened kibitz to themselves."""
        return self._run.rows(self._q.kibitz_open, {"game_id": game_id})[0]

    def set_kibitz_open(self, game_id: int, is_open: bool) -> None:
        self._run.execute(self._q.delete_talk, {"game_id": game_id})
        if is_open:
            self._run.execute(self._q.insert_talk, {"game_id": game_id, "kibitz_open": True})

    # --- the clock: zones and vacations ---------------------------------------------------

    def player_clocks(self, user_ids: Sequence[int], since: datetime) -> dict[int, PlayerClock]:
        """Each user's zone and vacations that end after ``since`` (one statement)."""
        if not user_ids:
            return {}
        zones: dict[int, str | None] = {}
        spans: dict[int, list[tuple[datetime, datetime]]] = {}
        params = {"ids": sorted(set(user_ids)), "since": since}
        for user_id, time_zone, starts_at, ends_at in self._run.rows(self._q.player_clocks, params):
            zones[user_id] = time_zone
            got = spans.setdefault(user_id, [])
            if starts_at is not None:
                got.append((starts_at, ends_at))
        return {u: PlayerClock(u, zones[u], tuple(spans[u])) for u in zones}

    def users_on_vacation(self, user_ids: Sequence[int], at: datetime) -> frozenset[int]:
        """Which of ``user_ids`` are on vacation at ``at``."""
        if not user_ids:
            return frozenset()
        params = {"ids": sorted(set(user_ids)), "at": at}
        return frozenset(self._run.rows(self._q.users_on_vacation, params))

    def vacations_of(self, user_id: int, since: datetime) -> list[VacationRecord]:
        """The user's vacations that end after ``since``, oldest first."""
        return self._run.rows(self._q.vacations_of, {"user_id": user_id, "since": since})

    def insert_vacation(self, user_id: int, starts_at: datetime, ends_at: datetime) -> int:
        params = {"user_id": user_id, "starts_at": starts_at, "ends_at": ends_at}
        return self._run.rows(self._q.insert_vacation, params)[0]

    def end_vacation(self, vacation_id: int, user_id: int, ends_at: datetime) -> None:
        """Move the end of ``user_id``'s vacation ``vacation_id`` to ``ends_at``."""
        params = {"w_id": vacation_id, "w_user_id": user_id, "ends_at": ends_at}
        self._run.execute(self._q.end_vacation, params)

    def delete_vacation(self, vacation_id: int, user_id: int) -> None:
        """Forget ``user_id``'s planned vacation ``vacation_id``."""
        self._run.execute(self._q.delete_vacation, {"w_id": vacation_id, "w_user_id": user_id})

    def games_to_act(self, user_id: int) -> list[GameRecord]:
        """The running games whose turn is ``user_id``'s."""
        return self._run.rows(self._q.games_to_act, {"user_id": user_id})

    def set_deadline(
        self, game_id: int, version: int, deadline: datetime, move_deadline: datetime
    ) -> bool:
        """Move the deadlines of the game at ``version`` (False: it moved on meanwhile)."""
        params = {
            "w_id": game_id, "w_version": version, "deadline": deadline,
            "move_deadline": move_deadline,
        }  # fmt: skip
        return self._run.execute(self._q.set_deadline, params) == 1

    def claim_overdue_game(self, now: datetime, skip: Sequence[int] = ()) -> OverdueGame | None:
        """The most overdue running game (deadline at or before ``now``, not in ``skip``)
        that no other transaction holds, locked until this transaction ends: concurrent
        sweepers each get a different game, and a game whose timeout has committed is no
        longer overdue. PostgreSQL: ``FOR UPDATE SKIP LOCKED``; SQLite: write
        transactions are one at a time, so the statement's own WHERE is the claim."""
        found = self._run.rows(self._q.claim_overdue_game, {"now": now, "skip": list(skip)})
        return _first(found)

    def take_lease(self, kind: str, item: int, owner: str, ttl_s: float) -> LeaseTaken:
        """Take the lease on ``(kind, item)`` for ``owner`` for ``ttl_s`` seconds: a new
        one, one whose holder let it expire, or ``owner``'s own (renewed). One atomic
        statement decides (``INSERT … ON CONFLICT DO UPDATE … WHERE`` expired)."""
        leases = self._leases()
        key = {"kind": kind, "item": item}
        before = _first(self._run.rows(leases.holder, key))
        taken = self._run.rows(leases.take, {**key, "owner": owner, "ttl": ttl_s})
        if taken:
            return LeaseTaken(True, before)
        # someone else's, unexpired: how long it has left as the database sees it now
        return LeaseTaken(False, _first(self._run.rows(leases.holder, key)))

    def renew_lease(self, kind: str, item: int, owner: str, ttl_s: float) -> bool:
        """Push ``owner``'s lease ``ttl_s`` seconds on; False if ``owner`` no longer holds
        it (it expired and another process took it)."""
        params = {"w_kind": kind, "w_item": item, "w_owner": owner, "ttl": ttl_s}
        return self._run.execute(self._leases().renew, params) == 1

    def release_lease(self, kind: str, item: int, owner: str) -> None:
        """Give ``owner``'s lease up (nothing happens if another holds it now)."""
        params = {"kind": kind, "item": item, "owner": owner}
        self._run.execute(self._leases().release, params)

    def expired_leases(self, kind: str) -> list[int]:
        """The items of ``kind`` whose lease has expired: work whose holder died."""
        return self._run.rows(self._leases().expired, {"kind": kind})

    def database_clock(self) -> float:
        """The database's clock, in seconds since the epoch (what leases are timed by)."""
        return self._run.rows(self._leases().clock, {})[0]

    def _leases(self) -> LeaseQueries:
        if isinstance(self._run, PgRunner):
            return self._q.leases_pg
        return self._q.leases_sqlite

    # --- tournaments (door/store/tournaments.py) ----------------------------------------

    def tournaments(self) -> TournamentRepo:
        """The tournament reads and writes, on this transaction."""
        return TournamentRepo(self._run, self._q.tournaments)

    # --- the archive ----------------------------------------------------------------------

    def archive_page(
        self,
        user_ids: Sequence[int],
        kind: str | None,
        since: datetime,
        until: datetime,
        offset: int,
        limit: int,
    ) -> tuple[list[GameRecord], int]:
        """A page of finished games that every one of ``user_ids`` (at most
        ``ARCHIVE_USERS_MAX``, repeats ignored) played, of ``kind`` if given, finished at
        or after ``since`` and before ``until``, newest first; and how many there are."""
        users = list(dict.fromkeys(user_ids))
        if len(users) > ARCHIVE_USERS_MAX:
            raise ValueError(f"at most {ARCHIVE_USERS_MAX} players in an archive search")
        count, page = self._q.archive.variants[len(users), kind is not None]
        params: dict[str, object] = {"since": since, "until": until}
        params.update({f"user{i}": u for i, u in enumerate(users)})
        if kind is not None:
            params["kind"] = kind
        total = self._run.rows(count, params)[0]
        return self._run.rows(page, {**params, "offset": offset, "limit": limit}), total


    # --- the outbox (issue 18; door/services/outbox.py, door/services/sender.py) ----------

    def _outbox(self) -> OutboxQueries:
        if isinstance(self._run, PgRunner):
            return self._q.outbox_pg
        return self._q.outbox_sqlite

    def notice_prefs(self, user_ids: Sequence[int]) -> dict[int, NoticePrefsRecord]:
        """The notice preferences of those of ``user_ids`` who have any."""
        if not user_ids:
            return {}
        found = self._run.rows(self._outbox().prefs_of, {"ids": list(user_ids)})
        return {r.user_id: r for r in found}

    def notice_prefs_by_token(self, token: str) -> NoticePrefsRecord | None:
        return _first(self._run.rows(self._outbox().prefs_by_token, {"token": token}))

    def save_notice_prefs(self, prefs: NoticePrefsRecord) -> None:
        """Write ``prefs`` (a new row or over the user's old one)."""
        self._run.execute(
            self._outbox().save_prefs,
            {
                "user_id": prefs.user_id, "email": prefs.email,
                "email_confirmed": prefs.email_confirmed, "code_hash": prefs.code_hash,
                "code_expires_at": prefs.code_expires_at, "push_url": prefs.push_url,
                "kinds": prefs.kinds, "digest": prefs.digest,
                "unsubscribe_token": prefs.unsubscribe_token, "updated_at": prefs.updated_at,
            },
        )  # fmt: skip

    def enqueue_notice(self, notice: NewOutbox, now: datetime) -> int | None:
        """Write ``notice`` as pending; its id, or None when one of the same (user, game,
        kind, channel) is pending already (that one stands for both)."""
        found = self._run.rows(
            self._outbox().enqueue,
            {
                "user_id": notice.user_id, "game_id": notice.game_id, "kind": notice.kind,
                "channel": notice.channel, "address": notice.address, "title": notice.title,
                "body": notice.body, "ref": notice.ref, "digest": notice.digest,
                "status": "pending", "created_at": now, "due_at": notice.due_at,
                "attempts": 0, "last_error": "", "lease_owner": "", "lease_until": 0.0,
            },
        )  # fmt: skip
        return _first(found)

    def claim_notices(
        self, now: datetime, owner: str, ttl_s: float, limit: int
    ) -> list[OutboxRecord]:
        """Up to ``limit`` pending notices due by ``now`` that nobody holds, leased to
        ``owner`` for ``ttl_s`` seconds of the database's clock (PostgreSQL: chosen with
        ``FOR UPDATE SKIP LOCKED``, so concurrent senders get different ones)."""
        params = {"now": now, "owner": owner, "ttl": ttl_s, "limit": limit}
        return self._run.rows(self._outbox().claim, params)

    def notices_sent(self, notice_ids: Sequence[int], owner: str, at: datetime) -> set[int]:
        """Mark ``owner``'s leased notices sent, in one statement; the ids whose lease was
        still ``owner``'s (the others were lost and are left as they are)."""
        if not notice_ids:
            return set()
        params = {"w_ids": list(notice_ids), "w_owner": owner, "sent_at": at}
        return set(self._run.rows(self._outbox().sent, params))

    def notice_retry(self, notice_id: int, owner: str, due_at: datetime, error: str) -> bool:
        """Put ``owner``'s leased notice back, to be tried again at ``due_at``."""
        params = {"w_id": notice_id, "w_owner": owner, "due_at": due_at, "error": error[:2000]}
        return self._run.execute(self._outbox().retry, params) == 1

    def notice_failed(self, notice_id: int, owner: str, error: str) -> bool:
        """Give ``owner``'s leased notice up, with why."""
        params = {"w_id": notice_id, "w_owner": owner, "error": error[:2000]}
        return self._run.execute(self._outbox().failed, params) == 1

    def drop_pending_notices(self, user_id: int, why: str) -> None:
        """Give every pending notice of ``user_id`` up (they unsubscribed)."""
        self._run.execute(self._outbox().drop_pending, {"user_id": user_id, "error": why})

    def notices(self, ids: Sequence[int]) -> list[OutboxRecord]:
        return self._run.rows(self._outbox().by_id, {"ids": list(ids)}) if ids else []

    def outbox_counts(self) -> dict[str, int]:
        """How many notices are pending, sent, failed."""
        return dict(self._run.rows(self._outbox().counts, {}))

    def outbox_recent(self, status: str, limit: int) -> list[OutboxRecord]:
        return self._run.rows(self._outbox().recent, {"status": status, "limit": limit})

    def outbox_of_user(self, user_id: int) -> list[OutboxRecord]:
        return self._run.rows(self._outbox().all_of_user, {"user_id": user_id})

    def reminders_due(self, now: datetime, until: datetime) -> list[ReminderDue]:
        """Active games whose deadline is after ``now`` and by ``until``, with the
        (human) user to act."""
        return self._run.rows(self._outbox().reminders_due, {"now": now, "until": until})

    def reminder_refs(self, kind: str, game_ids: Sequence[int]) -> set[tuple[int, int, str]]:
        """(game, user, ref) of every notice of ``kind`` ever written for ``game_ids``."""
        if not game_ids:
            return set()
        params = {"kind": kind, "ids": list(game_ids)}
        return set(self._run.rows(self._outbox().refs_written, params))


@dataclass(frozen=True, slots=True)
class LeaseTaken:
    """What :meth:`Repository.take_lease` found: whether the lease is now the caller's,
    and the lease as it stood (``(holder, seconds left)``, negative once expired; None
    for none): before the take when taken, else the holder's."""

    taken: bool
    holder: tuple[str, float] | None


def _first(rows: list[T]) -> T | None:
    return rows[0] if rows else None


def _game_values(game: GameRecord) -> dict[str, object]:
    return {
        "id": game.id,
        "kind": game.kind,
        "options": game.options,
        "status": game.status,
        "snapshot": game.snapshot,
        "version": game.version,
        "to_act": game.to_act,
        "deadline": game.deadline,
        "deadline_hours": game.deadline_hours,
        "hints_allowed": game.hints_allowed,
        "created_by": game.created_by,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        "finished_at": game.finished_at,
        "summary": game.summary,
        "outcome": game.outcome,
        "last_seq": game.last_seq,
        "dice_seed": game.dice_seed,
        "chance_count": game.chance_count,
        "bank_s": game.bank_s,
        "weekends_off": game.weekends_off,
        "turn_started_at": game.turn_started_at,
        "move_deadline": game.move_deadline,
    }
