"""Turns: a player's move (and the chance that follows it), and resigning."""

from __future__ import annotations

from door.games.base import InvalidMoveError
from door.services.games.cache import Loaded
from door.services.games.core import Change, GameCore, Unconfirmed
from door.services.games.lobby import Lobby
from door.services.games.model import GameSnapshot, NotYourTurnError, StaleVersionError
from door.services.games.notices import GameNotices
from door.services.games.seating import Seating
from door.services.safety import clean_message
from door.store.records import JSONObject, NewEvent
from door.store.repository import Repository

MAX_MOVE_TEXT = 200
NOTE_MAX = 200
"""Characters in a note sent with a move (issue 17)."""

RESIGN_LEVELS = ("single", "gammon", "backgammon")
"""What a Backgammon player may offer to lose this game by (1, 2 or 3 times the cube)."""


class Turns:
    """Submit a move; resign a game."""

    def __init__(
        self, core: GameCore, notices: GameNotices, lobby: Lobby, seating: Seating
    ) -> None:
        self.core = core
        self.notices = notices
        self.lobby = lobby
        self.seating = seating

    async def submit(
        self, game_id: int, user_id: int, move_text: str, expected_version: int,
        *, note: str = "",
    ) -> GameSnapshot:
        """Play ``move_text`` for ``user_id``, then draw whatever chance follows; one
        transaction. ``note``: a few words for the opponent, cleaned
        (:func:`~door.services.safety.clean_message`) and kept in the move's event as
        ``note`` — never read by the rules, so replays ignore it. Raises
        StaleVersionError / NotYourTurnError / GameClosedError / the rules' errors
        (nothing is written when anything is refused)."""
        return await self._play(game_id, user_id, move_text, expected_version, note=note)

    async def _play(
        self,
        game_id: int,
        user_id: int,
        move_text: str,
        expected_version: int,
        only_kind: str | None = None,
        *,
        note: str = "",
    ) -> GameSnapshot:
        """``submit``; ``only_kind``: refuse a game of another kind (checked in the
        transaction, after the actor's ban)."""
        if not isinstance(move_text, str) or not move_text.strip():
            raise InvalidMoveError("type a move")
        if len(move_text) > MAX_MOVE_TEXT:
            raise InvalidMoveError("that is far too long to be a move")
        text = move_text.strip()
        note = clean_message(note, NOTE_MAX).strip()
        core = self.core
        now = core.clock.now()
        change = Change(game_id, moved=True, actor=user_id)

        def move(repo: Repository, loaded: Loaded) -> GameSnapshot:
            if only_kind is not None and loaded.game.kind != only_kind:
                raise InvalidMoveError(
                    "this game has no resignation offers; X resigns and leaves it"
                )
            core.check_active(loaded.game)
            if loaded.game.version != expected_version:
                raise StaleVersionError(core.snapshot(loaded, user_id))
            seat = core.seat_to_act(loaded, user_id)
            rules, state = loaded.rules, loaded.state
            parsed = rules.parse_move(state, text)
            payload: JSONObject = {"move": rules.format_move(state, parsed)}
            if note:
                payload["note"] = note
            event = NewEvent(seat, "move", payload)
            after = rules.apply(state, parsed)
            loaded = core.commit(repo, loaded, after, [event], now, change, mover=seat)
            return core.snapshot(loaded, user_id)

        def action(repo: Repository) -> GameSnapshot:
            change.events, change.finished = 0, False  # this try's (a retry starts anew)
            try:
                return move(repo, core.load_at(repo, game_id, expected_version))
            except Unconfirmed:
                # the cached game was not the game any more: nothing was written
                core.cache.forget(game_id)
                change.events, change.finished = 0, False
                return move(repo, core.load(repo, game_id))

        snapshot = await core.act(change, action, viewer=user_id, checked_by_move=True)
        self.notices.after_commit(snapshot, change)
        return snapshot

    async def offer_resignation(
        self, game_id: int, user_id: int, level: str, expected_version: int
    ) -> GameSnapshot:
        """Offer to lose this game (not the match) by ``level`` (``single``, ``gammon`` or
        ``backgammon``); the opponent then accepts or rejects it, and the game waits on
        them. Only a game whose rules know resignation offers (Backgammon) takes one; the
        offer is a move of the rules' notation, so the log, replays and bots see it as any
        other. Raises as :meth:`submit` does."""
        if level not in RESIGN_LEVELS:
            raise InvalidMoveError("offer to resign a single, gammon or backgammon")
        text = f"resign {level}"
        return await self._play(game_id, user_id, text, expected_version, "backgammon")

    async def resign(
        self, game_id: int, user_id: int, expected_version: int | None = None
    ) -> GameSnapshot:
        """Forfeit the whole game (match); in a game not started yet this is ``leave``."""
        core = self.core
        now = core.clock.now()
        change = Change(game_id, moved=True, actor=user_id)

        def action(repo: Repository) -> GameSnapshot | None:
            loaded = core.load(repo, game_id)
            if loaded.game.status == "open":
                return None
            core.check_active(loaded.game)
            if expected_version is not None and loaded.game.version != expected_version:
                raise StaleVersionError(core.snapshot(loaded, user_id))
            mine = [s for s in loaded.seats if s.user_id == user_id and s.kind in ("user", "bot")]
            if not mine:
                raise NotYourTurnError("you are not playing in that game")
            seat = mine[0].seat
            state = loaded.rules.forfeit(loaded.state, seat, "resign")
            event = NewEvent(seat, "system", {"action": "forfeit", "reason": "resign"})
            loaded = core.commit(repo, loaded, state, [event], now, change)
            return core.snapshot(loaded, user_id)

        snapshot = await core.act(change, action, viewer=user_id)
        if snapshot is None:
            await self.seating.leave(game_id, user_id)
            return await self.lobby.get(game_id, user_id)
        self.notices.after_commit(snapshot, change)
        return snapshot
