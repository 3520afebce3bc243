"""The sysop's console: one letter per action, its questions asked on one prompt line,
its answer (and the audit log) in the screen's body. Shown only to sysops (main menu
"!"); every action is checked again by door/services/sysop.py and written to the audit
log."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from door.services.presence import idle_text
from door.services.sysop import SysopError
from door.ui.canvas import CYAN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import HEADING_STYLE, Context, Pop, Screen, Transition, clean, draw_chrome
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import LineEditor

BODY_STYLE = Style(fg=WHITE)
PROMPT_STYLE = Style(fg=YELLOW, bold=True)
KEYS_STYLE = Style(fg=CYAN)

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
    "h": ("health", ()),
    "l": ("audit log", ()),
}


class SysopScreen(Screen):
    """Users, reports, broadcast, health and the audit log."""

    title = "door — Sysop console"
    key_help = ("F)ind B)an U)nban M)ute N)unmute P)assword S)ysop R)eports X)resolve "
                "C)ast H)ealth L)og Q)uit")  # fmt: skip

    def __init__(self) -> None:
        self.body: list[str] = []
        self.heading = "Audit log"
        self.asking: str | None = None
        self.answers: list[str] = []
        self.editor = LineEditor(max_len=200)

    def where(self) -> str:
        return "in the sysop console"

    async def on_enter(self, ctx: Context) -> None:
        await self.show(ctx, "l", [])

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
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
                    await self.show(ctx, letter, self.answers)
            return None
        letter = event.text.strip()[:1].lower() if isinstance(event, Text) else ""
        if letter == "q" or (isinstance(event, Key) and event.name == "escape"):
            return Pop()
        if letter in ACTIONS:
            if ACTIONS[letter][1]:
                self.asking, self.answers = letter, []
                self.editor.clear()
            else:
                await self.show(ctx, letter, [])
        return None

    async def show(self, ctx: Context, letter: str, answers: list[str]) -> None:
        """Run one action and show what it says (or why it was refused)."""
        if ctx.user is None:
            return
        try:
            self.body = await self.run(ctx, ctx.user.id, letter, answers)
            self.heading = ACTIONS[letter][0].capitalize()
        except SysopError as exc:
            ctx.status(str(exc))
        except ValueError:
            ctx.status("That needs a number.")

    async def run(self, ctx: Context, me: int, letter: str, a: list[str]) -> list[str]:
        s = ctx.services.sysop
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
            reports = await s.reports(me)
            return [f"#{r.id} {r.created_at:%m-%d %H:%M} {r.channel}: "
                    f"{clean(r.text.replace(chr(10), ' / '))}" for r in reports] or [
                "No reports waiting."]  # fmt: skip
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
        draw_chrome(canvas, ctx, self.title, self.key_help)
        canvas.put(2, 2, self.heading, HEADING_STYLE)
        room = max(canvas.height - 7, 1)
        for y, line in enumerate(self.body[:room], 4):
            canvas.put(2, y, clip_text(line, canvas.width - 4), BODY_STYLE)
        if self.asking is not None:
            label, questions = ACTIONS[self.asking]
            y = canvas.height - 4
            q = f"{label.capitalize()} — {questions[len(self.answers)]}: "
            x = canvas.put(2, y, clip_text(q, canvas.width // 2), PROMPT_STYLE)
            self.editor.render(canvas, x, y, max(canvas.width - x - 2, 1))
