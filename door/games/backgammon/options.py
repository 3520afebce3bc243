"""The options a backgammon game is played under: defaults, checking, the frozen form.

>>> validate_options(2, {"match_length": 0})["crawford"]
False
>>> validate_options(2, {"match_length": 3, "beavers": True})
Traceback (most recent call last):
...
door.games.base.Refusal: beavers applies to money play only (match_length 0)
"""

from __future__ import annotations

from collections.abc import Mapping

from door.games.backgammon.position import Options
from door.games.base import JSONValue, Refusal

MAX_MATCH_LENGTH = 25

_MONEY_ONLY = ("jacoby", "beavers", "auto_doubles")


def default_options() -> dict[str, JSONValue]:
    """A 5-point match with the cube and the Crawford rule (the money-only options off)."""
    return {
        "match_length": 5,
        "cube": True,
        "crawford": True,
        "jacoby": False,
        "beavers": False,
        "auto_doubles": False,
    }


def _check_value(key: str, value: JSONValue) -> None:
    if key == "match_length":
        if isinstance(value, bool) or not isinstance(value, int):
            raise Refusal("match_length must be a whole number (0 = money game)")
        if not 0 <= value <= MAX_MATCH_LENGTH:
            raise Refusal(f"match_length must be 0 (money game) to {MAX_MATCH_LENGTH} points")
    elif not isinstance(value, bool):
        raise Refusal(f"option {key} must be true or false")


def validate_options(seats: int, options: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """Checked, complete options; a :class:`Refusal` names the first problem."""
    if seats != 2:
        raise Refusal("backgammon is for exactly 2 players")
    out = default_options()
    for key, value in options.items():
        if key not in out:
            raise Refusal(f"unknown backgammon option {key!r} (known: {', '.join(out)})")
        _check_value(key, value)
        out[key] = value
    if out["match_length"] != 0:
        for key in _MONEY_ONLY:
            if out[key]:
                raise Refusal(f"{key} applies to money play only (match_length 0)")
    else:
        out["crawford"] = False
    return out


def options_of(options: Mapping[str, JSONValue]) -> Options:
    """The frozen :class:`Options` for option values (checked here)."""
    o = validate_options(2, options)
    return Options(
        match_length=int(o["match_length"]),
        cube=bool(o["cube"]),
        crawford=bool(o["crawford"]),
        jacoby=bool(o["jacoby"]),
        beavers=bool(o["beavers"]),
        auto_doubles=bool(o["auto_doubles"]),
    )


def options_dict(o: Options) -> dict[str, JSONValue]:
    """``o`` as the plain option values ``validate_options`` gives.

    >>> options_dict(options_of({})) == default_options()
    True
    """
    return {
        "match_length": o.match_length,
        "cube": o.cube,
        "crawford": o.crawford,
        "jacoby": o.jacoby,
        "beavers": o.beavers,
        "auto_doubles": o.auto_doubles,
    }
