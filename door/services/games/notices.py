"""What players hear about a change: invitations, joins, moves, their turn, the end.

The notices of a change are worked out inside its own transaction (:meth:`GameNotices.
in_transaction`, which :class:`~door.services.games.core.GameCore` calls once the action
has its new snapshot) and announced there to the other processes, if there are any
(``Hub.announcement``: on PostgreSQL one NOTIFY, delivered at commit and never for a
change rolled back); this process's sessions get them after the commit
(:meth:`GameNotices.after_commit`), so nobody is told of a move that did not happen.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from door.services.games.core import AfterCommit, Change
from door.services.games.model import GameInfo, GameSnapshot
from door.services.notify import Hub, Notice
from door.services.outbox import Outbox
from door.services.ratings import match_length
from door.store.repository import Repository


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


OUTSIDE_KINDS = {"your_turn": "your_turn", "finished": "finished", "invited": "invitation"}
"""Which of a change's notices also go outside door, and as which kind (outbox.KINDS)."""
OUTSIDE_ADVICE = {
    "your_turn": "Call in to door and open the game from G)ames to make your move.",
    "finished": "Call in to door to see the final position under G)ames.",
    "invitation": "Call in to door and accept or decline it under G)ames.",
}


class GameNotices:
    """Publishes the notices of committed changes and pokes the after-commit hook.

    ``on_after_commit`` (set by the bot runner) is called on the event loop with the new
    snapshot after each committed change; it must not block (an awaitable it returns is
    run as a task).
    """

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.outbox: Outbox | None = None
        """Where notices outside door are written, in the change's transaction (None:
        no e-mail nor push configured)."""
        self.on_after_commit: AfterCommit | None = None
        self.on_finished: list[Callable[[GameSnapshot], None]] = []
        """Called after the commit that finished a game, or the sysop abandoned it (the
        tournaments' hook)."""
        self._tasks: set[asyncio.Task[Any]] = set()

    def of_change(self, snapshot: GameSnapshot, change: Change) -> list[Notice]:
        """Every notice of ``change``, whose game is now ``snapshot``."""
        info = snapshot.info
        players = tuple(
            s.user_id for s in info.seats if s.user_id is not None and s.kind in ("user", "bot")
        )
        others = tuple(u for u in players if u != change.actor)
        seq = info.last_seq
        title = f"{info.title} #{info.id}"
        out: list[Notice] = []
        if change.joined or change.started:
            out.append(Notice(info.id, "joined", others, f"{title}: a player joined", seq))
        if change.moved:
            out.append(Notice(info.id, "move", others, f"{title}: a move was made", seq))
        if info.status == "finished":
            text = f"{title} is over: {info.summary}"
            out.append(Notice(info.id, "finished", players, text, seq))
        elif info.status == "active" and info.to_act is not None and (
            change.moved or change.started
        ):
            waiting = tuple(
                s.user_id for s in info.seats if s.seat == info.to_act and s.user_id is not None
            )
            if waiting:
                text = f"{title}: it is your turn"
                out.append(Notice(info.id, "your_turn", waiting, text, seq))
        if change.abandoned is not None:
            told = tuple(
                s.user_id for s in info.seats
                if s.user_id is not None and s.kind in ("user", "bot", "reserved")
            )  # fmt: skip
            if told:
                text = f"Game #{info.id} was abandoned by the sysop: {change.abandoned}"
                out.append(Notice(info.id, "abandoned", told, text, seq))
        if change.begun:
            guests = tuple(s.user_id for s in info.seats if s.kind == "reserved" and s.user_id)
            if guests:
                text = f"{creator_name(info)} invites you to {titled(info)}, game #{info.id}"
                out.append(Notice(info.id, "invited", guests, text, seq))
        if change.declined_by is not None:
            others = tuple(
                s.user_id for s in info.seats
                if s.user_id is not None and s.user_id != change.actor
                and s.kind in ("user", "reserved")
            )  # fmt: skip
            if others:
                text = (
                    f"{change.declined_by} declined {titled(info)} #{info.id}: "
                    "the game is cancelled"
                )
                out.append(Notice(info.id, "declined", others, text, seq))
        return out

    def in_transaction(self, repo: Repository, snapshot: GameSnapshot, change: Change) -> None:
        """Work out ``change``'s notices (kept in ``change.notices`` for after the
        commit) and announce them to the other processes in this transaction."""
        notices = self.of_change(snapshot, change)
        change.notices = tuple(notices)
        told = self.hub.announcement(notices) if notices else None
        if told is not None:
            repo.announce(*told)
        if self.outbox is not None:
            self.to_outbox(repo, self.outbox, snapshot, notices, change.actor)

    def to_outbox(
        self,
        repo: Repository,
        outbox: Outbox,
        snapshot: GameSnapshot,
        notices: list[Notice],
        actor: int | None,
    ) -> None:
        """Write the turn, end and invitation notices outside door (for the players who
        asked for them) in the change's transaction; nobody is told outside door of
        what they did themselves (a move that leaves them to act again)."""
        info = snapshot.info
        for notice in notices:
            kind = OUTSIDE_KINDS.get(notice.kind)
            if kind is None:
                continue
            subject = f"door: {notice.text}"[:200]
            body = f"{notice.text}.\n\n{OUTSIDE_ADVICE[kind]}"
            for user_id in notice.user_ids:
                if user_id == actor:
                    continue
                outbox.enqueue(repo, user_id, info.id, kind, subject, body)

    def deliver(self, snapshot: GameSnapshot, change: Change) -> None:
        """Hand ``change``'s notices to this process's subscribers, once it committed.
        A change whose transaction did not announce them (``change.notices`` unset) is
        published now, to every process."""
        if change.notices is None:
            for notice in self.of_change(snapshot, change):
                self.hub.publish(notice)
            return
        for notice in change.notices:
            self.hub.deliver(notice)

    def after_commit(self, snapshot: GameSnapshot, change: Change) -> None:
        """:meth:`deliver`, then the after-commit hook."""
        self.deliver(snapshot, change)
        if snapshot.info.status in ("finished", "abandoned"):
            # a game the sysop abandoned is over too (a tournament goes on without it)
            for finished in self.on_finished:
                finished(snapshot)
        hook = self.on_after_commit
        if hook is not None:
            result = hook(snapshot)
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
