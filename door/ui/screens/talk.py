"""Talk on a game's screen (issue 17): the one-line prompt for a note with a move, a
chat line or a kibitz line, typed over the board (which stays, and keeps its notices)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from door.ui.bindings import Binding, Keyset
from door.ui.canvas import Canvas, clip_text
from door.ui.screen import Context, Pop, Transition
from door.ui.screens.overlays import HINT_STYLE, PROMPT_STYLE, Cover, Overlay
from door.ui.terminal import InputEvent, Resize
from door.ui.widgets import LineEditor

if TYPE_CHECKING:
    from door.ui.boards.common import GameScreenBase

Said = Callable[[Context, str], Awaitable[bool]]
"""Takes the typed line; True closes the prompt (False keeps it, to be fixed)."""


class TalkPrompt(Overlay):
    """One line typed under the board: Enter hands it to ``said``, Esc closes it."""

    cover = Cover.TYPE

    def __init__(
        self, under: GameScreenBase, prompt: str, hint: str, said: Said, *,
        max_len: int = 200, text: str = "",
    ) -> None:  # fmt: skip
        super().__init__(under)
        self.prompt = prompt
        self.hint = hint
        self.said = said
        self.editor = LineEditor(text, max_len=max_len)

    def draw_over(self, canvas: Canvas, ctx: Context) -> None:
        y = self.under.prompt_row(canvas)
        x = canvas.put(1, y, self.prompt, PROMPT_STYLE)
        self.editor.render(canvas, x, y, max(min(canvas.width, ctx.caps.width) - x - 1, 1))
        canvas.put(1, y + 1, clip_text(self.hint, canvas.width - 2), HINT_STYLE)

    async def submit(self, ctx: Context, _key: str) -> Transition | None:
        return Pop() if await self.said(ctx, self.editor.text) else None

    def cancel(self, ctx: Context, _key: str) -> Transition | None:
        return Pop()

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        """Typing goes to the line; its Enter and Esc go to the table."""
        if isinstance(event, Resize):
            return None
        if self.editor.handle(event) in ("submit", "cancel"):
            return await self.keys.dispatch(self, ctx, event)
        return None

    # fmt: off
    keys = Keyset(
        [
            Binding(("enter",), "Enter done", "Enter: done", submit),
            Binding(("escape",), "Esc back", "Esc: back to the board", cancel),
        ]
    )
    # fmt: on
