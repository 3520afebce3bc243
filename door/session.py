"""One connected person: the screen stack, the input loop and the notices.

The session is the only place that awaits input. It renders the top screen into a fresh
canvas of the terminal's size after every event or notice and writes only the difference
from what the far end already shows. It subscribes to the hub for the signed-in user
(and to the game the top screen watches, for spectators) and passes notices to the top
screen, ringing the bell on "your turn" when the user has sound on. When the process
loses its database for a while (``services.outage``) the status line of whatever screen
shows says so until it is back, and then the screen re-reads what it shows.

Where the terminal reports clicks (``caps.mouse``) and the user has not turned the mouse
off, the session asks for mouse reports at the start and stops them on every way out; a
click is looked up in the frame last shown (the regions its screen drew, door/ui/mouse.py)
and handled as the key(s) it names, or as a pick by the top screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from door.games.base import Refusal
from door.ui.bindings import event_of
from door.ui.caches import RenderCaches
from door.ui.canvas import Canvas, diff
from door.ui.glyphs import glyphs
from door.ui.mouse import MOUSE_OFF, MOUSE_ON, Pick, Target, keys_of
from door.ui.screen import (
    LAYOUT_SIZE,
    Context,
    Pop,
    Push,
    Quit,
    Replace,
    Screen,
    Transition,
    clean,
    fit_view,
    is_too_small,
    too_small_view,
)
from door.ui.terminal import (
    Caps,
    Encoding,
    Hangup,
    InputEvent,
    Key,
    Mouse,
    Resize,
    Terminal,
    Text,
)

if TYPE_CHECKING:
    from door.services import Services
    from door.services.accounts import User
    from door.services.notify import Notice, Subscription
    from door.services.outage import OutageState
    from door.services.presence import Online

log = logging.getLogger(__name__)

BUG_MESSAGE = "Something went wrong on our side; nothing was lost."
"""What a player is told when a screen hits a bug (the traceback goes to the log)."""

T = TypeVar("T")

PAGE_REPLY_KEY = "ctrl-r"
"""The key that answers the last page, on any screen (a one-line prompt over it)."""
PAGE_REPORT_KEY = "ctrl-x"
"""The key that reports the last page shown to the sysop, on any screen."""
PAGE_REPLY_HINT = "Ctrl-R replies, Ctrl-X reports"

TYPE_AHEAD = 16
"""Text of up to this many characters in one event is handled one key at a time."""


class Session:
    """The state of one connection; :func:`run_session` is the way to run one."""

    def __init__(
        self,
        terminal: Terminal,
        services: Services,
        user: User | None,
        caches: RenderCaches | None = None,
    ) -> None:
        self.terminal = terminal
        self.services = services
        self.stack: list[Screen] = []
        self.previous: Canvas | None = None
        self.user_sub: Subscription | None = None
        self.game_sub: Subscription | None = None
        self.game_sub_id: int | None = None
        self.seen: set[tuple[int, str, int]] = set()
        self.quit_message: str | None = None
        self.hung_up = False
        self.mouse_on = False
        """Whether mouse reports were asked for (and must be stopped on the way out)."""
        self.recoveries_seen = services.outage.recoveries
        """How many database outages had ended when the screen last re-read (on_outage)."""
        self.detected_encoding = terminal.caps.encoding
        self.online: Online | None = None
        """This session in W)ho (services.presence), from sign-in to the end."""
        self.page_from: int | None = None
        """Who sent the last page shown here (Ctrl-R answers them)."""
        self.news: asyncio.Future[None] | None = None
        """What wakes this session's loop to draw outage news (``outage_news`` settles
        it). This session's own: a future shared by every session had every session's
        wake-up callback on it, and each key's ``asyncio.wait`` took its own off again by
        scanning them all (O(sessions) a key)."""
        self.page_text: str | None = None
        """The last page shown here, until Ctrl-X reports it to the sysop."""
        self.drawn_message: str | None = None
        """The status line's message as the last render drew it (see ``key_pressed``)."""
        self.ctx = Context(
            services,
            None,
            self._effective_caps(None),
            glyphs(terminal.caps.encoding),
            ring=terminal.bell,
            on_user=self._user_changed,
            caches=caches,
            time_left=getattr(terminal, "time_left", None),  # door mode's BBS time limit
        )
        if user is not None:
            # The user as signed in: their last login is the previous session's, captured
            # once here (later copies of the user carry this session's login instead).
            self.ctx.previous_login = user.last_login_at
            self.ctx.visit_started = services.clock.now()
            self._user_changed(user)

    # --- user and terminal settings -----------------------------------------------------
    def _effective_caps(self, user: User | None) -> Caps:
        caps = self.terminal.caps
        if user is not None and not user.settings.color:
            caps = replace(caps, colors=0)
        return caps

    def _user_changed(self, user: User) -> None:
        """A user signed in or changed settings: apply charset and colour, subscribe."""
        self.ctx.user = user
        charset = user.settings.charset
        target: Encoding = self.detected_encoding
        if charset == "cp437" or charset == "utf-8":
            target = charset
        if self.terminal.caps.encoding != target:
            self.terminal.set_encoding(target)
            self.previous = None  # glyphs change: redraw everything
        caps = self._effective_caps(user)
        if caps.colors != self.ctx.caps.colors or caps.encoding != self.ctx.caps.encoding:
            self.previous = None
        self.ctx.caps = caps
        self.ctx.glyphs = glyphs(caps.encoding)
        self.set_mouse(self.wants_mouse())
        if self.user_sub is None:
            self.user_sub = self.services.hub.subscribe(user.id)
        if self.online is None:
            self.online = self.services.presence.join(
                user.id, user.name, self.terminal.caps.transport
            )
            self.online.where = self._where

    def _where(self) -> str:
        """Where this session's person is, for W)ho (the top screen's ``where`` text)."""
        from door.services.presence import where_of

        return where_of(self.stack[-1]) if self.stack else ""

    # --- the mouse --------------------------------------------------------------------
    def wants_mouse(self) -> bool:
        """Mouse reports are wanted when the terminal can send them and the signed-in
        user (if any) has not turned them off (Y)our settings: Mouse)."""
        user = self.ctx.user
        return self.terminal.caps.mouse and (user is None or user.settings.mouse)

    def set_mouse(self, on: bool) -> None:
        """Ask the terminal for mouse reports, or stop them (only when that changes)."""
        if on == self.mouse_on:
            return
        self.mouse_on = on
        self.terminal.write(MOUSE_ON if on else MOUSE_OFF)

    async def on_mouse(self, event: Mouse) -> bool:
        """A click (or a turn of the wheel) on the frame last shown: what the region
        drawn there names, as its keys or a pick; False when the session should end."""
        view = self.previous
        if not self.mouse_on or view is None or not self.stack or event.action != "press":
            return True
        if event.button in ("wheel-up", "wheel-down"):
            if view.wheel is None:
                return True
            turn = view.wheel[0 if event.button == "wheel-up" else 1]
            for key in keys_of(turn):
                if not await self.on_input(event_of(key)):
                    return False
            return True
        region = view.hit(event.x, event.y)
        if region is None or event.button == "middle":
            return True
        target: Target | None = region.right if event.button == "right" else region.target
        if target is None:
            return True
        if view.cursor is not None and any(len(k) == 1 for k in keys_of(target)):
            # Someone is typing (a name, a password, a move): a letter a click stands for
            # would be typed into the field, so only named keys (Enter, Esc) are clicked.
            return True
        if isinstance(target, Pick):
            self.key_pressed()
            screen = self.stack[-1]
            return await self.apply(await self._guard(screen.on_pick(target, self.ctx), None))
        for key in keys_of(target):
            if not await self.on_input(event_of(key)):
                return False
        return True

    # --- rendering --------------------------------------------------------------------
    def render(self) -> None:
        """Draw the top screen and send what changed."""
        caps = self.terminal.caps
        w, h = caps.width, caps.height
        if is_too_small(w, h):
            self._show(too_small_view(self.ctx, w, h), None)
            return
        width, height = max(w, LAYOUT_SIZE[0]), max(h, LAYOUT_SIZE[1])
        # a finished frame drawn over (see Canvas.clear: reused rows spare the garbage
        # collector), shared by every session rather than one kept by each
        canvas = self.ctx.caches.styles.spare_canvas(width, height)
        self.ctx.chrome = None
        if self.stack:
            self.stack[-1].render(canvas, self.ctx)
        self.drawn_message = self.ctx.message  # (a screen may set it as it draws)
        # A terminal smaller than the layout sees its body cropped, with the title, the
        # status and the key help drawn again at the terminal's own size.
        view = canvas if (w >= width and h >= height) else fit_view(canvas, self.ctx, w, h)
        self._show(view, canvas)

    def _show(self, view: Canvas, canvas: Canvas | None) -> None:
        out = diff(self.previous, view, self.ctx.caps)
        if out:
            self.terminal.write(out)
        # The frame the far end showed until now is drawn over next time, by any session
        # (as is the full-size canvas a fitted view was cut from).
        styles = self.ctx.caches.styles
        if self.previous is not None:
            styles.give_back(self.previous)
        if canvas is not None and view is not canvas:
            styles.give_back(canvas)
        self.previous = view

    # --- the stack ----------------------------------------------------------------------
    async def push(self, screen: Screen) -> None:
        """Show ``screen`` on top. If it cannot load (a game that is gone, a service
        error) it is taken off again and the screen below says why."""
        self.stack.append(screen)
        if not await self._enter(screen) and len(self.stack) > 1:
            self.stack.pop()
            return
        follow = screen.follow_up
        if follow is not None:
            screen.follow_up = None
            await self.push(follow)

    async def _enter(self, screen: Screen) -> bool:
        """Run ``on_enter``; False (with the reason on the status line) if it failed."""

        async def enter() -> bool:
            await screen.on_enter(self.ctx)
            return True

        return await self._guard(enter(), False)

    async def apply(self, transition: Transition | None) -> bool:
        """Apply a transition; False when the session should end."""
        while transition is not None:
            if isinstance(transition, Quit):
                self.quit_message = transition.message
                return False
            if isinstance(transition, Push):
                await self.push(transition.screen)
                return True
            if isinstance(transition, Replace):
                if self.stack:
                    self.stack.pop()
                await self.push(transition.screen)
                return True
            if isinstance(transition, Pop):
                if self.stack:
                    self.stack.pop()
                if not self.stack:
                    return False
                transition = await self._guard(
                    self.stack[-1].on_resume(transition.result, self.ctx), None
                )
                continue
            return True
        return True

    async def _guard(self, work: Awaitable[T], failed: T) -> T:
        """Await a screen handler. A :class:`Refusal` (a move the rules refuse, a stale
        game, a full lobby, …) is shown on the status line; any other exception is a bug:
        logged with its traceback, the player told :data:`BUG_MESSAGE`, and the session
        goes on. Either way the answer is ``failed``."""
        try:
            return await work
        except Refusal as exc:
            self.ctx.status(str(exc))
        except Exception:
            log.exception("screen handler failed")
            self.ctx.status(BUG_MESSAGE)
        return failed

    # --- notices ----------------------------------------------------------------------
    def _sync_game_sub(self) -> None:
        """Follow the game the top screen watches (``watch_game``), for spectators."""
        want = getattr(self.stack[-1], "watch_game", None) if self.stack else None
        if want == self.game_sub_id:
            return
        if self.game_sub is not None:
            self.game_sub.close()
            self.game_sub = None
        self.game_sub_id = want
        if isinstance(want, int):
            self.game_sub = self.services.hub.subscribe_game(want)

    async def on_notice(self, notice: Notice) -> bool:
        """Tell the person (the status line) and the top screen of ``notice``; a message
        it replaces that was never drawn stays after the new one."""
        unseen = self.unseen_message()
        keep = await self._on_notice(notice)
        self.keep_unseen(unseen)
        return keep

    async def _on_notice(self, notice: Notice) -> bool:
        key = (notice.game_id, notice.kind, notice.seq)
        if key in self.seen:
            return True  # heard on both the user's and the game's subscription
        self.seen.add(key)
        if len(self.seen) > 1000:
            self.seen.clear()
        user = self.ctx.user
        if notice.kind in ("page", "broadcast", "mail"):
            # on the status line of whatever screen shows; the screen itself is not
            # told (it has nothing to re-read), so nothing else on it changes
            if user is not None and user.id in notice.user_ids:
                self.ctx.bell()
                if notice.kind == "page":
                    self.page_from = -notice.game_id
                    self.page_text = notice.text
                    self.ctx.status(notice.text + f" — {PAGE_REPLY_HINT}")
                else:
                    self.ctx.status(notice.text)
            return True
        if notice.kind == "your_turn" and user is not None and user.id in notice.user_ids:
            self.ctx.bell()
        if notice.kind in ("invited", "declined", "abandoned") and user is not None and (
            user.id in notice.user_ids
        ):
            # told on whatever screen is showing (the main menu and the lists say more)
            self.ctx.bell()
            hint = " — answer in V)iew" if notice.kind == "invited" else ""
            self.ctx.status(notice.text + hint)
        if not self.stack:
            return True
        return await self.apply(await self._guard(self.stack[-1].on_notice(notice, self.ctx), None))

    def outage_news(self, state: OutageState) -> None:
        """The database was lost, or is back (``services.outage``): the status line says
        so from now, over what it said until now (what the person is told after this,
        e.g. "could not save that", shows over it until their next key)."""
        from door.services.outage import BACK_MESSAGE, LOST_MESSAGE

        self.ctx.alert = {"lost": LOST_MESSAGE, "back": BACK_MESSAGE}.get(state or "")
        if state is not None:
            self.ctx.message = None
        if self.news is not None and not self.news.done():
            self.news.set_result(None)  # the loop wakes to draw it

    async def on_outage(self) -> bool:
        """After an outage the top screen re-reads what it shows, as on a ``resync``
        notice (what changed meanwhile may never have been notified)."""
        from door.services.notify import Notice

        self.recoveries_seen = self.services.outage.recoveries
        if not self.stack:
            return True
        resync = Notice(0, "resync", (), "", 0)
        return await self.apply(await self._guard(self.stack[-1].on_notice(resync, self.ctx), None))

    # --- the loop -----------------------------------------------------------------------
    async def run(self, first: Screen) -> None:
        outage = self.services.outage
        self.outage_news(outage.state)
        stop_news = outage.subscribe(self.outage_news)
        try:
            await self._run(first)
        finally:
            stop_news()

    async def _run(self, first: Screen) -> None:
        await self.push(first)
        reader: asyncio.Task[InputEvent | None] | None = None
        user_get: asyncio.Task[Notice] | None = None
        game_get: asyncio.Task[Notice] | None = None
        user_get_sub: Subscription | None = None
        game_get_sub: Subscription | None = None
        try:
            while self.stack:
                if self.services.outage.recoveries != self.recoveries_seen and (
                    not await self.on_outage()
                ):
                    break
                self._sync_game_sub()
                # Taken before rendering, so work that finishes during the render or the
                # drain still wakes the loop for one more render.
                busy = self._busy()
                self.render()
                await self.terminal.drain()
                if reader is None:
                    reader = asyncio.ensure_future(self.terminal.read_event())
                if user_get_sub is not self.user_sub:
                    if user_get is not None:
                        user_get.cancel()
                    user_get_sub = self.user_sub
                    user_get = asyncio.ensure_future(self.user_sub.get()) if self.user_sub else None
                if game_get_sub is not self.game_sub:
                    if game_get is not None:
                        game_get.cancel()
                    game_get_sub = self.game_sub
                    game_get = asyncio.ensure_future(self.game_sub.get()) if self.game_sub else None
                waiting: set[asyncio.Future[Any]] = {reader}
                if user_get is not None:
                    waiting.add(user_get)
                if game_get is not None:
                    waiting.add(game_get)
                if busy is not None:
                    waiting.add(busy)
                tick = self._minute_tick()
                if tick is not None:
                    waiting.add(tick)
                # kept from one turn of the loop to the next until outage news settles it
                if self.news is None or self.news.done():
                    self.news = asyncio.get_running_loop().create_future()
                waiting.add(self.news)
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                keep = True
                if user_get is not None and user_get in done:
                    notice = user_get.result()
                    user_get = asyncio.ensure_future(user_get_sub.get()) if user_get_sub else None
                    keep = await self.on_notice(notice)
                if keep and game_get is not None and game_get in done:
                    notice = game_get.result()
                    game_get = asyncio.ensure_future(game_get_sub.get()) if game_get_sub else None
                    keep = await self.on_notice(notice)
                if keep and reader in done:
                    event = reader.result()
                    reader = None
                    keep = await self.on_input(event)
                if tick is not None and not tick.done():
                    tick.cancel()
                if not keep:
                    break
        finally:
            for task in (reader, user_get, game_get):
                if task is not None and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
            if self.user_sub is not None:
                self.user_sub.close()
            if self.game_sub is not None:
                self.game_sub.close()
            if self.online is not None:
                self.services.presence.leave(self.online)

    def _minute_tick(self) -> asyncio.Future[Any] | None:
        """Door mode: a wake-up when the title bar's "N min left" is due to change."""
        left = self.ctx.time_left() if self.ctx.time_left is not None else None
        if left is None or left <= 0:
            return None
        return asyncio.ensure_future(asyncio.sleep(left % 60 + 0.05))

    def _busy(self) -> asyncio.Future[Any] | None:
        """The top screen's unfinished background work, if any: a screen that computes
        something slow (a game review) keeps its task in a ``busy`` attribute and draws
        "working…" until it is done; the loop redraws when it finishes."""
        work = getattr(self.stack[-1], "busy", None) if self.stack else None
        if isinstance(work, asyncio.Future) and not work.done():
            return work
        return None

    async def on_input(self, event: InputEvent | None) -> bool:
        """Handle one input event; False when the session should end."""
        if event is None:
            return True
        if isinstance(event, Hangup):
            if event.reason == "time":
                # The BBS's time is up but the line is still there: say goodbye properly
                # (every move is already saved; a play not yet sent is not one).
                name = clean(self.ctx.user.name) if self.ctx.user is not None else "friend"
                self.quit_message = (
                    f"Your time on the BBS is up. Your games are saved. Goodbye, {name}!\r\n"
                )
                return False
            self.hung_up = True
            return False
        if isinstance(event, Resize):
            self.previous = None  # full redraw at the new size
            self.ctx.caps = replace(self.ctx.caps, width=event.width, height=event.height)
            return True
        if isinstance(event, Key) and event.name == "ctrl-l":
            self.previous = None  # the person asked for a clean redraw
            if self.mouse_on:
                self.terminal.write(MOUSE_ON)  # (a terminal reset meanwhile forgot it)
            return True
        if not self.stack:
            return False
        if self.online is not None:
            self.services.presence.touched(self.online)
        if isinstance(event, Key) and event.name == PAGE_REPLY_KEY and self.page_from:
            from door.ui.screens.who import PagePrompt

            self.ctx.message = None
            return await self.apply(Push(PagePrompt(self.stack[-1], self.page_from)))
        if isinstance(event, Key) and event.name == PAGE_REPORT_KEY and self.page_text:
            self.key_pressed()
            await self._guard(self.report_page(self.page_text), None)
            return True
        caps = self.terminal.caps
        if is_too_small(caps.width, caps.height) and isinstance(event, Key | Text | Mouse):
            return True  # nothing of the screen is shown: a key would act unseen
        if isinstance(event, Mouse):
            return await self.on_mouse(event)
        if isinstance(event, Text) and 1 < len(event.text) <= TYPE_AHEAD:
            # A few keys that arrived in one read (typed ahead, or bunched by a laggy
            # link) are separate key presses: a menu acts on one letter per event, so
            # each goes to whatever screen is on top by then. Longer runs are pastes
            # and stay whole.
            for ch in event.text:
                if not await self.on_input(Text(ch)):
                    return False
            return True
        unseen = self.unseen_message()
        self.key_pressed()
        keep = await self.apply(await self._guard(self.stack[-1].on_event(event, self.ctx), None))
        self.keep_unseen(unseen)
        return keep

    async def report_page(self, text: str) -> None:
        """Ctrl-X: the last page goes to the sysop's reports (once), with its sender."""
        if self.ctx.user is None:
            return
        await self.services.sysop.report(self.ctx.user.id, "page", text, about_id=self.page_from)
        self.page_text = None
        self.ctx.status("Reported the page to the sysop, with a copy of it. Thank you.")

    def key_pressed(self) -> None:
        """The status line shows until the person's next key (a notice or a resize
        redraws without wiping what they were just told) — once it has been drawn: a
        notice handled in the same turn of the loop as the key (a busy server, a laggy
        link) set a message the person has not seen yet, and it stays for this key."""
        if self.ctx.message == self.drawn_message:
            self.ctx.message = None

    def unseen_message(self) -> str | None:
        """The status line's message if it has not been drawn yet, else None."""
        message = self.ctx.message
        return message if message is not None and message != self.drawn_message else None

    def keep_unseen(self, unseen: str | None) -> None:
        """A message not yet drawn that work since replaced (a key's own answer, a second
        notice in the same turn of the loop) stays on the line after the new one."""
        now = self.ctx.message
        if unseen is None or now is None or unseen in now:
            return
        self.ctx.message = f"{now} · {unseen}"


