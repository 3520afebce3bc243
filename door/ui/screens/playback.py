"""A turn played back by itself: the step-by-step viewer with a clock ("in action").

:class:`Playback` is the replay viewer (:class:`~door.ui.screens.overlays.ReplayViewer`)
that turns its own pages ``delay`` seconds apart: the dice, then each checker step. Any
key pauses it; ← and → step (and pause); Space plays or pauses; Q or Esc closes it.

Timing is tied to drawing, so frames never queue: the session asks for ``busy`` at the
top of each turn of its loop, just before it draws; only then is the timer for the next
picture started, and the session draws again only once the terminal's output has
drained (``Terminal.drain``). On a slow link the pictures come as fast as the link takes
them, each one drawn from the latest state and none skipped; a key is handled at once
and drawn in the next frame.

``live`` playback shows moves that arrive while the player looks at the board: when it
ends (or on any key that is not one of its own) it hands the screen back, drawing the
board and passing that key to it, so it never eats the player's next move.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from door.ui.bindings import Binding, Keyset, key_name, with_arrows
from door.ui.canvas import Canvas
from door.ui.mouse import Pick
from door.ui.screen import Context, Pop, Push, Replace, Transition, draw_chrome
from door.ui.screens.overlays import FrameDrawer, ReplayViewer
from door.ui.terminal import InputEvent, Resize

if TYPE_CHECKING:
    from door.services.notify import Notice
    from door.ui.boards.common import GameScreenBase

Sleep = Callable[[float], Awaitable[None]]


class Playback(ReplayViewer):
    """The replay viewer, playing by itself (see the module docstring).

    ``delay`` seconds between pictures (0: by hand only); ``playing``: start at once;
    ``live``: moves arriving while the player looks (hands the board back at the end);
    ``sleep``: the clock to wait on (tests pass a fast one)."""

    def __init__(
        self,
        under: GameScreenBase,
        count: int,
        draw: FrameDrawer,
        *,
        whole: bool = False,
        delay: float = 0.6,
        playing: bool = True,
        live: bool = False,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        super().__init__(under, count, draw, whole=whole)
        self.delay = delay
        self.live = live
        self.playing = playing and delay > 0 and count > 1
        self.done = False
        """A live playback that has ended: it draws the board and passes keys to it."""
        self._sleep = sleep
        self._timer: asyncio.Task[None] | None = None
        self._timer_for = -1

    # --- the clock -------------------------------------------------------------------
    @property
    def busy(self) -> asyncio.Task[None] | None:
        """The timer of the next picture; the session asks just before it draws, so the
        timer starts with the picture it follows (see the module docstring)."""
        if not self.playing:
            return None
        timer = self._timer
        if timer is not None and not timer.done():
            return timer
        if self._timer_for == self.index and timer is not None:
            return None  # this picture's timer ran out and was not needed (paused)
        self._timer_for = self.index
        self._timer = asyncio.ensure_future(self._tick(self.index))
        return self._timer

    async def _tick(self, index: int) -> None:
        await self._sleep(self.delay)
        if not self.playing or self.index != index:
            return
        if index < self.count - 1:
            self.index = index + 1
        if self.index >= self.count - 1:
            # the last picture stays up one more beat before a live playback ends
            if self.live and index == self.count - 1:
                self.playing = False
                self.done = True
            elif not self.live:
                self.playing = False

    def pause(self) -> None:
        self.playing = False
        if self._timer is not None and not self._timer.done():
            self._timer.cancel()
        self._timer = None
        self._timer_for = -1

    def add(self, count: int, draw: FrameDrawer) -> None:
        """More pictures (moves that arrived while this one plays): they play on."""
        self.count = count
        self.draw_frame = draw
        if self.delay > 0 and not self.done:
            self.playing = True

    # --- drawing ---------------------------------------------------------------------
    def render(self, canvas: Canvas, ctx: Context) -> None:
        if self.done:
            self.under.render(canvas, ctx)
            return
        help_text = with_arrows(self.keys.key_help(self), ctx.glyphs)
        draw_chrome(canvas, ctx, self.under.title, help_text)
        self.draw_frame(canvas, ctx, self.index)

    # --- keys --------------------------------------------------------------------------
    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if isinstance(event, Resize):
            return None
        if self.done:
            return await self._hand_back(event, ctx)
        if self.live and self.keys.find(self, key_name(event)) is None:
            return await self._hand_back(event, ctx)  # the player's next move
        return await self.keys.dispatch(self, ctx, event)

    async def on_pick(self, pick: Pick, ctx: Context) -> Transition | None:
        """A click on the board once the pictures are done: the board under takes it."""
        if not self.done:
            return None
        self.pause()
        transition = await self.under.on_pick(pick, ctx)
        if isinstance(transition, Push):
            return Replace(transition.screen)
        return Pop()

    async def _hand_back(self, event: InputEvent, ctx: Context) -> Transition:
        """Close, and let the board under take ``event``."""
        self.pause()
        self.done = True
        transition = await self.under.on_event(event, ctx)
        if isinstance(transition, Push):
            return Replace(transition.screen)
        return Pop()

    def toggle(self, ctx: Context, _key: str) -> None:
        if self.playing:
            self.pause()
            return
        if self.delay <= 0:
            ctx.status("Playback is by hand: Y)our settings sets its speed.")
            return
        if self.index >= self.count - 1:
            self.index = 0  # played to the end: again from the start
        self.playing = True

    def step_next(self, ctx: Context, key: str) -> Transition | None:
        self.pause()
        return self.next(ctx, key)

    def step_back(self, ctx: Context, key: str) -> Transition | None:
        self.pause()
        return self.back(ctx, key)

    def to_first(self, ctx: Context, key: str) -> Transition | None:
        self.pause()
        return self.first(ctx, key)

    def to_last(self, ctx: Context, key: str) -> Transition | None:
        self.pause()
        return self.last(ctx, key)

    def close_it(self, ctx: Context, key: str) -> Transition | None:
        self.pause()
        return self.close(ctx, key)

    def any_key(self, ctx: Context, _key: str) -> None:
        """Any other key pauses."""
        self.pause()

    # fmt: off
    keys = Keyset(
        [
            # one label whether playing or not: a picture's diff stays small
            Binding((" ",), "Space pause/play", "Space: pause / play on", toggle),
            Binding(("right", "enter", "down", "6", "n", "2", "5"), "Enter/→ next",
                    "Enter, → or 6: the next picture (pauses)", step_next),
            Binding(("left", "up", "4", "p", "8"), "← back", "← or 4: the one before",
                    step_back),
            Binding(("home",), "Home/End", "Home/End: the first/last picture", to_first),
            Binding(("end",), "", "", to_last),
            Binding(("escape", "q", "v"), "Q)uit", "Q or Esc: leave the replay", close_it,
                    when=lambda s: s.whole),
            Binding(("escape", "q", "v"), "Q) back", "Q or Esc: back to the game", close_it),
        ],
        fallback=any_key,
    )
    # fmt: on

    # --- notices -----------------------------------------------------------------------
    async def on_notice(self, notice: Notice, ctx: Context) -> Transition | None:
        """The game's notices go to the board; a playback it starts for moves that
        arrived joins this one (they play on here) rather than opening another."""
        transition = await self.under.on_notice(notice, ctx)
        if isinstance(transition, Push) and isinstance(transition.screen, Playback):
            more = transition.screen
            if self.done:
                return Replace(more)
            if self.live:
                self.add(more.count, more.draw_frame)
                return None
            return transition
        return transition

