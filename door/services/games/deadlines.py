"""Deadlines: the timeout rule for every running game whose turn ran out."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from door.services.games.core import Change, GameCore
from door.services.games.model import GameSnapshot, StaleVersionError
from door.services.games.notices import GameNotices
from door.store.db import DatabaseFailure
from door.store.records import JSONObject, NewEvent
from door.store.repository import Repository

log = logging.getLogger(__name__)

TIMEOUTS_TO_FORFEIT = 3


class Deadlines:
    """Sweep overdue games: a timeout each, a forfeit at the third."""

    def __init__(self, core: GameCore, notices: GameNotices) -> None:
        self.core = core
        self.notices = notices

    async def sweep_deadlines(self) -> int:
        """Apply the timeout rule to every running game whose deadline has passed.

        Each timeout is one system event; a concurrent sweeper (or a move landing at the
        same moment) makes this one skip that game, so it is applied exactly once.
        Returns how many timeouts were applied.
        """
        core = self.core
        now = core.clock.now()
        overdue = await core.db.run_read(lambda repo: repo.overdue_games(now))
        applied = 0
        for item in overdue:
            change = Change(item.id, moved=True)
            try:
                snapshot = await core.act(change, self._timeout(item.id, item.version, now, change))
            except StaleVersionError:
                continue
            except DatabaseFailure:
                raise  # nothing can be saved now: the sweeper tries again soon
            except Exception:
                # One game the rules cannot time out must not stop the sweep of the rest.
                log.exception("game %d: could not apply its timeout", item.id)
                continue
            if snapshot is not None:
                applied += 1
                self.notices.after_commit(snapshot, change)
        return applied

    def _timeout(
        self, game_id: int, version: int, now: datetime, change: Change
    ) -> Callable[[Repository], GameSnapshot | None]:
        core = self.core

        def action(repo: Repository) -> GameSnapshot | None:
            loaded = core.load(repo, game_id)
            game = loaded.game
            if game.status != "active" or game.version != version or game.deadline is None:
                return None
            if game.deadline > now or game.to_act is None:
                return None
            seat = loaded.seat(game.to_act)
            timeouts = seat.timeouts + 1
            payload: JSONObject
            if timeouts >= TIMEOUTS_TO_FORFEIT:
                state = loaded.rules.forfeit(loaded.state, seat.seat, "timeout")
                payload = {"action": "forfeit", "reason": "timeout"}
            else:
                state = loaded.rules.on_timeout(loaded.state)
                payload = {"action": "timeout"}
            event = NewEvent(seat.seat, "system", payload)
            loaded = core.commit(repo, loaded, state, [event], now, change)
            repo.save_seat(replace(seat, timeouts=timeouts))
            return core.read_snapshot(repo, game_id, None)

        return action
