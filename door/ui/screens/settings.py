"""Your settings: character set, colour, sound and password (all remembered)."""

from __future__ import annotations

from typing import Literal

from door.games.base import Refusal
from door.services.accounts import STEP_DELAYS
from door.ui.canvas import CYAN, Canvas, Style
from door.ui.screen import HEADING_STYLE, Context, Pop, Screen, Transition, draw_chrome
from door.ui.terminal import InputEvent, Key
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


class SettingsScreen(Screen):
    """A menu of settings; the password change asks old, new, new again."""

    title = "door — Your settings"

    def __init__(self) -> None:
        self.menu = Menu([])
        self.phase: Literal["menu", "password"] = "menu"
        self.fields = [LineEditor(secret=True, max_len=72) for _ in PASSWORD_PROMPTS]
        self.field = 0

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.phase == "password":
            return "Type, then Enter for the next line · Esc cancels the change"
        return "Press a letter, or arrows and Enter, to change a setting · Q)uit to the menu"

    def _items(self, ctx: Context) -> list[MenuItem]:
        user = ctx.user
        if user is None:
            return [MenuItem("Q", "Back", SettingsScreen.back)]
        s = user.settings
        charset = CHARSET_NAMES.get(s.charset, s.charset)
        if s.charset == "auto":
            charset += f" (now {ctx.caps.encoding.upper()})"
        return [
            MenuItem("C", f"Character set: {charset}", SettingsScreen.next_charset),
            MenuItem("O", f"Colour: {'ON' if s.color else 'OFF'}", SettingsScreen.colour),
            MenuItem("S", f"Sound effects: {'ON' if s.sound else 'OFF'}", SettingsScreen.sound),
            MenuItem("A", f"Animation: {delay_name(s.step_delay)}", SettingsScreen.step_delay),
            MenuItem("P", "Change your password", SettingsScreen.password),
            MenuItem("Q", "Back to the main menu", SettingsScreen.back),
        ]

    async def on_enter(self, ctx: Context) -> None:
        self.menu = Menu(self._items(ctx))

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.phase == "password":
            return await self._on_password(event, ctx)
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

    async def step_delay(self, ctx: Context) -> None:
        """The next playback speed of a backgammon turn (V)iew, moves arriving)."""
        assert ctx.user is not None
        now = ctx.user.settings.step_delay
        nxt = STEP_DELAYS[(STEP_DELAYS.index(now) + 1) % len(STEP_DELAYS)] if (
            now in STEP_DELAYS
        ) else STEP_DELAYS[0]
        ctx.set_user(await ctx.services.accounts.update_settings(ctx.user.id, step_delay=nxt))
        ctx.status(f"Animation: {delay_name(nxt)}.")

    async def password(self, ctx: Context) -> None:
        self.phase = "password"
        self.field = 0
        for f in self.fields:
            f.clear()

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
        canvas.put(2, 2, "Settings", HEADING_STYLE)
        self.menu.render(canvas, 2, 4, min(canvas.width - 4, 74))
        y = 5 + len(self.menu.items)
        canvas.put(2, y, "Box lines ┌─┐ and shades ░▒▓ should look like lines and shading;",
                   NOTE_STYLE)  # fmt: skip
        canvas.put(2, y + 1, "if they show as other letters, change the character set.",
                   NOTE_STYLE)  # fmt: skip
        if self.phase == "password":
            y += 3
            canvas.put(2, y, "Change your password", HEADING_STYLE)
            for i, (prompt, f) in enumerate(zip(PASSWORD_PROMPTS, self.fields, strict=True)):
                canvas.put(4, y + 1 + i, prompt, HEADING_STYLE)
                f.render(canvas, 4 + 22, y + 1 + i, 30, focused=i == self.field)
