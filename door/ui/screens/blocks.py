"""Blocked players (Y)our settings → B): the players whose mail, pages, chat and
invitations never reach you (door/services/blocks.py). A)dd one by name, R)emove one by
its number; the blocked player is never told either way."""

from __future__ import annotations

from typing import Literal

from door.services.accounts import AccountError, User
from door.ui.canvas import CYAN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import HEADING_STYLE, Context, Pop, Screen, Transition, clean, draw_chrome
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import LineEditor

TEXT_STYLE = Style(fg=WHITE)
ASK_STYLE = Style(fg=YELLOW, bold=True)
NOTE_STYLE = Style(fg=CYAN)


class BlocksScreen(Screen):
    """The list of players you block, with A)dd and R)emove."""

    title = "door — Blocked players"

    def __init__(self) -> None:
        self.blocked: list[User] = []
        self.phase: Literal["list", "add", "remove"] = "list"
        self.line = LineEditor(max_len=40)

    def where(self) -> str:
        return "in their settings"

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.phase == "add":
            return "The player's name, then Enter · Esc cancels"
        if self.phase == "remove":
            return "The number of the player to unblock · Esc: keep them all"
        return "A)dd a player · R)emove one · Q)uit or Esc: back to your settings"

    async def load(self, ctx: Context) -> None:
        if ctx.user is None:
            return
        found: list[User] = []
        for uid in await ctx.services.blocks.blocked(ctx.user.id):
            try:
                found.append(await ctx.services.accounts.get(uid))
            except AccountError:
                continue  # an account that is gone blocks nothing worth showing
        self.blocked = sorted(found, key=lambda u: u.name.casefold())

    async def on_enter(self, ctx: Context) -> None:
        await self.load(ctx)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if ctx.user is None:
            return Pop()
        if self.phase == "add":
            result = self.line.handle(event)
            if result == "cancel":
                self.phase = "list"
                ctx.status("Nobody added.")
            elif result == "submit":
                await self._add(ctx)
            return None
        letter = event.text[:1].lower() if isinstance(event, Text) else ""
        name = event.name if isinstance(event, Key) else letter
        if self.phase == "remove":
            if name in ("escape", "q"):
                self.phase = "list"
            elif name.isdigit() and 1 <= int(name) <= len(self.blocked):
                gone = self.blocked[int(name) - 1]
                await ctx.services.blocks.unblock(ctx.user.id, gone.id)
                self.phase = "list"
                ctx.status(f"{clean(gone.name, 20)} is no longer blocked.")
                await self.load(ctx)
            return None
        if name in ("escape", "q"):
            return Pop()
        if name == "a":
            self.line = LineEditor(max_len=40)
            self.phase = "add"
        elif name == "r":
            if self.blocked:
                self.phase = "remove"
            else:
                ctx.status("You block nobody.")
        return None

    async def _add(self, ctx: Context) -> None:
        assert ctx.user is not None
        typed = self.line.text.strip()
        if not typed:
            ctx.status("Type a player's name (or Esc).")
            return
        other = await ctx.services.accounts.by_name(typed)
        if other is None or other.is_bot:
            ctx.status(f"There is no player called {clean(typed, 20)!r}.")
            return
        if other.id == ctx.user.id:
            ctx.status("You cannot block yourself.")
            return
        await ctx.services.blocks.block(ctx.user.id, other.id)
        self.phase = "list"
        ctx.status(f"Blocked {clean(other.name, 20)}: nothing of theirs reaches you now.")
        await self.load(ctx)

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        w = canvas.width - 3
        canvas.put(2, 2, clip_text(f"Players you block ({len(self.blocked)})", w), HEADING_STYLE)
        if not self.blocked:
            canvas.put(2, 4, clip_text("Nobody. A)dd a player by name.", w), TEXT_STYLE)
        last = canvas.height - 6
        y = 4
        for i, user in enumerate(self.blocked, 1):
            if y > last:
                break
            canvas.put(2, y, clip_text(f"{i}. {clean(user.name, 40)}", w), TEXT_STYLE)
            y += 1
        y = min(max(y, 5) + 1, last + 1)
        if self.phase == "add":
            ask = "Block: "
            canvas.put(2, y, ask, ASK_STYLE)
            self.line.render(canvas, 2 + len(ask), y, min(40, w - len(ask)))
        elif self.phase == "remove":
            canvas.put(2, y, clip_text("Which player? Press their number.", w), ASK_STYLE)
        else:
            note = "Their mail, pages, chat and invitations never reach you; they are not told."
            canvas.put(2, y, clip_text(note, w), NOTE_STYLE)
