"""How a game is shown: its record and seats as a :class:`GameInfo` (with its dice proof
and, in lists, its tournament), a loaded game as a viewer's :class:`GameSnapshot`.
:class:`GameViews` is :class:`~door.services.games.core.GameCore`'s base: every use-case
shows games through its core."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from door.services.dice import DiceProof, proof_of
from door.services.games.cache import Loaded
from door.services.games.model import (
    AnyRules,
    GameInfo,
    GameSnapshot,
    LobbyError,
    SeatInfo,
    outcome_from_json,
)
from door.store.db import Database
from door.store.records import GameRecord, SeatRecord, is_stored_id
from door.store.repository import Repository


class GameViews:
    """Games as the screens, bots and command line are shown them (``registry`` for the
    titles, ``db`` for the reads of its own: set by ``GameCore``)."""

    registry: dict[str, AnyRules]
    db: Database

    def title_of(self, kind: str) -> str:
        rules = self.registry.get(kind)
        return rules.title if rules is not None else kind

    def info(self, game: GameRecord, seats: Sequence[SeatRecord]) -> GameInfo:
        return GameInfo(
            id=game.id,
            kind=game.kind,
            title=self.title_of(game.kind),
            options=dict(game.options),
            status=game.status,
            seats=tuple(_seat_info(s) for s in seats),
            to_act=game.to_act if game.status == "active" else None,
            version=game.version,
            deadline=game.deadline,
            deadline_hours=game.deadline_hours,
            hints_allowed=game.hints_allowed,
            created_by=game.created_by,
            created_at=game.created_at,
            updated_at=game.updated_at,
            summary=game.summary,
            outcome=outcome_from_json(game.outcome),
            last_seq=game.last_seq,
            dice=proof_of(game, seats),
            bank_s=game.bank_s,
            weekends_off=game.weekends_off,
            move_deadline=game.move_deadline if game.status == "active" else None,
        )

    def infos(self, repo: Repository, games: Sequence[GameRecord]) -> list[GameInfo]:
        seats = repo.seats_of([g.id for g in games])
        # tournament games are marked as such in every list (one query for the page)
        marks = repo.tournaments().marks([g.id for g in games])
        out = []
        for g in games:
            info = self.info(g, seats.get(g.id, []))
            if g.id in marks:
                name, round_no = marks[g.id]
                info = replace(info, tournament=f"{name}, round {round_no}")
            out.append(info)
        return out

    async def tournament_mark(self, game_id: int) -> str | None:
        """"<tournament>, round N" if game ``game_id`` is a tournament game."""
        if not is_stored_id(game_id):
            return None
        marks = await self.db.run_read(lambda repo: repo.tournaments().marks([game_id]))
        if game_id not in marks:
            return None
        name, round_no = marks[game_id]
        return f"{name}, round {round_no}"

    def snapshot(self, loaded: Loaded, viewer: int | None) -> GameSnapshot:
        """The game as ``loaded`` holds it, seen by ``viewer`` (None: a spectator)."""
        info = self.info(loaded.game, loaded.seats)
        my_seat = info.seat_of(viewer) if viewer is not None else None
        last_seen = 0 if my_seat is None else loaded.seat(my_seat).last_seen_seq
        return GameSnapshot(info, loaded.state, my_seat, last_seen)

    async def dice_proof(self, game_id: int) -> DiceProof:
        """The game's dice proof as anyone may see it now (the seed once it is over);
        ``LobbyError`` if there is no such game."""

        def read(repo: Repository) -> DiceProof:
            game, seats = repo.game_with_seats(game_id) if is_stored_id(game_id) else (None, [])
            if game is None:
                raise LobbyError(f"there is no game {game_id}")
            return proof_of(game, seats)

        return await self.db.run_read(read)


def _seat_info(s: SeatRecord) -> SeatInfo:
    if s.kind == "bot":
        name = s.bot_level
    elif s.user_id is not None:
        name = s.user_name
    else:
        name = None
    return SeatInfo(s.seat, s.kind, s.user_id, name, s.timeouts, s.bank_s)
