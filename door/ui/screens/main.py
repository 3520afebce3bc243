"""The main menu, after the UltraSoft Backgammon door's: V)iew/join, P)lay, B)egin,
S)ound, I)nstructions, R)ank, A)rchive, M)ail, W)ho, Y)our settings and G)oodbye, under a summary of
what happened since the player last looked."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from door.ui.canvas import CYAN, GREEN, WHITE, YELLOW, Canvas, Style, clip_text, text_width
from door.ui.screen import (
    HEADING_STYLE,
    MIN_SIZE,
    Context,
    Push,
    Screen,
    Transition,
    clean,
    draw_chrome,
)
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import Menu, MenuItem

SUMMARY_STYLE = Style(fg=WHITE)
GAME_STYLE = Style(fg=CYAN)
WELCOME_STYLE = Style(fg=GREEN, bold=True)
INVITE_STYLE = Style(fg=YELLOW, bold=True)
MORE_STYLE = Style(fg=CYAN)

NEWS_KEY = "n"
"""The main menu's key for the whole since-your-last-visit list (not a menu item: the
menu's letters stay where players know them)."""
MENU_FIXED_ROWS = 8
"""Rows of the main menu screen besides the summary and the menu items: the title,
a blank, the welcome line, the blank and heading above the menu, the status and help
lines, and one spare."""


