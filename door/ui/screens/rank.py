"""Rank: the top players of each game, a page at a time, with your own place."""

from __future__ import annotations

from typing import Any

from door.ui.bindings import Binding, KeyedScreen, Keyset, event_of
from door.ui.canvas import CYAN, GREEN, WHITE, Canvas, Style, clip_text
from door.ui.screen import Context, Pop, Transition, clean, draw_chrome
from door.ui.widgets import ListView

TAB_STYLE = Style(fg=WHITE)
TAB_ON = Style(fg=GREEN, bold=True, reverse=True)
YOU_STYLE = Style(fg=GREEN, bold=True)
NOTE_STYLE = Style(fg=CYAN)


class RankScreen(KeyedScreen):
    """One game at a time (digits or ←/→ switch); ↑↓ PgUp PgDn N P page through."""

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
        self.view.page_size = max(ctx.caps.height - 11, 3)
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
    def row(r: Any) -> str:
        from door.services.bgengine import strength_tag

        # A computer level carries its measured strength (errors per 1000 decisions).
        tag = strength_tag(r.name)
        name = f"{clean(r.name, 15)} {tag}" if tag else clean(r.name, 20)
        return (
            f"{r.place:>4}. {name:<20} {r.rating:>8.1f} {r.experience:>6} "
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
        if self.kind is not None:  # what the ratings count (money games do not)
            from door.services.ratings import rank_note

            note = rank_note(self.kind)
            if self.kind == "backgammon":
                note += " ~N: a computer's errors/1000."
            canvas.put(2, y + 1, clip_text(note, canvas.width - 4), NOTE_STYLE)
        if self.mine is not None:
            text = f"You: {self.row(self.mine).strip()}"
            canvas.put(2, y, clip_text(text, canvas.width - 4), YOU_STYLE)
        elif ctx.user is not None:
            canvas.put(2, y, "You are not ranked in this game yet: finish a game to be.",
                       NOTE_STYLE)  # fmt: skip
