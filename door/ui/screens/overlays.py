"""Screens pushed over a game screen: the Y/N question, the resignation choice, the
typed-move line and the step-by-step replay viewer. Both games share them.

An overlay draws the game under it (``under.draw`` with the :class:`Cover` it puts over
it), then its own line under the board and its own key help; it passes the game's
notices to the game and closes itself when what it asked no longer applies (``valid``).
A screen the game opens meanwhile (the opponent's move played on the board) waits until
the overlay closes (:attr:`Overlay.after`): the question or the line stays in sight and
keeps the keys.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

from door.ui.bindings import Binding, Keyset, with_arrows
from door.ui.canvas import CYAN, YELLOW, Canvas, Style, clip_text
from door.ui.screen import Context, Pop, Push, Replace, Screen, Transition, draw_chrome
from door.ui.terminal import InputEvent, Resize
from door.ui.widgets import LineEditor

if TYPE_CHECKING:
    from door.services.notify import Notice
    from door.ui.boards.common import GameScreenBase

PROMPT_STYLE = Style(fg=YELLOW, bold=True)
HINT_STYLE = Style(fg=CYAN)

Action = Callable[[Context], Awaitable[None] | None]


class Cover(Enum):
    """What lies over a game screen while it draws (its own controls hide under some)."""

    NONE = "none"
    TYPE = "type"
    CONFIRM = "confirm"


class LEAVE:
    """The result an overlay pops with to close the game screen under it too."""


async def _run(action: Action | None, ctx: Context) -> None:
    if action is not None:
        result = action(ctx)
        if result is not None:
            await result


class Overlay(Screen):
    """The shared part: drawing over the game, notices, closing when stale."""

    cover: ClassVar[Cover] = Cover.CONFIRM
    keys: ClassVar[Keyset[Any]]
    holds_back: ClassVar[bool] = True
    """Whether a screen the game opens meanwhile waits for this one to close (a question,
    a line being typed); a viewer of pictures lets it open over itself."""

    def __init__(self, under: GameScreenBase, valid: Callable[[], bool] | None = None) -> None:
        self.under = under
        self.title = under.title
        self._valid = valid
        self.after: Screen | None = None
        """What the game opened while this was open (the opponent's move, played on the
        board): shown once this closes, not over it — else the answer's key, or the rest
        of the line, would go to that screen and then to the board under this one."""

    @property
    def watch_game(self) -> int | None:
        """The game under it keeps its notices coming (see ``Session._sync_game_sub``)."""
        return self.under.watch_game

    def render(self, canvas: Canvas, ctx: Context) -> None:
        self.under.draw(canvas, ctx, self.cover, with_arrows(self.key_help_line(), ctx.glyphs))
        canvas.wheel = None  # the board's wheel (rotate a piece) is not this line's
        self.draw_over(canvas, ctx)

    def key_help_line(self) -> str:
        """The overlay's bottom line (made from its key table)."""
        return self.keys.key_help(self)

    def draw_over(self, canvas: Canvas, ctx: Context) -> None:
        """The overlay's own line (under the board)."""

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if isinstance(event, Resize):
            return None
        return await self.keys.dispatch(self, ctx, event)

    def closed(self) -> Transition:
        """Back to the game, or on to what it opened meanwhile (:attr:`after`)."""
        return Pop() if self.after is None else Replace(self.after)

    async def on_notice(self, notice: Notice, ctx: Context) -> Transition | None:
        transition = await self.under.on_notice(notice, ctx)
        if isinstance(transition, Push) and self.holds_back:
            self.after = transition.screen
            transition = None
        if transition is not None:
            return transition
        if self._valid is not None and not self._valid():
            return self.closed()
        return None


