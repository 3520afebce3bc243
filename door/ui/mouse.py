"""Clickable regions: what a click on a cell means, recorded while the screen draws.

Whatever draws a thing a person can choose (a menu line, a list row, a key on the key-help
line, a board point) records a :class:`Region` on the canvas where it drew it
(``Canvas.clickable``), so a click is looked up in the very frame the person sees and can
never drift from the layout. The session turns a click into what its region names
(:func:`targets_for`): one key or a run of keys fed to the screen exactly as typed
(``"s"``; ``("home", "down", "enter")``), or a :class:`Pick` the top screen handles in
``on_pick`` (a backgammon point: the same as moving the cursor there and pressing Enter).

The mouse is turned on with :data:`MOUSE_ON` (xterm modes 1000 press/release, 1002 drag,
1006 SGR coordinates) and off with :data:`MOUSE_OFF`, by the session.
"""

from __future__ import annotations

from dataclasses import dataclass

MOUSE_ON = "\x1b[?1000h\x1b[?1002h\x1b[?1006h"
"""Report clicks (1000), drags (1002), in SGR form with any coordinates (1006)."""
MOUSE_OFF = "\x1b[?1006l\x1b[?1002l\x1b[?1000l"
"""Stop reporting (the reverse order of :data:`MOUSE_ON`)."""


@dataclass(frozen=True, slots=True)
class Pick:
    """A click on something no single key names: ``kind`` says what (``"spot"``: a
    backgammon point, ``"field"``: a Spectrangle field, ``"piece"``: a piece in the hand),
    ``value`` which one. The top screen's ``on_pick`` decides what it does."""

    kind: str
    value: int = 0


Target = str | tuple[str, ...] | Pick
"""What a click does: a key name (as ``bindings.key_name`` names it), keys in order, or a
:class:`Pick`."""


@dataclass(frozen=True, slots=True)
class Region:
    """Cells ``x`` .. ``x + w - 1`` of rows ``y`` .. ``y + h - 1`` (0-based), and what a
    left click (``target``) and a right click (``right``, if anything) there do.

    Slotted (no ``__dict__``), and made once per value by the shared style table
    (``StyleTable.region``): every cached drawing and every frame copied from one holds
    the same few objects (a backgammon board's 26 regions are the same for every
    position)."""

    x: int
    y: int
    w: int
    h: int
    target: Target
    right: Target | None = None

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h


def keys_of(target: Target) -> tuple[str, ...]:
    """The key names a key target stands for (none for a :class:`Pick`)."""
    if isinstance(target, Pick):
        return ()
    if isinstance(target, str):
        return (target,)
    return target
