"""Backgammon bots (bgsage and the pure fallback): legal moves, the cube, resignations,
hints and reviews."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from door.games.backgammon.moves import ACCEPT, BEAVER, DOUBLE, DROP, REJECT, ROLL, TAKE
from door.games.backgammon.position import (
    DECIDE,
    DOUBLED,
    RESIGNING,
    BackgammonState,
    check_board,
)
from door.games.backgammon.rules import BackgammonRules
from door.games.replay import Event, ReplayError
from door.services import bgengine
from door.services.bgengine import BgEngine, has_bgsage, review_log

RULES = BackgammonRules()
needs_bgsage = pytest.mark.skipif(not has_bgsage(), reason="bgsage is not installed here")


@pytest.fixture
def no_bgsage(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the adapter believe bgsage is not installed (as on an ARM board)."""
    monkeypatch.setattr(bgengine, "load_bgsage", lambda: None)


def side(**points: int) -> tuple[int, ...]:
    s = [0] * 25
    for key, n in points.items():
        s[24 if key == "bar" else int(key[1:]) - 1] = n
    return tuple(s)


def play_game(
    engines: tuple[BgEngine, BgEngine], options: dict[str, Any], rng: random.Random
) -> tuple[BackgammonState, list[tuple[str, int | None, dict[str, Any]]]]:
    """A whole match; every bot action must read back from its notation and be legal
    (``apply`` refuses anything else).
    Returns the final state and the log as the game service would store it."""
    state = RULES.new_game(2, options)
    log: list[tuple[str, int | None, dict[str, Any]]] = []
    while RULES.outcome(state) is None:
        while RULES.chance_pending(state):
            dice = RULES.sample_chance(state, rng)
            log.append(("chance", None, {"chance": RULES.chance_to_json(dice)}))
            state = RULES.apply_chance(state, dice)
        if RULES.outcome(state) is not None:
            break
        seat = RULES.to_act(state)
        assert seat is not None
        move = engines[seat].choose(state)
        text = RULES.format_move(state, move)
        parsed = RULES.parse_move(state, text)
        assert RULES.format_move(state, parsed) == text
        after = RULES.apply(state, parsed)  # refuses an illegal move
        log.append(("move", seat, {"move": text}))
        state = after
    return state, log


def as_events(log: list[tuple[str, int | None, dict[str, Any]]]) -> list[Event]:
    """A log of ``(kind, seat, payload)`` as the events the review reads."""
    return [Event(kind, seat, payload) for kind, seat, payload in log]


MONEY_VARIANTS = [
    {"match_length": 0},
    {"match_length": 0, "jacoby": True, "beavers": True},
    {"match_length": 1},
    {"match_length": 3},
]


@pytest.mark.usefixtures("no_bgsage")
def test_fallback_bots_make_only_legal_moves_over_a_hundred_and_fifty_games() -> None:
    rng = random.Random(1)
    a = BgEngine("bg-beginner", rng=random.Random(2))
    b = BgEngine("bg-intermediate", rng=random.Random(3))
    assert a.engine == b.engine == "pubeval"
    for game in range(150):
        final, _ = play_game((a, b) if game % 2 else (b, a), MONEY_VARIANTS[game % 4], rng)
        assert RULES.outcome(final) is not None


@needs_bgsage
def test_bgsage_bots_make_only_legal_moves_over_fifty_games() -> None:
    # bgsage only ranks the rules' own plays, so the volume is in the fallback test above;
    # these games exercise bgsage's cube, take and beaver decisions against the rules.
    rng = random.Random(4)
    a = BgEngine("bg-beginner", rng=random.Random(5))
    b = BgEngine("bg-intermediate", rng=random.Random(6))
    assert a.engine == "bgsage"
    for game in range(50):
        final, _ = play_game((a, b) if game % 2 else (b, a), MONEY_VARIANTS[game % 4], rng)
        assert RULES.outcome(final) is not None


@needs_bgsage
def test_the_expert_plays_legal_matches_against_the_fallback() -> None:
    rng = random.Random(8)
    expert = BgEngine("bg-expert")
    fallback = BgEngine("bg-intermediate", use_bgsage=False)
    for game in range(3):
        final, _ = play_game(
            (expert, fallback) if game % 2 else (fallback, expert), {"match_length": 3}, rng
        )
        assert RULES.outcome(final) is not None


@pytest.mark.usefixtures("no_bgsage")
def test_with_bgsage_absent_every_level_falls_back_and_plays_a_full_match_with_the_cube() -> None:
    engines = [BgEngine(level) for level, _ in bgengine.BG_LEVELS]
    assert {e.engine for e in engines} == {"pubeval"}
    assert not has_bgsage()
    rng = random.Random(10)
    cube_actions = set()
    for game in range(6):
        final, log = play_game((engines[2], engines[game % 3]), {"match_length": 5}, rng)
        assert RULES.outcome(final) is not None
        cube_actions |= {p["move"] for k, _, p in log if k == "move"} & {"double", "take", "drop"}
    assert "double" in cube_actions


