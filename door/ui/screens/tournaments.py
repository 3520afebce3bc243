"""T)ournaments: open for entry, running, finished (with the roll of honour); one
tournament's page — enter or withdraw, its knock-out bracket, its standings or its
ladder — a screenful at a time (N/P page through what does not fit 80×24)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from door.ui.bindings import Binding, KeyedScreen, Keyset, event_of
from door.ui.canvas import CYAN, GREEN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import Context, Pop, Push, Transition, clean, draw_chrome
from door.ui.widgets import ListView

if TYPE_CHECKING:
    from door.services.tournaments.service import TournamentView
    from door.store.records import TournamentRecord

TAB_STYLE = Style(fg=WHITE)
TAB_ON = Style(fg=GREEN, bold=True, reverse=True)
NOTE_STYLE = Style(fg=CYAN)
WIN_STYLE = Style(fg=YELLOW, bold=True)
LINE_STYLE = Style(fg=WHITE)
ME_STYLE = Style(fg=GREEN, bold=True)
TABS = (("open", "Open for entry"), ("running", "Running"), ("finished", "Finished"))


def describe(t: TournamentRecord) -> str:
    """One line for a tournament in a list."""
    o = t.options
    found = o.get("game")
    game = found if isinstance(found, dict) else {}
    terms = (
        f"{game.get('match_length')}-pt"
        if t.kind == "backgammon"
        else (f"{o.get('table_size', 2)} a table")
    )
    return f"#{t.id:<5} {clean(t.name, 28):<28} {t.format:<10} {t.kind:<11} {terms:<10} {t.size:>4}"


class TournamentsScreen(KeyedScreen):
    """The three lists (1 2 3 or ←/→ switch); Enter opens a tournament."""

    title = "door — Tournaments"

    def __init__(self) -> None:
        self.tab = 0
        self.view: ListView[Any] = ListView(page_size=12)
        self.honour: list[str] = []

    async def load(self, ctx: Context, offset: int = 0) -> None:
        tours = ctx.services.tournaments
        if tours is None:
            return
        self.view.page_size = max(ctx.caps.height - 12, 3)
        rows = await tours.listing((TABS[self.tab][0],))
        size = self.view.page_size
        self.view.set_page(rows[offset : offset + size], len(rows), offset)
        if TABS[self.tab][0] == "finished":
            self.honour = []
            for t in rows[:5]:
                if t.winner_id is not None:
                    view = await tours.show(t.id)
                    self.honour.append(f"{clean(t.name, 30)}: {clean(view.winner_name or '?', 20)}")

    async def on_enter(self, ctx: Context) -> None:
        await self.load(ctx)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        await self.load(ctx)
        return None

    async def pick_tab(self, ctx: Context, key: str) -> None:
        self.tab = (int(key) - 1) % len(TABS)
        await self.load(ctx)

    async def next_tab(self, ctx: Context, key: str) -> None:
        self.tab = (self.tab + (1 if key == "right" else -1)) % len(TABS)
        await self.load(ctx)

    def back(self, ctx: Context, key: str) -> Transition:
        return Pop()

    async def on_list_key(self, ctx: Context, key: str) -> Transition | None:
        action = self.view.handle(event_of(key))
        if action is not None and action.kind == "open" and action.item is not None:
            return Push(TournamentScreen(action.item.id))
        if action is not None and action.kind == "page":
            await self.load(ctx, action.offset)
        return None

    # fmt: off
    keys = Keyset(
        [
            Binding(("1", "2", "3"), "1 2 3: which list", "1 2 3: open, running, finished",
                    pick_tab),
            Binding(("left", "right"), "Left/Right: next list", "Left/Right: the next list",
                    next_tab),
            Binding((), "Enter: open", ""),
            Binding(("q", "escape"), "Q)uit to the menu", "Q or Esc: back to the menu", back),
        ],
        fallback=on_list_key,
        sep=" · ",
        roomy=False,
    )
    # fmt: on

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        x = 1
        for i, (_, title) in enumerate(TABS):
            x = canvas.put(x, 2, f" {i + 1}) {title} ", TAB_ON if i == self.tab else TAB_STYLE) + 1
        header = f"{'Id':<6} {'Name':<28} {'Format':<10} {'Game':<11} {'Terms':<10} {'Size':>4}"
        self.view.render(canvas, 1, 4, canvas.width - 2, header, describe,
                         "No tournaments here just now.")  # fmt: skip
        if self.honour:
            y = canvas.height - 4 - len(self.honour)
            canvas.put(2, y, "Roll of honour", WIN_STYLE)
            for i, line in enumerate(self.honour):
                canvas.put(4, y + 1 + i, clip_text(line, canvas.width - 6), WIN_STYLE)


def bracket_lines(view: TournamentView) -> list[str]:
    """The knock-out bracket as text, one round after another (each match on a line:
    the winner marked ``>``), so it pages down a narrow screen."""
    out: list[str] = []
    by_round: dict[int, list[Any]] = {}
    for tab in view.tables:
        by_round.setdefault(tab.round_no, []).append(tab)
    from door.services.tournaments.service import placing_of

    for r in sorted(by_round):
        left = len(by_round[r])
        out.append(
            f"Round {r}" + (" (final)" if left == 1 and len(by_round[r][0].seats) > 1 else "")
        )
        for tab in by_round[r]:
            names = [clean(view.name_of(u), 18) for u in tab.seats]
            if len(names) == 1:
                out.append(f"  {names[0]:<18}  (bye)")
                continue
            placing = placing_of(tab)
            win = placing[0] if placing else None
            marked = [(">" if u == win else " ") + n for u, n in zip(tab.seats, names, strict=True)]
            state = "" if placing else f"  game #{tab.game_id} playing"
            out.append(f"  {marked[0]:<19} v {marked[1]:<19}{state}")
    return out


def standings_lines(view: TournamentView) -> list[str]:
    rule = ""
    head = f"{'#':>4}  {'Player':<20} {'Points':>6} {'Played':>6} {'Won':>4}  Tie-breaks"
    if view.record.format == "ladder":
        head = f"{'Place':>5}  Player"
        return [head] + [
            f"{s.rank:>5}  {clean(view.name_of(s.user_id), 24)}" for s in view.standings
        ]
    lines = [head]
    for s in view.standings:
        tb = " ".join(f"{t:g}" for t in s.tiebreaks)
        lines.append(
            f"{s.rank:>4}  {clean(view.name_of(s.user_id), 20):<20} {s.points:>6g} {s.played:>6} "
            f"{s.won:>4}  {tb}"
        )
    return lines + ([rule] if rule else [])


class TournamentScreen(KeyedScreen):
    """One tournament: E)nter, W)ithdraw, and its bracket or table, N/P to page."""

    def __init__(self, tid: int) -> None:
        self.tid = tid
        self.view: Any = None
        self.top = 0
        self.message = ""
        self.sysop = False

    @property
    def title(self) -> str:  # type: ignore[override]
        name = clean(self.view.record.name, 40) if self.view is not None else ""
        return f"door — Tournament #{self.tid} {name}".rstrip()

    async def load(self, ctx: Context) -> None:
        tours = ctx.services.tournaments
        if tours is not None:
            self.view = await tours.show(self.tid)

    async def on_enter(self, ctx: Context) -> None:
        self.sysop = ctx.user is not None and ctx.user.is_sysop
        await self.load(ctx)

    def lines(self) -> list[str]:
        v = self.view
        if v is None:
            return []
        r = v.record
        out = [
            f"{r.format} of {r.kind}, {r.status}; {sum(1 for e in v.entries if not e.withdrawn)}"
            f" of {r.size} entered"
            + (f"; won by {clean(v.winner_name or '', 20)}" if v.winner_name else ""),
        ]
        if r.note:
            out.append(clean(r.note, 76))
        out.append("")
        if r.format == "knockout" and v.tables:
            out += bracket_lines(v)
        elif v.standings:
            out += standings_lines(v)
        else:
            out += ["Entered:"] + [
                f"  {clean(e.user_name, 24)}" for e in v.entries if not e.withdrawn
            ]
        return out

    async def do_enter(self, ctx: Context, key: str) -> None:
        await self._act(ctx, "enter")

    async def do_withdraw(self, ctx: Context, key: str) -> None:
        await self._act(ctx, "withdraw")

    async def _act(self, ctx: Context, what: str) -> None:
        tours = ctx.services.tournaments
        if tours is None or ctx.user is None:
            return
        from door.services.games import LobbyError
        from door.services.tournaments.service import TournamentError

        try:
            if what == "enter":
                await tours.enter(self.tid, ctx.user.id)
                self.message = "You are entered."
            else:
                await tours.withdraw(self.tid, ctx.user.id)
                self.message = "You are out of it."
        except (TournamentError, LobbyError) as exc:
            self.message = str(exc)
        ctx.status(self.message)
        await self.load(ctx)

    async def do_cancel(self, ctx: Context, key: str) -> None:
        """A sysop cancels the tournament (the sysop's console for it)."""
        tours = ctx.services.tournaments
        if tours is None or ctx.user is None or not ctx.user.is_sysop:
            return
        from door.services.tournaments.service import TournamentError

        try:
            await tours.cancel(self.tid, f"cancelled by {ctx.user.name}")
            self.message = "Cancelled."
        except TournamentError as exc:
            self.message = str(exc)
        ctx.status(self.message)
        await self.load(ctx)

    def page(self, ctx: Context, key: str) -> None:
        room = max(ctx.caps.height - 6, 4)
        if key in ("n", "pagedown", "down"):
            self.top = min(
                self.top + (room if key != "down" else 1), max(len(self.lines()) - room, 0)
            )
        else:
            self.top = max(self.top - (room if key != "up" else 1), 0)

    def back(self, ctx: Context, key: str) -> Transition:
        return Pop()

    # fmt: off
    keys = Keyset(
        [
            Binding(("e",), "E)nter", "E: enter this tournament", do_enter),
            Binding(("w",), "W)ithdraw", "W: withdraw (a running one: forfeit the rest)",
                    do_withdraw),
            Binding(("x",), "X)cancel", "X: cancel this tournament (sysops)", do_cancel,
                    when=lambda s: s.sysop),
            Binding(("n", "p", "pagedown", "pageup", "up", "down"), "N)ext P)rev page",
                    "N P Up Down: page through", page),
            Binding(("q", "escape"), "Q)uit", "Q or Esc: back", back),
        ],
        sep=" · ",
        roomy=False,
    )
    # fmt: on

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        room = max(canvas.height - 6, 4)
        lines = self.lines()
        me = ctx.user.name if ctx.user is not None else None
        for i, line in enumerate(lines[self.top : self.top + room]):
            style = ME_STYLE if me and me in line else LINE_STYLE
            canvas.put(2, 2 + i, clip_text(line, canvas.width - 4), style)
        if len(lines) > room:
            canvas.put(2, 2 + room, f"({self.top + 1}-{min(self.top + room, len(lines))} of "
                       f"{len(lines)} lines: N/P)", NOTE_STYLE)  # fmt: skip
