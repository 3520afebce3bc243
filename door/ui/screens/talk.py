"""Talk on a game's screen (issue 17): the one-line prompt for a note with a move, a
chat line or a kibitz line, typed over the board (which stays, and keeps its notices)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from door.services.chat import CHAT_MAX, OPEN, ChatError, ChatLine, line_from_notice, visible
from door.ui.bindings import Binding, Keyset
from door.ui.canvas import Canvas, clip_text
from door.ui.screen import Context, Pop, Push, Replace, Screen, Transition
from door.ui.screens.overlays import HINT_STYLE, PROMPT_STYLE, Cover, Overlay
from door.ui.terminal import InputEvent, Resize
from door.ui.widgets import LineEditor

if TYPE_CHECKING:
    from door.services.notify import Notice
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
        self.after: Screen | None = None
        """What the board opened while the line was typed (the opponent's move played
        on it): shown once the line is said or put away, not over the typing."""

    def draw_over(self, canvas: Canvas, ctx: Context) -> None:
        y = self.under.prompt_row(canvas)
        x = canvas.put(1, y, self.prompt, PROMPT_STYLE)
        self.editor.render(canvas, x, y, max(min(canvas.width, ctx.caps.width) - x - 1, 1))
        canvas.put(1, y + 1, clip_text(self.hint, canvas.width - 2), HINT_STYLE)

    async def submit(self, ctx: Context, _key: str) -> Transition | None:
        return self.close_line() if await self.said(ctx, self.editor.text) else None

    def cancel(self, ctx: Context, _key: str) -> Transition | None:
        return self.close_line()

    def close_line(self) -> Transition:
        """Back to the board, or on to what it opened meanwhile."""
        return Pop() if self.after is None else Replace(self.after)

    async def on_notice(self, notice: Notice, ctx: Context) -> Transition | None:
        """The board under hears every notice; a screen it opens (a move arriving, played
        on the board) waits for the line, which keeps the keys: else the rest of the line
        would go to that screen, then to the board as keys, and the line would be lost."""
        transition = await self.under.on_notice(notice, ctx)
        if isinstance(transition, Push):
            self.after = transition.screen
            return None
        return transition

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


class GameTalk:
    """A game screen's chat and kibitz: the lines it has, what its viewer may see, the
    C and K keys' work. The screen hands it its ``chat`` notices."""

    def __init__(self, screen: GameScreenBase) -> None:
        self.screen = screen
        self.lines: list[ChatLine] = []
        self.kibitz_open = False
        self.blocked: frozenset[int] = frozenset()

    @property
    def is_player(self) -> bool:
        return self.screen.my_seat is not None

    def shows(self, line: ChatLine) -> bool:
        return visible(line, is_player=self.is_player, kibitz_open=self.kibitz_open,
                       blocked=self.blocked)  # fmt: skip

    @staticmethod
    def text_of(line: ChatLine) -> str:
        where = "Kibitz" if line.channel == "kibitz" else "Chat"
        return f"{where} {line.name}: {line.text}"

    async def load(self, ctx: Context) -> None:
        """On opening: the last lines this viewer may see (the newest on the status line,
        unless the screen has news to tell there)."""
        lines, self.kibitz_open = await ctx.services.chat.recent(self.screen.game_id)
        if ctx.user is not None:
            self.blocked = await ctx.services.blocks.blocked(ctx.user.id)
        self.lines = [x for x in lines if self.shows(x)]
        if self.lines and not self.screen.notice_line:
            ctx.status(self.text_of(self.lines[-1]))

    def on_notice(self, notice: Notice, ctx: Context) -> None:
        """A ``chat`` notice: a line (shown if this viewer may see it), or kibitz opened."""
        line = line_from_notice(notice)
        if line is None:
            return
        if line.channel == OPEN:
            self.kibitz_open = line.text == "1"
            if self.is_player:
                ctx.status("Kibitz is open to the players." if self.kibitz_open
                           else "Kibitz is for the spectators again.")  # fmt: skip
            return
        if not self.shows(line) or any(x.id == line.id for x in self.lines[-50:]):
            return
        self.lines = [*self.lines[-49:], line]
        ctx.status(self.text_of(line))

    def write(self, ctx: Context, _key: str = "") -> Transition | None:
        """C: a line of chat (a player) or kibitz (a spectator)."""
        if ctx.user is None:
            return None
        user_id = ctx.user.id

        async def say(ctx: Context, text: str) -> bool:
            if not text.strip():
                return True
            try:
                await ctx.services.chat.say(self.screen.game_id, user_id, text)
            except ChatError as exc:
                ctx.status(str(exc))
                return False
            return True

        prompt = "Chat: " if self.is_player else "Kibitz: "
        last = self.text_of(self.lines[-1]) if self.lines else "Enter: say it  Esc: back"
        return Push(TalkPrompt(self.screen, prompt, last, say, max_len=CHAT_MAX))

    async def toggle_kibitz(self, ctx: Context, _key: str = "") -> None:
        """K (a player): open kibitz to the players, or close it again."""
        if ctx.user is None or not self.is_player:
            return
        try:
            await ctx.services.chat.open_kibitz(self.screen.game_id, ctx.user.id,
                                                not self.kibitz_open)  # fmt: skip
        except ChatError as exc:
            ctx.status(str(exc))