def plural(n: int, word: str, words: str | None = None) -> str:
    """``"1 game"``, ``"3 games"``."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


class MainMenu(Screen):
    """The hub of the door. Reloads its counts whenever it shows again."""

    title = "door — Main Menu"
    key_help = "Press a letter, or arrows and Enter · Ctrl-L redraws · G)oodbye logs off"

    def __init__(self) -> None:
        self.menu = Menu(self._items(0, 0, True))
        self.waiting_total = 0
        self.open_total = 0
        self.invited_total = 0
        self.summary: Any = None
        self.waiting: list[Any] = []
        self.unread_mail = 0

    def where(self) -> str:
        return "in the main menu"

    def _items(
        self, waiting: int, open_games: int, sound: bool, invited: int = 0, unread: int = 0,
        sysop: bool = False,
    ) -> list[MenuItem]:
        """The menu: each item's action is what its key does (``action(self, ctx)``)."""
        if invited:
            view_note = plural(invited, "invitation")
        else:
            view_note = f"{open_games} open" if open_games else ""
        return [
            MenuItem("V", "View games in progress, or join one that needs a player",
                     MainMenu.view_games, note=view_note),
            MenuItem("P", "Play a game where it is your turn", MainMenu.play,
                     note=f"({waiting})"),
            MenuItem("B", "Begin a new game", MainMenu.begin),
            MenuItem("S", f"Sound effects: {'ON' if sound else 'OFF'}", MainMenu.sound),
            MenuItem("I", "Instructions: using door, and the rules of each game",
                     MainMenu.instructions),
            MenuItem("R", "Rank the top players", MainMenu.rank),
            MenuItem("T", "Tournaments: enter one, follow the brackets and tables",
                     MainMenu.tournaments),
            MenuItem("A", "Archive: finished games to search and replay", MainMenu.archive),
            MenuItem("M", "Mail: private messages to and from other players", MainMenu.mail,
                     note=f"({unread} new)" if unread else ""),
            MenuItem("W", "Who is online: see and page the players here now", MainMenu.who),
            MenuItem("Y", "Your settings: charset, colour, password", MainMenu.settings),
            *([MenuItem("!", "Sysop console", MainMenu.sysop)] if sysop else []),
            MenuItem("G", "Goodbye", MainMenu.goodbye),
        ]  # fmt: skip

    async def reload(self, ctx: Context) -> None:
        if ctx.user is None:
            return
        games = ctx.services.games
        uid = ctx.user.id
        # news since the previous session (what its summary told is not told again)
        self.summary = await games.since_last_visit(uid, ctx.previous_login)
        # the summary holds every game waiting on the user, most urgent first
        self.waiting = list(self.summary.waiting)
        self.waiting_total = len(self.waiting)
        _, self.open_total = await games.list_games("open", uid, limit=0)
        self.invited_total = len(getattr(self.summary, "invitations", []))
        self.unread_mail = await ctx.services.mail.unread(uid)
        self.tournament_news = await tournament_news(ctx, uid)
        selected = self.menu.selected
        items = self._items(
            self.waiting_total, self.open_total, ctx.sound, self.invited_total, self.unread_mail,
            ctx.user.is_sysop,
        )
        self.menu = Menu(items, selected)

    async def on_enter(self, ctx: Context) -> None:
        await self.reload(ctx)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        await self.reload(ctx)
        return None

    async def on_notice(self, notice: Any, ctx: Context) -> Transition | None:
        await self.reload(ctx)
        if notice.kind == "your_turn":
            ctx.status(clean(notice.text) or f"Your turn in game #{notice.game_id}.")
        elif notice.kind == "invited":
            ctx.status(f"{clean(notice.text)} — press V to answer")
        return None

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if isinstance(event, Text) and event.text.strip()[:1].lower() == NEWS_KEY:
            return Push(NewsScreen(self.news_lines(ctx)))
        item = self.menu.handle(event)
        if item is None:
            return None
        result: Transition | None = await item.action(self, ctx)
        return result

    # --- what the items do -------------------------------------------------------------
    async def view_games(self, ctx: Context) -> Transition | None:
        from door.ui.screens.lists import GameListScreen

        if self.invited_total:
            return Push(GameListScreen("invited"))
        return Push(GameListScreen("open" if self.open_total else "active"))

    async def play(self, ctx: Context) -> Transition | None:
        from door.ui.screens.lists import GameListScreen, screen_for_game

        if self.waiting_total == 1 and self.waiting:
            return Push(screen_for_game(self.waiting[0], ctx))
        if self.waiting_total == 0:
            ctx.status("No game is waiting for your move. B)egin one, or V)iew to join one.")
            return None
        return Push(GameListScreen("waiting"))

    async def begin(self, ctx: Context) -> Transition | None:
        from door.ui.screens.begin import BeginScreen

        return Push(BeginScreen())

    async def sound(self, ctx: Context) -> Transition | None:
        await toggle_sound(ctx)
        await self.reload(ctx)
        return None

    async def instructions(self, ctx: Context) -> Transition | None:
        from door.ui.screens.instructions import InstructionsScreen

        return Push(InstructionsScreen())

    async def rank(self, ctx: Context) -> Transition | None:
        from door.ui.screens.rank import RankScreen

        return Push(RankScreen())

    async def tournaments(self, ctx: Context) -> Transition | None:
        from door.ui.screens.tournaments import TournamentsScreen

        return Push(TournamentsScreen())

    async def archive(self, ctx: Context) -> Transition | None:
        from door.ui.screens.archive import ArchiveScreen

        return Push(ArchiveScreen())

    async def mail(self, ctx: Context) -> Transition | None:
        from door.ui.screens.mail import InboxScreen

        return Push(InboxScreen())

    async def sysop(self, ctx: Context) -> Transition | None:
        from door.ui.screens.sysop import SysopScreen

        if ctx.user is None or not ctx.user.is_sysop:
            return None
        return Push(SysopScreen())

    async def who(self, ctx: Context) -> Transition | None:
        from door.ui.screens.who import WhoScreen

        return Push(WhoScreen())

    async def settings(self, ctx: Context) -> Transition | None:
        from door.ui.screens.settings import SettingsScreen

        return Push(SettingsScreen())

    async def goodbye(self, ctx: Context) -> Transition | None:
        from door.ui.screens.logoff import LogOffQuestion

        name = clean(ctx.user.name) if ctx.user else "friend"
        return Push(LogOffQuestion(self, f"Goodbye, {name}. Your games will wait for you.\r\n"))

    # --- drawing ---------------------------------------------------------------------
    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        width = canvas.width
        # The welcome and the news fit the terminal's own width: a terminal narrower than
        # the layout sees the layout's rows cut, and the summary must be read whole.
        news_width = min(width, max(ctx.caps.width, MIN_SIZE[0]))
        y = 2
        name = clean(ctx.user.name, 20) if ctx.user else ""
        x = canvas.put(2, y, f"Welcome, {name}!", WELCOME_STYLE)
        last = self.last_visit_text(ctx)
        if last:
            if x + 1 + text_width(last) <= news_width - 1:
                canvas.put(x + 1, y, last, SUMMARY_STYLE)
            else:  # a long name: the figure goes on the next line rather than off the edge
                y += 1
                canvas.put(4, y, clip_text(last, news_width - 5), SUMMARY_STYLE)
        y += 1
        # (y - 3: the rows a long name pushed the last-visit figure down)
        room = max(canvas.height - MENU_FIXED_ROWS - len(self.menu.items) - (y - 3), 2)
        for text, style in self.fitted_lines(ctx, news_width - 6, room):
            canvas.put(4, y, text, style)
            y += 1
        y += 1
        canvas.put(2, y, "Main Menu", HEADING_STYLE)
        y += 1
        self.menu.render(canvas, 2, y, min(news_width - 4, 74))  # the terminal's width

    def last_visit_text(self, ctx: Context) -> str:
        """ "Your last visit was 3d ago." (nothing for a first visit): the previous
        session's login, measured from when this session began, so the figure stays
        the same all session long."""
        from door.ui.screens.lists import short_span

        last = ctx.previous_login
        if last is None:
            return ""
        began = ctx.visit_started or ctx.services.clock.now()
        span = began - last
        if span.total_seconds() < 60:
            return ""
        return f"Your last visit was {short_span(span)} ago."

    def news_lines(self, ctx: Context) -> list[tuple[str, Style]]:
        """The headline and one sentence per game with news (unwrapped)."""
        s = self.summary
        if s is None:
            return [("Since your last visit: (loading)", SUMMARY_STYLE)]
        now = ctx.services.clock.now()
        lines = [(headline(s, self.waiting_total), SUMMARY_STYLE)]
        if self.unread_mail:
            lines.append((f"{ctx.glyphs.bullet} {plural(self.unread_mail, 'new message')}"
                          " — press M to read", INVITE_STYLE))  # fmt: skip
        for item in getattr(s, "news", []):
            style = INVITE_STYLE if item.invited else GAME_STYLE
            lines.append((f"{ctx.glyphs.bullet} {news_sentence(item, now)}", style))
        for text in getattr(self, "tournament_news", []):
            lines.append((f"{ctx.glyphs.bullet} {text}", GAME_STYLE))
        return lines

    def fitted_lines(self, ctx: Context, width: int, room: int) -> list[tuple[str, Style]]:
        """The news wrapped to ``width`` in at most ``room`` rows: whole items while
        they fit, then "…and N more" with the key that shows them all."""
        lines = self.news_lines(ctx)
        head = [(t, lines[0][1]) for t in wrap(lines[0][0], width)]
        items = [[(t, style) for t in wrap(text, width, indent=2)] for text, style in lines[1:]]
        out = head[:room]
        for i, rows in enumerate(items):
            left = len(items) - i
            spare = room - len(out) - len(rows)
            if spare >= (1 if left > 1 else 0):
                out.extend(rows)
                continue
            out = out[: max(room - 1, 0)]
            out.append((more_line(left, ctx), MORE_STYLE))
            break
        return out

