"""Talk on a game's screen (issue 17): the one-line prompt for a note with a move, a
chat line or a kibitz line, typed over the board (which stays, and keeps its notices);
and ``!``, which lists the game's last lines and notes by number and reports the chosen
one to the sysop (:class:`ReportPicker`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from door.services.chat import CHAT_MAX, OPEN, ChatError, ChatLine, line_from_notice, visible
from door.ui.bindings import Binding, Keyset
from door.ui.boards.common import HELP_BOX_STYLE, HELP_TEXT_STYLE
from door.ui.canvas import Canvas, clip_text
from door.ui.screen import Context, Push, Transition, clean
from door.ui.screens.overlays import HINT_STYLE, PROMPT_STYLE, Cover, Overlay
from door.ui.terminal import InputEvent, Resize
from door.ui.widgets import LineEditor

if TYPE_CHECKING:
    from door.services.notify import Notice
    from door.ui.boards.common import GameScreenBase

Said = Callable[[Context, str], Awaitable[bool]]
"""Takes the typed line; True closes the prompt (False keeps it, to be fixed)."""

REPORT_ROWS = 9
"""Lines and notes ``!`` lists (one digit picks one)."""
NOTES_LISTED = 3
"""Of them, at most this many notes sent with the other players' moves."""


@dataclass(frozen=True)
class Reportable:
    """A line or a note as ``!`` lists it, and what a report of it records."""

    channel: str
    """``chat``, ``kibitz`` or ``note`` (the reports' channel)."""
    author_id: int | None
    shown: str
    """As the list shows it: ``Chat Bob: …``, ``Note Bob (13/7 8/7): …``."""
    item: int | None
    """The chat line's id, or the move's event number."""
    copy: str
    """What the report keeps: ``Backgammon #12: <the line>``, or for a note
    ``Backgammon #12, with 13/7 8/7: <the note>``."""


class TalkPrompt(Overlay):
    """One line typed under the board: Enter hands it to ``said``, Esc closes it."""

    cover = Cover.TYPE

    def __init__(
        self, under: GameScreenBase, prompt: str, hint: str | Callable[[], str], said: Said, *,
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
        hint = self.hint if isinstance(self.hint, str) else self.hint()
        canvas.put(1, y + 1, clip_text(hint, canvas.width - 2), HINT_STYLE)

    async def submit(self, ctx: Context, _key: str) -> Transition | None:
        """Said: back to the board, or on to what it opened meanwhile (the opponent's move
        played on it waits for the line: :attr:`Overlay.after`)."""
        return self.closed() if await self.said(ctx, self.editor.text) else None

    def cancel(self, ctx: Context, _key: str) -> Transition | None:
        return self.closed()

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


class ReportPicker(TalkPrompt):
    """``!`` on a game's screen: its last lines and notes, numbered in a box over the
    board; the number typed and Enter report that one to the sysop (a copy of its text,
    who wrote it, the game)."""

    def __init__(self, under: GameScreenBase, items: list[Reportable]) -> None:
        self.items = items
        super().__init__(under, "Report which (number)? ",
                         "Enter: report it to the sysop  Esc: back", self.report,
                         max_len=2)  # fmt: skip

    def draw_over(self, canvas: Canvas, ctx: Context) -> None:
        rows = [f"{i}  {clean(item.shown)}" for i, item in enumerate(self.items, 1)]
        top, bottom = 2, self.under.prompt_row(canvas) - 1
        h = min(len(rows) + 2, max(bottom - top, 3))
        w = min(max(len(r) for r in rows) + 4, canvas.width - 2)
        x = max((canvas.width - w) // 2, 0)
        canvas.fill(x, top, w, h, " ", HELP_TEXT_STYLE)
        canvas.box(x, top, w, h, HELP_BOX_STYLE, double=True)
        canvas.put(x + 2, top, " Report to the sysop ", HELP_BOX_STYLE)
        for i, row in enumerate(rows[-(h - 2):]):
            canvas.put(x + 2, top + 1 + i, clip_text(row, w - 4), HELP_TEXT_STYLE)
        super().draw_over(canvas, ctx)

    async def report(self, ctx: Context, text: str) -> bool:
        if not text.strip():
            return True
        number = int(text) if text.strip().isdigit() else 0
        if not 1 <= number <= len(self.items) or ctx.user is None:
            ctx.status(f"Type a number from 1 to {len(self.items)} (Esc: back).")
            return False
        item = self.items[number - 1]
        await ctx.services.sysop.report(ctx.user.id, item.channel, item.copy,
                                        about_id=item.author_id, item=item.item)  # fmt: skip
        ctx.status(f"Reported to the sysop, with a copy of {number}. Thank you.")
        return True


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

    async def catch_up(self, ctx: Context) -> str:
        """After a ``resync`` (notices may have been lost): the stored lines this screen
        has not shown yet, oldest first, as the status line should say them ('' if none)."""
        lines, self.kibitz_open = await ctx.services.chat.recent(self.screen.game_id)
        known = {x.id for x in self.lines}
        new = [x for x in lines if x.id not in known and self.shows(x)]
        self.lines = [*self.lines, *new][-50:]
        return " · ".join(self.text_of(x) for x in new)

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
        def last() -> str:  # drawn each time: a line arriving while one types shows here
            return self.text_of(self.lines[-1]) if self.lines else "Enter: say it  Esc: back"

        return Push(TalkPrompt(self.screen, prompt, last, say, max_len=CHAT_MAX))

    async def reportable(self, ctx: Context) -> list[Reportable]:
        """What ``!`` lists: the notes sent with the other players' last moves (a few),
        then the last lines of others this viewer was shown, oldest first."""
        me = ctx.user.id if ctx.user is not None else None
        screen = self.screen
        notes: list[Reportable] = []
        if screen.snap is not None:
            seats = {s.seat: s.user_id for s in screen.snap.info.seats}
            for m in await screen.history(ctx):
                author = seats.get(m.seat) if m.seat is not None else None
                if m.note and m.seat is not None and author != me:
                    shown = f"Note {screen.name_of(m.seat)} ({screen.shown_text(m)}): {m.note}"
                    copy = f"{screen.title}, with {screen.shown_text(m)}: {m.note}"
                    notes.append(Reportable("note", author, shown, m.seq, copy))
        lines = [
            Reportable(x.channel, x.user_id or None, self.text_of(x), x.id,
                       f"{screen.title}: {x.text}")
            for x in self.lines if x.user_id != me
        ]  # fmt: skip
        notes = notes[-NOTES_LISTED:]
        return notes + lines[-(REPORT_ROWS - len(notes)):]

    async def report(self, ctx: Context, _key: str = "") -> Transition | None:
        """!: pick a line or note of this game to report to the sysop."""
        if ctx.user is None:
            return None
        items = await self.reportable(ctx)
        if not items:
            ctx.status("There is no line or note of anyone else here to report.")
            return None
        return Push(ReportPicker(self.screen, items))

    async def toggle_kibitz(self, ctx: Context, _key: str = "") -> None:
        """K (a player): open kibitz to the players, or close it again."""
        if ctx.user is None or not self.is_player:
            return
        try:
            await ctx.services.chat.open_kibitz(self.screen.game_id, ctx.user.id,
                                                not self.kibitz_open)  # fmt: skip
        except ChatError as exc:
            ctx.status(str(exc))


async def report_in_game(screen: GameScreenBase, ctx: Context, key: str) -> Transition | None:
    """The game screens' ``!`` row: report a line or a note (see :class:`ReportPicker`)."""
    return await screen.talk.report(ctx, key)
