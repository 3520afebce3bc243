"""Rank: the top players of each game, a page at a time, with your own place."""

from __future__ import annotations

from typing import Any

from door.ui.canvas import CYAN, GREEN, WHITE, Canvas, Style, clip_text
from door.ui.screen import Context, Pop, Screen, Transition, clean, draw_chrome
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import ListView

TAB_STYLE = Style(fg=WHITE)
TAB_ON = Style(fg=GREEN, bold=True, reverse=True)
YOU_STYLE = Style(fg=GREEN, bold=True)
NOTE_STYLE = Style(fg=CYAN)


class RankScreen(Screen):
    """One game at a time (digits or ←/→ switch); ↑↓ PgUp PgDn N P page through."""

    key_help = "1 2: which game · Left/Right: next game · N)ext P)rev page · Q)uit to the menu"

    def __init__(self, kind: str | None = None) -> None:
        self.kind = kind
        self.kinds: list[tuple[str, str]] = []
        self.view: ListView[Any] = ListView(page_size=12)
        self.mine: Any = None

    @property
    def title(self) -> str:  # type: ignore[override]
        names = dict(self.kinds)
        return f"door — Top players: {names.get(self.kind or '', '')}".rstrip(": ")

    async def load(self, ctx: Context, offset: int = 0) -> None:
        if self.kind is None:
            return
        self.view.page_size = max(ctx.caps.height, 24) - 11
        ratings = ctx.services.ratings
        rows = await ratings.rank(self.kind, offset=offset, limit=self.view.page_size + 1)
        # One extra row tells us whether another page exists (the service gives no total).
        more = len(rows) > self.view.page_size
        rows = rows[: self.view.page_size]
        total = offset + len(rows) + (1 if more else 0)
        self.view.set_page(rows, total, offset)
        self.mine = await ratings.place_of(ctx.user.id, self.kind) if ctx.user is not None else None

    async def on_enter(self, ctx: Context) -> None:
        self.kinds = ctx.services.games.kinds()
        if self.kind is None and self.kinds:
            self.kind = self.kinds[0][0]
        await self.load(ctx)

    async def switch(self, index: int, ctx: Context) -> None:
        if not self.kinds:
            return
        self.kind = self.kinds[index % len(self.kinds)][0]
        self.view.selected = 0
        await self.load(ctx)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        kinds = [k for k, _ in self.kinds]
        current = kinds.index(self.kind) if self.kind in kinds else 0
        if isinstance(event, Key):
            if event.name == "escape":
                return Pop()
            if event.name in ("left", "right"):
                await self.switch(current + (1 if event.name == "right" else -1), ctx)
                return None
        if isinstance(event, Text):
            ch = event.text[:1].lower()
            if ch == "q":
                return Pop()
            if ch.isdigit() and 1 <= int(ch) <= len(kinds):
                await self.switch(int(ch) - 1, ctx)
                return None
        action = self.view.handle(event)
        if action is not None and action.kind == "page":
            await self.load(ctx, action.offset)
        return None

    @staticmethod
    def row(r: Any) -> str:
        return (
            f"{r.place:>4}. {clean(r.name, 20):<20} {r.rating:>8.1f} {r.experience:>6} "
            f"{r.wins:>5} {r.losses:>6}"
        )

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        x = 1
        for i, (kind, title) in enumerate(self.kinds, 1):
            style = TAB_ON if kind == self.kind else TAB_STYLE
            x = canvas.put(x, 2, f" {i}) {clean(title)} ", style) + 1
        header = f"{'Place':>5} {'Player':<20} {'Rating':>8} {'Games':>6} {'Wins':>5} {'Losses':>6}"
        self.view.render(canvas, 1, 4, canvas.width - 2, header, self.row,
                         "Nobody has finished a game of this kind yet.")  # fmt: skip
        y = canvas.height - 4
        if self.mine is not None:
            text = f"You: {self.row(self.mine).strip()}"
            canvas.put(2, y, clip_text(text, canvas.width - 4), YOU_STYLE)
        elif ctx.user is not None:
            canvas.put(2, y, "You are not ranked in this game yet: finish a game to be.",
                       NOTE_STYLE)  # fmt: skip