# --- the cube and resignations, on positions with a clear answer ---------------------------

ENGINES = ["fallback", pytest.param("bgsage", marks=needs_bgsage)]


def engine(kind: str) -> BgEngine:
    return BgEngine("bg-expert", use_bgsage=kind == "bgsage")


def money(me: tuple[int, ...], opp: tuple[int, ...], phase: str, **changes: Any) -> BackgammonState:
    state = RULES.new_game(2, {"match_length": 0})
    state = replace(state, turn=0, phase=phase, dice=None, **changes)
    check_board((me, opp))
    return state.with_board(me, opp)


# Seat 0 (on roll) is far ahead in a race: 8 checkers on low points against 15 far away.
RACE_CRUSH = (side(p1=3, p2=3, p3=2), side(p13=5, p14=5, p15=5))
EVEN = (side(p6=5, p8=3, p13=5, p24=2), side(p6=5, p8=3, p13=5, p24=2))


@pytest.mark.parametrize("kind", ENGINES)
def test_nobody_doubles_the_opening_position(kind: str) -> None:
    assert engine(kind).choose(money(*EVEN, DECIDE)) == ROLL


@pytest.mark.parametrize("kind", ENGINES)
def test_a_hopeless_double_is_dropped(kind: str) -> None:
    assert engine(kind).choose(money(*RACE_CRUSH, DOUBLED)) == DROP


@pytest.mark.parametrize("kind", ENGINES)
def test_an_early_double_in_an_even_game_is_taken(kind: str) -> None:
    assert engine(kind).choose(money(*EVEN, DOUBLED)) in (TAKE, BEAVER)


@pytest.mark.parametrize("kind", ENGINES)
def test_a_crushing_position_is_doubled_or_played_on(kind: str) -> None:
    # Too good to double is also right here if gammons count; either way no error.
    assert engine(kind).choose(money(*RACE_CRUSH, DECIDE)) in (DOUBLE, ROLL)


@pytest.mark.parametrize("kind", ENGINES)
def test_a_single_resignation_from_a_crushed_opponent_is_accepted(kind: str) -> None:
    # Seat 0 is far ahead and seat 1 (also with checkers off) offers a single: nothing
    # more to win, so seat 0 accepts.
    me, opp = side(p1=2, p2=2), side(p5=2, p6=2)
    state = money(me, opp, RESIGNING, resigner=1, resign_level=1)
    state = replace(state, turn=1)  # the resigner was on roll
    assert RULES.to_act(state) == 0
    assert engine(kind).choose(state) == ACCEPT


@pytest.mark.parametrize("kind", ENGINES)
def test_a_single_resignation_in_an_even_game_is_accepted(kind: str) -> None:
    state = money(*EVEN, RESIGNING, resigner=1, resign_level=1)
    state = replace(state, turn=1)
    assert engine(kind).choose(state) == ACCEPT


@pytest.mark.parametrize("kind", ENGINES)
def test_a_single_resignation_is_rejected_when_a_gammon_is_near(kind: str) -> None:
    # Seat 1 has all 15 checkers far from home and nothing off; seat 0 is bearing off.
    me, opp = side(p1=2, p2=2, p3=1), side(p13=5, p14=5, p15=5)
    state = replace(money(me, opp, RESIGNING, resigner=1, resign_level=1), turn=1)
    assert engine(kind).choose(state) == REJECT


def beavered(me: tuple[int, ...], opp: tuple[int, ...]) -> BackgammonState:
    """Seat 0 doubled to 2 and seat 1 beavered: the cube is on 4, seat 1's, and seat 0
    must take or drop the redouble."""
    state = RULES.new_game(2, {"match_length": 0, "beavers": True})
    state = replace(state, turn=0, phase=DOUBLED, dice=None, cube=4, cube_owner=1, beavered=True)
    check_board((me, opp))
    state = state.with_board(me, opp)
    assert RULES.to_act(state) == 0
    assert set(RULES.legal_moves(state)) == {TAKE, DROP}
    return state


@pytest.mark.parametrize("kind", ENGINES)
def test_a_double_from_a_lost_position_is_beavered_where_beavers_are_on(kind: str) -> None:
    me, opp = RACE_CRUSH[1], RACE_CRUSH[0]  # seat 0 doubles while far behind
    state = money(me, opp, DOUBLED)
    state = replace(state, options=replace(state.options, beavers=True))
    assert BEAVER in RULES.legal_moves(state)
    assert engine(kind).choose(state) == BEAVER


