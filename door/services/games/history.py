"""History: a game's log, what a player has seen of it, and replaying it for ``door check``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from door.games import fairdice
from door.games.replay import replay
from door.services.games.core import Change, GameCore
from door.services.games.model import GameEvent, GameInfo, GameNews, VisitSummary, dump_state
from door.services.games.turns import NOTE_MAX
from door.services.safety import clean_message
from door.store.records import clamp_count, is_stored_id
from door.store.repository import Repository

MAX_UNSEEN_EVENTS = 500
"""At most this many unseen events are read for one summary (the counts stay exact)."""
MAX_INVITATIONS = 100
"""At most this many named invitations, the newest games, are told in one summary."""
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""The ``since`` of a summary with no previous session: everything unseen."""


def _news_order(n: GameNews) -> tuple[int, float, int]:
    """Invitations (newest first), results (newest first), the games waiting on you (most
    urgent first), then the rest (newest first)."""
    info = n.info
    newest = -info.updated_at.timestamp()
    if n.invited:
        return (0, newest, -info.id)
    if info.status in ("finished", "abandoned"):
        return (1, newest, -info.id)
    if n.is_waiting_on_me:
        return (2, info.deadline.timestamp() if info.deadline else float("inf"), info.id)
    return (3, newest, -info.id)


