"""T)ournaments: open for entry, running, finished (with the roll of honour); one
tournament's page — enter or withdraw, its knock-out bracket, its standings or its
ladder — a screenful at a time (N/P page through what does not fit 80×24)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from door.ui.bindings import Binding, KeyedScreen, Keyset, event_of
from door.ui.canvas import CYAN, GREEN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Pop,
    Push,
    Screen,
    Transition,
    clean,
    draw_chrome,
    help_layout,
)
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import LineEditor, ListView, Menu, MenuItem

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
SHORT_TAB = {"open": "Open"}
"""A tab's shorter label, for a screen too narrow for the row of long ones."""


LIST_WIDTH = 74
"""A tournament's list row with every column whole."""
LIST_COLUMNS = (("Format", 10), ("Game", 11), ("Terms", 10))
"""The columns between Name and Size, the last left out first when the row is narrow."""
NAME_MIN = 14
"""The Name column's narrowest before a column goes."""


def list_columns(width: int) -> tuple[int, int]:
    """(the Name column's width, how many of :data:`LIST_COLUMNS` are shown) in ``width``:
    the name shrinks from 28 to :data:`NAME_MIN`, then the columns go from the right."""
    shown = len(LIST_COLUMNS)
    while True:
        rest = sum(w + 1 for _, w in LIST_COLUMNS[:shown])
        name = min(28, width - 7 - 1 - rest - 4)  # Id, Name, the columns, Size
        if name >= NAME_MIN or shown == 0:
            return max(name, 4), shown
        shown -= 1


def describe(t: TournamentRecord, width: int = LIST_WIDTH) -> str:
    """One line for a tournament in a list ``width`` columns wide."""
    o = t.options
    found = o.get("game")
    game = found if isinstance(found, dict) else {}
    terms = (
        f"{game.get('match_length')}-pt"
        if t.kind == "backgammon"
        else (f"{o.get('table_size', 2)} a table")
    )
    name, shown = list_columns(width)
    values = (t.format, t.kind, terms)
    middle = "".join(f"{v:<{w}} " for v, (_, w) in zip(values[:shown], LIST_COLUMNS, strict=False))
    return f"#{t.id:<5} {clean(t.name, name):<{name}} {middle}{t.size:>4}"


def list_header(width: int = LIST_WIDTH) -> str:
    """The column heads for :func:`describe` at ``width``."""
    name, shown = list_columns(width)
    middle = "".join(f"{h:<{w}} " for h, w in LIST_COLUMNS[:shown])
    return f"{'Id':<6} {'Name':<{name}} {middle}{'Size':>4}"


class TournamentsScreen(KeyedScreen):
    """The three lists (1 2 3 or ←/→ switch); Enter opens a tournament; C)reate opens
    the form for a new one, for sysops and, with ``[tournaments] players_may_create``,
    for everyone."""

    title = "door — Tournaments"

    def __init__(self) -> None:
        self.tab = 0
        self.view: ListView[Any] = ListView(page_size=12)
        self.honour: list[str] = []
        self.may_create = False

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
        tours = ctx.services.tournaments
        self.may_create = (
            tours is not None
            and ctx.user is not None
            and (ctx.user.is_sysop or tours.players_may_create)
        )
        await self.load(ctx)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        if isinstance(result, int):
            self.tab = 0  # a tournament just created: it is open for entry
        await self.load(ctx)
        return None

    def create(self, ctx: Context, key: str) -> Transition:
        return Push(TournamentForm())

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
            Binding(("c",), "C)reate", "C: create a tournament", create,
                    when=lambda s: s.may_create),
            Binding(("q", "escape"), "Q)uit to the menu", "Q or Esc: back to the menu", back),
        ],
        fallback=on_list_key,
        sep=" · ",
        roomy=False,
    )
    # fmt: on

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        width = min(canvas.width, ctx.caps.width) - 2  # what the terminal shows
        labels = [title for _, title in TABS]
        if sum(len(t) + 6 for t in labels) > width:
            labels = [SHORT_TAB.get(which, title) for which, title in TABS]
        x = 1
        for i, title in enumerate(labels):
            x = canvas.put(x, 2, f" {i + 1}) {title} ", TAB_ON if i == self.tab else TAB_STYLE) + 1
        self.view.render(canvas, 1, 4, width, list_header(width), lambda t: describe(t, width),
                         "No tournaments here just now.")  # fmt: skip
        if self.honour:
            y = canvas.height - 4 - len(self.honour)
            canvas.put(2, y, "Roll of honour", WIN_STYLE)
            for i, line in enumerate(self.honour):
                canvas.put(4, y + 1 + i, clip_text(line, width - 4), WIN_STYLE)


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
        from door.services.tournaments.service import clock_of, clock_text

        out.append(f"Clock: {clock_text(clock_of(r))}")
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