@pytest.mark.parametrize("kind", ENGINES)
def test_a_doubler_takes_a_beaver_in_an_even_game(kind: str) -> None:
    assert engine(kind).choose(beavered(*EVEN)) == TAKE


@pytest.mark.parametrize("kind", ENGINES)
def test_a_doubler_facing_a_beaver_in_a_lost_race_drops_it(kind: str) -> None:
    # Seat 0 (who doubled, wrongly) is far behind and likely to be gammoned.
    me, opp = RACE_CRUSH[1], RACE_CRUSH[0]
    assert engine(kind).choose(beavered(me, opp)) == DROP


# --- hints and reviews ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ENGINES)
def test_hint_lists_plays_best_first_as_notation_with_signed_equities(kind: str) -> None:
    state = RULES.apply_chance(RULES.new_game(2, {"match_length": 0}), (6, 4))
    hints = engine(kind).hint(state, 3)
    assert len(hints) == 3
    equities = [float(e) for _, e in hints]
    assert equities == sorted(equities, reverse=True)
    assert all(e.startswith(("+", "-")) for _, e in hints)
    for text, _ in hints:
        RULES.parse_move(state, text)


@pytest.mark.parametrize("kind", ENGINES)
def test_hint_before_rolling_gives_the_cube_choices(kind: str) -> None:
    hints = engine(kind).hint(money(*EVEN, DECIDE), 3)
    assert hints[0][0] == "roll"
    assert {m for m, _ in hints} == {"roll", "double"}


class WorstPlayer(BgEngine):
    """Plays the worst checker play it can find (and otherwise like its level)."""

    def choose(self, state: BackgammonState) -> Any:
        ranked = self.rank_plays(state)
        if ranked:
            return ranked[-1].move
        return super().choose(state)


@needs_bgsage
def test_review_finds_no_errors_in_the_engines_own_play_and_many_in_the_worst() -> None:
    good = BgEngine("bg-strong")
    good.noise = 0.0  # the plain 1-ply ranking, so its own play is its best
    bad = WorstPlayer("bg-strong")
    _, log = play_game((good, bad), {"match_length": 0}, random.Random(12))
    review = review_log(good, {"match_length": 0}, as_events(log))
    careful, careless = review.players
    assert careful.error_rate == pytest.approx(0.0, abs=1e-9)
    assert careful.mistakes == ()
    assert careless.error_rate > 50
    assert careless.mistakes and careless.mistakes[0].loss >= careless.mistakes[-1].loss
    assert len(careless.mistakes) <= 5
    worst = careless.mistakes[0]
    assert worst.seat == 1 and worst.played != worst.best and worst.dice is not None


def test_rating_words_follow_gnubgs_scale() -> None:
    assert bgengine.rating_for(1.0) == "Supernatural"
    assert bgengine.rating_for(10.0) == "Advanced"
    assert bgengine.rating_for(100.0) == "Awful"


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="bg-expert"):
        BgEngine("bg-grandmaster")


@needs_bgsage
def test_review_flags_a_double_made_far_too_early() -> None:
    opening = RULES.new_game(2, {"match_length": 0})
    dice = (3, 1)
    first = RULES.apply_chance(opening, dice)
    mover = first.turn
    play = RULES.format_move(first, RULES.legal_moves(first)[0])
    log: list[tuple[str, int | None, dict[str, Any]]] = [
        ("chance", None, {"chance": RULES.chance_to_json(dice)}),
        ("move", mover, {"move": play}),
        ("move", 1 - mover, {"move": "double"}),
        ("move", mover, {"move": "take"}),
    ]
    review = review_log(BgEngine("bg-intermediate"), {"match_length": 0}, as_events(log))
    doubler = review.players[1 - mover]
    assert [(m.played, m.best) for m in doubler.mistakes] == [("double", "roll")]
    assert doubler.mistakes[0].loss > 0.05


def test_review_reads_a_log_that_ends_in_a_forfeit() -> None:
    fallback = BgEngine("bg-intermediate", use_bgsage=False)
    _, log = play_game((fallback, fallback), {"match_length": 0}, random.Random(21))
    cut = log[:12]
    seat = next(s for k, s, _ in cut if k == "move")
    cut.append(("system", seat, {"action": "forfeit", "reason": "resign"}))
    review = review_log(fallback, {"match_length": 0}, as_events(cut))
    assert review.engine == "pubeval"
    assert sum(p.decisions for p in review.players) > 0


def test_review_refuses_a_log_that_does_not_replay() -> None:
    fallback = BgEngine("bg-intermediate", use_bgsage=False)
    log: list[tuple[str, int | None, dict[str, Any]]] = [
        ("chance", None, {"chance": {"dice": [3, 1]}}),
        ("move", 0, {"move": "24/10"}),
    ]
    with pytest.raises(ReplayError, match="event 2 of the log"):
        review_log(fallback, {"match_length": 0}, as_events(log))
