"""A minimal greeting loop, used only while ``door.session`` is not importable."""

from __future__ import annotations

from typing import Any

from door.ui.terminal import Hangup, Key, Terminal, Text


async def run_session(
    terminal: Terminal, services: Any, user: Any, *, start: str | None = None
) -> None:
    """Greet ``user`` and wait for Q (or a hang-up)."""
    name = "".join(ch for ch in getattr(user, "name", "guest") if ch.isprintable())
    terminal.write("\x1b[2J\x1b[H")
    terminal.write(f"Hello, {name}! The game screens are not installed in this build.\r\n")
    if start:
        terminal.write(f"(You asked for {start}.)\r\n")
    terminal.write("Press Q to leave.\r\n")
    await terminal.drain()
    while True:
        event = await terminal.read_event()
        if isinstance(event, Hangup):
            return
        if isinstance(event, Text) and event.text.lower().startswith("q"):
            return
        if isinstance(event, Key) and event.name == "escape":
            return