# --- creating and changing tournaments: the form, and the sysop's list ---------------------

FORMAT_TITLES = (
    ("knockout", "Knock-out"), ("roundrobin", "Round-robin"), ("swiss", "Swiss"),
    ("ladder", "Ladder"),
)  # fmt: skip
MATCH_LENGTHS = (1, 3, 5, 7, 9, 11)
SWISS_ROUNDS = (3, 4, 5, 6, 7, 9)
START_PROMPT = "Starts at, UTC (YYYY-MM-DD HH:MM; Enter alone: when full): "
SHORT_PROMPTS = {"size": "Size: ", "start": "Starts at (UTC): "}
"""The prompts typed on the field's own row of the compact form."""
START_HELP = "YYYY-MM-DD HH:MM, then Enter · Enter alone: when full · Esc cancels"


def _days(n: int) -> str:
    return "none" if not n else f"{n} day" + ("s" if n != 1 else "")


def _hours(h: int) -> str:
    return f"{h} hours" if h < 72 else f"{h / 24:g} days"


class TournamentForm(Screen):
    """A short form: a new tournament (``tid`` None) or one not started yet changed.

    A letter steps a line to its next value (the game, the format, the match length,
    players per table, Swiss rounds, the computer players filling it, the clock — time
    per move, bank, weekends off — as the Begin screen offers them) or opens a line to
    type in (the name, the size, the start time); C)reate or A)pply does it through the
    tournament service, which checks everything again (and who may create)."""

    def __init__(self, tid: int | None = None) -> None:
        self.tid = tid
        self.kinds: list[tuple[str, str]] = []
        self.kind = "backgammon"
        self.fmt = "knockout"
        self.name = ""
        self.size = 8
        self.match_length = 1
        self.table_size = 2
        self.rounds = 5
        self.bots: str | None = None
        self.deadline_hours = 168
        self.bank_days = 0
        self.weekends_off = False
        self.starts_at: datetime | None = None
        self.menu = Menu([])
        self.editing: str | None = None
        self.prompt_text = ""
        self.editor = LineEditor(max_len=60)
        self.compact = False
        """The terminal has too few rows for the heading, every field, the C)reate and
        Q)uit lines and a prompt under them (issue 16: from 40×15 up, every field and the
        key line in sight): the fields start under the title, C and Q are on the key line
        only, a line is typed on its field's own row."""
        self.narrow = False
        """Under 50 columns: the long labels are shortened to keep their values in sight."""

    @property
    def title(self) -> str:  # type: ignore[override]
        if self.tid is None:
            return "door — New tournament"
        return f"door — Change tournament #{self.tid}"

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.editing == "start":
            return START_HELP
        if self.editing is not None:
            return "Type, then Enter to accept · Esc cancels"
        done = "C)reate it" if self.tid is None else "A)pply the changes"
        return f"Letter/arrows+Enter change a line · {done} · Q)uit or Esc: back"

    def where(self) -> str:
        return "creating a tournament" if self.tid is None else "changing a tournament"

    async def on_enter(self, ctx: Context) -> None:
        self.kinds = ctx.services.games.kinds()
        self.deadline_hours = ctx.services.games.lobby.default_deadline_hours
        if self.kinds and self.kind not in dict(self.kinds):
            self.kind = self.kinds[0][0]
        tours = ctx.services.tournaments
        if self.tid is not None and tours is not None:
            from door.services.tournaments.service import clock_of

            r = (await tours.show(self.tid)).record
            game = r.options.get("game")
            self.kind, self.fmt, self.name, self.size = r.kind, r.format, r.name, r.size
            if isinstance(game, dict) and isinstance(game.get("match_length"), int):
                self.match_length = int(game["match_length"])  # type: ignore[arg-type]
            self.table_size = int(r.options.get("table_size", 2))  # type: ignore[arg-type]
            clock = clock_of(r)
            self.deadline_hours = clock.move_s // 3600
            self.bank_days = clock.bank_s // 86400
            self.weekends_off = clock.weekends_off
            self.starts_at = r.starts_at
        self.refresh()

    def levels(self, ctx: Context) -> tuple[str, ...]:
        tours = ctx.services.tournaments
        return tuple(tours.bot_levels.get(self.kind, ())) if tours is not None else ()

    def items(self) -> list[MenuItem]:
        new = self.tid is None
        titles = dict(self.kinds)
        out = [MenuItem("N", f"Name: {clean(self.name, 40) or '(none yet)'}", "name")]
        if new:
            out.append(MenuItem("G", f"Game: {clean(titles.get(self.kind, self.kind))}", "game"))
            out.append(MenuItem("F", f"Format: {dict(FORMAT_TITLES)[self.fmt]}", "format"))
        out.append(MenuItem("S", f"Size: {self.size} players", "size"))
        if self.kind == "backgammon":
            points = f"{self.match_length} point" + ("s" if self.match_length != 1 else "")
            out.append(MenuItem("M", f"Match length: {points}", "match"))
        elif new and self.fmt in ("roundrobin", "swiss"):
            out.append(MenuItem("T", f"Players at a table: {self.table_size}", "table"))
        if new and self.fmt == "swiss":
            out.append(MenuItem("O", f"Rounds: {self.rounds}", "rounds"))
        if new:
            bots = clean(self.bots, 24) if self.bots else "no"
            fill = "Computer players" if self.narrow else "Fill with computer players"
            out.append(MenuItem("B", f"{fill}: {bots}", "bots"))
        out.append(MenuItem("D", f"Time for each move: {_hours(self.deadline_hours)}", "move"))
        out.append(MenuItem("R", f"Time bank (reserve): {_days(self.bank_days)}", "bank"))
        weekends = "yes" if self.weekends_off else "no"
        out.append(MenuItem("P", f"Pause the clock at weekends: {weekends}", "weekends"))
        start = "when full" if self.starts_at is None else f"{self.starts_at:%Y-%m-%d %H:%M} UTC"
        out.append(MenuItem("W", f"Starts: {start}", "start"))
        if not self.compact:
            out.extend(self.actions())
        return out

    def actions(self) -> list[MenuItem]:
        """C)reate (or A)pply) and Q)uit: menu lines, and always keys."""
        new = self.tid is None
        return [MenuItem("C" if new else "A", "Create it" if new else "Apply the changes",
                         "done"), MenuItem("Q", "Back", "back")]  # fmt: skip

    def refresh(self) -> None:
        items = self.items()
        was = self.menu.items[self.menu.selected].action if self.menu.items else None
        self.menu = Menu(items, self.menu.selected)
        if was is not None:
            self.menu.select_action(was)

    def fit_to(self, ctx: Context) -> None:
        """Lay out for the terminal's size (see :attr:`compact`)."""
        width, height = ctx.caps.width, ctx.caps.height
        self.narrow, self.compact = width < 50, False
        lines = len(self.items())  # as laid out in full, C and Q included
        body = height - 2 - len(help_layout(ctx, self.key_help, width))
        self.compact = 3 + lines + 2 > body  # blank, heading, the lines, a gap, the prompt
        self.refresh()

    def ask(self, what: str, prompt_text: str, *, digits: bool = False) -> None:
        self.editing = what
        self.prompt_text = prompt_text
        if digits:
            self.editor = LineEditor("", max_len=4, allowed=str.isdigit)
        else:
            self.editor = LineEditor(self.name if what == "name" else "", max_len=60)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.editing is not None:
            return self.on_edit(event, ctx)
        if isinstance(event, Key) and event.name == "escape":
            return Pop()
        item = self.menu.handle(event)
        if item is None and isinstance(event, Text):  # C and Q off the compact form's menu
            key = event.text.strip()[:1].lower()
            item = next((i for i in self.actions() if i.key.lower() == key), None)
        if item is None:
            return None
        result = await self.change(str(item.action), ctx)
        self.refresh()
        return result

    async def change(self, what: str, ctx: Context) -> Transition | None:
        if what == "back":
            return Pop()
        if what == "done":
            return await self.save(ctx)
        if what == "name":
            self.ask("name", "Name: ")
        elif what == "size":
            self.ask("size", "Size (players): ", digits=True)
        elif what == "start":
            self.ask("start", START_PROMPT)
        elif what == "game":
            kinds = [k for k, _ in self.kinds]
            self.kind = kinds[(kinds.index(self.kind) + 1) % len(kinds)] if kinds else self.kind
            self.table_size = 2 if self.kind == "backgammon" else 3
            self.bots = None
            self.fit(ctx)
        elif what == "format":
            names = [f for f, _ in FORMAT_TITLES]
            self.fmt = names[(names.index(self.fmt) + 1) % len(names)]
            self.fit(ctx)
        elif what == "match":
            self.match_length = _next(MATCH_LENGTHS, self.match_length)
        elif what == "table":
            rules = ctx.services.games.rules_for(self.kind)
            self.table_size = _next(tuple(range(2, rules.max_seats + 1)), self.table_size)
        elif what == "rounds":
            self.rounds = _next(SWISS_ROUNDS, self.rounds)
        elif what == "bots":
            levels: tuple[str | None, ...] = (None, *self.levels(ctx))
            self.bots = _next(levels, self.bots)
        elif what == "move":
            from door.ui.screens.begin import DEADLINES

            self.deadline_hours = _next(DEADLINES, self.deadline_hours)
        elif what == "bank":
            from door.ui.screens.begin import BANK_DAYS

            self.bank_days = _next(BANK_DAYS, self.bank_days)
        elif what == "weekends":
            self.weekends_off = not self.weekends_off
        return None

    def fit(self, ctx: Context) -> None:
        """Keep the table size to what the game and format allow (a knock-out and a
        ladder are two-player; Backgammon always is)."""
        if self.kind == "backgammon" or self.fmt in ("knockout", "ladder"):
            self.table_size = 2
        elif self.table_size == 2:
            self.table_size = 3

    def on_edit(self, event: InputEvent, ctx: Context) -> Transition | None:
        result = self.editor.handle(event)
        if result == "cancel":
            self.editing = None
        elif result == "submit":
            text = self.editor.text.strip()
            what, self.editing = self.editing, None
            if what == "name":
                self.name = text
            elif what == "size" and text:
                self.size = int(text)
            elif what == "start":
                if not text:
                    self.starts_at = None
                else:
                    try:
                        when = datetime.fromisoformat(text)
                    except ValueError:
                        ctx.status("That is no time: write it as 2031-03-01 18:00.")
                        self.editing = what
                        return None
                    self.starts_at = when.replace(tzinfo=UTC) if when.tzinfo is None else when
        self.refresh()
        return None

    async def save(self, ctx: Context) -> Transition | None:
        tours = ctx.services.tournaments
        if tours is None or ctx.user is None:
            return None
        from door.services.games import LobbyError
        from door.services.timecontrol import ClockOptions
        from door.services.tournaments.service import TournamentError

        clock = ClockOptions(self.deadline_hours * 3600, self.bank_days * 86400, self.weekends_off)
        bg = self.kind == "backgammon"
        try:
            if self.tid is None:
                tid = await tours.create(
                    ctx.user.id, self.name, self.kind, self.fmt, self.size,
                    match_length=self.match_length, table_size=self.table_size,
                    rounds=self.rounds if self.fmt == "swiss" else None,
                    starts_at=self.starts_at, fill_with_bots=self.bots, clock=clock,
                )  # fmt: skip
                ctx.status(f"Tournament #{tid} {clean(self.name, 30)} is open for entry.")
                return Pop(tid)
            await tours.edit(
                self.tid, name=self.name, size=self.size, starts_at=self.starts_at,
                clock=clock, match_length=self.match_length if bg else None,
            )  # fmt: skip
            ctx.status(f"Tournament #{self.tid} is changed.")
            return Pop(self.tid)
        except (TournamentError, LobbyError) as exc:
            ctx.status(str(exc))
            return None

    def render(self, canvas: Canvas, ctx: Context) -> None:
        self.fit_to(ctx)
        draw_chrome(canvas, ctx, self.title, self.key_help)
        if self.compact:
            self.render_compact(canvas, ctx)
            return
        heading = "A new tournament" if self.tid is None else "Before it starts"
        canvas.put(2, 2, heading, HEADING_STYLE)
        rows = self.menu.render(canvas, 2, 3, min(canvas.width - 4, 60),
                                clickable=self.editing is None)  # fmt: skip
        if self.editing is not None:
            y = 4 + rows
            x = canvas.put(2, y, clip_text(self.prompt_text, canvas.width - 12), HEADING_STYLE)
            self.editor.render(canvas, x, y, max(min(40, canvas.width - x - 2), 6))

    def render_compact(self, canvas: Canvas, ctx: Context) -> None:
        """Every field from the row under the title, cut to the terminal's width; a line
        being typed takes its field's row."""
        width = min(ctx.caps.width, canvas.width) - 2
        self.menu.render(canvas, 0, 1, min(width, 60), clickable=self.editing is None)
        if self.editing is None:
            return
        row = next((1 + i for i, item in enumerate(self.menu.items)
                    if item.action == self.editing), 1)  # fmt: skip
        prompt = SHORT_PROMPTS.get(self.editing, self.prompt_text)
        canvas.fill(0, row, width + 1, 1, " ")
        x = canvas.put(1, row, clip_text(prompt, width - 8), HEADING_STYLE)
        self.editor.render(canvas, x, row, max(min(40, width - x), 6))


