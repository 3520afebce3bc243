"""What players hear after a committed change: invitations, joins, moves, their turn,
the end.

Notices go out through the :class:`~door.services.notify.Hub` (this process's sessions,
and with PostgreSQL every process's) only after the change committed, so nobody is told
of a move that did not happen.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from typing import Any

from door.services.games.core import AfterCommit, Change
from door.services.games.model import GameInfo, GameSnapshot
from door.services.notify import Hub, Notice, NoticeKind
from door.services.ratings import match_length


def game_terms(kind: str, options: Mapping[str, Any]) -> str:
    """The terms of a game in a few words ("5-point match", "money game", "teams"), or
    "" when there is nothing to say beyond its title."""
    if kind == "backgammon":
        length = match_length(options)
        return f"{length}-point match" if length > 0 else "money game"
    if kind == "spectrangle" and options.get("teams"):
        return "teams"
    return ""


def titled(info: GameInfo) -> str:
    """``"Backgammon (5-point match)"``: the title with the terms, if any."""
    terms = game_terms(info.kind, info.options)
    return f"{info.title} ({terms})" if terms else info.title


def creator_name(info: GameInfo) -> str:
    """The name of the player who began the game (as seated), or "someone"."""
    for s in info.seats:
        if s.user_id == info.created_by and s.name:
            return s.name
    return "someone"


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
        self._publish(info, notices)
        hook = self.on_after_commit
        if hook is not None:
            result = hook(snapshot)
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    def invited(self, snapshot: GameSnapshot) -> None:
        """Tell each named player of a just-begun game that a seat waits for them."""
        info = snapshot.info
        guests = tuple(s.user_id for s in info.seats if s.kind == "reserved" and s.user_id)
        if guests:
            text = f"{creator_name(info)} invites you to {titled(info)}, game #{info.id}"
            self._publish(info, [("invited", guests, text)])

    def declined(self, snapshot: GameSnapshot, who: str, by: int) -> None:
        """Tell the other players that ``who`` declined and the game is cancelled."""
        info = snapshot.info
        others = tuple(
            s.user_id for s in info.seats
            if s.user_id is not None and s.user_id != by and s.kind in ("user", "reserved")
        )  # fmt: skip
        if others:
            text = f"{who} declined {titled(info)} #{info.id}: the game is cancelled"
            self._publish(info, [("declined", others, text)])

    def _publish(
        self, info: GameInfo, notices: list[tuple[NoticeKind, tuple[int, ...], str]]
    ) -> None:
        for kind, users, text in notices:
            self.hub.publish(Notice(info.id, kind, users, text, info.last_seq))
