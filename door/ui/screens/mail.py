"""M)ail: the inbox (unread marked), a message read whole, and the form that writes one
(a new message, or a reply with the subject and recipient filled in)."""

from __future__ import annotations

from typing import Any

from door.services.mail import BODY_LINES, LINE_MAX, SUBJECT_MAX, MailError, Message
from door.ui.canvas import CYAN, GREEN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import HEADING_STYLE, Context, Pop, Push, Screen, Transition, clean, draw_chrome
from door.ui.terminal import InputEvent, Key, Text
from door.ui.widgets import LineEditor

UNREAD_STYLE = Style(fg=YELLOW, bold=True)
READ_STYLE = Style(fg=WHITE)
SELECTED_STYLE = Style(fg=GREEN, bold=True, reverse=True)
LABEL_STYLE = Style(fg=CYAN)


def _letter(event: InputEvent) -> str:
    return event.text.strip()[:1].lower() if isinstance(event, Text) else ""


class InboxScreen(Screen):
    """The player's messages, newest first; ``*`` marks the unread ones."""

    title = "door — Mail"
    key_help = "Up/Down: choose · Enter: read · W)rite · D)elete · Q)uit or Esc: back"

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.selected = 0
        self.top = 0

    def where(self) -> str:
        return "reading mail"

    async def load(self, ctx: Context) -> None:
        if ctx.user is None:
            return
        self.messages = await ctx.services.mail.inbox(ctx.user.id)
        self.selected = min(self.selected, max(len(self.messages) - 1, 0))

    async def on_enter(self, ctx: Context) -> None:
        await self.load(ctx)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        await self.load(ctx)
        return None

    def current(self) -> Message | None:
        return self.messages[self.selected] if self.messages else None

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        letter = _letter(event)
        if letter == "q" or (isinstance(event, Key) and event.name == "escape"):
            return Pop()
        if letter == "w":
            return Push(ComposeScreen())
        if isinstance(event, Key) and event.name in ("up", "down"):
            step = -1 if event.name == "up" else 1
            self.selected = min(max(self.selected + step, 0), max(len(self.messages) - 1, 0))
            return None
        msg = self.current()
        if msg is None or ctx.user is None:
            if letter or isinstance(event, Key):
                ctx.status("Your mailbox is empty. W)rite to someone?")
            return None
        if isinstance(event, Key) and event.name == "enter":
            opened = await ctx.services.mail.read(ctx.user.id, msg.id)
            if opened is None:
                await self.load(ctx)
                return None
            return Push(ReadScreen(opened))
        if letter == "d":
            await ctx.services.mail.delete(ctx.user.id, msg.id)
            ctx.status(f"Deleted {clean(msg.subject, 30)!r}.")
            await self.load(ctx)
        return None

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        unread = sum(m.unread for m in self.messages)
        head = f"{len(self.messages)} message(s), {unread} new" if self.messages else "No mail."
        canvas.put(2, 2, head, HEADING_STYLE)
        room = max(canvas.height - 6, 1)
        if self.selected < self.top:
            self.top = self.selected
        elif self.selected >= self.top + room:
            self.top = self.selected - room + 1
        width = canvas.width - 4
        for y, i in enumerate(range(self.top, min(self.top + room, len(self.messages))), 4):
            m = self.messages[i]
            when = m.sent_at.strftime("%d %b %H:%M")
            mark = "*" if m.unread else " "
            line = f"{mark} {clean(m.sender, 20):<20} {when}  {clean(m.subject)}"
            style = SELECTED_STYLE if i == self.selected else (
                UNREAD_STYLE if m.unread else READ_STYLE)
            canvas.put(2, y, clip_text(line, width), style)