async def tournament_news(ctx: Context, user_id: int) -> list[str]:
    """"Your next game in <tournament>: …" for each event ``user_id`` is in."""
    tours = getattr(ctx.services, "tournaments", None)
    if tours is None:
        return []
    from door.services.tournaments.service import placing_of

    out = []
    for view in await tours.entered_by(user_id):
        name = clean(view.record.name, 30)
        mine = [t for t in view.tables if user_id in t.seats and t.game_id is not None]
        live = [t for t in mine if placing_of(t) is None]
        if live:
            others = ", ".join(clean(view.name_of(u), 20) for u in live[0].seats if u != user_id)
            out.append(f"Your next game in {name}: #{live[0].game_id} against {others}")
        elif view.record.status == "open":
            out.append(f"{name} starts when it fills ({len(view.entries)} of {view.record.size})")
    return out


async def toggle_sound(ctx: Context) -> None:
    """Flip the user's sound setting, remember it, and say so."""
    if ctx.user is None:
        return
    user = await ctx.services.accounts.update_settings(ctx.user.id, sound=not ctx.sound)
    ctx.set_user(user)
    ctx.status(f"Sound effects are {'ON' if user.settings.sound else 'OFF'}.")


# --- the since-your-last-visit sentences ------------------------------------------------


def headline(s: Any, waiting: int) -> str:
    """"Since your last visit: 1 invitation · 3 moves made against you · …"."""
    invited = len(getattr(s, "invitations", []))
    finished = list(getattr(s, "finished", []))
    moves = int(getattr(s, "moves_against_you", 0))
    news = list(getattr(s, "news", []))
    if not (invited or moves or finished or waiting or news):
        return "Since your last visit: nothing new. Why not B)egin a game?"
    parts = []
    if invited:
        parts.append(plural(invited, "invitation"))
    if moves:
        parts.append(f"{plural(moves, 'move')} made against you")
    if finished:
        parts.append(f"{plural(len(finished), 'game')} finished")
    if waiting:
        parts.append(f"{plural(waiting, 'game')} waiting for your move")
    if not parts:
        parts.append(plural(len(news), "game") + " with news")
    return "Since your last visit: " + " · ".join(parts) + "."


