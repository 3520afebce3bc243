"""GNU Backgammon's ``.sgf`` (Smart Game Format, ``GM[6]``): a backgammon match as gnubg's
``save match`` writes it and its ``load match`` (``sgf.c``) reads it.

One game tree per game of the match::

    (;FF[4]GM[6]CA[UTF-8]AP[door]MI[length:5][game:0][ws:0][bs:0]PW[alice]PB[bob]
    RU[Crawford]RE[W+2]
    ;B[52lqln]
    ;W[double]
    ;B[take]
    ...)

White (``W``) is seat 0, Black (``B``) seat 1. A turn is ``dice`` then a pair of letters
per checker step: the point counted from the mover's side, ``a`` = its 1-point for White
and ``x`` for Black (gnubg's board index read the other way), ``y`` the bar, ``z`` borne
off. A roll left unplayed (a resignation or forfeit after rolling) is ``PL[W]DI[52]``;
a game won by resignation, forfeit or timeout has ``RE[W+2R]`` (gnubg adds the
resignation). A beaver is the doubled seat's ``double``, as gnubg models it. The
opening rolls that were ties and rejected resignations are not in the format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from door.games.backgammon.movegen import Step
from door.services.export.bgmatch import Game, Turn, notes, player_name, read_match
from door.services.export.common import comment_lines
from door.services.games import AnyRules, GameEvent, GameInfo
from door.store.records import JSON

COLOURS = ("W", "B")
RESIGNED = ("resign", "timeout", "forfeit")
"""Reasons a game was won without being played out: gnubg's ``R`` (resigned)."""


def sgf_text(
    rules: AnyRules,
    info: GameInfo,
    events: Sequence[GameEvent],
    extra: Mapping[str, JSON] | None = None,
) -> str:
    """The ``.sgf`` text of backgammon game ``info`` with its log ``events``."""
    match = read_match(rules, info, events)
    names = (player_name(info, 0), player_name(info, 1))
    comment = "\n".join([*notes(info, match), *comment_lines(extra)])
    trees = []
    for game in match.games:
        trees.append(game_tree(info, game, match.length, names, comment))
    return "".join(trees)


def game_tree(
    info: GameInfo, game: Game, length: int, names: tuple[str, str], comment: str
) -> str:
    """One game's tree: the root node (match, players, rules, result) and a node per turn."""
    options = info.options
    root = (
        f"(;FF[4]GM[6]CA[UTF-8]AP[door]"
        f"MI[length:{length}][game:{game.number - 1}][ws:{game.score[0]}][bs:{game.score[1]}]"
        f"PW[{escape(names[0])}]PB[{escape(names[1])}]"
    )
    if game.number == 1:
        root += f"DT[{info.created_at:%Y-%m-%d}]EV[{escape(f'door game {info.id}')}]PC[door]"
        if comment:
            root += f"GC[{escape(comment)}]"
    rule_words = []
    if not options.get("cube", True):
        rule_words.append("NoCube")
    if length and options.get("crawford", True):
        rule_words.append("Crawford")
        if game.crawford:
            rule_words.append("CrawfordGame")
    if not length and options.get("jacoby"):
        rule_words.append("Jacoby")
    if rule_words:
        root += f"RU[{':'.join(rule_words)}]"
    if game.start_cube > 1:
        root += f"CV[{game.start_cube}]"
    win = next((t for t in game.turns if t.kind == "win"), None)
    if win is not None:
        root += f"RE[{COLOURS[win.seat]}+{win.points}{'R' if win.reason in RESIGNED else ''}]"
    nodes = [node for t in game.turns if (node := turn_node(t)) is not None]
    return root + "".join(f"\n;{n}" for n in nodes) + ")\n"


def turn_node(turn: Turn) -> str | None:
    """The node of one turn (without its ``;``); None for the win (it is the root's RE)."""
    colour = COLOURS[turn.seat]
    kind = turn.kind
    if kind == "play":
        assert turn.dice is not None
        return f"{colour}[{turn.dice[0]}{turn.dice[1]}{steps_text(turn.seat, turn.steps)}]"
    if kind == "dice":
        assert turn.dice is not None
        return f"PL[{colour}]DI[{turn.dice[0]}{turn.dice[1]}]"
    if kind in ("double", "beaver"):
        return f"{colour}[double]"
    if kind == "take":
        return f"{colour}[take]"
    if kind == "drop":
        return f"{colour}[drop]"
    return None


def point_letter(seat: int, point: int) -> str:
    """A point of the mover's (1-24, 25 the bar, 0 off) as gnubg's letter for ``seat``."""
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    index = point - 1
    return chr(ord("x") - index) if seat == 1 else chr(ord("a") + index)


def steps_text(seat: int, steps: Sequence[Step]) -> str:
    return "".join(point_letter(seat, s) + point_letter(seat, d) for s, d, _die, _hit in steps)


def escape(text: str) -> str:
    """SGF text: ``\\`` and ``]`` escaped."""
    return text.replace("\\", "\\\\").replace("]", "\\]")
