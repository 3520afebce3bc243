"""History: a game's log, what a player has seen of it, and replaying it for ``door check``."""

from __future__ import annotations

from door.games.replay import final_state
from door.services.games.core import Change, GameCore
from door.services.games.model import GameEvent, GameInfo, VisitSummary, dump_state
from door.store.records import clamp_count, is_stored_id
from door.store.repository import Repository


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

    async def since_last_visit(self, user_id: int) -> VisitSummary:
        """Moves made against ``user_id``, games finished and games waiting on them,
        counted from each seat's last-seen event."""
        core = self.core
        if not is_stored_id(user_id):
            return VisitSummary(0, [], [], 0)

        def read(repo: Repository) -> VisitSummary:
            moves = new_events = 0
            finished_ids: set[int] = set()
            waiting_ids: set[int] = set()
            for r in repo.seat_activity(user_id):
                if r.last_seq > r.last_seen_seq:
                    moves += r.moves
                    new_events += r.events
                    if r.status in ("finished", "abandoned"):
                        finished_ids.add(r.game_id)
                if r.status == "active" and r.to_act == r.seat:
                    waiting_ids.add(r.game_id)
            # both lists' games in one read (a finished game is never waiting)
            games = repo.games(sorted(finished_ids | waiting_ids))
            infos: dict[int, GameInfo] = {i.id: i for i in core.infos(repo, games)}
            finished = [infos[g] for g in sorted(finished_ids) if g in infos]
            waiting = [infos[g] for g in sorted(waiting_ids) if g in infos]
            waiting.sort(key=lambda g: (g.deadline is None, g.deadline or g.updated_at, g.id))
            return VisitSummary(moves, finished, waiting, new_events)

        return await core.db.run_read(read)

    async def replay_check(self, game_id: int) -> str | None:
        """Replay the game's log through the rules; None if it reproduces the snapshot,
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
        try:
            state = final_state(rules, rules.new_game(len(seats), game.options), events)
        except Exception as exc:  # a tampered log can break the rules in any way
            return f"game {game_id}: the log does not replay: {exc!r}"
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

