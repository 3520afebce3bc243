"""What the writers share: the extra keys as comment lines."""

from __future__ import annotations

import json
from collections.abc import Mapping

from door.store.records import JSON


def comment_lines(extra: Mapping[str, JSON] | None) -> list[str]:
    """``key: value`` for each extra key (strings as they are, anything else as JSON),
    one line each: a text format's comments carry what the JSON record has as keys."""
    out = []
    for key, value in (extra or {}).items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        line = f"{key}: {text}"
        out.append("".join(ch if ch.isprintable() else " " for ch in line))
    return out
