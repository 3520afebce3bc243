"""Game lists: invitations (accept or decline), open to join, in progress (watch any),
mine, waiting on me, finished (replay any), a page at a time, with who is to move, since
when and the deadline.

Named invitations have a tab of their own, first, and V)iew from the main menu opens on it
while there are any: an invitation is a game waiting for the player's answer, and the
place where games are joined is where it is answered (Enter accepts, D declines). M)ine
lists them too, among the player's games.

Joining (or accepting) asks first, on one line under the list, for the player's optional
dice word (mixed into the game's provable dice); Enter alone gives none, Esc joins not.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from door.games import fairdice
from door.ui.bindings import Binding, KeyedScreen, Keyset, event_of
from door.ui.canvas import WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Pop,
    Push,
    Screen,
    Transition,
    clean,
    draw_chrome,
)
from door.ui.terminal import InputEvent
from door.ui.widgets import LineEditor, ListView, abbreviate, fit_names, fit_phrases

Which = Literal["invited", "open", "active", "mine", "waiting", "finished"]

TABS: tuple[tuple[Which, str, str], ...] = (
    ("invited", "I", "Invitations"),
    ("open", "O", "Open to join"),
    ("active", "A", "In progress"),
    ("mine", "M", "Mine"),
    ("waiting", "W", "Waiting on me"),
    ("finished", "F", "Finished"),
)
SHORT_LABELS: dict[Which, str] = {"invited": "Invited", "open": "Open", "waiting": "Waiting"}
"""Shorter tab labels, for a screen too narrow for the whole row of long ones."""
TAB_OF_KEY: dict[str, Which] = {key.lower(): which for which, key, _ in TABS}
KEY_OF_TAB: dict[Which, str] = {which: key for key, which in TAB_OF_KEY.items()}


def tab_text(key: str, label: str) -> str:
    """``" I)nvitations "``, ``" A) In progress "``."""
    return f" {key}){label[1:] if label[0] == key else ' ' + label} "


def tab_row(width: int, current: Which | None = None) -> list[tuple[Which, str]]:
    """The tabs' texts: the long labels when the row fits in ``width``, else shorter, else
    only the letters, with the ``current`` tab's label beside its letter."""
    long = [(which, tab_text(key, label)) for which, key, label in TABS]
    if row_width(long) <= width:
        return long
    short = [(which, tab_text(key, SHORT_LABELS.get(which, label))) for which, key, label in TABS]
    if row_width(short) <= width:
        return short
    return [(which, text if which == current else f" {key} ")
            for (which, text), (_, key, _) in zip(short, TABS, strict=True)]  # fmt: skip


def row_width(tabs: list[tuple[Which, str]]) -> int:
    return sum(len(t) + 1 for _, t in tabs) + 1


TAB_STYLE = Style(fg=WHITE)
TAB_ON = Style(fg=YELLOW, bold=True, reverse=True)


