"""The plain-text login and registration dialogue (telnet, rlogin fall-back, ``door local``).

No game knowledge and no screens: a name prompt, a password prompt without echo, ``new``
to register (name, then the password twice). An unknown name and a wrong password get the
same message. After each failure the address waits a growing delay; too many failures in
the window block it for a while, too many for one name lock that name briefly, and a few
wrong passwords end the connection (:class:`~door.net.limits.LoginGuard`).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from door.net.limits import LoginGuard
from door.ui.terminal import Hangup, Key, Terminal, Text

NEW_USER_WORDS = ("new", "apply")
BAD_LOGIN = "Unknown name or wrong password."
MAX_NOTHING_TYPED = 3
"""Empty answers to "Password: " asked again before the dialogue goes back to "Name: "."""


class AccountsLike(Protocol):
    """What the dialogue needs from :class:`door.services.accounts.Accounts`."""

    async def authenticate(self, name: str, password: str) -> Any: ...

    async def register(self, name: str, password: str, *, address: str | None = None) -> Any: ...


class LoginAborted(Exception):
    """The person hung up (or the server is closing) during the dialogue."""


def printable(text: str) -> str:
    """``text`` without control characters: safe to echo to anyone's terminal."""
    return "".join(ch for ch in text if ch.isprintable())


async def read_line(
    terminal: Terminal,
    *,
    echo: bool = True,
    max_len: int = 512,
    timeout: float | None = None,
) -> str | None:
    """Read a line with simple editing (Backspace, Ctrl-U); ``None`` on Escape or timeout.

    Raises :class:`LoginAborted` on hang-up. Characters past ``max_len`` ring the bell and
    are dropped; control characters never get in.
    """
    buf: list[str] = []
    while True:
        event = await terminal.read_event(timeout)
        if event is None:
            return None
        if isinstance(event, Hangup):
            raise LoginAborted(event.reason)
        if isinstance(event, Text):
            text = printable(event.text)
            room = max_len - len(buf)
            if len(text) > room:
                text = text[:room]
                terminal.bell()
            buf.extend(text)
            if echo and text:
                terminal.write(text)
        elif isinstance(event, Key):
            if event.name == "enter":
                terminal.write("\r\n")
                return "".join(buf)
            if event.name == "backspace" and buf:
                buf.pop()
                if echo:
                    terminal.write("\b \b")
            elif event.name == "ctrl-u" and buf:
                if echo:
                    terminal.write("\b \b" * len(buf))
                buf.clear()
            elif event.name == "escape":
                terminal.write("\r\n")
                return None
        await terminal.drain()


async def register_dialogue(
    terminal: Terminal,
    accounts: AccountsLike,
    *,
    max_len: int = 512,
    attempts: int = 3,
    address: str | None = None,
    escape_to: str = "go back",
) -> Any | None:
    """Ask for a new name and a password twice; the new user, or ``None`` if they gave up
    (or sign-ups are refused: closed, or too many from ``address``, said first).
    ``escape_to`` says what Esc does where the caller is ("go back" to the name prompt;
    over SSH, where there is none, "leave").

    The service counts every attempt against ``address``. A user that comes back
    pending (sign-ups need approval) is returned; the caller's session refuses it
    with the message already shown here.
    """
    refusal = getattr(accounts, "signup_refusal", None)
    if refusal is not None:
        reason = await refusal(address)
        if reason is not None:
            terminal.write(f"\r\n{printable(reason)}\r\n")
            return None
    terminal.write(
        f"\r\nNew account. Names are 2 to 20 characters. Press Esc to {escape_to}.\r\n"
    )
    for _ in range(attempts):
        terminal.write("Choose a name: ")
        name = await read_line(terminal, max_len=max_len)
        if name is None:
            return None
        name = name.strip()
        if not name:
            continue
        if name.lower() in NEW_USER_WORDS:
            terminal.write("That name is reserved. Pick another.\r\n")
            continue
        terminal.write("Choose a password: ")
        password = await read_line(terminal, echo=False, max_len=max_len)
        if password is None:
            return None
        terminal.write("The password again: ")
        again = await read_line(terminal, echo=False, max_len=max_len)
        if again is None:
            return None
        if password != again:
            terminal.write("The two passwords differ. Let's try again.\r\n")
            continue
        try:
            user = await accounts.register(name, password, address=address)
        except ValueError as exc:
            terminal.write(f"Sorry: {printable(str(exc))}\r\n")
            if refusal is not None and await refusal(address) is not None:
                return None  # that was the address's last attempt for now
            continue
        if getattr(user, "is_pending", False):
            terminal.write(
                f"Thank you, {printable(user.name)}. Your account waits for the sysop's "
                "approval; you can log in once it is approved.\r\n"
            )
            return user
        terminal.write(f"Welcome, {printable(user.name)}! Your account is ready.\r\n")
        return user
    return None


