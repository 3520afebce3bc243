"""Moves shown to a player are in that player's own point numbers (item 5 of issue 16).

Each board is numbered from its viewer's side, so the opponent's "24/18 13/10" reads
"1/7 12/15" for the other player, as FIBS and DailyGammon write it.
"""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.notation import (
    BAR_POINT,
    OFF_POINT,
    flip_points,
    format_play,
    from_viewpoint,
    parse_text,
)
from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.accounts import User
from door.services.bgengine import GameReview, Mistake, PlayerReview
from door.ui.screens.review import review_blocks
from tests.ui.conftest import StartSession
from tests.ui.test_backgammon_screen import NO_CUBE, begin, state_of


@st.composite
def plays(draw: st.DrawFn) -> str:
    """Some checker-play notation as format_play writes it (hops from high to low)."""
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        src = draw(st.integers(1, BAR_POINT))
        dst = draw(st.integers(max(src - 6, OFF_POINT), src - 1))
        hit = dst != OFF_POINT and draw(st.booleans())
        steps.append((src, dst, src - dst, hit))
    return format_play(tuple(steps))


def numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"[0-9]+(?!\))", re.sub(r"\([0-9]\)", "", text))]


@given(plays())
def test_numbering_from_the_other_side_twice_gives_the_play_back(text: str) -> None:
    assert flip_points(flip_points(text)) == text
    assert parse_text(from_viewpoint(from_viewpoint(text, 0, 1), 1, 0)) == parse_text(text)


@given(plays())
def test_every_point_p_reads_25_minus_p_and_bar_and_off_stay(text: str) -> None:
    flipped = from_viewpoint(text, 1, 0)
    assert numbers(flipped) == [25 - p if 1 <= p <= 24 else p for p in numbers(text)]
    assert flipped.count("bar") == text.count("bar")
    assert flipped.count("off") == text.count("off")
    assert flipped.count("*") == text.count("*")


@given(plays(), st.sampled_from([0, 1]))
def test_the_mover_reads_their_own_play_unchanged(text: str, seat: int) -> None:
    assert from_viewpoint(text, seat, seat) == text


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 30))
def test_a_real_play_read_from_the_other_side_and_back_parses_to_the_same_play(
    seed: int, turns: int
) -> None:
    rnd = random.Random(seed)
    rules = BackgammonRules()
    state = rules.new_game(2, {"match_length": 0, "cube": False})
    for _ in range(turns + 1):
        while rules.chance_pending(state):
            state = rules.apply_chance(state, rules.sample_chance(state, rnd))
        if rules.outcome(state) is not None:
            return
        moves = rules.legal_moves(state)
        move = rnd.choice(moves)
        text = rules.format_move(state, move)
        mover = state.turn
        other_side = from_viewpoint(text, mover, 1 - mover)
        back = from_viewpoint(other_side, 1 - mover, mover)
        assert back == text
        assert rules.apply(state, rules.parse_move(state, back)) == rules.apply(state, move)
        if move.steps:  # the other player reads each point p as 25 - p
            assert numbers(other_side) == [25 - p if 1 <= p <= 24 else p for p in numbers(text)]
        state = rules.apply(state, move)


def test_words_that_are_not_plays_stay_as_they_are() -> None:
    for word in ("roll", "double", "take", "drop", "resign gammon", "(resigned)", "no move"):
        assert from_viewpoint(word, 0, 1) == word
    assert from_viewpoint("24/18 13/10", 0, 1) == "1/7 12/15"
    assert from_viewpoint("bar/22* 6/off", 1, 0) == "bar/3* 19/off"


async def opponent_plays(services: Services, gid: int, users: dict[int, User]) -> tuple[str, str]:
    """The mover plays a legal move through the service: (as logged, as the other reads)."""
    state = await state_of(services, gid)
    rules = BackgammonRules()
    # a play that reads differently from the other side (not a symmetric one)
    for move in rules.legal_moves(state):
        text = rules.format_move(state, move)
        if from_viewpoint(text, 0, 1) != text:
            break
    snap = await services.games.get(gid)
    await services.games.submit(gid, users[state.turn].id, text, snap.info.version)
    return text, from_viewpoint(text, state.turn, 1 - state.turn)


async def test_the_meanwhile_line_is_in_the_watching_players_numbers(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    r = await start_session(users[1 - state.turn], start=f"game:{gid}")
    logged, seen = await opponent_plays(services, gid, users)
    await r.term.wait_for("Meanwhile")
    assert seen in r.term.display_text()
    assert logged not in r.term.display_text()


async def test_since_you_last_looked_is_in_the_players_numbers(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    logged, seen = await opponent_plays(services, gid, users)
    r = await start_session(users[1 - state.turn], start=f"game:{gid}")
    assert "Since you last looked" in r.term.display_text()
    assert seen in r.term.display_text()
    assert logged not in r.term.display_text()


async def test_view_last_turn_tells_the_play_and_its_steps_in_the_viewers_numbers(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    logged, seen = await opponent_plays(services, gid, users)
    r = await start_session(users[1 - state.turn], start=f"game:{gid}")
    r.term.type("v")
    await r.term.settle()
    r.term.press("right")
    await r.term.wait_for("step 1 of")
    text = r.term.display_text()
    assert f"plays {seen}:" in text
    m = re.search(r"step 1 of \d+,\s+(\S+)", text.replace("\n", " "))
    assert m is not None
    shown = m.group(1).rstrip("*")
    (hop,) = parse_text(from_viewpoint(shown, 1, 0))  # back in the mover's numbers
    assert (hop.src, hop.dst) in {(h.src, h.dst) for h in parse_text(logged)}
    assert from_viewpoint(shown, 1, 0) != shown


def test_the_review_writes_each_players_plays_in_the_readers_numbers() -> None:
    class Seat:
        def __init__(self, seat: int, user_id: int, name: str) -> None:
            self.seat, self.user_id, self.name = seat, user_id, name

    class Info:
        def __init__(self) -> None:
            self.id = 1
            self.options = {"match_length": 1}
            self.seats = [Seat(0, 10, "alice"), Seat(1, 11, "bob")]
            self.outcome = None
            self.summary = ""

    mistake = Mistake(
        seat=0, move_number=1, dice=(6, 3), played="24/18 13/10", best="24/15", loss=0.1
    )  # fmt: skip
    white = PlayerReview(
        seat=0, decisions=1, error_rate=50.0, total_loss=0.1, rating="beginner",
        mistakes=(mistake,),
    )  # fmt: skip
    review = GameReview(players=(white,), engine="test")
    as_bob = "\n".join(line.text for b in review_blocks(Info(), review, 76, 1) for line in b)
    as_alice = "\n".join(line.text for b in review_blocks(Info(), review, 76, 0) for line in b)
    assert "1/7 12/15" in as_bob and "1/10" in as_bob
    assert "24/18 13/10" in as_alice and "24/15" in as_alice