class ReadScreen(Screen):
    """One message, whole."""

    title = "door — Mail: a message"
    key_help = "R)eply · D)elete · !: report to the sysop · Q)uit or Esc: back to the inbox"

    def __init__(self, message: Message) -> None:
        self.message = message

    def where(self) -> str:
        return "reading mail"

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        letter = _letter(event)
        if letter == "q" or (isinstance(event, Key) and event.name == "escape"):
            return Pop()
        m = self.message
        if letter == "r" and m.sender_id is not None:
            subject = m.subject if m.subject.lower().startswith("re:") else f"Re: {m.subject}"
            return Push(ComposeScreen(m.sender, subject[:SUBJECT_MAX]))
        if letter == "!" and ctx.user is not None:
            copy = f"From {m.sender}, subject {m.subject!r}:\n{m.body}"
            await ctx.services.sysop.report(ctx.user.id, "mail", copy, about_id=m.sender_id,
                                            item=m.id)  # fmt: skip
            ctx.status("Reported to the sysop, with a copy of the message. Thank you.")
            return None
        if letter == "d" and ctx.user is not None:
            await ctx.services.mail.delete(ctx.user.id, m.id)
            ctx.status(f"Deleted {clean(m.subject, 30)!r}.")
            return Pop()
        return None

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        return Pop() if result == "sent" else None

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        m = self.message
        width = canvas.width - 4
        canvas.put(2, 2, clip_text(f"From:    {clean(m.sender)}", width), LABEL_STYLE)
        canvas.put(2, 3, clip_text(f"Sent:    {m.sent_at:%Y-%m-%d %H:%M} UTC", width), LABEL_STYLE)
        canvas.put(2, 4, clip_text(f"Subject: {clean(m.subject)}", width), HEADING_STYLE)
        for y, line in enumerate(m.body.split("\n")[: max(canvas.height - 9, 1)], 6):
            canvas.put(4, y, clip_text(clean(line), width - 2), READ_STYLE)


class ComposeScreen(Screen):
    """To, subject and a few lines; Enter goes to the next field, and sends from the
    last one (or Ctrl-S from anywhere)."""

    title = "door — Mail: write"
    key_help = "Enter/Tab: next line · Ctrl-S: send · Up: previous line · Esc: cancel"

    def __init__(self, to: str = "", subject: str = "") -> None:
        self.fields = [LineEditor(to, max_len=20), LineEditor(subject, max_len=SUBJECT_MAX)]
        self.fields += [LineEditor(max_len=LINE_MAX) for _ in range(BODY_LINES)]
        self.focus = 2 if to else 0

    def where(self) -> str:
        return "writing mail"

    async def send(self, ctx: Context) -> Transition | None:
        if ctx.user is None:
            return None
        to, subject, *body = (f.text for f in self.fields)
        try:
            await ctx.services.mail.send(ctx.user.id, to, subject, "\n".join(body))
        except MailError as exc:
            ctx.status(str(exc))
            return None
        ctx.status(f"Sent to {clean(to, 20)}.")  # only once it is committed
        return Pop("sent")

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if isinstance(event, Key):
            if event.name == "ctrl-s":
                return await self.send(ctx)
            if event.name == "up":
                self.focus = max(self.focus - 1, 0)
                return None
            if event.name in ("tab", "down", "ctrl-i"):
                self.focus = min(self.focus + 1, len(self.fields) - 1)
                return None
        result = self.fields[self.focus].handle(event)
        if result == "cancel":
            ctx.status("Not sent.")
            return Pop()
        if result == "submit":
            if self.focus == len(self.fields) - 1:
                return await self.send(ctx)
            self.focus += 1
        return None

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        width = min(canvas.width - 14, LINE_MAX + 1)
        canvas.put(2, 2, "To:", LABEL_STYLE)
        self.fields[0].render(canvas, 12, 2, 21, self.focus == 0)
        canvas.put(2, 3, "Subject:", LABEL_STYLE)
        self.fields[1].render(canvas, 12, 3, min(width, SUBJECT_MAX + 1), self.focus == 1)
        canvas.put(2, 5, "Message:", LABEL_STYLE)
        for i, field in enumerate(self.fields[2:], 2):
            field.render(canvas, 12, 4 + i, width, self.focus == i)
