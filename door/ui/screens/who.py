"""W)ho: the players signed in now, how they came, where they are and how long they have
been idle; P)age one of them. :class:`PagePrompt` is the one-line prompt a page is
written in, drawn on the status line over whatever screen is showing (the screen under
it is drawn as it was, and goes on hearing its notices)."""

from __future__ import annotations

from typing import Any

from door.services.presence import PAGE_MAX, PageError, WhoLine, idle_text
from door.ui.canvas import CYAN, GREEN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Pop,
    Push,
    Screen,
    Transition,
    clean,
    draw_chrome,
    help_layout,
)
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import LineEditor, fit_phrases

ROW_STYLE = Style(fg=WHITE)
YOU_STYLE = Style(fg=GREEN, bold=True)
SELECTED_STYLE = Style(fg=GREEN, bold=True, reverse=True)
PROMPT_STYLE = Style(fg=YELLOW, bold=True)
HEAD_STYLE = Style(fg=CYAN)


class WhoScreen(Screen):
    """Everyone online on this process, by name."""

    title = "door — Who is online"
    key_help = "Up/Down: choose · P)age · M)ail · U)pdate · Q)uit or Esc: back"

    def __init__(self) -> None:
        self.lines: list[WhoLine] = []
        self.selected = 0

    def where(self) -> str:
        return "looking at who is online"

    async def load(self, ctx: Context) -> None:
        self.lines = await ctx.services.presence.who_everywhere()
        self.selected = min(self.selected, max(len(self.lines) - 1, 0))

    async def on_enter(self, ctx: Context) -> None:
        await self.load(ctx)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        await self.load(ctx)
        return None

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        letter = event.text.strip()[:1].lower() if isinstance(event, Text) else ""
        if letter == "q" or (isinstance(event, Key) and event.name == "escape"):
            return Pop()
        await self.load(ctx)
        if isinstance(event, Key) and event.name in ("up", "down"):
            step = -1 if event.name == "up" else 1
            self.selected = min(max(self.selected + step, 0), max(len(self.lines) - 1, 0))
            return None
        chosen = self.lines[self.selected] if self.lines else None
        if chosen is None:
            return None
        if letter == "p":
            if ctx.user is not None and chosen.user_id == ctx.user.id:
                ctx.status("That is you.")
                return None
            return Push(PagePrompt(self, chosen.user_id, chosen.name))
        if letter == "m":
            from door.ui.screens.mail import ComposeScreen

            return Push(ComposeScreen(chosen.name))
        return None

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        canvas.put(2, 2, f"{len(self.lines)} online", HEADING_STYLE)
        width = min(canvas.width, ctx.caps.width)  # what the terminal shows
        where_room = width - 3 - 39  # after the name, transport and idle columns (at x=2)
        head = f"  {'Name':<20} {'Via':<8} {'Idle':>5}"
        canvas.put(2, 4, head + ("  Where" if where_room >= 8 else ""), HEAD_STYLE)
        me = ctx.user.id if ctx.user is not None else None
        room = max(canvas.height - 9, 1)
        top = max(self.selected - room + 1, 0)
        for y, i in enumerate(range(top, min(top + room, len(self.lines))), 5):
            w = self.lines[i]
            text = (f"  {clean(w.name, 20):<20} {clean(w.transport, 8):<8} "
                    f"{idle_text(w.idle_s):>5}")  # fmt: skip
            if where_room >= 8:  # a narrow screen drops the column, not half of it
                text += f"  {fit_phrases(clean(w.where), where_room)}"
            style = SELECTED_STYLE if i == self.selected else (
                YOU_STYLE if w.user_id == me else ROW_STYLE)
            canvas.put(2, y, clip_text(text, width - 3), style)


class PagePrompt(Screen):
    """A one-line page to ``recipient_id``, typed on the status line over ``under``."""

    def __init__(self, under: Screen, recipient_id: int, name: str = "") -> None:
        self.under = under
        self.recipient_id = recipient_id
        self.name = name
        self.editor = LineEditor(max_len=PAGE_MAX)
        self.title = under.title

    @property
    def watch_game(self) -> int | None:
        """The screen under it keeps its game's notices coming."""
        watched = getattr(self.under, "watch_game", None)
        return watched if isinstance(watched, int) else None

    def where(self) -> str:
        from door.services.presence import where_of

        return where_of(self.under)

    async def on_enter(self, ctx: Context) -> None:
        if not self.name:
            try:
                self.name = (await ctx.services.accounts.get(self.recipient_id)).name
            except Exception:  # a gone account: the page will say so when sent
                self.name = "?"

    async def on_notice(self, notice: Any, ctx: Context) -> Transition | None:
        await self.under.on_notice(notice, ctx)  # its picture stays current under the line
        return None

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        result = self.editor.handle(event)
        if result == "cancel":
            ctx.status("No page sent.")
            return Pop()
        if result != "submit" or ctx.user is None:
            return None
        try:
            await ctx.services.presence.page(ctx.user.id, ctx.user.name, self.recipient_id,
                                       self.editor.text)  # fmt: skip
        except PageError as exc:
            ctx.status(str(exc))
            return None
        ctx.status(f"Paged {clean(self.name, 20)}.")
        return Pop()

    def render(self, canvas: Canvas, ctx: Context) -> None:
        self.under.render(canvas, ctx)
        key_help = ctx.chrome[1] if ctx.chrome else ""
        y = canvas.height - 1 - len(help_layout(ctx, key_help, canvas.width))
        label = f"Page {clean(self.name, 20)} (Enter sends, Esc cancels): "
        canvas.fill(0, y, canvas.width, 1, " ")
        x = canvas.put(1, y, clip_text(label, canvas.width // 2), PROMPT_STYLE)
        self.editor.render(canvas, x, y, max(canvas.width - x - 1, 1))
