"""Your settings: character set, colour, sound, animation, mouse, password and SSH keys
(all remembered).

K)eys lists the player's SSH public keys (type, ``SHA256:`` fingerprint, comment) and
lets them A)dd one by pasting its OpenSSH line (``ssh-ed25519 AAAA… me@laptop``) and
R)emove one (asked Y/N); the accounts service refuses a malformed line, a private key, a
key of another account and more than ``[accounts] max_ssh_keys``, saying why."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, tzinfo
from typing import Literal

from door.games.base import Refusal
from door.services import timecontrol
from door.services.accounts import STEP_DELAYS, KeyInfo
from door.services.vacations import VacationStatus
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
)
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import LineEditor, Menu, MenuItem

NOTE_STYLE = Style(fg=CYAN)
CHARSETS = ("auto", "cp437", "utf-8")
CHARSET_NAMES = {
    "auto": "automatic",
    "cp437": "CP437 (BBS terminals: SyncTERM, NetRunner, mTCP)",
    "utf-8": "UTF-8 (modern terminals, PuTTY, xterm)",
}
def delay_name(delay: float) -> str:
    """How a playback delay reads on the settings menu."""
    return "by hand (Enter/arrows)" if delay <= 0 else f"{delay:g} s per step"


PASSWORD_PROMPTS = ("Current password: ", "New password: ", "New password again: ")
TEXT_STYLE = Style(fg=WHITE)
ASK_STYLE = Style(fg=YELLOW, bold=True)
MAX_KEY_LINE = 16384  # a 16384-bit RSA key's line is about 2,800 characters
KEY_TYPE_NAMES = {
    "ssh-ed25519": "ED25519",
    "ssh-rsa": "RSA",
    "ecdsa-sha2-nistp256": "ECDSA-256",
    "ecdsa-sha2-nistp384": "ECDSA-384",
    "ecdsa-sha2-nistp521": "ECDSA-521",
    "sk-ssh-ed25519@openssh.com": "ED25519-SK",
    "sk-ecdsa-sha2-nistp256@openssh.com": "ECDSA-SK",
    "ssh-ed448": "ED448",
}


def parse_vacation(text: str, zone: tzinfo) -> tuple[int, datetime | None]:
    """``"5"`` (five days from now) or ``"5 from 2026-12-20"`` (from that day's start in
    ``zone``); ``VacationError`` says what is wrong."""
    from door.services.vacations import VacationError

    words = text.lower().split()
    if not words or not words[0].isdigit() or len(words) not in (1, 3) or (
        len(words) == 3 and words[1] != "from"
    ):
        raise VacationError("say how many days, e.g. 5, or 5 from 2026-12-20")
    days = int(words[0][:4])
    if len(words) == 1:
        return days, None
    try:
        day = date.fromisoformat(words[2])
    except ValueError:
        raise VacationError("write the date as YYYY-MM-DD, e.g. 2026-12-20") from None
    return days, datetime(day.year, day.month, day.day, tzinfo=zone)


def key_line(i: int, key: KeyInfo) -> str:
    """``"1. ED25519 SHA256:…  me@laptop"``: one key as the list shows it."""
    kind = KEY_TYPE_NAMES.get(key.key_type, clean(key.key_type, 12))
    return f"{i}. {kind} {key.fingerprint}  {clean(key.comment, 60)}".rstrip()


class SettingsScreen(Screen):
    """A menu of settings; the password change asks old, new, new again."""

    title = "door — Your settings"

    def __init__(self) -> None:
        self.menu = Menu([])
        self.phase: Literal[
            "menu", "password", "keys", "key-add", "key-remove", "zone", "vacation"
        ] = "menu"
        self.line = LineEditor(max_len=40)
        self.vacation: VacationStatus | None = None
        self.fields = [LineEditor(secret=True, max_len=72) for _ in PASSWORD_PROMPTS]
        self.field = 0
        self.keys: list[KeyInfo] = []
        self.key_editor = LineEditor(max_len=MAX_KEY_LINE)
        self.removing: KeyInfo | None = None

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.phase == "password":
            return "Type, then Enter for the next line · Esc cancels the change"
        if self.phase == "zone":
            return "A zone such as Europe/Paris, then Enter (empty: the server's) · Esc cancels"
        if self.phase == "vacation":
            return "Days, or days from a date (5 from 2026-12-20), then Enter · Esc cancels"
        if self.phase == "keys":
            return "A)dd a key · R)emove a key · Q)uit or Esc: back to your settings"
        if self.phase == "key-add":
            return "Paste your public key line, then Enter · Esc cancels"
        if self.phase == "key-remove":
            if self.removing is not None:
                return "Y)es, remove it · N)o, keep it"
            return "The key's number · Esc: keep them all"
        return "Press a letter, or arrows and Enter, to change a setting · Q)uit to the menu"

    def _items(self, ctx: Context) -> list[MenuItem]:
        user = ctx.user
        if user is None:
            return [MenuItem("Q", "Back", SettingsScreen.back)]
        s = user.settings
        charset = CHARSET_NAMES.get(s.charset, s.charset)
        if s.charset == "auto":
            charset += f" (now {ctx.caps.encoding.upper()})"
        mouse_note = "" if ctx.caps.mouse else " (this terminal sends no clicks)"
        return [
            MenuItem("C", f"Character set: {charset}", SettingsScreen.next_charset),
            MenuItem("O", f"Colour: {'ON' if s.color else 'OFF'}", SettingsScreen.colour),
            MenuItem("S", f"Sound effects: {'ON' if s.sound else 'OFF'}", SettingsScreen.sound),
            MenuItem("A", f"Animation: {delay_name(s.step_delay)}", SettingsScreen.step_delay),
            MenuItem("M", f"Mouse: {'ON' if s.mouse else 'OFF'}{mouse_note}", SettingsScreen.mouse),
            MenuItem("P", "Change your password", SettingsScreen.password),
            MenuItem("K", "SSH keys: log in without a password", SettingsScreen.ssh_keys),
            MenuItem("Z", f"Time zone: {self._zone_label(ctx)}", SettingsScreen.zone),
            MenuItem("V", f"Vacation: {self._vacation_label(ctx)}", SettingsScreen.vacation_item),
            MenuItem("N", "Notices: your turn and more by e-mail or push", SettingsScreen.notices),
            MenuItem("B", "Blocked players: who never reaches you", SettingsScreen.blocks),
            MenuItem("Q", "Back to the main menu", SettingsScreen.back),
        ]

    def _zone_label(self, ctx: Context) -> str:
        assert ctx.user is not None
        if ctx.user.time_zone:
            return clean(ctx.user.time_zone, 40)
        server = ctx.services.clocks.default_zone
        hint = ctx.caps.time_zone
        if hint and hint != server:
            return f"the server's ({server}); your terminal says {clean(hint, 40)}"
        return f"the server's ({server})"

    def _vacation_label(self, ctx: Context) -> str:
        v = self.vacation
        if v is None:
            return "…"
        left = f"{v.days_left} of {v.days_per_year} days left"
        if v.vacation is None:
            return f"none · {left} this year"
        zone = timecontrol.zone(v.zone)
        until = v.vacation.ends_at.astimezone(zone).strftime("%d %b %H:%M")
        if v.on_vacation(ctx.services.clock.now()):
            return f"until {until}, V ends it · {left}"
        start = v.vacation.starts_at.astimezone(zone).strftime("%d %b")
        return f"from {start} to {until}, V cancels · {left}"

    async def on_enter(self, ctx: Context) -> None:
        await self._load_vacation(ctx)
        self.menu = Menu(self._items(ctx))

    async def _load_vacation(self, ctx: Context) -> None:
        if ctx.user is not None:
            self.vacation = await ctx.services.clocks.status(ctx.user.id)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.phase == "password":
            return await self._on_password(event, ctx)
        if self.phase in ("keys", "key-add", "key-remove"):
            return await self._on_keys(event, ctx)
        if self.phase in ("zone", "vacation"):
            return await self._on_line(event, ctx)
        if isinstance(event, Key) and event.name == "escape":
            return Pop()
        item = self.menu.handle(event)
        if item is None or ctx.user is None:
            return None
        result: Transition | None = await item.action(self, ctx)
        if result is None:
            self.menu = Menu(self._items(ctx), self.menu.selected)
        return result

    # --- what the items do (``action(self, ctx)``; a signed-in user) ---------------------
    async def back(self, ctx: Context) -> Transition | None:
        return Pop()

    async def notices(self, ctx: Context) -> Transition | None:
        from door.ui.screens.notices import NoticesScreen

        return Push(NoticesScreen())

    async def next_charset(self, ctx: Context) -> None:
        assert ctx.user is not None
        s = ctx.user.settings
        nxt = CHARSETS[(CHARSETS.index(s.charset) + 1) % len(CHARSETS)]
        ctx.set_user(await ctx.services.accounts.update_settings(ctx.user.id, charset=nxt))
        ctx.status(f"Character set: {CHARSET_NAMES[nxt]}.")

    async def colour(self, ctx: Context) -> None:
        assert ctx.user is not None
        on = not ctx.user.settings.color
        ctx.set_user(await ctx.services.accounts.update_settings(ctx.user.id, color=on))
        ctx.status(f"Colour is {'ON' if on else 'OFF'}.")

    async def sound(self, ctx: Context) -> None:
        assert ctx.user is not None
        on = not ctx.user.settings.sound
        ctx.set_user(await ctx.services.accounts.update_settings(ctx.user.id, sound=on))
        ctx.status(f"Sound effects are {'ON' if on else 'OFF'}.")

    async def mouse(self, ctx: Context) -> None:
        """Clicks on or off (where the terminal reports them; keys work either way)."""
        assert ctx.user is not None
        on = not ctx.user.settings.mouse
        ctx.set_user(await ctx.services.accounts.update_settings(ctx.user.id, mouse=on))
        ctx.status(f"Mouse is {'ON' if on else 'OFF'}.")

    async def step_delay(self, ctx: Context) -> None:
        """The next playback speed of a backgammon turn (V)iew, moves arriving)."""
        assert ctx.user is not None
        now = ctx.user.settings.step_delay
        nxt = STEP_DELAYS[(STEP_DELAYS.index(now) + 1) % len(STEP_DELAYS)] if (
            now in STEP_DELAYS
        ) else STEP_DELAYS[0]
        ctx.set_user(await ctx.services.accounts.update_settings(ctx.user.id, step_delay=nxt))
        ctx.status(f"Animation: {delay_name(nxt)}.")

    async def zone(self, ctx: Context) -> None:
        """Ask for a zone, offering the terminal's hint (or the one chosen)."""
        assert ctx.user is not None
        self.line = LineEditor(max_len=40)
        self.line.set(ctx.user.time_zone or ctx.caps.time_zone or "")
        self.phase = "zone"

    async def vacation_item(self, ctx: Context) -> None:
        """End (or cancel) the vacation there is; else ask for one."""
        assert ctx.user is not None
        v = self.vacation
        if v is not None and v.vacation is not None:
            await ctx.services.clocks.end(ctx.user.id)
            ctx.status("Your vacation is over: your clocks run again.")
            await self._load_vacation(ctx)
            return
        self.line = LineEditor(max_len=40)
        self.phase = "vacation"

    async def _on_line(self, event: InputEvent, ctx: Context) -> Transition | None:
        assert ctx.user is not None
        result = self.line.handle(event)
        if result == "cancel":
            self.phase = "menu"
            ctx.status("Nothing changed.")
        elif result == "submit":
            text = self.line.text.strip()
            try:
                if self.phase == "zone":
                    chosen = await ctx.services.clocks.set_time_zone(ctx.user.id, text or None)
                    ctx.set_user(replace(ctx.user, time_zone=chosen))
                    ctx.status(f"Times are shown in {chosen or 'the server' + chr(39) + 's zone'}.")
                else:
                    mine = timecontrol.zone(ctx.user.time_zone, ctx.services.clocks.default_zone)
                    days, start = parse_vacation(text, mine)
                    v = await ctx.services.clocks.start(ctx.user.id, days, start)
                    since = v.starts_at.astimezone(mine).strftime("%d %b %H:%M")
                    ctx.status(f"Vacation of {days} day{'s' if days != 1 else ''} from "
                               f"{since}: your clocks stop.")
            except Refusal as exc:
                ctx.status(str(exc))
                return None
            self.phase = "menu"
            await self._load_vacation(ctx)
            self.menu = Menu(self._items(ctx), self.menu.selected)
        return None

    async def password(self, ctx: Context) -> None:
        self.phase = "password"
        self.field = 0
        for f in self.fields:
            f.clear()

    async def blocks(self, ctx: Context) -> Transition:
        from door.ui.screens.blocks import BlocksScreen

        return Push(BlocksScreen())

    async def ssh_keys(self, ctx: Context) -> None:
        await self._load_keys(ctx)
        self.phase = "keys"

    async def _load_keys(self, ctx: Context) -> None:
        if ctx.user is not None:
            self.keys = await ctx.services.accounts.list_keys(ctx.user.id)

    async def _on_keys(self, event: InputEvent, ctx: Context) -> Transition | None:
        """The keys list and its two steps (pasting a line; choosing one to remove)."""
        if ctx.user is None:
            return None
        if self.phase == "key-add":
            result = self.key_editor.handle(event)
            if result == "cancel":
                self.phase = "keys"
                ctx.status("No key added.")
            elif result == "submit":
                await self._add_key(ctx)
            return None
        key = event.text[:1].lower() if isinstance(event, Text) else ""
        name = event.name if isinstance(event, Key) else key
        if self.phase == "key-remove":
            await self._on_remove(name, ctx)
            return None
        if name in ("escape", "q"):
            self.phase = "menu"
        elif name == "a":
            self.key_editor = LineEditor(max_len=MAX_KEY_LINE)
            self.phase = "key-add"
        elif name == "r":
            if not self.keys:
                ctx.status("You have no SSH keys to remove.")
            elif len(self.keys) == 1:
                self.removing = self.keys[0]
                self.phase = "key-remove"
            else:
                self.removing = None
                self.phase = "key-remove"
        return None

    async def _add_key(self, ctx: Context) -> None:
        assert ctx.user is not None
        line = self.key_editor.text.strip()
        if not line:
            ctx.status("Paste the line from your .pub file (or Esc).")
            return
        try:
            fingerprint = await ctx.services.accounts.add_key(ctx.user.id, line)
        except Refusal as exc:
            ctx.status(f"Not added: {exc}.")
            return
        await self._load_keys(ctx)
        self.phase = "keys"
        ctx.status(f"Added {fingerprint}. SSH logins with it need no password now.")

    async def _on_remove(self, name: str, ctx: Context) -> None:
        assert ctx.user is not None
        if self.removing is None:
            if name in ("escape", "q", "n"):
                self.phase = "keys"
            elif name.isdigit() and 1 <= int(name) <= len(self.keys):
                self.removing = self.keys[int(name) - 1]
            return
        if name in ("y", "enter"):
            gone = self.removing
            self.removing = None
            self.phase = "keys"
            try:
                await ctx.services.accounts.remove_key(ctx.user.id, gone.fingerprint)
            except Refusal as exc:
                ctx.status(str(exc))
            else:
                ctx.status(f"Removed {gone.fingerprint}.")
            await self._load_keys(ctx)
        elif name in ("n", "escape", "q"):
            self.removing = None
            self.phase = "keys"
            ctx.status("The key stays.")

    async def _on_password(self, event: InputEvent, ctx: Context) -> Transition | None:
        editor = self.fields[self.field]
        result = editor.handle(event)
        if result == "cancel":
            self.phase = "menu"
            ctx.status("Your password is unchanged.")
            return None
        if isinstance(event, Key) and event.name == "up" and self.field > 0:
            self.field -= 1
            return None
        if result != "submit":
            return None
        if self.field < len(self.fields) - 1:
            self.field += 1
            return None
        old, new, again = (f.text for f in self.fields)
        if new != again:
            ctx.status("The two new passwords differ; type the new one twice again.")
            self.fields[1].clear()
            self.fields[2].clear()
            self.field = 1
            return None
        if ctx.user is None:
            return None
        try:
            await ctx.services.accounts.change_password(ctx.user.id, old, new)
        except Refusal as exc:
            ctx.status(str(exc))
            self.fields[0].clear()
            self.field = 0
            return None
        self.phase = "menu"
        ctx.status("Your password is changed.")
        return None

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        if self.phase in ("keys", "key-add", "key-remove"):
            self._render_keys(canvas, ctx)
            return
        canvas.put(2, 2, "Settings", HEADING_STYLE)
        self.menu.render(canvas, 2, 4, min(min(canvas.width, ctx.caps.width) - 4, 74))
        y = 5 + len(self.menu.items)
        if self.phase != "password":  # the password's lines take the notes' place
            canvas.put(2, y, "Box lines ┌─┐ and shades ░▒▓ should look like lines and shading;",
                       NOTE_STYLE)  # fmt: skip
            canvas.put(2, y + 1, "if they show as other letters, change the character set.",
                       NOTE_STYLE)  # fmt: skip
        if self.phase in ("zone", "vacation"):
            ask = "Time zone: " if self.phase == "zone" else "Vacation days: "
            canvas.put(2, y + 3, ask, HEADING_STYLE)
            self.line.render(canvas, 2 + len(ask), y + 3, 40)
        if self.phase == "password":
            # right under the menu: with three lines below it, the status line stays clear
            canvas.put(2, y, "Change your password", HEADING_STYLE)
            for i, (prompt, f) in enumerate(zip(PASSWORD_PROMPTS, self.fields, strict=True)):
                canvas.put(4, y + 1 + i, prompt, HEADING_STYLE)
                f.render(canvas, 4 + 22, y + 1 + i, 30, focused=i == self.field)

    def _render_keys(self, canvas: Canvas, ctx: Context) -> None:
        """The keys list in place of the menu: one line a key, then the step in hand."""
        w = canvas.width - 3
        most = ctx.services.accounts.max_keys
        canvas.put(2, 2, clip_text(f"Your SSH keys ({len(self.keys)} of {most})", w),
                   HEADING_STYLE)  # fmt: skip
        if not self.keys:
            canvas.put(2, 4, clip_text("None yet. A)dd the line from your .pub file.", w),
                       TEXT_STYLE)  # fmt: skip
        last = canvas.height - 6
        y = 4
        for i, key in enumerate(self.keys, 1):
            if y > last:
                break
            style = ASK_STYLE if key is self.removing else TEXT_STYLE
            canvas.put(2, y, clip_text(key_line(i, key), w), style)
            y += 1
        y = min(max(y, 5) + 1, last + 1)
        if self.phase == "key-add":
            canvas.put(2, y, "Paste it (e.g. the line of ~/.ssh/id_ed25519.pub):", ASK_STYLE)
            self.key_editor.render(canvas, 2, y + 1, w)
        elif self.phase == "key-remove":
            if self.removing is None:
                canvas.put(2, y, "Which key? Press its number.", ASK_STYLE)
            else:
                text = f"Remove {self.removing.fingerprint}? (Y/N)"
                canvas.put(2, y, clip_text(text, w), ASK_STYLE)
        else:
            note = "With a key here, ssh YourName@this-server logs in with no password."
            canvas.put(2, y, clip_text(note, w), NOTE_STYLE)
