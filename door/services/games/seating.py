"""Seats of a game that has not started: take one (the game starts when every seat is
filled), give one back, or decline a named invitation."""

from __future__ import annotations

from dataclasses import replace

from door.games import fairdice
from door.services.games.cache import Loaded
from door.services.games.core import Change, GameCore
from door.services.games.model import GameClosedError, GameInfo, GameSnapshot, LobbyError
from door.services.games.notices import GameNotices
from door.store.records import NewEvent, SeatRecord
from door.store.repository import Repository


class Seating:
    """Join, leave and decline games that wait for players."""

    def __init__(self, core: GameCore, notices: GameNotices) -> None:
        self.core = core
        self.notices = notices

    async def join(
        self, game_id: int, user_id: int, seat: int | None = None, dice_word: str = ""
    ) -> GameInfo:
        """Take an open seat (or the one reserved for you), with your word for the dice
        (``fairdice.clean_word``; '' for none); the game starts when full."""
        core = self.core
        word = fairdice.clean_word(dice_word)
        now = core.clock.now()
        change = Change(game_id, joined=True, actor=user_id)

        def action(repo: Repository) -> GameSnapshot:
            loaded = core.load(repo, game_id)
            game = loaded.game
            if game.status != "open":
                raise LobbyError("that game is not open for joining")
            user = repo.user(user_id)
            if user is None:
                raise LobbyError("no such user")
            if user.is_banned:
                raise LobbyError("your account is banned")
            chosen = _seat_to_join(loaded, user_id, seat)
            joined = replace(
                game, last_seq=game.last_seq + 1, updated_at=now, version=game.version + 1
            )
            stored = core.save(repo, joined, game)
            repo.save_seat(replace(chosen, kind="user", user_id=user_id, dice_word=word))
            event = NewEvent(chosen.seat, "system", {"action": "join"})
            core.append(repo, game_id, stored.last_seq, [event], now)
            loaded = core.load(repo, game_id)
            if all(s.kind in ("user", "bot") for s in loaded.seats):
                loaded = core.start(repo, loaded, now, change)
            return core.snapshot(loaded, user_id)

        snapshot = await core.act(change, action, viewer=user_id)
        self.notices.after_commit(snapshot, change)
        return snapshot.info

    async def leave(self, game_id: int, user_id: int) -> GameInfo:
        """Give back your seat in a game that has not started (a reservation too).

        A game left with no person seated is abandoned.
        """
        core = self.core
        now = core.clock.now()
        change = Change(game_id, actor=user_id)

        def action(repo: Repository) -> GameSnapshot:
            loaded = core.load(repo, game_id)
            game = loaded.game
            if game.status != "open":
                raise GameClosedError(
                    "the game has started: resign it instead"
                    if game.status == "active"
                    else "that game is over"
                )
            mine = [
                s for s in loaded.seats if s.user_id == user_id and s.kind in ("user", "reserved")
            ]
            if not mine:
                raise LobbyError("you have no seat in that game")
            gone = mine[0]
            new = replace(
                game, last_seq=game.last_seq + 1, updated_at=now, version=game.version + 1
            )
            if not any(s.kind == "user" and s.user_id != user_id for s in loaded.seats):
                new = replace(new, status="abandoned", finished_at=now, summary="abandoned")
            stored = core.save(repo, new, game)
            repo.save_seat(replace(gone, kind="open", user_id=None, dice_word=""))
            event = NewEvent(gone.seat, "system", {"action": "leave"})
            core.append(repo, game_id, stored.last_seq, [event], now)
            return core.read_snapshot(repo, game_id, user_id)

        snapshot = await core.act(change, action, viewer=user_id)
        return snapshot.info

    async def decline(self, game_id: int, user_id: int) -> GameInfo:
        """Say no to a named invitation: the game is cancelled (abandoned), so the seat
        its creator kept for ``user_id`` is never handed to someone else; the other
        players are told."""
        core = self.core
        now = core.clock.now()
        change = Change(game_id, actor=user_id)
        who: list[str] = []

        def action(repo: Repository) -> GameSnapshot:
            loaded = core.load(repo, game_id)
            game = loaded.game
            kept = [s for s in loaded.seats if s.user_id == user_id and s.kind == "reserved"]
            if game.status != "open" or not kept:
                raise LobbyError("there is no invitation for you in that game")
            who.append(kept[0].user_name or "a player")
            change.declined_by = who[0]
            new = replace(
                game, last_seq=game.last_seq + 1, updated_at=now, version=game.version + 1,
                status="abandoned", finished_at=now, summary=f"declined by {who[0]}",
            )  # fmt: skip
            stored = core.save(repo, new, game)
            event = NewEvent(kept[0].seat, "system", {"action": "decline"})
            core.append(repo, game_id, stored.last_seq, [event], now)
            repo.mark_seen(game_id, user_id, stored.last_seq)
            return core.read_snapshot(repo, game_id, user_id)

        snapshot = await core.act(change, action, viewer=user_id)
        self.notices.deliver(snapshot, change)
        return snapshot.info


def _seat_to_join(loaded: Loaded, user_id: int, seat: int | None) -> SeatRecord:
    """The seat ``user_id`` would take (``seat``, or theirs, or the first open one)."""
    if any(s.user_id == user_id and s.kind == "user" for s in loaded.seats):
        raise LobbyError("you already have a seat in this game")
    if seat is None:
        mine = [s for s in loaded.seats if s.kind == "reserved" and s.user_id == user_id]
        free = [s for s in loaded.seats if s.kind == "open"]
        if not (mine or free):
            raise LobbyError("no seat is free in that game")
        return (mine or free)[0]
    found = [s for s in loaded.seats if s.seat == seat]
    if not found:
        raise LobbyError(f"that game has no seat {seat}")
    chosen = found[0]
    if chosen.kind == "reserved" and chosen.user_id != user_id:
        raise LobbyError("that seat is kept for someone else")
    if chosen.kind not in ("open", "reserved"):
        raise LobbyError("that seat is taken")
    return chosen
