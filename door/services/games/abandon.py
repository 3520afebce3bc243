"""Abandoning a stuck game, as the sysop (issue 17, the console's games).

One transaction, as every game action: the game must be open or running (and, given the
version the sysop saw, still at that version: a move that lands first wins, and the
sysop is shown the game again); it becomes ``abandoned`` with no result, its log gets one
system event ``{"action": "abandon", "by": <sysop>, "reason": <reason>}`` (no seat: the
server's doing, as a game's ``start``), and its version moves on. The event leaves the
state as it is (door/games/replay.py: only timeouts and forfeits change a game), so
``door check`` replays the game to the snapshot it keeps. An abandoned game has no
outcome: nobody's rating moves (door/services/ratings.py rates finished games only).
The players hear "Game #12 was abandoned by the sysop: <reason>" through the game's
notices (GameNotices), with the commit and never without it.
"""

from __future__ import annotations

from dataclasses import replace

from door.services.games.core import Change, GameCore
from door.services.games.model import GameClosedError, GameSnapshot, LobbyError, StaleVersionError
from door.services.games.notices import GameNotices
from door.services.safety import clean_message
from door.store.records import NewEvent
from door.store.repository import Repository

REASON_MAX = 200


class Abandonment:
    """The sysop's abandon of an open or running game."""

    def __init__(self, core: GameCore, notices: GameNotices) -> None:
        self.core = core
        self.notices = notices

    async def abandon(
        self,
        game_id: int,
        actor_id: int,
        actor_name: str,
        reason: str,
        expected_version: int | None = None,
    ) -> GameSnapshot:
        """Abandon game ``game_id`` for ``actor_id`` (whose right to do so the caller has
        checked: door/services/sysop.py) with ``reason``. ``expected_version``: the
        version the sysop saw; if the game moved on meanwhile, StaleVersionError with the
        game as it is now, and nothing is written. Raises GameClosedError for a game that
        is over, LobbyError for no such game or no reason."""
        why = clean_message(reason, REASON_MAX).strip()
        if not why:
            raise LobbyError("give a reason for abandoning the game")
        by = clean_message(actor_name, 40).strip()
        core = self.core
        now = core.clock.now()
        change = Change(game_id, actor=actor_id, abandoned=why)

        def action(repo: Repository) -> GameSnapshot:
            loaded = core.load(repo, game_id)
            game = loaded.game
            if game.status not in ("open", "active"):
                raise GameClosedError("that game is over")
            if expected_version is not None and game.version != expected_version:
                raise StaleVersionError(core.snapshot(loaded, None))
            event = NewEvent(None, "system", {"action": "abandon", "by": by, "reason": why})
            # the state (snapshot) stays as it is: the log replays to it; nothing is to act
            # and no clock runs any more
            new = replace(
                game, status="abandoned", last_seq=game.last_seq + 1, updated_at=now,
                finished_at=now, summary=f"abandoned by the sysop: {why}", to_act=None,
                deadline=None, move_deadline=None, turn_started_at=None,
                version=game.version + 1,
            )  # fmt: skip
            core.save(repo, new, game)
            core.append(repo, game_id, new.last_seq, [event], now)
            change.events = 1
            core.cache.forget(game_id)
            return core.read_snapshot(repo, game_id, None)

        snapshot = await core.act(change, action)
        self.notices.after_commit(snapshot, change)
        return snapshot