def more_line(left: int, ctx: Context) -> str:
    return f"{ctx.glyphs.ellipsis}and {left} more: press N to see them all."


def seat_name(info: Any, seat: int | None) -> str:
    for s in info.seats:
        if s.seat == seat:
            return clean(s.name or "a player")
    return "a player"


def opponents(info: Any, my_seat: int | None) -> str:
    names = [clean(s.name or "?") for s in info.seats if s.seat != my_seat and s.kind != "open"]
    return " and ".join(names) if len(names) < 3 else ", ".join(names)


def shown_move(info: Any, text: str, mover: int, viewer_seat: int | None) -> str:
    """Seat ``mover``'s move as the player in ``viewer_seat`` should read it: the one
    place a move of the summary passes through. A backgammon board is numbered from its
    viewer's side, so the move is told in the viewer's point numbers (White's for
    someone who does not play), as the board screen tells it."""
    if info.kind == "backgammon":
        from door.games.backgammon.notation import from_viewpoint

        text = from_viewpoint(text, mover, 0 if viewer_seat is None else viewer_seat)
    return clean(text)


# Backgammon's action words as the summary tells them ("bob accepted the resignation",
# not "bob played accept").
BG_ACTIONS = {
    "double": "doubled",
    "take": "took the double",
    "drop": "dropped the double",
    "accept": "accepted the resignation",
    "reject": "rejected the resignation",
    "resign single": "offered to resign a single game",
    "resign gammon": "offered to resign a gammon",
    "resign backgammon": "offered to resign a backgammon",
}


def told_move(info: Any, text: str) -> str:
    """What a move's text says after the mover's name: "played 24/18 13/11", or for a
    backgammon action its own words ("doubled", "accepted the resignation")."""
    if info.kind == "backgammon" and text in BG_ACTIONS:
        return BG_ACTIONS[text]
    return f"played {text}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def result_text(item: Any) -> str:
    """"you won: Bob resigned a gammon, 2 points" — the end of a finished game as the
    player ``item.my_seat`` sees it."""
    info, me = item.info, item.my_seat
    outcome = info.outcome
    if info.status == "abandoned" or outcome is None:
        if item.declined:
            declined = [s for s in info.seats if s.kind == "reserved" and s.seat != me]
            who = clean(declined[0].name) if declined and declined[0].name else "a player"
            return f"{who} declined; the game is cancelled"
        if info.summary.startswith("abandoned by the sysop"):
            return clean(info.summary)
        return "the game was cancelled"
    winners = tuple(outcome.winners)
    extra = dict(outcome.extra or {})
    if info.kind != "backgammon" and outcome.placings and me is not None and me < len(
        outcome.placings
    ):
        place = outcome.placings[me]
        mine = outcome.scores[me] if me < len(outcome.scores) else None
        text = "you won" if place == 1 else f"you came {_ordinal(place)} of {len(outcome.placings)}"
        return text + (f" with {mine} points" if mine is not None else "")
    if not winners:
        return "a draw"
    won = me in winners
    loser = next((s.seat for s in info.seats if s.seat not in winners), None)
    other = seat_name(info, loser if won else winners[0])
    loser_name = "you" if not won else seat_name(info, loser)
    value = {2: "a gammon", 3: "a backgammon"}.get(int(extra.get("game_value", 1) or 1), "")
    how = {
        "normal": f"with {value}" if value else "",
        "resign": f"{loser_name} resigned" + (f" {value}" if value else ""),
        "drop": f"{loser_name} dropped the double",
        "timeout": f"{loser_name} ran out of time",
        "forfeit": f"{loser_name} forfeited",
    }.get(outcome.reason, clean(outcome.reason))
    points = extra.get("points")
    tail = f", {plural(int(points), 'point')}" if isinstance(points, int) and points else ""
    head = f"you won against {other}" if won else f"you lost to {other}"
    return f"{head}{': ' + how if how else ''}{tail}"


