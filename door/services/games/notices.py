"""What players hear after a committed change: joins, moves, their turn, the end.

Notices go out through the :class:`~door.services.notify.Hub` (this process's sessions,
and with PostgreSQL every process's) only after the change committed, so nobody is told
of a move that did not happen.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from door.services.games.core import AfterCommit, Change
from door.services.games.model import GameSnapshot
from door.services.notify import Hub, Notice, NoticeKind


class GameNotices:
    """Publishes the notices of committed changes and pokes the after-commit hook.

    ``on_after_commit`` (set by the bot runner) is called on the event loop with the new
    snapshot after each committed change; it must not block (an awaitable it returns is
    run as a task).
    """

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.on_after_commit: AfterCommit | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def after_commit(self, snapshot: GameSnapshot, change: Change) -> None:
        info = snapshot.info
        players = tuple(
            s.user_id for s in info.seats if s.user_id is not None and s.kind in ("user", "bot")
        )
        others = tuple(u for u in players if u != change.actor)
        notices: list[tuple[NoticeKind, tuple[int, ...], str]] = []
        title = f"{info.title} #{info.id}"
        if change.joined or change.started:
            notices.append(("joined", others, f"{title}: a player joined"))
        if change.moved:
            notices.append(("move", others, f"{title}: a move was made"))
        if info.status == "finished":
            notices.append(("finished", players, f"{title} is over: {info.summary}"))
        elif info.status == "active" and info.to_act is not None and (
            change.moved or change.started
        ):
            waiting = tuple(
                s.user_id for s in info.seats if s.seat == info.to_act and s.user_id is not None
            )
            if waiting:
                notices.append(("your_turn", waiting, f"{title}: it is your turn"))
        for kind, users, text in notices:
            self.hub.publish(Notice(info.id, kind, users, text, info.last_seq))
        hook = self.on_after_commit
        if hook is not None:
            result = hook(snapshot)
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
