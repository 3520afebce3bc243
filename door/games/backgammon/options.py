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

MATCH_LENGTHS: tuple[int, ...] = (0, *range(1, MAX_MATCH_LENGTH + 1, 2))
"""The match lengths a player steps through when setting a game up: money play (0),
then the odd lengths, as matches are usually played."""


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


def option_choices(options: Mapping[str, JSONValue]) -> dict[str, tuple[JSONValue, ...]]:
    """The values each option may take beside the others' values (which need not be
    checked yet), in the order a player steps through them. An option with one value
    does not apply and a set-up screen leaves it out: the Crawford rule in money play, in
    a 1-point match (nobody is ever at match point minus one) and without a cube; the cube
    in a 1-point match (it is dead from the first roll: one point wins the match); the
    money-only options in a match and without a cube.

    >>> option_choices({"match_length": 1})["cube"], option_choices({"match_length": 1})["crawford"]
    ((False,), (False,))
    >>> option_choices({"match_length": 0})["crawford"]
    (False,)
    """
    raw = options.get("match_length", 5)
    length = raw if isinstance(raw, int) and not isinstance(raw, bool) else 5
    money = length == 0
    cube_applies = length != 1
    cube = bool(options.get("cube", True)) and cube_applies
    both: tuple[JSONValue, ...] = (True, False)
    off: tuple[JSONValue, ...] = (False,)
    lengths: tuple[JSONValue, ...] = MATCH_LENGTHS
    if length not in MATCH_LENGTHS and 0 <= length <= MAX_MATCH_LENGTH:
        lengths = tuple(sorted((*MATCH_LENGTHS, length)))  # an even length someone typed
    money_only = both if money and cube else off
    return {
        "match_length": lengths,
        "cube": both if cube_applies else off,
        "crawford": both if length > 1 and cube else off,
        "jacoby": money_only,
        "beavers": money_only,
        "auto_doubles": money_only,
    }


def fit_options(wanted: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """``wanted`` (a player's picks, perhaps not all fitting together) made to fit: an
    option that does not apply beside the others takes its one value (see
    :func:`option_choices`); the result is checked. Keeping the picks apart from the fitted
    options lets a player go to a 1-point match and back without losing the cube.

    >>> fit_options({"match_length": 1})["cube"], fit_options({"match_length": 3})["cube"]
    (False, True)
    >>> fit_options({"match_length": 5, "beavers": True})["beavers"]
    False
    """
    out = default_options()
    out.update({k: v for k, v in wanted.items() if k in out})
    for key, values in option_choices(out).items():
        if out[key] not in values:
            out[key] = values[0]
    return validate_options(2, out)


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
