"""Rank: the top players of each game, a page at a time, with your own place."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from door.ui.bindings import Binding, KeyedScreen, Keyset, event_of
from door.ui.canvas import CYAN, GREEN, WHITE, Canvas, Style, clip_text
from door.ui.screen import Context, Pop, Transition, clean, draw_chrome, help_layout
from door.ui.widgets import ListView

if TYPE_CHECKING:
    from door.services.ratings import RankRow

TAB_STYLE = Style(fg=WHITE)
TAB_ON = Style(fg=GREEN, bold=True, reverse=True)
YOU_STYLE = Style(fg=GREEN, bold=True)
NOTE_STYLE = Style(fg=CYAN)


RANK_COLUMNS = (8, 6, 5, 6)
"""The widths of Rating, Games, Wins and Losses."""
RANK_WIDTH = 55
"""A rank row with every column."""

class RankScreen(KeyedScreen):
    """One game at a time (digits or ←/→ switch); ↑↓ PgUp PgDn N P page through."""

    def __init__(self, kind: str | None = None) -> None:
        self.kind = kind
        self.kinds: list[tuple[str, str]] = []
        self.view: ListView[RankRow] = ListView(page_size=12)
        self.mine: RankRow | None = None

    @property
    def title(self) -> str:  # type: ignore[override]
        names = dict(self.kinds)
        return f"door — Top players: {names.get(self.kind or '', '')}".rstrip(": ")

    def notes(self, width: int) -> list[str]:
        """What the ratings of this kind count (money games do not), in ``width``."""
        if self.kind is None:
            return []
        from door.services.ratings import rank_note

        note = rank_note(self.kind)
        if self.kind == "backgammon":
            note += " ~N: a computer's errors/1000."
        return textwrap.wrap(note, max(width - 2, 10))

    async def load(self, ctx: Context, offset: int = 0) -> None:
        if self.kind is None:
            return
        # Title, tabs, header, footer, the You line, the notes, status, key help: the
        # rest is the page, so the You line and the notes stay in sight at any height.
        width = ctx.caps.width - 2
        key_rows = len(help_layout(ctx, self.key_help, ctx.caps.width))
        below = 10 + len(self.notes(width)) + key_rows
        self.view.page_size = max(ctx.caps.height - below, 1)
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

    # --- what the keys do (the key table's handlers) ---------------------------------
    def _current(self) -> int:
        kinds = [k for k, _ in self.kinds]
        return kinds.index(self.kind) if self.kind in kinds else 0

    async def pick_kind(self, ctx: Context, key: str) -> None:
        if int(key) <= len(self.kinds):
            await self.switch(int(key) - 1, ctx)

    async def next_kind(self, ctx: Context, key: str) -> None:
        await self.switch(self._current() + (1 if key == "right" else -1), ctx)

    def back(self, ctx: Context, key: str) -> Transition:
        return Pop()

    async def on_list_key(self, ctx: Context, key: str) -> None:
        """Keys of the list itself (the bar and its pages)."""
        action = self.view.handle(event_of(key))
        if action is not None and action.kind == "page":
            await self.load(ctx, action.offset)

    # fmt: off
    keys = Keyset(
        [
            Binding(tuple("123456789"), "1 2: which game", "1 2 ...: which game", pick_kind),
            Binding(("left", "right"), "Left/Right: next game", "Left/Right: the next game",
                    next_kind),
            Binding((), "N)ext P)rev page", ""),
            Binding(("q", "escape"), "Q)uit to the menu", "Q or Esc: back to the menu", back),
        ],
        fallback=on_list_key,
        sep=" · ",
        roomy=False,
    )
    # fmt: on

    @staticmethod
    def row(r: RankRow, width: int = RANK_WIDTH) -> str:
        """A player's row in ``width`` columns: the columns after Rating that do not fit
        whole are left out (never one cut in the middle)."""
        from door.services.bgengine import strength_tag

        # A computer level carries its measured strength (errors per 1000 decisions).
        tag = strength_tag(r.name)
        name = f"{clean(r.name, 15)} {tag}" if tag else clean(r.name, 20)
        text = f"{r.place:>4}. {name:<20} {r.rating:>8.1f}"
        for value, size in zip((r.experience, r.wins, r.losses), RANK_COLUMNS[1:], strict=True):
            if len(text) + 1 + size > width:
                break
            text += f" {value:>{size}}"
        return text

    @staticmethod
    def header(width: int = RANK_WIDTH) -> str:
        """The column heads for :meth:`row` at ``width``."""
        text = f"{'Place':>5} {'Player':<20} {'Rating':>8}"
        for head, size in zip(("Games", "Wins", "Losses"), RANK_COLUMNS[1:], strict=True):
            if len(text) + 1 + size > width:
                break
            text += f" {head:>{size}}"
        return text

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        x = 1
        for i, (kind, title) in enumerate(self.kinds, 1):
            style = TAB_ON if kind == self.kind else TAB_STYLE
            x = canvas.put(x, 2, f" {i}) {clean(title)} ", style) + 1
        width = min(canvas.width, ctx.caps.width) - 2  # what the terminal shows
        empty = "Nobody has finished a game of this kind yet."
        if len(empty) > width - 1:
            empty = "No finished games of this kind."
        self.view.render(canvas, 1, 4, width, self.header(width), lambda r: self.row(r, width),
                         empty)  # fmt: skip
        y = 4 + 3 + self.view.page_size  # under the list's footer
        for i, line in enumerate(self.notes(width)):  # what the ratings count
            canvas.put(2, y + 1 + i, line, NOTE_STYLE)
        if self.mine is not None:
            text = f"You: {self.row(self.mine, width - 7).strip()}"
            canvas.put(2, y, clip_text(text, width - 2), YOU_STYLE)
        elif ctx.user is not None:
            text = "You are not ranked in this game yet: finish a game to be."
            if len(text) > width - 2:
                text = "Not ranked yet: finish a game."
            canvas.put(2, y, clip_text(text, width - 2), NOTE_STYLE)
