"""Y)our settings -> Notices: hear of your games outside door (issue 18).

E)-mail address (a code is sent to it; C)onfirm by typing it), P)ush URL (an ntfy-style
topic), the kinds (1-5 toggle each), D)igest (one message a day at 8:00 in the player's zone
instead of single notices). Nothing is sent until an address is confirmed or a push
URL set."""

from __future__ import annotations

from typing import Literal

from door.services.outbox import KIND_NAMES, KINDS, NoticeError, kinds_of
from door.store.records import NoticePrefsRecord
from door.ui.canvas import CYAN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import HEADING_STYLE, Context, Pop, Screen, Transition, clean, draw_chrome
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import LineEditor

NOTE_STYLE = Style(fg=CYAN)
TEXT_STYLE = Style(fg=WHITE)
ASK_STYLE = Style(fg=YELLOW, bold=True)
ASKS = {"email": "E-mail address: ", "code": "Code from the e-mail: ", "push": "Push URL: "}


class NoticesScreen(Screen):
    """The player's notice preferences, changed one key at a time."""

    title = "door — Notices"

    def __init__(self) -> None:
        self.prefs: NoticePrefsRecord | None = None
        self.phase: Literal["menu", "email", "code", "push"] = "menu"
        self.line = LineEditor(max_len=254)

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.phase != "menu":
            return "Type, then Enter (empty: remove it) · Esc cancels"
        return "E)-mail · C)onfirm code · P)ush URL · 1-5 kinds · D)igest · Q)uit"

    async def on_enter(self, ctx: Context) -> None:
        await self._load(ctx)

    async def _load(self, ctx: Context) -> None:
        outbox = ctx.services.outbox
        if outbox is None or not (outbox.mail_enabled or outbox.push_enabled):
            return  # the sysop set up neither [mail] nor [push]
        if ctx.user is not None:
            self.prefs = await outbox.prefs(ctx.user.id)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        outbox = ctx.services.outbox
        if ctx.user is None or outbox is None:
            return Pop()
        if self.phase != "menu":
            result = self.line.handle(event)
            if result == "cancel":
                self.phase = "menu"
                ctx.status("Nothing changed.")
            elif result == "submit":
                await self._submit(ctx)
            return None
        key = event.text[:1].lower() if isinstance(event, Text) else ""
        name = event.name if isinstance(event, Key) else key
        uid = ctx.user.id
        if name in ("escape", "q"):
            return Pop()
        if self.prefs is None:
            return None
        if (name in ("e", "c") and not outbox.mail_enabled) or (
            name == "p" and not outbox.push_enabled
        ):
            ctx.status("This server does not send those; ask the sysop.")
        elif name in ("e", "p", "c"):
            self.phase = {"e": "email", "p": "push", "c": "code"}[name]  # type: ignore[assignment]
            self.line = LineEditor(max_len=254 if name != "p" else 500)
            if self.prefs is not None and name == "e":
                self.line.set(self.prefs.email or "")
            if self.prefs is not None and name == "p":
                self.line.set(self.prefs.push_url or "")
        elif name.isdigit() and 1 <= int(name) <= len(KINDS) and self.prefs is not None:
            kind = KINDS[int(name) - 1]
            chosen = set(kinds_of(self.prefs)) ^ {kind}
            await outbox.set_kinds(uid, frozenset(chosen))
            ctx.status(f"{KIND_NAMES[kind].capitalize()}: {'ON' if kind in chosen else 'OFF'}.")
        elif name == "d":
            await outbox.set_digest(uid, not self.prefs.digest)
            ctx.status(f"Daily digest: {'OFF' if self.prefs.digest else 'ON'}.")
        await self._load(ctx)
        return None

    async def _submit(self, ctx: Context) -> None:
        outbox = ctx.services.outbox
        assert ctx.user is not None and outbox is not None
        text = self.line.text.strip()
        uid = ctx.user.id
        try:
            if self.phase == "email":
                await outbox.set_email(uid, text)
                ctx.status(
                    f"A code is on its way to {clean(text, 40)}: C)onfirm it here."
                    if text else "No e-mail notices: the address is removed."
                )  # fmt: skip
            elif self.phase == "push":
                await outbox.set_push(uid, text)
                ctx.status("Push notices go to that URL." if text else "No push notices.")
            elif await outbox.confirm_email(uid, text):
                ctx.status("Your address is confirmed: notices will be sent there.")
            else:
                ctx.status("That code is wrong or too old: type it again, or Esc and E)-mail "
                           "for a new one.")
                self.line.clear()
                return
        except NoticeError as exc:
            ctx.status(str(exc))
            return
        self.phase = "menu"
        await self._load(ctx)

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        w = min(canvas.width, ctx.caps.width) - 4
        canvas.put(2, 2, "Notices outside door", HEADING_STYLE)
        p = self.prefs
        if p is None:
            canvas.put(2, 4, clip_text("Notices are not offered on this server.", w), TEXT_STYLE)
            return
        if p.email:
            state = "confirmed" if p.email_confirmed else "not confirmed yet: C)onfirm"
            mail = f"{clean(p.email, 50)} ({state})"
        else:
            mail = "none"
        rows = [
            f"E) E-mail: {mail}",
            f"P) Push URL: {clean(p.push_url, 60) if p.push_url else 'none'}",
        ]
        chosen = kinds_of(p)
        for i, kind in enumerate(KINDS, 1):
            rows.append(f"{i}) [{'x' if kind in chosen else ' '}] {KIND_NAMES[kind]}")
        rows.append(
            f"D) Daily digest at 8:00 instead of single notices: {'ON' if p.digest else 'OFF'}"
        )
        for i, row in enumerate(rows):
            canvas.put(2, 4 + i, clip_text(row, w), TEXT_STYLE)
        y = 5 + len(rows)
        note = "Every notice says how to stop them; 0 kinds ticked means none are sent."
        canvas.put(2, y, clip_text(note, w), NOTE_STYLE)
        if self.phase != "menu":
            ask = ASKS[self.phase]
            canvas.put(2, y + 2, ask, ASK_STYLE)
            self.line.render(canvas, 2 + len(ask), y + 2, max(10, w - len(ask)))
