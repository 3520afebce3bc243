"""Sign in or register, for a connection that arrives with nobody signed in (an SSH
"new" user, a telnet caller when the transport leaves the dialogue to the session)."""

from __future__ import annotations

from typing import Literal

from door.games.base import Refusal
from door.ui.canvas import CYAN, GREEN, Canvas, Style
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Quit,
    Replace,
    Screen,
    Transition,
    draw_chrome,
)
from door.ui.terminal import InputEvent, Key
from door.ui.widgets import LineEditor, Menu, MenuItem

NOTE_STYLE = Style(fg=CYAN)
BANNER_STYLE = Style(fg=GREEN, bold=True)
MAX_FAILURES = 5

Mode = Literal["choose", "login", "register"]
PROMPTS: dict[str, tuple[str, ...]] = {
    "login": ("Name: ", "Password: "),
    "register": ("Choose a name: ", "Choose a password: ", "Password again: "),
}


class LoginScreen(Screen):
    """L)og in, N)ew account or G)oodbye; then the main menu (and ``start``'s screen)."""

    title = "door — Welcome"

    def __init__(self, start: str | None = None, mode: Mode = "choose") -> None:
        self.start = start
        self.mode: Mode = mode
        # Each item's action is what its key does (``action(self)``).
        self.menu = Menu([
            MenuItem("L", "Log in", lambda screen: screen._begin("login")),
            MenuItem("N", "New here? Register a name", lambda screen: screen._begin("register")),
            MenuItem("G", "Goodbye", lambda screen: Quit("Goodbye!\r\n")),
        ])  # fmt: skip
        self.fields: list[LineEditor] = []
        self.field = 0
        self.failures = 0
        if mode != "choose":
            self._begin(mode)

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.mode == "choose":
            return "L)og in · N)ew account · G)oodbye · or arrows and Enter"
        return "Type, Enter for the next line · Up: previous line · Esc: back"

    def _begin(self, mode: Mode) -> None:
        self.mode = mode
        prompts = PROMPTS.get(mode, ())
        self.fields = [LineEditor(max_len=20 if i == 0 else 72, secret=i > 0)
                       for i in range(len(prompts))]  # fmt: skip
        self.field = 0

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.mode == "choose":
            item = self.menu.handle(event)
            if item is None:
                return None
            chosen: Transition | None = item.action(self)
            return chosen
        editor = self.fields[self.field]
        result = editor.handle(event)
        if result == "cancel":
            self.mode = "choose"
            return None
        if isinstance(event, Key) and event.name == "up" and self.field > 0:
            self.field -= 1
            return None
        if isinstance(event, Key) and event.name in ("down", "tab"):
            self.field = min(self.field + 1, len(self.fields) - 1)
            return None
        if result != "submit":
            return None
        typed = editor.text.strip() if self.field == 0 else editor.text
        if not typed:
            ctx.status("Please type something first (Esc goes back).")
            return None
        if self.field < len(self.fields) - 1:
            self.field += 1
            return None
        if self.mode == "login":
            return await self._login(ctx)
        return await self._register(ctx)

    async def _login(self, ctx: Context) -> Transition | None:
        name, password = (f.text for f in self.fields)
        user = await ctx.services.accounts.authenticate(name.strip(), password)
        if user is None:
            self.failures += 1
            if self.failures >= MAX_FAILURES:
                return Quit("Too many failed log-ins. Goodbye.\r\n")
            ctx.status("Unknown name or wrong password (or the account is closed). Try again.")
            self.fields[1].clear()
            self.field = 1
            return None
        return await self._signed_in(user, ctx)

    async def _register(self, ctx: Context) -> Transition | None:
        name, password, again = (f.text for f in self.fields)
        if password != again:
            ctx.status("The two passwords differ; type the password twice again.")
            self.fields[1].clear()
            self.fields[2].clear()
            self.field = 1
            return None
        try:
            user = await ctx.services.accounts.register(name.strip(), password)
        except Refusal as exc:
            ctx.status(str(exc))
            self.field = 0
            return None
        return await self._signed_in(user, ctx, welcome=True)

    async def _signed_in(self, user: object, ctx: Context, welcome: bool = False) -> Transition:
        from door.services.signups import PENDING_MESSAGE
        from door.ui.screens import start_screen
        from door.ui.screens.main import MainMenu

        if getattr(user, "is_pending", False):  # signed up, waiting for the sysop's approval
            return Quit(PENDING_MESSAGE + "\r\n")

        accounts = ctx.services.accounts
        uid = getattr(user, "id")  # noqa: B009 - typed loosely to keep services lazy
        ctx.previous_login = await accounts.record_login(uid)
        ctx.visit_started = ctx.services.clock.now()
        ctx.set_user(await accounts.get(uid))
        name = ctx.user.name if ctx.user else ""
        ctx.status(f"Welcome to door, {name}!" if welcome else f"Welcome back, {name}!")
        top = await start_screen(ctx, self.start)
        menu = MainMenu()
        # The start screen goes on top of the menu, so leaving it lands on the menu.
        menu.follow_up = top
        return Replace(menu)

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        canvas.put(2, 2, "Welcome to door: Backgammon and Spectrangle, played by turns.",
                   BANNER_STYLE)  # fmt: skip
        canvas.put(2, 3, "Games wait for you between calls; move whenever you drop by.",
                   NOTE_STYLE)  # fmt: skip
        if self.mode == "choose":
            self.menu.render(canvas, 2, 5, 40)
            return
        heading = "Log in" if self.mode == "login" else "Register a new name"
        canvas.put(2, 5, heading, HEADING_STYLE)
        if self.mode == "register":
            canvas.put(2, 6, "Names are 2 to 20 characters; passwords at least a few.",
                       NOTE_STYLE)  # fmt: skip
        for i, (prompt, f) in enumerate(zip(PROMPTS[self.mode], self.fields, strict=True)):
            canvas.put(4, 8 + i, prompt, HEADING_STYLE)
            f.render(canvas, 24, 8 + i, 30, focused=i == self.field)