class History:
    """The log, last-seen marks, the since-your-last-visit summary and ``door check``."""

    def __init__(self, core: GameCore) -> None:
        self.core = core

    async def events(self, game_id: int, since_seq: int = 0) -> list[GameEvent]:
        """The game's log after ``since_seq``, oldest first."""
        if not is_stored_id(game_id):
            return []
        since = clamp_count(since_seq)
        rows = await self.core.db.run_read(lambda repo: repo.events(game_id, since))
        return [GameEvent(r.seq, r.seat, r.kind, r.payload, r.created_at) for r in rows]

    async def mark_seen(self, game_id: int, user_id: int, seq: int) -> None:
        """Note that ``user_id`` has seen the game up to event ``seq`` (never goes back,
        never past the end of the log, or later events would count as seen)."""

        def action(repo: Repository) -> None:
            game = repo.game(game_id) if is_stored_id(game_id) else None
            if game is not None:
                repo.mark_seen(game_id, user_id, min(clamp_count(seq), game.last_seq))

        await self.core.act(Change(game_id, actor=user_id), action)

    async def since_last_visit(
        self, user_id: int, since: datetime | None = None
    ) -> VisitSummary:
        """Everything that happened in ``user_id``'s games that they have not looked at
        (the other seats' moves, joins, leaves, timeouts, resignations and results) and,
        given ``since`` (their previous session's login), only what happened after it:
        what an earlier session's summary told is not told again. Plus the games waiting
        on them and their named invitations, whenever made. One read."""
        core = self.core
        if not is_stored_id(user_id):
            return VisitSummary(0, [], [], 0)

        def read(repo: Repository) -> VisitSummary:
            return self._visit(repo, user_id, since)

        return await core.db.run_read(read)

    def _visit(self, repo: Repository, user_id: int, since: datetime | None) -> VisitSummary:
        moves = new_events = 0
        finished_ids: set[int] = set()
        waiting_ids: set[int] = set()
        my_seat: dict[int, int] = {}
        over: set[int] = set()
        invited: list[int] = []
        for r in repo.seat_activity(user_id):
            if r.kind == "reserved":  # a seat kept for the user
                if r.status == "open":  # a named invitation, not yet answered
                    invited.append(r.game_id)
                continue
            my_seat.setdefault(r.game_id, r.seat)
            if r.status in ("finished", "abandoned"):
                over.add(r.game_id)
            if r.last_seq > r.last_seen_seq:
                moves += r.moves
                new_events += r.events
                if r.status in ("finished", "abandoned"):
                    finished_ids.add(r.game_id)
            if r.status == "active" and r.to_act == r.seat:
                waiting_ids.add(r.game_id)
        invited_ids = set(sorted(set(invited))[-MAX_INVITATIONS:])  # the newest
        # the other seats' doings, game by game (only games with something to tell:
        # a game whose unseen events are the user's own is not read at all)
        told: dict[int, dict[str, list[Any]]] = {}

        def tell(game_id: int, what: str, item: object) -> None:
            bits = told.setdefault(
                game_id, {"moves": [], "joined": [], "left": [], "timeouts": [], "declined": []}
            )
            bits[what].append(item)

        by_others: set[int] = set()  # games with an unseen event the user did not cause
        unseen = repo.unseen_events(user_id, since or EPOCH, MAX_UNSEEN_EVENTS)
        for e in unseen:
            action = e.payload.get("action") if e.kind == "system" else None
            if e.seat is not None and e.seat == my_seat.get(e.game_id):
                # the user's own seat: only what the server did to it is news
                if action == "timeout":
                    tell(e.game_id, "timeouts", e.seat)
                if action == "timeout" or e.payload.get("reason") == "timeout":
                    by_others.add(e.game_id)
                continue
            by_others.add(e.game_id)
            if e.kind == "move" and e.seat is not None:
                text = str(e.payload.get("move", ""))
                if text and text != "roll":  # the dice are told by the move itself
                    note = clean_message(str(e.payload.get("note") or ""), NOTE_MAX)
                    tell(e.game_id, "moves", (e.seat, f'{text} "{note}"' if note else text))
            elif action in ("join", "leave", "timeout", "decline") and e.seat is not None:
                key = {"join": "joined", "leave": "left", "timeout": "timeouts",
                       "decline": "declined"}[str(action)]  # fmt: skip
                tell(e.game_id, key, e.seat)
        if since is not None:  # the counts too are of what happened since then
            moves = sum(1 for e in unseen if e.kind == "move")
            new_events = len(unseen)
            finished_ids = by_others & over
        elif len(unseen) < MAX_UNSEEN_EVENTS:  # else some games' events were not read
            finished_ids &= by_others  # a game the user ended (resigned) is not news
        ids = set(told) | finished_ids | waiting_ids
        games = repo.games(sorted(ids | invited_ids))
        infos: dict[int, GameInfo] = {i.id: i for i in self.core.infos(repo, games)}
        news: list[GameNews] = []
        for game_id, info in infos.items():
            seat = my_seat.get(game_id)
            if seat is None:  # a kept seat: an invitation (or a cancelled one)
                seat = next((s.seat for s in info.seats if s.user_id == user_id), None)
            bits = told.get(game_id, {})
            item = GameNews(
                info=info,
                my_seat=seat,
                moves=tuple(bits.get("moves", ())),
                joined=tuple(bits.get("joined", ())),
                left=tuple(bits.get("left", ())),
                timeouts=tuple(bits.get("timeouts", ())),
                invited=game_id in invited_ids,
                declined=bool(bits.get("declined")),
            )
            if item.invited or item.is_waiting_on_me or game_id in finished_ids or any(
                (item.moves, item.joined, item.left, item.timeouts, item.declined)
            ):
                news.append(item)
        news.sort(key=_news_order)
        finished = sorted(
            (infos[g] for g in finished_ids if g in infos), key=lambda i: i.id
        )
        waiting = [infos[g] for g in sorted(waiting_ids) if g in infos]
        waiting.sort(key=lambda g: (g.deadline is None, g.deadline or g.updated_at, g.id))
        invitations = [n.info for n in news if n.invited]
        return VisitSummary(moves, finished, waiting, new_events, news, invitations)

    async def replay_check(self, game_id: int) -> str | None:
        """Replay the game's log through the rules; None if it reproduces the snapshot
        (with every chance event the one its dice seed makes, for a game that has one),
        else a sentence saying what differs."""
        return await self.core.db.run_read(lambda repo: self._replay_check(repo, game_id))

    def _replay_check(self, repo: Repository, game_id: int) -> str | None:
        game = repo.game(game_id) if is_stored_id(game_id) else None
        if game is None:
            return f"game {game_id}: no such game"
        seats = repo.seats(game_id)
        events = repo.events(game_id)
        rules = self.core.registry.get(game.kind)
        if rules is None:
            return f"game {game_id}: unknown kind {game.kind!r}"
        if [e.seq for e in events] != list(range(1, len(events) + 1)):
            return f"game {game_id}: the event sequence has gaps"
        if game.last_seq != len(events):
            return f"game {game_id}: last_seq is {game.last_seq} but the log ends at {len(events)}"
        # a provable game's k-th chance event must be the one its seed makes
        seed = game.dice_seed
        words = [s.dice_word for s in seats]
        k = 0
        wrong_dice: str | None = None
        try:
            state = rules.new_game(len(seats), game.options)
            for step in replay(rules, state, events):
                state = step.after
                if step.event.kind != "chance":
                    continue
                if seed is not None and wrong_dice is None:
                    stream = fairdice.event_stream(seed, game.id, k, words)
                    due = rules.chance_to_json(rules.chance_from_bytes(step.before, stream))
                    if due != step.event.payload.get("chance"):
                        wrong_dice = (
                            f"game {game_id}: chance event {k} (event {step.event.seq}) is "
                            f"{step.event.payload.get('chance')!r} but its dice seed makes {due!r}"
                        )
                k += 1
        except Exception as exc:  # a tampered log can break the rules in any way
            return f"game {game_id}: the log does not replay: {exc!r}"
        if wrong_dice is not None:
            return wrong_dice
        if game.chance_count != k:
            return f"game {game_id}: chance_count is {game.chance_count} but the log has {k}"
        replayed = dump_state(rules, state)
        if replayed != game.snapshot:
            return (
                f"game {game_id}: the log replays to {replayed!r} "
                f"but the snapshot is {game.snapshot!r}"
            )
        outcome = rules.outcome(state)
        if game.status == "finished" and outcome is None:
            return f"game {game_id}: marked finished but the replayed game is not over"
        if game.status == "active" and outcome is not None:
            return f"game {game_id}: marked active but the replayed game is over"
        if game.status == "active" and game.to_act != rules.to_act(state):
            return (
                f"game {game_id}: seat {game.to_act} is marked to act "
                f"but the replay says seat {rules.to_act(state)}"
            )
        return None

    async def game_ids(self) -> list[int]:
        """Every game's id (for ``door check``)."""
        return await self.core.db.run_read(lambda repo: repo.all_game_ids())