def news_sentence(item: Any, now: datetime) -> str:
    """One game's news in a sentence (see :class:`door.services.games.GameNews`)."""
    from door.services.games.notices import creator_name, game_terms
    from door.ui.screens.lists import short_span

    info = item.info
    me = item.my_seat
    game = f"#{info.id} {clean(info.title)}"
    if item.invited:
        terms = game_terms(info.kind, info.options)
        what = f"{game}" + (f" ({terms})" if terms else "")
        return f"{clean(creator_name(info))} invites you to {what}: V)iew to answer."
    parts: list[str] = []
    movers = {seat for seat, _ in item.moves}
    over = info.status in ("finished", "abandoned")
    for seat in item.joined:  # old news once they have moved, or the game is over
        if seat not in movers and not over:
            parts.append(f"{seat_name(info, seat)} joined")
    if item.left:
        parts.append(plural(len(item.left), "player") + " left")
    for seat in dict.fromkeys(item.timeouts):
        whose = "your" if seat == me else f"{seat_name(info, seat)}'s"
        parts.append(f"{whose} turn timed out")
    by_mover: dict[int, list[str]] = {}
    for seat, text in item.moves:
        by_mover.setdefault(seat, []).append(shown_move(info, text, seat, me))
    for seat, moves in by_mover.items():
        if len(moves) == 1:
            parts.append(f"{seat_name(info, seat)} {told_move(info, moves[0])}")
        else:
            last = told_move(info, moves[-1]).removeprefix("played ")
            parts.append(f"{seat_name(info, seat)} made {len(moves)} moves, last {last}")
    if over:
        parts.append(result_text(item))
    elif item.is_waiting_on_me:
        due = f" (due in {short_span(info.deadline - now)})" if info.deadline else ""
        parts.append(f"your turn{due}")
    elif info.status == "open":
        free = sum(1 for s in info.seats if s.kind in ("open", "reserved"))
        parts.append(f"waiting for {plural(free, 'more player')}")
    against = opponents(info, me)
    head = f"{game} v {against}" if against else game
    return f"{head}: " + "; ".join(parts) + "."


def wrap(text: str, width: int, indent: int = 0) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken at spaces (a word longer
    than a line is cut); lines after the first start ``indent`` spaces in."""
    width = max(width, 8)
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if text_width(candidate) <= width or not line.strip():
            line = candidate if text_width(candidate) <= width else clip_text(candidate, width)
            continue
        lines.append(line)
        line = " " * indent + word
        if text_width(line) > width:
            line = clip_text(line, width)
    if line:
        lines.append(line)
    return lines or [""]


class NewsScreen(Screen):
    """Everything the main menu's summary holds, wrapped, a page at a time."""

    title = "door — Since your last visit"
    key_help = "Up/Down PgUp/PgDn: scroll · Q)uit or Esc: back to the menu"

    def __init__(self, lines: list[tuple[str, Style]]) -> None:
        self.lines = lines
        self.top = 0
        self.width = 76

    def rows(self, width: int) -> list[tuple[str, Style]]:
        out: list[tuple[str, Style]] = []
        for i, (text, style) in enumerate(self.lines):
            out.extend((t, style) for t in wrap(text, width, indent=2 if i else 0))
        return out

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        from door.ui.screen import Pop

        page = max(max(ctx.caps.height, 24) - 4, 1)
        if isinstance(event, Text) and event.text.strip()[:1].lower() == "q":
            return Pop()
        if isinstance(event, Key):
            step = {"up": -1, "down": 1, "pgup": -page, "pgdn": page}.get(event.name)
            if event.name == "escape":
                return Pop()
            if step is not None:
                last = max(len(self.rows(self.width)) - page, 0)
                self.top = min(max(self.top + step, 0), last)
        return None

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        canvas.wheel = ("up", "down")  # the wheel scrolls the news
        self.width = canvas.width - 4
        rows = self.rows(self.width)
        room = canvas.height - 4
        for y, (text, style) in enumerate(rows[self.top : self.top + room], start=2):
            canvas.put(2, y, text, style)
