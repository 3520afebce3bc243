"""The "Log off? Y/N" question G)oodbye asks over the menu (on every transport)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from door.ui.bindings import Binding, Keyset
from door.ui.canvas import Canvas
from door.ui.screen import (
    Context,
    Pop,
    Quit,
    Screen,
    Transition,
    draw_help,
    draw_status,
)
from door.ui.terminal import InputEvent, Resize

if TYPE_CHECKING:
    from door.services.notify import Notice


class LogOffQuestion(Screen):
    """Drawn over ``under`` (the menu stays in view): Y or Enter logs off with
    ``goodbye``; N or Esc goes back. Notices pass to the screen under it."""

    question = "Log off? (Y/N)"

    def __init__(self, under: Screen, goodbye: str) -> None:
        self.under = under
        self.title = under.title
        self.goodbye = goodbye

    def render(self, canvas: Canvas, ctx: Context) -> None:
        self.under.render(canvas, ctx)
        canvas.forget_clicks()  # the menu under the question is not to be chosen now
        # The question is this frame's status line and its keys are the key help, made the
        # frame's chrome: a terminal smaller than the layout draws the status and the help
        # again at its own size from these (fit_view), and would show the menu's instead.
        key_help = self.keys.key_help(self)
        ctx.chrome = (self.title, key_help)
        ctx.message = self.question  # until the next key, which answers it or asks again
        rows = draw_help(canvas, ctx, key_help)
        y = canvas.height - 1 - rows
        canvas.fill(0, y, canvas.width, 1, " ")
        draw_status(canvas, ctx, rows)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if isinstance(event, Resize):
            return None
        return await self.keys.dispatch(self, ctx, event)

    async def on_notice(self, notice: Notice, ctx: Context) -> Transition | None:
        await self.under.on_notice(notice, ctx)
        return None

    def yes(self, ctx: Context, _key: str) -> Transition:
        return Quit(self.goodbye)

    def no(self, ctx: Context, _key: str) -> Transition:
        return Pop()

    keys: Keyset[LogOffQuestion] = Keyset(
        [
            Binding(("y", "enter"), "Y)es, log off", "Y or Enter: log off", yes),
            Binding(("n", "escape", "q"), "N)o, stay", "N, Esc or Q: back to the menu", no),
        ],
        fallback=lambda s, ctx, key: None,
    )
