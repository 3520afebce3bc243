"""What the screens remember having drawn, as objects: built once by ``App`` and shared by
every session of the process through :class:`~door.ui.screen.Context`.

Nothing here can go stale: every entry is keyed by all that its drawing depends on, and a
drawing is never changed after it is made (screens copy its rows).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from door.ui.canvas import Canvas, StyleTable

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

BOARD_DRAWINGS_KEPT = 1024
"""Board drawings kept (one is ~12 KB: its cells are shared)."""
BOARD_GROUNDS_KEPT = 64
"""Empty boards kept (by width, size, encoding, colours and side: a handful in use)."""
HELP_ROWS_KEPT = 512
"""Key-help rows kept (the same few lines are drawn on every key)."""
HELP_LAYOUTS_KEPT = 512
"""Key-help texts kept laid out in rows (by text and width)."""
TITLE_ROWS_KEPT = 1024
"""Title rows kept (by title, the text on its right and width: one a screen and user)."""


class LRU(Generic[K, V]):
    """A bounded memo: the ``size`` entries used last."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The entry for ``key``, made with ``make()`` the first time."""
        entries = self._entries
        found = entries.get(key)
        if found is not None:
            entries.move_to_end(key)
            return found
        value = entries[key] = make()
        if len(entries) > self.size:
            entries.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._entries)


class RenderCaches:
    """The style table every canvas of the process shares, and drawings made once:
    ``boards`` (a game board without its cursor, by everything drawn on it),
    ``board_grounds`` (an empty board each new drawing in ``boards`` starts from, by
    width, size, encoding, colours and side) and
    ``help_rows`` (a key-help line, by text and width) and ``help_layouts`` (a key-help
    text broken into the rows it takes, by text and width) and ``title_rows`` (a title
    bar, by its two texts and width)."""

    def __init__(
        self, *, boards_kept: int = BOARD_DRAWINGS_KEPT, help_rows_kept: int = HELP_ROWS_KEPT
    ) -> None:
        self.styles = StyleTable()
        self.boards: LRU[Hashable, Canvas] = LRU(boards_kept)
        self.board_grounds: LRU[Hashable, Canvas] = LRU(BOARD_GROUNDS_KEPT)
        self.help_rows: LRU[tuple[str, int], Canvas] = LRU(help_rows_kept)
        self.help_layouts: LRU[tuple[str, int], tuple[str, ...]] = LRU(HELP_LAYOUTS_KEPT)
        self.title_rows: LRU[tuple[str, str, int], Canvas] = LRU(TITLE_ROWS_KEPT)

    def canvas(self, width: int, height: int) -> Canvas:
        """A blank canvas on the shared style table."""
        return Canvas(width, height, self.styles)
