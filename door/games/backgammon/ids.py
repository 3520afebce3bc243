"""gnubg Position ID and Match ID, encoded and decoded exactly as gnubg does.

Position ID: for each player, his points 1..24 in his own numbering and then his bar: one
``1`` bit per checker followed by a ``0``; padded to 80 bits, packed least significant bit
first into 10 bytes, Base64 without the ``==`` padding. The opening is ``4HPwATDgc/ABMA``.

Which player comes first: gnubg keeps the player on roll in ``anBoard[1]`` and writes
``anBoard[0]`` (the opponent) first, so the ID starts with the player *not* on roll. The
gnubg manual's prose (and reference/backgammon.md §3.2, which follows it) say "player on
roll first"; gnubg's code, its ``gnubg_nn.position_id``, and the IDs it prints disagree:
after 3-1 played 8/5 6/5 from the opening, gnubg shows the next player on roll
``sGfwATDgc/ABMA``. We follow gnubg's behaviour so an ID pastes into gnubg and back
(tests/games/backgammon/data/gnubg_position_ids.txt holds IDs computed by gnubg's code).

Match ID: 66 bits in fields written least significant bit first, packed like the Position
ID into 9 bytes, Base64 (12 characters). gnubg 1.x also writes bit 67 (index 66): 1 when the
Jacoby rule is *off*; IDs without it read as Jacoby on, as gnubg reads them.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from door.games.backgammon.position import CHECKERS, Side

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _b64decode(text: str, nbytes: int, what: str) -> bytes:
    length = {10: 14, 9: 12}[nbytes]
    if len(text) != length or any(c not in _B64 for c in text):
        raise ValueError(
            f"a {what} is {length} characters of A-Z a-z 0-9 + / (got {text[:20]!r})"
        )
    pad = "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(text + pad, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{text!r} is not a valid {what}") from exc
    return raw[:nbytes]


def encode_position(on_roll: Side, opponent: Side) -> str:
    """The Position ID of a board given as (player on roll, opponent), each 25 counts,
    as gnubg shows it to the player on roll (the opponent's checkers are written first).

    >>> from door.games.backgammon.position import start_side
    >>> encode_position(start_side(), start_side())
    '4HPwATDgc/ABMA'
    """
    bits = 0
    pos = 0
    for side in (opponent, on_roll):
        for n in side:
            if n:
                bits |= ((1 << n) - 1) << pos
                pos += n
            pos += 1
    key = bits.to_bytes(10, "little")
    return base64.b64encode(key).decode("ascii")[:14]


def decode_position(text: str) -> tuple[Side, Side]:
    """Read a Position ID: (player on roll, opponent). ``ValueError`` says what is wrong.

    >>> from door.games.backgammon.position import start_side
    >>> decode_position("4HPwATDgc/ABMA") == (start_side(), start_side())
    True
    """
    text = text.strip()
    key = _b64decode(text, 10, "Position ID")
    bits = int.from_bytes(key, "little")
    sides: list[list[int]] = [[], []]
    pos = 0
    for s in (0, 1):
        for _ in range(25):
            n = 0
            while pos < 80 and (bits >> pos) & 1:
                n += 1
                pos += 1
                if n > CHECKERS:
                    raise ValueError(
                        f"Position ID {text!r} puts more than 15 checkers on one point"
                    )
            if pos >= 80:
                raise ValueError(f"Position ID {text!r} ends in the middle of the board")
            pos += 1
            sides[s].append(n)
    if bits >> pos:
        raise ValueError(f"Position ID {text!r} has stray bits after the board")
    # gnubg writes the opponent first: the second half is the player on roll.
    b, a = tuple(sides[0]), tuple(sides[1])
    for side in (a, b):
        if sum(side) > CHECKERS:
            raise ValueError(f"Position ID {text!r} gives a player more than 15 checkers")
    for i in range(24):
        if a[i] and b[23 - i]:
            raise ValueError(f"Position ID {text!r} puts both players on one point")
    return a, b


@dataclass(frozen=True)
class MatchKey:
    """The fields of a gnubg Match ID, as gnubg defines them.

    ``cube_owner`` is 0, 1 or ``None`` (centred); ``dice_owner`` the seat on roll (or who
    rolled); ``turn`` the seat that must act now; ``game_state`` 0 no game started,
    1 playing, 2 over, 3 resigned, 4 ended by a dropped cube; ``resign`` 0-3 (offered by
    the seat opposite ``turn``); ``dice`` (0, 0) when not rolled; ``jacoby`` gnubg's extra
    bit (stored inverted, so an ID without it means Jacoby on).
    """

    cube: int = 1
    cube_owner: int | None = None
    dice_owner: int = 0
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    doubled: bool = False
    resign: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True


def encode_match(key: MatchKey) -> str:
    """The 12-character Match ID of ``key``."""
    if key.cube < 1 or key.cube & (key.cube - 1) or key.cube > 1 << 15:
        raise ValueError(f"the cube must be a power of two up to 32768, not {key.cube}")
    fields = [
        (key.cube.bit_length() - 1, 4),
        (3 if key.cube_owner is None else key.cube_owner, 2),
        (key.dice_owner, 1),
        (int(key.crawford), 1),
        (key.game_state, 3),
        (key.turn, 1),
        (int(key.doubled), 1),
        (key.resign, 2),
        (key.dice[0], 3),
        (key.dice[1], 3),
        (key.match_length, 15),
        (key.score[0], 15),
        (key.score[1], 15),
        (int(not key.jacoby), 1),
    ]
    bits = 0
    pos = 0
    for value, width in fields:
        if not 0 <= value < 1 << width:
            raise ValueError(f"value {value} does not fit a {width}-bit Match ID field")
        bits |= value << pos
        pos += width
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match(text: str) -> MatchKey:
    """Read a Match ID; ``ValueError`` names the field that makes no sense."""
    text = text.strip()
    bits = int.from_bytes(_b64decode(text, 9, "Match ID"), "little")
    pos = 0

    def take(width: int) -> int:
        nonlocal pos
        value = (bits >> pos) & ((1 << width) - 1)
        pos += width
        return value

    cube_log = take(4)
    owner = take(2)
    dice_owner = take(1)
    crawford = take(1)
    game_state = take(3)
    turn = take(1)
    doubled = take(1)
    resign = take(2)
    d1 = take(3)
    d2 = take(3)
    length = take(15)
    s0 = take(15)
    s1 = take(15)
    no_jacoby = take(1)
    if owner == 2:
        raise ValueError(f"Match ID {text!r}: cube owner 2 does not exist (0, 1 or 3)")
    if game_state > 4:
        raise ValueError(f"Match ID {text!r}: game state {game_state} does not exist")
    if d1 > 6 or d2 > 6 or (d1 == 0) != (d2 == 0):
        raise ValueError(f"Match ID {text!r}: dice {d1}-{d2} are not a roll")
    return MatchKey(
        cube=1 << cube_log,
        cube_owner=None if owner == 3 else owner,
        dice_owner=dice_owner,
        crawford=bool(crawford),
        game_state=game_state,
        turn=turn,
        doubled=bool(doubled),
        resign=resign,
        dice=(d1, d2),
        match_length=length,
        score=(s0, s1),
        jacoby=not no_jacoby,
    )