async def read_password(terminal: Terminal, *, max_len: int = 512) -> str | None:
    """The password typed at "Password: "; ``None`` on Escape or timeout, or after
    :data:`MAX_NOTHING_TYPED` empty lines in a row.

    An empty line is asked again, saying so: no account has an empty password, so it is
    a stray Enter, not a guess, and costs no try (nor a step towards a lock).
    """
    prompt = "Password: "
    for _ in range(MAX_NOTHING_TYPED + 1):
        terminal.write(prompt)
        await terminal.drain()
        password = await read_line(terminal, echo=False, max_len=max_len)
        if password != "":
            return password
        prompt = "Nothing was typed. Password: "
    return None


async def login_dialogue(
    terminal: Terminal,
    accounts: AccountsLike,
    guard: LoginGuard,
    *,
    address: str,
    server_name: str = "door",
    max_len: int = 512,
    attempts: int = 5,
    max_tries: int = 3,
    sign_ups: bool = True,
) -> Any | None:
    """Log a person in (or register them); the user, or ``None`` if they did not make it.
    ``sign_ups`` false (the sysop closed them) leaves ``new`` out of the greeting.

    Raises :class:`LoginAborted` if they hang up. At most ``attempts`` prompts, and
    ``max_tries`` wrong passwords (or refused tries) end the dialogue. Every password
    check is counted by ``guard`` against the address and the name before it runs, and
    the guard's block or lock is checked before each one.
    """
    terminal.write(f"\r\nWelcome to {printable(server_name)}.\r\n")
    if sign_ups:
        terminal.write("Type your name, or 'new' to create an account.\r\n")
    else:
        terminal.write("Type your name. (New accounts are made by the sysop here.)\r\n")
    tries = 0
    for _ in range(attempts):
        refusal = guard.refusal(address)
        if refusal is not None:
            terminal.write(refusal + "\r\n")
            return None
        terminal.write("\r\nName: ")
        await terminal.drain()
        name = await read_line(terminal, max_len=max_len)
        if name is None:
            continue
        name = name.strip()
        if not name:
            continue
        if name.lower() in NEW_USER_WORDS:
            user = await register_dialogue(terminal, accounts, max_len=max_len, address=address)
            if user is not None:
                return user
            continue
        password = await read_password(terminal, max_len=max_len)
        if password is None:
            continue
        attempt = await guard.start(address, name)
        if isinstance(attempt, str):
            delay = 0.0
            terminal.write(attempt + "\r\n")
        else:
            try:
                user = await accounts.authenticate(name, password)
            except BaseException:
                attempt.failed()  # abandoned half-way: it counts, it is never a free guess
                raise
            if user is not None:
                attempt.succeeded()
                return user
            terminal.write(BAD_LOGIN + "\r\n")
            delay = attempt.failed()
        tries += 1
        if tries >= max_tries:
            break
        await terminal.drain()
        await asyncio.sleep(delay)
    terminal.write("Goodbye.\r\n")
    return None
