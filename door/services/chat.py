"""Talk in a game (issue 17, point 2): the players' chat and the spectators' kibitz.

A line is cleaned (:func:`~door.services.safety.clean_message`), rate-limited per user
(:data:`~door.services.safety.SLOW_DOWN`), committed to ``game_chat`` and then published
as a ``chat`` notice about its game, so every screen on that game — on any transport, in
any process (PgHub) — shows it at once; those who come later read the last lines from the
table. Players write ``chat`` (seen by players and spectators); spectators write
``kibitz`` (seen by spectators, and by the players once they open it for their game).
What a viewer blocks is dropped on the viewer's side (:meth:`Chat.visible`).
"""

from __future__ import annotations

from dataclasses import dataclass

from door.config import CommunityConfig
from door.services.clock import Clock
from door.services.notify import Hub, Notice
from door.services.safety import SLOW_DOWN, RateLimit, clean_message, refusal_for_muted
from door.store.db import Database
from door.store.records import ChatRecord, is_stored_id
from door.store.repository import Repository

CHAT_MAX = 200
"""Characters in a line."""
RECENT = 20
"""Lines read when a game's screen opens."""
OPEN = "open"
"""The channel of a notice that kibitz was opened ("1") or closed ("0") to the players."""


class ChatError(Exception):
    """A line that was not said, with the reason to show its author."""


@dataclass(frozen=True)
class ChatLine:
    """One line as a screen shows it."""

    id: int
    game_id: int
    user_id: int
    name: str
    channel: str
    text: str


def _line(r: ChatRecord) -> ChatLine:
    return ChatLine(r.id, r.game_id, r.user_id or 0, r.user_name or "(gone)", r.channel, r.text)


def line_notice(line: ChatLine) -> Notice:
    """The ``chat`` notice that carries ``line`` to the game's screens."""
    text = f"{line.channel}|{line.user_id}|{line.name}|{line.text}"
    return Notice(line.game_id, "chat", (), text, line.id)


def line_from_notice(notice: Notice) -> ChatLine | None:
    """The line a ``chat`` notice carries (cleaned again: it may have come from another
    process), or None if it is not one."""
    try:
        channel, uid, name, text = notice.text.split("|", 3)
        user_id = int(uid)
    except ValueError:
        return None
    return ChatLine(notice.seq, notice.game_id, user_id, clean_message(name, 40), channel,
                    clean_message(text, CHAT_MAX))  # fmt: skip


def visible(line: ChatLine, *, is_player: bool, kibitz_open: bool,
            blocked: frozenset[int]) -> bool:  # fmt: skip
    """Whether a viewer sees ``line``: never a blocked author's; kibitz only for
    spectators unless the game's players opened it."""
    if line.user_id in blocked:
        return False
    if line.channel == "chat":
        return True
    return line.channel == "kibitz" and (not is_player or kibitz_open)


class Chat:
    """Saying lines in a game, reading its last ones, opening kibitz to its players."""

    def __init__(
        self, db: Database, clock: Clock, hub: Hub, *,
        per_minute: int = CommunityConfig.chat_per_minute,
        burst: int = CommunityConfig.chat_burst,
    ) -> None:  # fmt: skip
        """``per_minute`` and ``burst``: each player's lines (``[community]`` chat_*)."""
        self.db = db
        self.clock = clock
        self.hub = hub
        self.limit = RateLimit(clock, per_minute, burst)

    async def say(self, game_id: int, user_id: int, text: str) -> ChatLine:
        """Say ``text`` in the game: ``chat`` for one of its players, ``kibitz`` for anyone
        else. Returns the line once committed (then it is published). ChatError for an
        empty line, a flood ("Slow down: …"), a mute, or no such game."""
        text = clean_message(text, CHAT_MAX).strip()
        if not text:
            raise ChatError("Type a few words first.")
        if not (is_stored_id(game_id) and is_stored_id(user_id)):
            raise ChatError("There is no such game.")
        if not self.limit.allow(user_id):
            raise ChatError(SLOW_DOWN)
        now = self.clock.now()

        def write(repo: Repository) -> ChatLine:
            refusal = refusal_for_muted(repo, user_id, now)
            if refusal:
                raise ChatError(refusal)
            user = repo.user(user_id)
            if repo.game(game_id) is None or user is None:
                raise ChatError("There is no such game.")
            seated = any(s.user_id == user_id for s in repo.seats(game_id))
            channel = "chat" if seated else "kibitz"
            line_id = repo.insert_chat(game_id, user_id, channel, text, now)
            return ChatLine(line_id, game_id, user_id, user.name, channel, text)

        line = await self.db.transact(write)
        self.hub.publish(line_notice(line))
        return line

    async def recent(self, game_id: int) -> tuple[list[ChatLine], bool]:
        """The game's last :data:`RECENT` lines, oldest first, and whether kibitz is open
        to its players."""
        if not is_stored_id(game_id):
            return [], False

        def read(repo: Repository) -> tuple[list[ChatLine], bool]:
            rows = repo.recent_chat(game_id, RECENT)
            return [_line(r) for r in rows], repo.kibitz_open(game_id)

        return await self.db.run_read(read)

    async def open_kibitz(self, game_id: int, user_id: int, is_open: bool) -> None:
        """A player of the game opens kibitz to the players (or closes it); ChatError for
        anyone else."""

        def write(repo: Repository) -> None:
            if not any(s.user_id == user_id for s in repo.seats(game_id)):
                raise ChatError("Only the game's players may open kibitz to themselves.")
            repo.set_kibitz_open(game_id, is_open)

        if not (is_stored_id(game_id) and is_stored_id(user_id)):
            raise ChatError("There is no such game.")
        await self.db.transact(write)
        seq = -int(self.clock.now().timestamp() * 1000)  # apart from the lines' ids
        self.hub.publish(Notice(game_id, "chat", (), f"{OPEN}|0||{int(is_open)}", seq))
