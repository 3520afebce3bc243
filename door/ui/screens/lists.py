"""Game lists: open to join, in progress (watch any), mine, waiting on me, finished
(replay any), a page at a time, with who is to move, since when and the deadline."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from door.ui.canvas import WHITE, YELLOW, Canvas, Style
from door.ui.screen import Context, Pop, Push, Screen, Transition, clean, draw_chrome
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import ListView

Which = Literal["open", "active", "mine", "waiting", "finished"]

TABS: tuple[tuple[Which, str, str], ...] = (
    ("open", "O", "Open to join"),
    ("active", "A", "In progress"),
    ("mine", "M", "Mine"),
    ("waiting", "W", "Waiting on me"),
    ("finished", "F", "Finished"),
)
TAB_STYLE = Style(fg=WHITE)
TAB_ON = Style(fg=YELLOW, bold=True, reverse=True)


def ago(then: datetime | None, now: datetime) -> str:
    """A short age: ``"5m"``, ``"3h"``, ``"2d"``."""
    if then is None:
        return "-"
    return short_span(now - then)


def short_span(span: timedelta) -> str:
    secs = int(span.total_seconds())
    if secs < 0:
        return "0m"
    if secs < 3600:
        return f"{max(secs // 60, 1)}m"
    if secs < 86400 * 2:
        return f"{secs // 3600}h"
    return f"{secs // 86400}d"


def seat_names(info: Any) -> str:
    """The players of a game, "(open)" for a free seat."""
    names = []
    for seat in info.seats:
        if seat.kind == "open":
            names.append("(open)")
        else:
            names.append(clean(seat.name or "?", 16))
    return " v ".join(names)


def to_move_name(info: Any) -> str:
    if info.status != "active" or info.to_act is None:
        return "-"
    for seat in info.seats:
        if seat.seat == info.to_act:
            return clean(seat.name or "?", 12)
    return "-"


def screen_for_game(info: Any, ctx: Context) -> Screen:
    """The screen that shows game ``info`` to this user: play it if they sit in it,
    watch it otherwise, replay it when it is over. ``ValueError`` if it cannot show."""
    from door.ui.screens import open_game

    seated = ctx.user is not None and info.seat_of(ctx.user.id) is not None
    over = info.status in ("finished", "abandoned")
    return open_game(info.kind, info.id, spectator=not seated, replay=over)


class GameListScreen(Screen):
    """One list at a time, switched with O/A/M/W/F or ←/→; Enter opens the highlighted
    game (joining it when it is open), L leaves an open game you sit in."""

    KEY_HELP = "O A M W F: lists · Up/Down Enter: open · N)ext P)rev · K)ind · L)eave · Q)uit"
    # On the finished list L)eave has nothing to do; R)eview takes its place.
    FINISHED_KEY_HELP = "O A M W F: lists · Enter: replay · N)ext P)rev · K)ind · R)eview · Q)uit"

    def __init__(self, which: Which = "active", kind: str | None = None) -> None:
        self.which: Which = which
        self.kind = kind
        self.kind_titles: dict[str, str] = {}
        self.view: ListView[Any] = ListView(page_size=14)
        self.now: datetime | None = None

    @property
    def key_help(self) -> str:  # type: ignore[override]
        return self.FINISHED_KEY_HELP if self.which == "finished" else self.KEY_HELP

    @property
    def title(self) -> str:  # type: ignore[override]
        kind = f" ({self.kind_titles.get(self.kind, self.kind)})" if self.kind else ""
        return f"door — Games: {dict((w, t) for w, _, t in TABS)[self.which]}{kind}"

    async def load(self, ctx: Context, offset: int | None = None) -> None:
        self.view.page_size = max(ctx.caps.height, 24) - 10
        offset = self.view.offset if offset is None else offset
        uid = ctx.user.id if ctx.user else None
        items, total = await ctx.services.games.list_games(
            self.which, uid, self.kind, offset=offset, limit=self.view.page_size
        )
        if not items and offset > 0 and total > 0:
            # The list shrank under us: show its last page.
            offset = max((total - 1) // self.view.page_size * self.view.page_size, 0)
            items, total = await ctx.services.games.list_games(
                self.which, uid, self.kind, offset=offset, limit=self.view.page_size
            )
        self.view.set_page(items, total, offset)
        self.now = ctx.services.clock.now()

    async def on_enter(self, ctx: Context) -> None:
        self.kind_titles = dict(ctx.services.games.kinds())
        await self.load(ctx, 0)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        await self.load(ctx)
        return None

    async def on_notice(self, notice: Any, ctx: Context) -> Transition | None:
        await self.load(ctx)
        return None

    async def switch(self, which: Which, ctx: Context) -> None:
        self.which = which
        self.view.selected = 0
        await self.load(ctx, 0)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if isinstance(event, Key) and event.name in ("escape",):
            return Pop()
        if isinstance(event, Key) and event.name in ("left", "right"):
            order = [w for w, _, _ in TABS]
            step = 1 if event.name == "right" else -1
            await self.switch(order[(order.index(self.which) + step) % len(order)], ctx)
            return None
        if isinstance(event, Text):
            ch = event.text[:1].upper()
            if ch == "Q":
                return Pop()
            for which, key, _ in TABS:
                if ch == key:
                    await self.switch(which, ctx)
                    return None
            if ch == "L":
                return await self.leave(ctx)
            if ch == "R":
                return self.review(ctx)
            if ch == "K":
                # All games, then each kind in turn.
                kinds: list[str | None] = [None, *self.kind_titles]
                self.kind = kinds[(kinds.index(self.kind) + 1) % len(kinds)]
                self.view.selected = 0
                await self.load(ctx, 0)
                return None
        action = self.view.handle(event)
        if action is None:
            return None
        if action.kind == "page":
            await self.load(ctx, action.offset)
            return None
        return await self.open(action.item, ctx)

    async def open(self, info: Any, ctx: Context) -> Transition | None:
        if info is None or ctx.user is None:
            return None
        uid = ctx.user.id
        games = ctx.services.games
        if info.status == "open":
            if info.seat_of(uid) is not None:
                ctx.status(f"Game #{info.id} still waits for players. L)eave gives your seat back.")
                return None
            info = await games.join(info.id, uid)
            if info.status != "active":
                ctx.status(f"You joined game #{info.id}; it starts when every seat is taken.")
                await self.load(ctx)
                return None
            ctx.status(f"You joined game #{info.id}. It has begun!")
        return Push(screen_for_game(info, ctx))

    def review(self, ctx: Context) -> Transition | None:
        """R)eview: the analysis of the highlighted finished backgammon game."""
        from door.ui.screens.review import ReviewScreen

        info = self.view.current
        if info is None or info.status not in ("finished", "abandoned"):
            ctx.status("R)eview is for finished backgammon games: F shows them.")
            return None
        if info.kind != "backgammon":
            ctx.status("Only backgammon games can be reviewed.")
            return None
        return Push(ReviewScreen(info.id))

    async def leave(self, ctx: Context) -> Transition | None:
        info = self.view.current
        if info is None or ctx.user is None:
            return None
        if info.status != "open" or info.seat_of(ctx.user.id) is None:
            ctx.status("L)eave is for an open game you sit in; resign a running game on its board.")
            return None
        await ctx.services.games.leave(info.id, ctx.user.id)
        ctx.status(f"You left game #{info.id}.")
        await self.load(ctx)
        return None

    # --- drawing --------------------------------------------------------------------
    def row(self, info: Any) -> str:
        now = self.now or info.updated_at
        deadline = "-"
        if info.status == "active" and info.deadline is not None:
            deadline = short_span(info.deadline - now)
        players = seat_names(info)
        summary = clean(info.summary)
        return (
            f"#{info.id:<5} {clean(info.title, 11):<11} {players[:26]:<26} "
            f"{to_move_name(info):<12} {ago(info.updated_at, now):>4} {deadline:>4}  {summary}"
        )

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        x = 1
        for which, key, label in TABS:
            style = TAB_ON if which == self.which else TAB_STYLE
            x = canvas.put(x, 2, f" {key}){label[1:] if label[0] == key else ' ' + label} ", style)
            x += 1
        header = (
            f"{'Game':<6} {'Kind':<11} {'Players':<26} {'To move':<12} {'Ago':>4} {'Due':>4}"
            "  Position"
        )
        empty = {
            "open": "No game is waiting for players. B)egin one from the main menu.",
            "active": "No games in progress.",
            "mine": "You are in no games yet.",
            "waiting": "No game is waiting for your move.",
            "finished": "No finished games yet.",
        }[self.which]
        self.view.render(canvas, 1, 4, canvas.width - 2, header, self.row, empty)