_V = TypeVar("_V")


def _next(values: tuple[_V, ...], value: _V) -> _V:
    """The choice after ``value`` in ``values``, round again to the first."""
    i = values.index(value) if value in values else -1
    return values[(i + 1) % len(values)]


ADMIN_STATUSES = ("open", "template", "running")
ADMIN_HELP = "↑↓ pick · C)reate · E)dit · X) cancel · Enter: open · Q)uit"


class TournamentAdminScreen(Screen):
    """The sysop console's T)ournaments: those open, running and recurring templates,
    newest first; C)reate, E)dit the picked one before its start, X) cancel it (Y/N)."""

    title = "door — Sysop console: tournaments"
    key_help = ADMIN_HELP

    def __init__(self) -> None:
        self.rows: list[TournamentRecord] = []
        self.pick = 0
        self.confirm: TournamentRecord | None = None

    def where(self) -> str:
        return "in the sysop console"

    async def load(self, ctx: Context) -> None:
        tours = ctx.services.tournaments
        if tours is None:
            return
        keep = self.picked()
        self.rows = await tours.listing(ADMIN_STATUSES)
        ids = [r.id for r in self.rows]
        self.pick = ids.index(keep.id) if keep is not None and keep.id in ids else 0

    def picked(self) -> TournamentRecord | None:
        return self.rows[min(self.pick, len(self.rows) - 1)] if self.rows else None

    async def on_enter(self, ctx: Context) -> None:
        await self.load(ctx)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        await self.load(ctx)
        if isinstance(result, int):
            ids = [r.id for r in self.rows]
            self.pick = ids.index(result) if result in ids else self.pick
        return None

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if ctx.user is None or not ctx.user.is_sysop:
            return Pop()
        if self.confirm is not None:
            t, self.confirm = self.confirm, None
            if isinstance(event, Text) and event.text.strip()[:1].lower() == "y":
                await self.cancel(ctx, t)
            else:
                ctx.status(f"Tournament #{t.id} is left as it is.")
            return None
        letter = event.text.strip()[:1].lower() if isinstance(event, Text) else ""
        key = event.name if isinstance(event, Key) else ""
        if letter == "q" or key == "escape":
            return Pop()
        if key in ("up", "down") and self.rows:
            self.pick = max(0, min(self.pick + (1 if key == "down" else -1), len(self.rows) - 1))
            return None
        if letter == "c":
            return Push(TournamentForm())
        picked = self.picked()
        if picked is None:
            if letter in ("e", "x") or key == "enter":
                ctx.status("There is no tournament to pick: C)reate one.")
            return None
        if key == "enter":
            return Push(TournamentScreen(picked.id))
        if letter == "e":
            if picked.status not in ("open", "template"):
                ctx.status(f"Tournament #{picked.id} has started: it can only be cancelled.")
                return None
            return Push(TournamentForm(picked.id))
        if letter == "x":
            self.confirm = picked
        return None

    async def cancel(self, ctx: Context, t: TournamentRecord) -> None:
        tours = ctx.services.tournaments
        if tours is None or ctx.user is None:
            return
        from door.services.tournaments.service import TournamentError

        try:
            await tours.cancel(t.id, f"cancelled by {ctx.user.name}")
            ctx.status(f"Tournament #{t.id} is cancelled.")
        except TournamentError as exc:
            ctx.status(str(exc))
        await self.load(ctx)

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        canvas.put(2, 2, "Tournaments open, running and recurring", HEADING_STYLE)
        width = canvas.width - 4
        head = f"{'Id':<6} {'Status':<9} {'Name':<24} {'Format':<10} {'Game':<11} Size"
        canvas.put(2, 4, clip_text(head, width), NOTE_STYLE)
        prompt_y = canvas.height - 3
        room = max(prompt_y - 6, 1)
        if not self.rows:
            canvas.put(2, 5, "No tournaments open or running: C)reate one.", LINE_STYLE)
        top = max(0, self.pick - room + 1)
        for y, t in enumerate(self.rows[top : top + room], 5):
            on = t is self.rows[self.pick]
            row = (f"#{t.id:<5} {t.status:<9} {clean(t.name, 24):<24} {t.format:<10} "
                   f"{t.kind:<11} {t.size:>4}")  # fmt: skip
            canvas.put(2, y, clip_text(row, width), TAB_ON if on else LINE_STYLE)
            if on:
                canvas.focus = y
        if self.confirm is not None:
            q = f"Cancel tournament #{self.confirm.id} {clean(self.confirm.name, 30)}? (Y/N) "
            canvas.put(2, prompt_y, clip_text(q, width), WIN_STYLE)
            canvas.prompt = prompt_y