class Confirm(Overlay):
    """A yes/no question on the line under the board: Y or Enter runs ``on_yes``, N or Esc
    ``on_no``, U (when given) ``on_undo``; each closes the question."""

    def __init__(
        self,
        under: GameScreenBase,
        question: str,
        on_yes: Action,
        *,
        on_no: Action | None = None,
        on_undo: Action | None = None,
        valid: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(under, valid)
        self.question = question
        self.on_yes = on_yes
        self.on_no = on_no
        self.on_undo = on_undo

    def draw_over(self, canvas: Canvas, ctx: Context) -> None:
        y = self.under.prompt_row(canvas)
        canvas.put(1, y, clip_text(self.question, canvas.width - 2), PROMPT_STYLE)
        canvas.prompt = y  # a small terminal keeps the question in sight (see fit_view)

    async def yes(self, ctx: Context, _key: str) -> Transition | None:
        await _run(self.on_yes, ctx)
        return self.closed()

    async def no(self, ctx: Context, _key: str) -> Transition | None:
        await _run(self.on_no, ctx)
        return self.closed()

    async def undo(self, ctx: Context, _key: str) -> Transition | None:
        await _run(self.on_undo, ctx)
        return self.closed()

    # fmt: off
    keys = Keyset(
        [
            Binding(("y", "enter", "5"), "Y)es/Enter", "Y or Enter: yes", yes),
            Binding(("n", "escape"), "N)o", "N or Esc: no", no),
            Binding(("u",), "U)ndo", "U: take back the last step", undo,
                    when=lambda s: s.on_undo is not None),
        ]
    )
    # fmt: on


RESIGN_CHOICES = (
    "Offer to lose this game as a S)ingle, G)ammon or B)ackgammon, or resign the M)atch?",
    "Offer to lose this game (S)ingle, G)ammon, B)ackgammon) or the M)atch?",
    "Lose this game: S)ingle, G)ammon, B)ackgammon? Or the M)atch?",
    "Lose: S)ingle G)ammon B)ackgammon M)atch?",
    "Resign this game (S/G/B) or M)atch?",
)
"""The resignation choice, longest first: the longest that fits the terminal is asked."""


class ResignChoice(Overlay):
    """What X offers in Backgammon on the player's turn: resign this game as a S)ingle,
    G)ammon or B)ackgammon (an offer the opponent accepts or rejects), or M)atch, the whole
    match (asked again with Y/N); N or Esc changes nothing. ``offer(ctx, level)`` makes
    the offer; ``whole_match(ctx)`` pushes the Y/N question for the match."""

    def __init__(
        self,
        under: GameScreenBase,
        offer: Callable[[Context, str], Awaitable[None]],
        whole_match: Callable[[Context], Transition | None],
        valid: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(under, valid)
        self.offer = offer
        self.whole_match = whole_match

    def draw_over(self, canvas: Canvas, ctx: Context) -> None:
        y = self.under.prompt_row(canvas)
        room = min(canvas.width, ctx.caps.width) - 2
        for question in RESIGN_CHOICES:
            if len(question) <= room:
                break
        canvas.put(1, y, clip_text(question, room), PROMPT_STYLE)
        canvas.prompt = y  # a small terminal keeps the question in sight (see fit_view)

    async def level(self, ctx: Context, key: str) -> Transition | None:
        await self.offer(ctx, {"s": "single", "g": "gammon", "b": "backgammon"}[key])
        return self.closed()

    def match(self, ctx: Context, _key: str) -> Transition | None:
        asked = self.whole_match(ctx)
        if not isinstance(asked, Push):
            return self.closed()
        if isinstance(asked.screen, Overlay) and asked.screen.after is None:
            asked.screen.after = self.after  # still waits, for the match's Y/N now
        return Replace(asked.screen)

    def no(self, ctx: Context, _key: str) -> Transition | None:
        ctx.status("Not done.")
        return self.closed()

    # fmt: off
    keys = Keyset(
        [
            Binding(("s",), "S)ingle", "S: offer to lose this game, a single", level),
            Binding(("g",), "G)ammon", "G: offer to lose this game as a gammon", level),
            Binding(("b",), "B)ackgammon", "B: offer to lose it as a backgammon", level),
            Binding(("m",), "M)atch", "M: resign the whole match", match),
            Binding(("n", "escape"), "N)o", "N or Esc: keep playing", no),
        ]
    )
    # fmt: on


class MoveEditor(Overlay):
    """The line a move is typed on: Enter sends it through ``under.send`` (a refused one
    stays, to be fixed), Esc closes the line."""

    cover = Cover.TYPE

    def __init__(self, under: GameScreenBase, prompt: str, hint: str, text: str = "") -> None:
        super().__init__(under, lambda: under.can_act)
        self.prompt = prompt
        self.hint = hint
        self.editor = LineEditor(text, max_len=40)

    def draw_over(self, canvas: Canvas, ctx: Context) -> None:
        y = self.under.prompt_row(canvas)
        x = canvas.put(1, y, self.prompt, PROMPT_STYLE)
        # As wide as the terminal itself allows, so the cursor stays on a small one.
        self.editor.render(canvas, x, y, min(40, min(canvas.width, ctx.caps.width) - x - 1))
        # The hint goes under the line, not on the key line (where it pushed the keys off).
        canvas.put(1, y + 1, clip_text(self.hint, canvas.width - 2), HINT_STYLE)

    async def submit(self, ctx: Context, _key: str) -> Transition | None:
        text = self.editor.text.strip()
        if not text:
            return self.closed()
        if not await self.under.send(ctx, text):
            return None
        ctx.status(f"You played {text}.")
        self.under.after_typed_move(ctx)
        return self.closed()

    def cancel(self, ctx: Context, _key: str) -> Transition | None:
        return self.closed()

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        """Typing goes to the line; the line's Enter and Esc go to the table."""
        if isinstance(event, Resize):
            return None
        if self.editor.handle(event) in ("submit", "cancel"):
            return await self.keys.dispatch(self, ctx, event)
        return None

    # fmt: off
    keys = Keyset(
        [
            Binding(("enter",), "Enter send", "Enter: send the move", submit),
            Binding(("escape",), "Esc back", "Esc: back to the board", cancel),
        ]
    )
    # fmt: on



FrameDrawer = Callable[[Canvas, Context, int], None]


class ReplayViewer(Overlay):
    """Moves shown one picture at a time: ``draw(canvas, ctx, i)`` draws picture ``i`` of
    ``count``. ``whole``: the viewer is the game's replay, and leaving it leaves the game."""

    holds_back = False  # a question or a line may open over the pictures

    def __init__(
        self, under: GameScreenBase, count: int, draw: FrameDrawer, *, whole: bool = False
    ) -> None:
        super().__init__(under)
        self.count = count
        self.draw_frame = draw
        self.whole = whole
        self.index = 0

    def render(self, canvas: Canvas, ctx: Context) -> None:
        help_text = with_arrows(self.keys.key_help(self), ctx.glyphs)
        draw_chrome(canvas, ctx, self.under.title, help_text)
        self.draw_frame(canvas, ctx, self.index)

    def next(self, ctx: Context, _key: str) -> Transition | None:
        if self.index < self.count - 1:
            self.index += 1
            return None
        return None if self.whole else Pop()

    def back(self, ctx: Context, _key: str) -> Transition | None:
        self.index = max(self.index - 1, 0)
        return None

    def first(self, ctx: Context, _key: str) -> Transition | None:
        self.index = 0
        return None

    def last(self, ctx: Context, _key: str) -> Transition | None:
        self.index = self.count - 1
        return None

    def close(self, ctx: Context, _key: str) -> Transition | None:
        return Pop(LEAVE if self.whole else None)

    # fmt: off
    keys = Keyset(
        [
            Binding(("right", "enter", "down", "6", " ", "n", "2", "5"), "Enter/→ next",
                    "Enter, Space, → or 6: the next picture", next),
            Binding(("left", "up", "4", "p", "8"), "← back", "← or 4: the one before", back),
            Binding(("home",), "Home/End", "Home/End: the first/last picture", first),
            Binding(("end",), "", "", last),
            Binding(("escape", "q", "v"), "Q)uit", "Q or Esc: leave the replay", close,
                    when=lambda s: s.whole),
            Binding(("escape", "q", "v"), "Q) back", "Q or Esc: back to the game", close),
        ]
    )
    # fmt: on
