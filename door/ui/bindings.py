"""Key bindings as data: one table per screen drives its dispatch, its key-help line and
its help page.

A :class:`Binding` is one row: the keys it answers to, the label it shows on the bottom
line (``"R)oll"``), the line it adds to the help page, when it applies and what it does.
A :class:`Keyset` is the table: ``dispatch`` runs the first row that answers the key and
applies now (or the table's ``fallback``), ``key_help`` joins the labels of the rows that
apply, ``help_page`` lists every row's help. Written after evennia's EvMenu (menus as
data) and x84's keysets (key names bound to actions in a table).

Keys are named as :func:`key_name` names an event: a :class:`Key` by its name
(``"enter"``, ``"escape"``, ``"left"``, ``"f1"``), one typed character by itself, lower
case (``"q"``, ``":"``, ``"5"``, ``" "``).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from door.ui.glyphs import Glyphs
from door.ui.screen import Context, Screen, Transition
from door.ui.terminal import InputEvent, Key, Text

S = TypeVar("S")

Outcome = Transition | None
Handler = Callable[[S, Context, str], "Awaitable[Outcome] | Outcome"]
"""``handler(screen, ctx, key)``: the key's name is passed for rows bound to several."""

Predicate = Callable[[S], bool]


NEXT_PAGE_KEYS = ("pgdn", "down", "enter", "right", " ", "n", "+")
"""The keys that turn to the next page, on every paged screen."""
PREVIOUS_PAGE_KEYS = ("pgup", "up", "left", "p", "-", "b")
"""The keys that turn back a page."""


def always(_: object) -> bool:
    """The default ``when``: the row always applies."""
    return True


def key_name(event: InputEvent) -> str:
    """The name a binding uses for ``event``: a key's name, or one typed character in
    lower case (``""`` for anything else)."""
    if isinstance(event, Key):
        return event.name
    if isinstance(event, Text):
        return event.text[:1].lower()
    return ""


SHORT_HELP = 24
"""Help lines this short share a line of the help page ("R: roll   D: double")."""


def event_of(key: str) -> InputEvent:
    """The event ``key_name`` names ``key`` (a widget fed from a table's row wants one)."""
    return Text(key) if len(key) == 1 else Key(key)


def with_arrows(text: str, g: Glyphs) -> str:
    """``text`` with the arrows → and ← written in ``g``'s glyphs (labels use UTF-8)."""
    if g.encoding == "utf-8":
        return text
    return text.replace("→", g.arrow_right).replace("←", g.arrow_left)


@dataclass(frozen=True)
class Binding(Generic[S]):
    """One row of a key table.

    ``keys``: the key names it answers to (none: a note on the key-help line only).
    ``label``: its text on the key-help line (``""``: not shown there).
    ``help``: its line on the help page (``""``: none).
    ``when``: whether it applies now (otherwise the key falls through to later rows).
    ``shown``: whether its label is worth the room on the line now (default: ``when``).
    """

    keys: tuple[str, ...]
    label: str
    help: str
    handler: Handler[S] | None = None
    when: Predicate[S] = always
    shown: Predicate[S] | None = None

    def applies(self, screen: S) -> bool:
        return self.when(screen)

    def is_shown(self, screen: S) -> bool:
        if not self.label:
            return False
        return (self.shown or self.when)(screen)


class Keyset(Generic[S]):
    """A screen's key table (see the module docstring). ``fallback`` handles a key no
    row took; ``sep`` joins labels on the key-help line, or two spaces do when ``roomy``
    and the line has room for them."""

    def __init__(
        self,
        bindings: Iterable[Binding[S]],
        *,
        fallback: Handler[S] | None = None,
        sep: str = " ",
        roomy: bool = True,
    ) -> None:
        self.bindings = tuple(bindings)
        self.fallback = fallback
        self.sep = sep
        self.roomy = roomy
        self._by_key: dict[str, list[Binding[S]]] = {}
        for b in self.bindings:
            for k in b.keys:
                self._by_key.setdefault(k, []).append(b)

    def find(self, screen: S, key: str) -> Binding[S] | None:
        """The row that ``key`` runs now, if any."""
        for b in self._by_key.get(key, ()):
            if b.applies(screen):
                return b
        return None

    async def dispatch(self, screen: S, ctx: Context, event: InputEvent) -> Outcome:
        """Run the row ``event`` picks (or the fallback) and return its transition."""
        key = key_name(event)
        row = self.find(screen, key) if key else None
        handler = row.handler if row is not None else self.fallback
        if handler is None:
            return None
        result = handler(screen, ctx, key)
        if inspect.isawaitable(result):
            return await result
        return result

    def key_help(self, screen: S, width: int = 78) -> str:
        """The key-help line: the labels of the rows shown now, in table order, two
        spaces apart when that fits in ``width`` columns (else ``sep`` apart)."""
        labels = [b.label for b in self.bindings if b.is_shown(screen)]
        if self.roomy:
            roomy = "  ".join(labels)
            if len(roomy) <= width:
                return roomy
        return self.sep.join(labels)

    def help_page(self, width: int = 64) -> list[str]:
        """Every row's help line, in table order (each once); short ones share a line."""
        lines: list[str] = []
        seen: set[str] = set()
        short = ""
        for b in self.bindings:
            text = b.help
            if not text or text in seen:
                continue
            seen.add(text)
            if len(text) > SHORT_HELP:
                if short:
                    lines.append(short)
                    short = ""
                lines.append(text)
            elif short and len(short) + 3 + len(text) <= width:
                short = f"{short}   {text}"
            else:
                if short:
                    lines.append(short)
                short = text
        if short:
            lines.append(short)
        return lines


class KeyedScreen(Screen):
    """A screen whose keys and key-help line come from its ``keys`` table."""

    keys: ClassVar[Keyset[Any]]

    @property
    def key_help(self) -> str:  # type: ignore[override]
        return self.keys.key_help(self)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        return await self.keys.dispatch(self, ctx, event)