@dataclass(frozen=True)
class Columns:
    """A game list's columns for the width it is shown in: at 78 columns and more every
    column whole; narrower, the Position goes first, then the Kind shrinks to its letter
    (and a finished list's Ago goes), so the players' names keep their room."""

    kind: int
    """The Kind column's width: 11, or 1 (its first letter)."""
    players: int
    ago: bool
    last: int
    """The room of the last column (Position or Result); 0 when it is not shown."""

    @classmethod
    def fit(cls, width: int, finished: bool) -> Columns:
        if width >= FULL_WIDTH:
            return cls(11, 26, True, 26) if finished else cls(11, 30, True, 17)
        if finished:
            kind = 11 if width >= 64 else 1
            ago = width >= 50
            rest = width - 7 - (kind + 1) - (6 if ago else 0) - 2
            return cls(kind, (rest + 1) // 2, ago, rest // 2)
        kind = 11 if width - 29 >= 24 else 1
        players = min(30, width - 18 - kind)  # Game, Kind, Ago, Due and gaps: 18 + kind
        last = width - 18 - kind - players - 2
        return cls(kind, players, True, last if last >= 8 else 0)

    def head(self, finished: bool) -> str:
        kind = "Kind" if self.kind > 1 else "K"
        players = "Players" if finished or self.players < 20 else "Players (*: to move)"
        text = f"{'Game':<6} {kind:<{self.kind}} {players:<{self.players}}"
        if finished:
            text += f" {'Ago':>4}" if self.ago else ""
            return text + "  Result"
        return text + f" {'Ago':>4} {'Due':>4}" + ("  Position" if self.last else "")


FULL_WIDTH = 78
"""The list width at which every column is shown whole."""


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


def seat_names(info: Any, room: int = 30) -> str:
    """The players of a game in ``room`` columns, "(open)" for a free seat and ``*``
    before the one to move."""
    names = []
    for seat in info.seats:
        if seat.kind == "open":
            names.append("(open)")
        else:
            mark = "*" if info.status == "active" and seat.seat == info.to_act else ""
            names.append(mark + clean(seat.name or "?"))
    return fit_names(names, room)


def result_text(info: Any, room: int = 22) -> str:
    """How a finished game ended, for its list row: "alice won 2 pts (gammon)" (in
    ``room`` columns: the winner's name is abbreviated before the result is cut)."""
    text, who = _result(info)
    if len(text) > room and who:
        rest = text[len(who) :]
        text = abbreviate(who, max(room - len(rest), 6)) + rest
    return clip_text(text, room)


def _result(info: Any) -> tuple[str, str]:
    """(the result, the winners' part at its start)."""
    outcome = info.outcome
    if outcome is None:
        return ("abandoned" if info.status == "abandoned" else "-"), ""
    names = {s.seat: clean(s.name or "?") for s in info.seats}
    if not outcome.winners:
        return "a draw", ""
    who = " & ".join(names.get(w, "?") for w in outcome.winners)
    verb = "tied" if len(outcome.winners) > 1 else "won"
    extra = outcome.extra or {}
    if info.kind == "backgammon":
        pts = int(extra.get("points", 0) or 0)
        text = f"{who} {verb} {pts} pt{'s' if pts != 1 else ''}"
        value = {2: "gammon", 3: "backgammon"}.get(int(extra.get("game_value", 1) or 1))
        how = {"resign": "resigned", "drop": "dropped", "timeout": "on time",
               "forfeit": "forfeit"}.get(outcome.reason)  # fmt: skip
        note = how or value  # the room fits one
        return text + (f" ({note})" if note else ""), who
    w = outcome.winners[0]
    score = outcome.scores[w] if w < len(outcome.scores) else None
    how = {"resign": " (resigned)", "timeout": " (on time)"}.get(outcome.reason, "")
    return f"{who} {verb}" + (f" {score}" if score is not None else "") + how, who


def screen_for_game(info: Any, ctx: Context) -> Screen:
    """The screen that shows game ``info`` to this user: play it if they sit in it,
    watch it otherwise, replay it when it is over. A :class:`Refusal` if it cannot show."""
    from door.ui.screens import open_game

    seated = ctx.user is not None and info.seat_of(ctx.user.id) is not None
    over = info.status in ("finished", "abandoned")
    return open_game(info.kind, info.id, spectator=not seated, replay=over)


class GameListScreen(KeyedScreen):
    """One list at a time, switched with O/A/M/W/F or ←/→; Enter opens the highlighted
    game (joining it when it is open), L leaves an open game you sit in."""

    def __init__(self, which: Which = "active", kind: str | None = None) -> None:
        self.which: Which = which
        self.kind = kind
        self.kind_titles: dict[str, str] = {}
        self.view: ListView[Any] = ListView(page_size=14)
        self.now: datetime | None = None
        self.uid: int | None = None
        self.joining: Any = None
        """The open game whose dice word is being asked for (None: not asking)."""
        self.word_editor = LineEditor("", max_len=fairdice.WORD_MAX)

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.joining is not None:
            return "Type a word, or nothing; Enter joins · Esc: not now"
        return self.keys.key_help(self)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.joining is None:
            return await self.keys.dispatch(self, ctx, event)
        result = self.word_editor.handle(event)
        if result == "cancel":
            self.joining = None
            return None
        if result != "submit":
            return None
        info, self.joining = self.joining, None
        return await self.join(info, self.word_editor.text.strip(), ctx)

    def is_finished_list(self) -> bool:
        return self.which == "finished"

    def is_invitation(self, info: Any) -> bool:
        """True when ``info`` is an open game with a seat kept for this player."""
        return info is not None and info.status == "open" and any(
            s.kind == "reserved" and s.user_id == self.uid for s in info.seats
        )

    def can_decline(self) -> bool:
        return self.which in ("invited", "mine")

    @property
    def title(self) -> str:  # type: ignore[override]
        kind = f" ({self.kind_titles.get(self.kind, self.kind)})" if self.kind else ""
        return f"door — Games: {dict((w, t) for w, _, t in TABS)[self.which]}{kind}"

    async def load(self, ctx: Context, offset: int | None = None) -> None:
        self.view.page_size = max(ctx.caps.height - 10, 3)
        offset = self.view.offset if offset is None else offset
        uid = ctx.user.id if ctx.user else None
        self.uid = uid
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
        if notice.kind == "invited" and self.uid in notice.user_ids:
            ctx.status(f"{clean(notice.text)} — I shows your invitations")
        return None

    async def switch(self, which: Which, ctx: Context) -> None:
        self.which = which
        self.view.selected = 0
        await self.load(ctx, 0)

    # --- what the keys do (the key table's handlers) ---------------------------------
    async def show_list(self, ctx: Context, key: str) -> None:
        await self.switch(TAB_OF_KEY[key], ctx)

    async def next_list(self, ctx: Context, key: str) -> None:
        order = [w for w, _, _ in TABS]
        step = 1 if key == "right" else -1
        await self.switch(order[(order.index(self.which) + step) % len(order)], ctx)

    async def next_kind(self, ctx: Context, key: str) -> None:
        """All games, then each kind in turn."""
        kinds: list[str | None] = [None, *self.kind_titles]
        self.kind = kinds[(kinds.index(self.kind) + 1) % len(kinds)]
        self.view.selected = 0
        await self.load(ctx, 0)

    async def leave_key(self, ctx: Context, key: str) -> Transition | None:
        return await self.leave(ctx)

    async def decline_key(self, ctx: Context, key: str) -> Transition | None:
        return await self.decline(ctx)

    def review_key(self, ctx: Context, key: str) -> Transition | None:
        return self.review(ctx)

    def back(self, ctx: Context, key: str) -> Transition:
        return Pop()

    async def on_list_key(self, ctx: Context, key: str) -> Transition | None:
        """Keys of the list itself (the bar, its pages, Enter)."""
        action = self.view.handle(event_of(key))
        if action is None:
            return None
        if action.kind == "page":
            await self.load(ctx, action.offset)
            return None
        return await self.open(action.item, ctx)

    # fmt: off
    keys = Keyset(
        [
            Binding(tuple(k.lower() for _, k, _ in TABS), "I O A M W F: lists",
                    "I O A M W F: which list", show_list),
            Binding(("left", "right"), "", "Left/Right: the next list", next_list),
            Binding((), "Enter: accept", "", when=lambda s: s.which == "invited"),
            Binding((), "Up/Down Enter: open", "",
                    when=lambda s: s.which not in ("finished", "invited")),
            Binding((), "Enter: replay", "", when=is_finished_list),
            Binding((), "N)ext P)rev", ""),
            Binding(("k",), "K)ind", "K: one kind of game, then the next", next_kind),
            Binding(("d",), "D)ecline", "D: decline an invitation (the game is cancelled)",
                    decline_key, when=can_decline, shown=lambda s: s.which == "invited"),
            Binding(("l",), "L)eave", "L: leave an open game you sit in", leave_key,
                    shown=lambda s: s.which not in ("finished", "invited")),
            Binding(("r",), "R)eview", "R: the review of a finished game", review_key,
                    shown=is_finished_list),
            Binding(("q", "escape"), "Q)uit", "Q or Esc: back", back),
        ],
        fallback=on_list_key,
        sep=" · ",
        roomy=False,
    )
    # fmt: on

    async def open(self, info: Any, ctx: Context) -> Transition | None:
        if info is None or ctx.user is None:
            return None
        uid = ctx.user.id
        if info.status == "open":
            if info.seat_of(uid) is not None:
                ctx.status(f"Game #{info.id} still waits for players. L)eave gives your seat back.")
                return None
            # first the dice word (see the module docstring), then :meth:`join`
            self.joining = info
            self.word_editor = LineEditor("", max_len=fairdice.WORD_MAX)
            return None
        return Push(screen_for_game(info, ctx))

    async def join(self, info: Any, dice_word: str, ctx: Context) -> Transition | None:
        """Take a seat in the open game ``info`` with ``dice_word``; its board once it
        has begun."""
        if ctx.user is None:
            return None
        uid = ctx.user.id
        games = ctx.services.games
        if info.status == "open":
            invited = self.is_invitation(info)
            info = await games.join(info.id, uid, dice_word=dice_word)
            if invited:
                ctx.status(f"You accepted the invitation to game #{info.id}.")
            if info.status != "active":
                if invited:
                    ctx.status(
                        f"You accepted game #{info.id}; it starts when every seat is taken."
                    )
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

    async def decline(self, ctx: Context) -> Transition | None:
        """D)ecline the highlighted invitation: the game is cancelled."""
        info = self.view.current
        if info is None or ctx.user is None:
            return None
        if not self.is_invitation(info):
            ctx.status("D)ecline is for an invitation: I lists yours.")
            return None
        await ctx.services.games.decline(info.id, ctx.user.id)
        ctx.status(f"You declined game #{info.id}; it is cancelled.")
        await self.load(ctx)
        return None

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
    def row(self, info: Any, cols: Columns) -> str:
        now = self.now or info.updated_at
        ago_text = f"{ago(info.updated_at, now):>4}"
        kind = f"#{info.id:<5} {clean(info.title, cols.kind):<{cols.kind}}"
        if self.is_finished_list():  # a narrower Players column leaves room for the Result
            ago_part = f" {ago_text}" if cols.ago else ""
            return (
                f"{kind} {seat_names(info, cols.players):<{cols.players}}{ago_part}  "
                f"{result_text(info, cols.last)}"
            )
        head = f"{kind} {seat_names(info, cols.players):<{cols.players}} "
        deadline = "-"
        if info.status == "active" and info.deadline is not None:
            deadline = short_span(info.deadline - now)
        if not cols.last:
            return f"{head}{ago_text} {deadline:>4}"
        summary = clean(info.summary)
        if getattr(info, "tournament", None):  # a tournament game says so
            summary = f"T: {clean(info.tournament)}; {summary}"
        if self.is_invitation(info):  # the host is in Players; the column says what it is
            summary = "you, invited"
        return f"{head}{ago_text} {deadline:>4}  {fit_phrases(summary, cols.last)}"

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        width = min(canvas.width, ctx.caps.width)  # what the terminal shows of the layout
        cols = Columns.fit(width - 2, self.is_finished_list())
        x = 1
        for which, text in tab_row(width, self.which):
            style = TAB_ON if which == self.which else TAB_STYLE
            start, x = x, canvas.put(x, 2, text, style)
            canvas.clickable(start, 2, x - start, 1, KEY_OF_TAB[which])  # as its letter
            x += 1
        header = cols.head(self.is_finished_list())
        empty = {
            "invited": "No invitations. A game someone begins naming you shows here.",
            "open": "No game is waiting for players. B)egin one from the main menu.",
            "active": "No games in progress.",
            "mine": "You are in no games yet.",
            "waiting": "No game is waiting for your move.",
            "finished": "No finished games yet.",
        }[self.which]
        self.view.render(canvas, 1, 4, width - 2, header, lambda i: self.row(i, cols), empty)
        if self.joining is not None:
            y = canvas.height - 3
            prompt = f"Game #{self.joining.id}: Dice word (optional, Enter for none): "
            if len(prompt) + 10 > canvas.width - 2:
                prompt = "Dice word (optional, Enter for none): "
            canvas.put(1, y, clip_text(prompt, canvas.width - 2), HEADING_STYLE)
            room = canvas.width - 2 - len(prompt)
            if room >= 4:
                self.word_editor.render(canvas, 1 + len(prompt), y, min(room, 33))
            canvas.prompt = y
