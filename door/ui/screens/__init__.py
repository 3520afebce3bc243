"""The screens, one module each, and the small registry that finds them.

Game screens are imported lazily (``game_screen_for``) so the menus work before, and
without importing, the board renderers.
"""

from __future__ import annotations

import importlib
from typing import Any

from door.games.base import Refusal
from door.ui.screen import Context, Screen

# kind → (module, class); the game screens are built as Screen(game_id, spectator=, replay=).
GAME_SCREENS: dict[str, tuple[str, str]] = {
    "backgammon": ("door.ui.screens.backgammon", "BackgammonScreen"),
    "spectrangle": ("door.ui.screens.spectrangle", "SpectrangleScreen"),
}


def game_screen_for(kind: str) -> Any:
    """The screen class that plays games of ``kind``; a :class:`Refusal` (a message fit to
    show) when there is none or it is not installed yet."""
    try:
        module_name, class_name = GAME_SCREENS[kind]
    except KeyError:
        raise Refusal(f"There is no screen for {kind!r} games.") from None
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise Refusal(f"The {kind} board is not available on this server yet.") from None
    return getattr(module, class_name)


def open_game(kind: str, game_id: int, *, spectator: bool = False, replay: bool = False) -> Screen:
    """A game screen for game ``game_id`` of ``kind``."""
    cls = game_screen_for(kind)
    screen: Screen = cls(game_id, spectator=spectator, replay=replay)
    return screen


async def first_screens(ctx: Context, start: str | None = None) -> list[Screen]:
    """The stack a new session starts with (bottom first): the log-in screen when nobody
    is signed in, else the main menu with ``start``'s screen on top of it."""
    from door.ui.screens.login import LoginScreen
    from door.ui.screens.main import MainMenu

    if ctx.user is None:
        return [LoginScreen(start=start)]
    top = await start_screen(ctx, start)
    return [MainMenu()] + ([top] if top is not None else [])


async def start_screen(ctx: Context, start: str | None) -> Screen | None:
    """The screen named by ``start`` (see ``run_session``), or None for the main menu.
    An unknown name, or a game that cannot be opened, leaves the main menu showing."""
    from door.ui.screens.begin import BeginScreen
    from door.ui.screens.instructions import InstructionsScreen
    from door.ui.screens.lists import GameListScreen, Which, screen_for_game
    from door.ui.screens.rank import RankScreen
    from door.ui.screens.settings import SettingsScreen

    if start is None or start == "main":
        return None
    if start == "play":
        return GameListScreen("waiting")
    lists: dict[str, Which] = {
        "open": "open", "active": "active", "mine": "mine", "finished": "finished",
        "waiting": "waiting", "invitations": "invited",
    }  # fmt: skip
    if start in lists:
        return GameListScreen(lists[start])
    kinds = dict(ctx.services.games.kinds())
    if start in kinds and ctx.user is not None:
        # A door code naming a game (a BBS menu entry "Backgammon"): the games of that
        # kind waiting for you, else those open to join, else begin one.
        games = ctx.services.games
        for which in ("waiting", "open"):
            _, total = await games.list_games(lists[which], ctx.user.id, start, limit=0)
            if total:
                return GameListScreen(lists[which], kind=start)
        return BeginScreen(start)
    if start == "begin":
        return BeginScreen()
    if start == "rank":
        return RankScreen()
    if start == "instructions":
        return InstructionsScreen()
    if start == "settings":
        return SettingsScreen()
    number = start[5:]
    # (ASCII digits only: int() refuses "²" and numbers of thousands of digits)
    if start.startswith("game:") and number.isascii() and number.isdigit() and len(number) <= 100:
        try:
            snapshot = await ctx.services.games.get(
                int(start[5:]), ctx.user.id if ctx.user else None
            )
            return screen_for_game(snapshot.info, ctx)
        except Refusal as exc:
            ctx.status(str(exc))
            return None
    return None
