"""The main menu, after the UltraSoft Backgammon door's: V)iew/join, P)lay, B)egin,
S)ound, I)nstructions, R)ank, Y)our settings and G)oodbye, under a summary of what
happened since the player last looked."""

from __future__ import annotations

from typing import Any

from door.ui.canvas import CYAN, GREEN, WHITE, Canvas, Style, clip_text
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Push,
    Screen,
    Transition,
    clean,
    draw_chrome,
)
from door.ui.terminal import InputEvent
from door.ui.widgets import Menu, MenuItem

SUMMARY_STYLE = Style(fg=WHITE)
GAME_STYLE = Style(fg=CYAN)
WELCOME_STYLE = Style(fg=GREEN, bold=True)


def plural(n: int, word: str, words: str | None = None) -> str:
    """``"1 game"``, ``"3 games"``."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


class MainMenu(Screen):
    """The hub of the door. Reloads its counts whenever it shows again."""

    title = "door — Main Menu"
    key_help = "Press a letter, or arrows and Enter · Ctrl-L redraws · G)oodbye logs off"

    def __init__(self) -> None:
        self.menu = Menu(self._items(0, 0, True))
        self.waiting_total = 0
        self.open_total = 0
        self.summary: Any = None
        self.waiting: list[Any] = []

    def _items(self, waiting: int, open_games: int, sound: bool) -> list[MenuItem]:
        """The menu: each item's action is what its key does (``action(self, ctx)``)."""
        return [
            MenuItem("V", "View games in progress, or join one that needs a player",
                     MainMenu.view_games, note=f"{open_games} open" if open_games else ""),
            MenuItem("P", "Play a game where it is your turn", MainMenu.play,
                     note=f"({waiting})"),
            MenuItem("B", "Begin a new game", MainMenu.begin),
            MenuItem("S", f"Sound effects: {'ON' if sound else 'OFF'}", MainMenu.sound),
            MenuItem("I", "Instructions: using door, and the rules of each game",
                     MainMenu.instructions),
            MenuItem("R", "Rank the top players", MainMenu.rank),
            MenuItem("Y", "Your settings: charset, colour, password", MainMenu.settings),
            MenuItem("G", "Goodbye", MainMenu.goodbye),
        ]  # fmt: skip

    async def reload(self, ctx: Context) -> None:
        if ctx.user is None:
            return
        games = ctx.services.games
        uid = ctx.user.id
        self.summary = await games.since_last_visit(uid)
        page, self.waiting_total = await games.list_games("waiting", uid, limit=5)
        self.waiting = list(page)
        _, self.open_total = await games.list_games("open", uid, limit=1)
        selected = self.menu.selected
        self.menu = Menu(self._items(self.waiting_total, self.open_total, ctx.sound), selected)

    async def on_enter(self, ctx: Context) -> None:
        await self.reload(ctx)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        await self.reload(ctx)
        return None

    async def on_notice(self, notice: Any, ctx: Context) -> Transition | None:
        await self.reload(ctx)
        if notice.kind == "your_turn":
            ctx.status(clean(notice.text) or f"Your turn in game #{notice.game_id}.")
        return None

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        item = self.menu.handle(event)
        if item is None:
            return None
        result: Transition | None = await item.action(self, ctx)
        return result

    # --- what the items do -------------------------------------------------------------
    async def view_games(self, ctx: Context) -> Transition | None:
        from door.ui.screens.lists import GameListScreen

        return Push(GameListScreen("open" if self.open_total else "active"))

    async def play(self, ctx: Context) -> Transition | None:
        from door.ui.screens.lists import GameListScreen, screen_for_game

        if self.waiting_total == 1 and self.waiting:
            return Push(screen_for_game(self.waiting[0], ctx))
        if self.waiting_total == 0:
            ctx.status("No game is waiting for your move. B)egin one, or V)iew to join one.")
            return None
        return Push(GameListScreen("waiting"))

    async def begin(self, ctx: Context) -> Transition | None:
        from door.ui.screens.begin import BeginScreen

        return Push(BeginScreen())

    async def sound(self, ctx: Context) -> Transition | None:
        await toggle_sound(ctx)
        await self.reload(ctx)
        return None

    async def instructions(self, ctx: Context) -> Transition | None:
        from door.ui.screens.instructions import InstructionsScreen

        return Push(InstructionsScreen())

    async def rank(self, ctx: Context) -> Transition | None:
        from door.ui.screens.rank import RankScreen

        return Push(RankScreen())

    async def settings(self, ctx: Context) -> Transition | None:
        from door.ui.screens.settings import SettingsScreen

        return Push(SettingsScreen())

    async def goodbye(self, ctx: Context) -> Transition | None:
        from door.ui.screens.logoff import LogOffQuestion

        name = clean(ctx.user.name) if ctx.user else "friend"
        return Push(LogOffQuestion(self, f"Goodbye, {name}. Your games will wait for you.\r\n"))

    # --- drawing ---------------------------------------------------------------------
    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        width = canvas.width
        y = 2
        name = clean(ctx.user.name, 20) if ctx.user else ""
        x = canvas.put(2, y, f"Welcome, {name}!", WELCOME_STYLE)
        last = self.last_visit_text(ctx)
        if last:
            canvas.put(x + 1, y, last, SUMMARY_STYLE)
        y += 1
        for line in self.summary_lines():
            canvas.put(4, y, clip_text(line, width - 6), SUMMARY_STYLE)
            y += 1
        for info in self.waiting[:3]:
            text = f"{ctx.glyphs.bullet} #{info.id} {clean(info.title)}: {clean(info.summary)}"
            canvas.put(6, y, clip_text(text, width - 8), GAME_STYLE)
            y += 1
        y += 1
        canvas.put(2, y, "Main Menu", HEADING_STYLE)
        y += 1
        self.menu.render(canvas, 2, y, min(width - 4, 74))

    def last_visit_text(self, ctx: Context) -> str:
        """ "Your last visit was 3d ago." (nothing for a first visit)."""
        from door.ui.screens.lists import short_span

        last = ctx.previous_login
        if last is None and ctx.user is not None:
            last = ctx.user.last_login_at
        if last is None:
            return ""
        span = ctx.services.clock.now() - last
        if span.total_seconds() < 60:
            return ""
        return f"Your last visit was {short_span(span)} ago."

    def summary_lines(self) -> list[str]:
        s = self.summary
        if s is None:
            return ["Since your last visit: (loading)"]
        finished = list(getattr(s, "finished", []))
        waiting = self.waiting_total
        moves = int(getattr(s, "moves_against_you", 0))
        if not moves and not finished and not waiting:
            return ["Since your last visit: nothing new. Why not B)egin a game?"]
        parts = []
        if moves:
            parts.append(f"{plural(moves, 'move')} made against you")
        if finished:
            parts.append(f"{plural(len(finished), 'game')} finished")
        if waiting:
            parts.append(f"{plural(waiting, 'game')} waiting for your move")
        lines = ["Since your last visit: " + " · ".join(parts) + "."]
        for info in finished[:2]:
            outcome = getattr(info, "outcome", None)
            detail = clean(getattr(outcome, "detail", "") or "") if outcome else ""
            lines.append(f"  Finished: #{info.id} {clean(info.title)} {detail}".rstrip())
        return lines


async def toggle_sound(ctx: Context) -> None:
    """Flip the user's sound setting, remember it, and say so."""
    if ctx.user is None:
        return
    user = await ctx.services.accounts.update_settings(ctx.user.id, sound=not ctx.sound)
    ctx.set_user(user)
    ctx.status(f"Sound effects are {'ON' if user.settings.sound else 'OFF'}.")
