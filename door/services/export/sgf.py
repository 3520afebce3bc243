"""(being written)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from door.games.base import Refusal
from door.services.games import AnyRules, GameEvent, GameInfo
from door.store.records import JSON


def sgf_text(
    rules: AnyRules,
    info: GameInfo,
    events: Sequence[GameEvent],
    extra: Mapping[str, JSON] | None = None,
) -> str:
    """Not written yet."""
    raise Refusal("this record format is not ready yet")
