"""The sysop's console: one letter per action, its questions asked on one prompt line,
its answer (and the audit log) in the screen's body. Shown only to sysops (main menu
"!"); every action is checked again by door/services/sysop.py and written to the audit
log.

The games: G)ames finds a game by number or a player's open and running games, listed
with their kind, players, status and the age of their last change; ↑↓ selects one and
A)bandon asks for a reason, then Y/N, and abandons it at the version shown (a move that
came first wins: the list is read again).

The tournaments: T)ournaments opens door/ui/screens/tournaments.py's sysop list of them
(create, edit before the start, cancel)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from door.services.accounts import AccountError
from door.services.games.model import GameInfo
from door.services.presence import idle_text
from door.services.sysop import GameMovedError, SysopError
from door.store.records import ReportRecord
from door.ui.canvas import CYAN, WHITE, YELLOW, Canvas, Style, clip_text
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
from door.ui.screens.lists import ago, seat_names
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import LineEditor

BODY_STYLE = Style(fg=WHITE)
PROMPT_STYLE = Style(fg=YELLOW, bold=True)
KEYS_STYLE = Style(fg=CYAN)
PICKED_STYLE = Style(fg=WHITE, bold=True, reverse=True)
COLUMNS_STYLE = Style(fg=CYAN)
WIDE = 60
"""From this many columns on, the games list has a column for each thing."""
WIDE_COLUMNS = "Game   Kind        Status    Last  Players"
NARROW_COLUMNS = "Game Kind  Status Ago Players"

Action = Callable[[Context, list[str]], Awaitable[list[str]]]

ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "f": ("find users", ("Name starts with",)),
    "b": ("ban", ("User", "Reason")),
    "u": ("unban", ("User", "Reason")),
    "m": ("mute", ("User", "Hours", "Reason")),
    "n": ("unmute", ("User",)),
    "p": ("reset password", ("User",)),
    "s": ("make sysop", ("User",)),
    "r": ("reports", ()),
    "x": ("resolve report", ("Report number", "Note")),
    "c": ("broadcast", ("Line to everyone online",)),
    "g": ("games", ("Game number or player",)),
    "a": ("abandon game", ("Reason",)),
    "h": ("health", ()),
    "l": ("audit log", ()),
}


class SysopScreen(Screen):
    """Users, reports, broadcast, health and the audit log."""

    title = "door — Sysop console"
    key_help = ("F)ind B)an U)nban M)ute N)unmute P)assword S)ysop R)eports X)resolve "
                "C)ast G)ames T)ournaments H)ealth L)og Q)uit")  # fmt: skip
    games_help = "↑↓ pick  A)bandon  G)ames  F)ind  L)og  H)ealth  Q)uit"
    """The key help while the games list shows (every other letter still works)."""

    def __init__(self) -> None:
        self.body: list[str] = []
        self.heading = "Audit log"
        self.asking: str | None = None
        self.answers: list[str] = []
        self.editor = LineEditor(max_len=200)
        self.found: list[GameInfo] | None = None
        """The games G)ames found (shown while the heading is "Games")."""
        self.query = ""
        self.pick = 0
        self.now: datetime | None = None
        self.confirm: tuple[GameInfo, str] | None = None
        """The game and reason waiting for Y/N."""

    def where(self) -> str:
        return "in the sysop console"

    async def on_enter(self, ctx: Context) -> None:
        await self.show(ctx, "l", [])

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.confirm is not None:
            info, reason = self.confirm
            self.confirm = None
            if isinstance(event, Text) and event.text.strip()[:1].lower() == "y":
                await self.abandon(ctx, info, reason)
            else:
                ctx.status(f"Game #{info.id} is left as it is.")
            return None
        if self.asking is not None:
            result = self.editor.handle(event)
            if result == "cancel":
                self.asking = None
                ctx.status("Cancelled.")
            elif result == "submit":
                self.answers.append(self.editor.text)
                self.editor.clear()
                if len(self.answers) == len(ACTIONS[self.asking][1]):
                    letter, self.asking = self.asking, None
                    if letter == "a":
                        self.ask_to_confirm(ctx, self.answers[0])
                    else:
                        await self.show(ctx, letter, self.answers)
            return None
        letter = event.text.strip()[:1].lower() if isinstance(event, Text) else ""
        if letter == "q" or (isinstance(event, Key) and event.name == "escape"):
            return Pop()
        if letter == "t":
            return self.tournaments(ctx)
        if isinstance(event, Key) and event.name in ("up", "down") and self.listing():
            step = -1 if event.name == "up" else 1
            self.pick = max(0, min(self.pick + step, len(self.found or ()) - 1))
            return None
        if letter == "a":
            picked = self.picked()
            if picked is None:
                ctx.status("Find the game first: G)ames, then ↑↓ to pick it.")
                return None
            if picked.status not in ("open", "active"):
                ctx.status(f"Game #{picked.id} is over already.")
                return None
        if letter in ACTIONS:
            if ACTIONS[letter][1]:
                self.asking, self.answers = letter, []
                self.editor.clear()
            else:
                await self.show(ctx, letter, [])
        return None

    def tournaments(self, ctx: Context) -> Transition | None:
        """T)ournaments: the tournaments' own sysop screen."""
        if ctx.services.tournaments is None:
            ctx.status("Tournaments are not running on this server.")
            return None
        from door.ui.screens.tournaments import TournamentAdminScreen

        return Push(TournamentAdminScreen())

    def listing(self) -> bool:
        """Whether the body is the games list."""
        return self.found is not None and self.heading == "Games"

    def picked(self) -> GameInfo | None:
        """The game selected in the games list, if it shows."""
        if not self.listing() or not self.found:
            return None
        return self.found[min(self.pick, len(self.found) - 1)]

    def ask_to_confirm(self, ctx: Context, reason: str) -> None:
        picked = self.picked()
        if picked is None:
            return
        if not reason.strip():
            ctx.status("Abandoning a game needs a reason.")
            return
        self.confirm = (picked, reason)

    async def abandon(self, ctx: Context, info: GameInfo, reason: str) -> None:
        """Abandon ``info``'s game at the version listed; the audit log shows after."""
        if ctx.user is None:
            return
        me = ctx.user.id
        try:
            await ctx.services.sysop.abandon_game(me, info.id, reason, info.version)
        except GameMovedError as exc:
            ctx.status(str(exc))
            await self.find_games(ctx, me, self.query)
            return
        except SysopError as exc:
            ctx.status(str(exc))
            return
        self.found = None
        self.body = await self.log(ctx, me)
        ctx.status(f"Game #{info.id} is abandoned; its players are told.")

    async def find_games(self, ctx: Context, me: int, query: str) -> list[str]:
        """G)ames: the list (drawn by :meth:`render`); the body says when there is none."""
        found = await ctx.services.sysop.find_games(me, query)
        keep = self.picked()
        self.query, self.found, self.now = query, found, ctx.services.clock.now()
        self.heading = "Games"
        ids = [g.id for g in found]
        self.pick = ids.index(keep.id) if keep is not None and keep.id in ids else 0
        return [] if found else [f"No open or running games for {clean(query, 20)!r}."]

    async def show(self, ctx: Context, letter: str, answers: list[str]) -> None:
        """Run one action and show what it says (or why it was refused)."""
        if ctx.user is None:
            return
        try:
            self.body = await self.run(ctx, ctx.user.id, letter, answers)
            self.heading = ACTIONS[letter][0].capitalize()
            if letter != "g":
                self.found = None
        except SysopError as exc:
            ctx.status(str(exc))
        except ValueError:
            ctx.status("That needs a number.")

    async def run(self, ctx: Context, me: int, letter: str, a: list[str]) -> list[str]:
        s = ctx.services.sysop
        if letter == "g":
            return await self.find_games(ctx, me, a[0])
        if letter == "f":
            users = await s.find(me, a[0])
            return [f"{clean(u.name, 20):<20} {'sysop ' if u.is_sysop else ''}"
                    f"{'BANNED' if u.is_banned else ''}" for u in users] or ["Nobody."]  # fmt: skip
        if letter == "b":
            user = await s.ban(me, a[0], a[1])
            ctx.status(f"{clean(user.name, 20)} is banned; their sessions are ended.")
            return await self.log(ctx, me)
        if letter == "u":
            user = await s.unban(me, a[0], a[1])
            ctx.status(f"{clean(user.name, 20)} may log in again.")
            return await self.log(ctx, me)
        if letter == "m":
            until = await s.mute(me, a[0], float(a[1]), a[2])
            ctx.status(f"Muted until {until:%Y-%m-%d %H:%M} UTC.")
            return await self.log(ctx, me)
        if letter == "n":
            await s.unmute(me, a[0])
            return await self.log(ctx, me)
        if letter == "p":
            password = await s.reset_password(me, a[0])
            return [f"New password for {clean(a[0], 20)}: {password}",
                    "(shown once: pass it on privately)"]  # fmt: skip
        if letter == "s":
            await s.make_sysop(me, a[0])
            return await self.log(ctx, me)
        if letter == "r":
            return await report_lines(ctx, await s.reports(me))
        if letter == "x":
            if not await s.resolve(me, int(a[0].lstrip("#")), a[1]):
                raise SysopError("No such open report.")
            return await self.log(ctx, me)
        if letter == "c":
            n = await s.broadcast(me, a[0])
            ctx.status(f"Broadcast to {n} session(s).")
            return await self.log(ctx, me)
        if letter == "h":
            h = await s.health(me)
            online = await ctx.services.presence.who_everywhere()
            size = "unknown" if h.database_bytes is None else f"{h.database_bytes / 1e6:.1f} MB"
            lines = [
                "Sessions: " + (", ".join(f"{k} {v}" for k, v in sorted(h.sessions.items()))
                                or "none"),
                f"Moves today: {h.moves_today}",
                f"Database size: {size}",
                f"Last backup: {h.last_backup}",
                "",
            ]  # fmt: skip
            lines += [f"{clean(w.name, 20):<20} {w.transport:<8} {idle_text(w.idle_s):>5}  "
                      f"{clean(w.where)}" for w in online]  # fmt: skip
            return lines
        return await self.log(ctx, me)

    async def log(self, ctx: Context, me: int) -> list[str]:
        entries = await ctx.services.sysop.audit(me)
        self.heading = "Audit log"
        return [f"{e.at:%m-%d %H:%M} {clean(e.sysop_name, 16)} {e.action} {clean(e.target, 20)}"
                f"{': ' + clean(e.detail) if e.detail else ''}" for e in entries] or [
            "Nothing done yet."]  # fmt: skip

    def render(self, canvas: Canvas, ctx: Context) -> None:
        games = self.listing() and bool(self.found)
        key_help = self.games_help if games else self.key_help
        draw_chrome(canvas, ctx, self.title, key_help)
        canvas.put(2, 2, self.heading, HEADING_STYLE)
        # the prompt sits above the status line, which sits above the key help (1 to 3
        # rows, by the width); the body has the rows between
        prompt_y = canvas.height - 2 - len(help_layout(ctx, key_help, canvas.width))
        room = max(prompt_y - 4, 1)
        if games:
            self.render_games(canvas, ctx, room)
        else:
            for y, line in enumerate(self.body[:room], 4):
                canvas.put(2, y, clip_text(line, canvas.width - 4), BODY_STYLE)
        if self.confirm is not None:
            info, _ = self.confirm
            q = f"Abandon game #{info.id}? (Y/N) "
            canvas.put(2, prompt_y, clip_text(q, canvas.width - 4), PROMPT_STYLE)
            canvas.prompt = prompt_y  # kept in sight on a small terminal
        elif self.asking is not None:
            label, questions = ACTIONS[self.asking]
            q = f"{label.capitalize()} — {questions[len(self.answers)]}: "
            x = canvas.put(2, prompt_y, clip_text(q, canvas.width // 2), PROMPT_STYLE)
            self.editor.render(canvas, x, prompt_y, max(canvas.width - x - 2, 1))

    def render_games(self, canvas: Canvas, ctx: Context, room: int) -> None:
        """The games list: a heading row, then a row a game, the selected one marked (and
        kept in sight); the terminal's own width decides the columns (a small one sees
        the layout cropped: door/ui/screen.py, ``fit_view``)."""
        games = self.found or []
        shown = min(canvas.width, max(ctx.caps.width, 40))
        width = shown - 4
        wide = shown >= WIDE
        head = WIDE_COLUMNS if wide else NARROW_COLUMNS
        canvas.put(2, 4, clip_text(head, width), COLUMNS_STYLE)
        rows = max(room - 1, 1)
        top = max(0, self.pick - rows + 1)
        for y, info in enumerate(games[top : top + rows], 5):
            if info is games[self.pick]:
                canvas.focus = y
            canvas.put(2, y, clip_text(self.game_row(info, wide, width), width),
                       PICKED_STYLE if info is games[self.pick] else BODY_STYLE)  # fmt: skip

    def game_row(self, info: GameInfo, wide: bool, width: int) -> str:
        age = ago(info.updated_at, self.now or info.updated_at)
        if wide:
            head = f"#{info.id:<5} {clip_text(info.title, 11):<11} {info.status:<9} {age:>4}  "
        else:
            head = f"#{info.id:<3} {clip_text(info.title, 5):<5} {info.status[:6]:<6} {age:>3} "
        return head + seat_names(info, max(width - len(head), 6))


async def report_lines(ctx: Context, reports: list[ReportRecord]) -> list[str]:
    """R)eports: each open report's number, day, channel (mail, chat, kibitz, page,
    note), who wrote what was reported, and the copy of its text."""
    names: dict[int, str] = {}
    for uid in dict.fromkeys(r.about_id for r in reports if r.about_id is not None):
        try:
            names[uid] = (await ctx.services.accounts.get(uid)).name
        except AccountError:
            names[uid] = "(gone)"
    return [
        f"#{r.id} {r.created_at:%m-%d %H:%M} {r.channel} from "
        f"{clean(names.get(r.about_id, '?') if r.about_id is not None else '?', 20)}: "
        f"{clean(r.text.replace(chr(10), ' / '))}"
        for r in reports
    ] or ["No reports waiting."]
