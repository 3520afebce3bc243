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
    """Sweep overdue games: a timeout each, a forfeit at the third.

    Each timeout is one transaction that first *claims* its game
    (:meth:`~door.store.repository.Repository.claim_overdue_game`: the most overdue game
    no other transaction holds, row-locked until the commit), so sweepers of several
    processes on one database (or several runs at once in one) each take different
    games and never try the same one; a game whose timeout has committed is no longer
    overdue. A sweeper killed mid-transaction holds nothing: its transaction rolls back
    and the game is the next sweep's. :attr:`attempts` counts the transactions that
    claimed a game and ran its timeout rule.
    """

    def __init__(self, core: GameCore, notices: GameNotices) -> None:
        self.core = core
        self.notices = notices
        self.attempts = 0
        """Timeout transactions that claimed a game (retries of one included)."""

    async def sweep_deadlines(self, limit: int = 10_000) -> int:
        """Apply the timeout rule to every running game whose deadline has passed (at most
        ``limit`` of them; the next sweep does the rest).

        A move landing at the same moment makes this one skip that game, so each timeout
        is applied exactly once. Returns how many timeouts were applied.
        """
        now = self.core.clock.now()
        applied = 0
        skip: list[int] = []  # games whose timeout failed: not again in this sweep
        for _ in range(limit):
            change = Change(0, moved=True)
            try:
                done = await self.core.act(change, self._timeout(now, skip, change))
            except StaleVersionError:
                continue  # a move committed first: the game is no longer overdue
            except DatabaseFailure:
                raise  # nothing can be saved now: the sweeper tries again soon
            except Exception:
                # One game the rules cannot time out must not stop the sweep of the rest.
                log.exception("game %d: could not apply its timeout", change.game_id)
                skip.append(change.game_id)
                continue
            if done is None:
                return applied  # no overdue game left that nobody else holds
            game_id, snapshot = done
            if snapshot is None:
                skip.append(game_id)
                continue
            applied += 1
            self.notices.after_commit(snapshot, change)
        return applied

    def _timeout(
        self, now: datetime, skip: list[int], change: Change
    ) -> Callable[[Repository], tuple[int, GameSnapshot | None] | None]:
        core = self.core

        def action(repo: Repository) -> tuple[int, GameSnapshot | None] | None:
            claimed = repo.claim_overdue_game(now, skip)
            if claimed is None:
                return None
            self.attempts += 1
            game_id = change.game_id = claimed.id
            loaded = core.load(repo, game_id)
            game = loaded.game
            if game.status != "active" or game.deadline is None or game.to_act is None:
                return game_id, None
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
            # the seat as the commit left it (its bank spent: the deadline is the instant
            # the move's time and the bank have both run out)
            repo.save_seat(replace(loaded.seat(seat.seat), timeouts=timeouts))
            snapshot = core.read_snapshot(repo, game_id, None)
            if core.tell is not None:
                # the notices go out with this commit, as GameCore.act does for an action
                # that returns the snapshot itself (this one returns the game id beside it)
                core.tell(repo, snapshot, change)
            return game_id, snapshot

        return action