async def run_session(
    terminal: Terminal,
    services: Services,
    user: User | None,
    *,
    start: str | None = None,
    caches: RenderCaches | None = None,
) -> None:
    """Run one person's session until they say goodbye or hang up.

    ``user`` is the signed-in user, or ``None`` to show the log-in / registration screen
    first. ``start`` opens a particular screen instead of the main menu: ``"play"``
    (games waiting on you), ``"invitations"``, ``"open"``, ``"active"``, ``"mine"``, ``"finished"``,
    ``"begin"``, ``"rank"``, ``"instructions"``, ``"settings"``, ``"game:<id>"``, or a
    game kind (``"backgammon"``: that game's lists, or begin one). ``caches``: the
    process's render caches (``App`` builds one for every session; else a new one).
    """
    from door.ui.screens import first_screens

    session = Session(terminal, services, user, caches)
    try:
        session.set_mouse(session.wants_mouse())
        # A start screen that cannot open (a refusal, or a bug) leaves the main menu saying why.
        screens = await session._guard(first_screens(session.ctx, start), None)
        if screens is None:
            screens = await first_screens(session.ctx, None)
        session.stack.extend(screens[:-1])
        for screen in screens[:-1]:
            await session._enter(screen)
        await session.run(screens[-1])
    finally:
        # Whatever ended the session (goodbye, hang-up, the BBS's time, a bug): the
        # terminal stops reporting clicks (in door mode the BBS goes on using it).
        with contextlib.suppress(Exception):
            session.set_mouse(False)
        if not session.hung_up:
            with contextlib.suppress(Exception):
                terminal.write("\x1b[0m\x1b[2J\x1b[H\x1b[?25h")
                await terminal.close(session.quit_message or "Goodbye!\r\n")
