"""The archive of finished games (issue 20, point 3), through real sessions read with pyte:
the list and its search, paging, the step-by-step viewer of a backgammon match with the
review beside it, Spectrangle's replay, and private archives."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

import pytest

from door.games.backgammon.position import DECIDE, MOVING
from door.services import Services, bgengine
from door.services.accounts import User
from door.services.bgengine import BgEngine, GameReview, Mistake, PlayerReview, rating_for
from door.services.bots import BotRunner
from door.services.clock import FakeClock
from door.services.games import SeatSpec
from door.ui.keys import KeyDecoder
from tests.ui.conftest import Running, StartSession, started_game

SIZES = [(40, 15), (80, 24), (132, 50)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


# --- games to look at ----------------------------------------------------------------------


async def resigned_game(
    services: Services, winner: User, loser: User, kind: str = "backgammon"
) -> int:
    """A game ``winner`` won at once when ``loser`` resigned (finished now)."""
    info = await started_game(services, winner, loser, kind)
    await services.games.resign(info.id, loser.id)
    return int(info.id)


async def play_moves(services: Services, game_id: int, count: int, rng: random.Random) -> None:
    """``count`` random legal moves (never a double, so the games stay one point each)."""
    games = services.games
    rules = games.rules_for("backgammon")
    for _ in range(count):
        snap = await games.get(game_id)
        seat = snap.info.to_act
        assert snap.info.status == "active" and seat is not None
        uid = snap.info.seats[seat].user_id
        assert uid is not None
        moves = [m for m in rules.legal_moves(snap.state) if m.action != "double"]
        text = rules.format_move(snap.state, rng.choice(moves))
        await games.submit(game_id, uid, text, snap.info.version)


async def resign_this_game(services: Services, game_id: int, loser: User) -> None:
    """``loser`` offers to lose this game as a single (on their roll), and it is accepted."""
    games = services.games
    rng = random.Random(1)
    snap = await games.get(game_id)
    while not (snap.state.phase in (DECIDE, MOVING) and snap.info.is_waiting_on(loser.id)):
        await play_moves(services, game_id, 1, rng)
        snap = await games.get(game_id)
    seat = snap.info.to_act
    assert seat is not None
    other = snap.info.seats[1 - seat].user_id
    assert other is not None
    snap = await games.offer_resignation(game_id, loser.id, "single", snap.info.version)
    await games.submit(game_id, other, "accept", snap.info.version)


async def two_game_match(services: Services, alice: User, bob: User) -> int:
    """A 2-point match of two games, each a few moves long and ended by a resignation."""
    seats = [SeatSpec("me"), SeatSpec("user", bob.name)]
    info = await services.games.begin(alice.id, "backgammon", {"match_length": 2}, seats)
    await services.games.join(info.id, bob.id)
    rng = random.Random(5)
    for _ in range(2):
        await play_moves(services, info.id, 8, rng)
        await resign_this_game(services, info.id, alice)
    snap = await services.games.get(info.id)
    assert snap.info.status == "finished"
    return info.id


async def carol(services: Services) -> User:
    return await services.accounts.register("Carol", "carol-pw")


async def open_archive(start_session: StartSession, user: User, **kwargs: Any) -> Running:
    r = await start_session(user, **kwargs)
    r.term.type("a")
    await r.term.settle()
    return r


async def search(r: Running, text: str) -> None:
    r.term.type("s")
    await r.term.settle()
    r.term.press("ctrl-u")
    if text:
        r.term.type(text)
    r.term.press("enter")
    await r.term.settle()


def listed(r: Running) -> list[int]:
    """The game numbers the list shows, top to bottom."""
    return [int(m[1]) for line in r.term.display() if (m := re.match(r"\s*#(\d+)\s", line))]


def bottom(r: Running, rows: int = 3) -> str:
    return "\n".join(r.term.display()[-rows:])


# --- the list ------------------------------------------------------------------------------


async def test_a_from_the_main_menu_opens_the_archive(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice)
    assert "A) Archive: finished games to search and replay" in r.term.display_text()
    r.term.type("a")
    await r.term.settle()
    assert "Archive of finished games" in r.term.row(0)
    assert "No finished games yet." in r.term.display_text()


async def test_the_list_shows_each_game_newest_first_with_players_result_and_day(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User, bob: User
) -> None:
    older = await resigned_game(services, alice, bob)
    clock.advance(timedelta(days=3))
    newer = await resigned_game(services, bob, alice, "spectrangle")
    running = await started_game(services, alice, bob)  # not finished: not listed
    r = await open_archive(start_session, alice)
    assert listed(r) == [newer, older]
    text = r.term.display_text()
    assert running.id not in listed(r)
    row_new = next(line for line in r.term.display() if line.lstrip().startswith(f"#{newer} "))
    row_old = next(line for line in r.term.display() if line.lstrip().startswith(f"#{older} "))
    assert "Spectrangle" in row_new and "Bob won" in row_new and "2026-01-04" in row_new
    assert "Backgammon" in row_old and "Alice won" in row_old and "2026-01-01" in row_old
    assert "Alice" in row_old and "Bob" in row_old
    assert "Finished" in text and "Result" in text


async def test_search_by_one_player_lists_only_their_games(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    c = await carol(services)
    ab = await resigned_game(services, alice, bob)
    bc = await resigned_game(services, bob, c)
    ac = await resigned_game(services, c, alice)
    r = await open_archive(start_session, alice)
    await search(r, "carol")
    assert listed(r) == [ac, bc]
    assert "Search: carol" in r.term.display_text()
    await search(r, "Alice bob")
    assert listed(r) == [ab]
    r.term.type("c")
    await r.term.settle()
    assert listed(r) == [ac, bc, ab]


async def test_the_search_line_takes_only_text_from_a_byte_stream_of_garbage(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    c = await carol(services)
    await resigned_game(services, alice, bob)
    bc = await resigned_game(services, bob, c)
    r = await open_archive(start_session, alice)
    r.term.type("s")
    await r.term.settle()
    decoder = KeyDecoder("utf-8")
    # C0 and C1 controls the editor has no use for, and bytes that are no UTF-8, around
    # the name's letters: only the name stays
    garbage = b"\x00c\x85\x9ba\xff\xfe\x02r\xc3o\x0el\x80\x07"
    for event in [*decoder.feed(garbage), *decoder.flush()]:
        r.term.send(event)
    await r.term.settle()
    assert "Search: carol" in r.term.display_text()
    assert "\ufffd" not in r.term.display_text()
    r.term.press("enter")
    await r.term.settle()
    assert listed(r) == [bc]


async def test_search_by_game_kind(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    bg = await resigned_game(services, alice, bob)
    sp = await resigned_game(services, alice, bob, "spectrangle")
    r = await open_archive(start_session, alice)
    await search(r, "spectrangle")
    assert listed(r) == [sp]
    await search(r, "Backgammon bob")
    assert listed(r) == [bg]


async def test_search_by_a_day_a_month_and_a_range_of_days(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User, bob: User
) -> None:
    jan1 = await resigned_game(services, alice, bob)  # 2026-01-01
    clock.advance(timedelta(days=30))
    jan31 = await resigned_game(services, alice, bob)
    clock.advance(timedelta(days=1))
    feb1 = await resigned_game(services, alice, bob)
    r = await open_archive(start_session, alice)
    await search(r, "2026-01-31")
    assert listed(r) == [jan31]
    await search(r, "2026-01")
    assert listed(r) == [jan31, jan1]
    await search(r, "2026-01-15..2026-02-01")
    assert listed(r) == [feb1, jan31]
    await search(r, "2026-02-01..")
    assert listed(r) == [feb1]


async def test_a_malformed_date_is_refused_with_the_reason_and_the_line_stays_to_fix(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    game = await resigned_game(services, alice, bob)
    r = await open_archive(start_session, alice)
    await search(r, "2026-13-01")
    text = r.term.display_text()
    assert "'2026-13-01' is not a date: write a day as 2026-11-30" in text
    assert "Search: 2026-13-01" in text  # still on the line, to be fixed
    assert listed(r) == [game]  # the list is as it was
    r.term.press("ctrl-u")
    r.term.type("2026-02-01..2026-01-01")
    r.term.press("enter")
    await r.term.settle()
    assert "ends before it begins" in r.term.display_text()


async def test_a_search_naming_nobody_known_says_so(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await resigned_game(services, alice, bob)
    r = await open_archive(start_session, alice)
    await search(r, "zelda")
    assert "Nobody here is called 'zelda'." in r.term.display_text()


async def test_a_search_that_finds_nothing_says_so(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await resigned_game(services, alice, bob)
    r = await open_archive(start_session, alice)
    await search(r, "alice 2025-12")
    assert listed(r) == []
    assert "No finished games match 'alice 2025-12'." in r.term.display_text()
    assert "0 games found." in r.term.display_text()


async def test_a_long_archive_pages_with_n_and_p(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    ids = [await resigned_game(services, alice, bob) for _ in range(20)]
    newest_first = ids[::-1]
    r = await open_archive(start_session, alice)
    assert listed(r) == newest_first[:14]
    assert "Page 1 of 2  (20 in all)" in r.term.display_text()
    r.term.type("n")
    await r.term.settle()
    assert listed(r) == newest_first[14:]
    assert "Page 2 of 2" in r.term.display_text()
    r.term.type("p")
    await r.term.settle()
    assert listed(r) == newest_first[:14]


# --- the viewer ----------------------------------------------------------------------------


def caption(r: Running) -> str:
    """The viewer's line under the board (game, move, what happened)."""
    for line in r.term.display():
        if re.search(r"move \d+/\d+", line):
            return line.strip()
    raise AssertionError("no move line:\n" + r.term.display_text())


def move_number(r: Running) -> tuple[int, int]:
    m = re.search(r"move (\d+)/(\d+)", caption(r))
    assert m is not None
    return int(m[1]), int(m[2])


async def open_first(r: Running) -> None:
    r.term.press("enter")
    await r.term.settle()


async def test_opening_a_match_steps_forward_and_back_a_move_and_to_either_end(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await two_game_match(services, alice, bob)
    r = await open_archive(start_session, alice)
    await open_first(r)
    first, total = move_number(r)
    assert first == 1 and total > 10
    assert "Game 1/2" in caption(r)
    r.term.press("right")
    await r.term.settle()
    assert move_number(r) == (2, total)
    r.term.press("right")
    r.term.press("left")
    await r.term.settle()
    assert move_number(r) == (2, total)
    r.term.press("end")
    await r.term.settle()
    assert move_number(r) == (total, total)
    assert "Game 2/2" in caption(r) and "accepts the resignation" in caption(r)
    r.term.press("home")
    await r.term.settle()
    assert move_number(r) == (1, total)
    r.term.type("q")
    await r.term.settle()
    assert "Archive of finished games" in r.term.row(0)


async def test_the_viewer_jumps_to_a_game_of_the_match_by_its_number_and_by_page_keys(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await two_game_match(services, alice, bob)
    r = await open_archive(start_session, alice)
    await open_first(r)
    r.term.type("g")
    await r.term.settle()
    assert "Go to game (1-2):" in r.term.display_text()
    r.term.type("3")
    r.term.press("enter")
    await r.term.settle()
    assert "There is no game 3: give 1 to 2." in r.term.display_text()
    r.term.press("backspace")
    r.term.type("2")
    r.term.press("enter")
    await r.term.settle()
    assert "Game 2/2" in caption(r)
    start_of_two, _ = move_number(r)
    r.term.press("left")  # the last move of game 1 is just before
    await r.term.settle()
    assert "Game 1/2" in caption(r) and "accepts the resignation" in caption(r)
    r.term.press("pgdn")
    await r.term.settle()
    assert move_number(r)[0] == start_of_two
    r.term.press("pgup")
    await r.term.settle()
    assert move_number(r)[0] == 1


class FixedRunner:
    """Stands in for the bot runner's ``review``: answers ``review`` at once."""

    def __init__(self, review: GameReview) -> None:
        self.result = review
        self.asked: list[int] = []

    async def review(self, game_id: int, *, worst: int = 5) -> GameReview:
        self.asked.append(game_id)
        return self.result


async def review_with_a_mistake_on_move(
    services: Services, game_id: int, play: int
) -> tuple[GameReview, str]:
    """A review saying seat 0's ``play``-th checker play lost 0.123 (the play as logged)."""
    rules = services.games.rules_for("backgammon")
    from door.games.replay import replay

    events = await services.games.events(game_id)
    snap = await services.games.get(game_id)
    seen = 0
    for step in replay(rules, rules.new_game(2, snap.info.options), events):
        move = step.move
        is_play = move is not None and move.action == "play" and step.before.phase == MOVING
        if step.event.seat == 0 and is_play:
            assert move is not None
            seen += 1
            if seen == play:
                text = rules.format_move(step.before, move)
                dice = step.before.dice
                break
    else:
        raise AssertionError("seat 0 made too few plays")
    mistake = Mistake(0, play, dice, text, "24/13", 0.123)
    players = (
        PlayerReview(0, 10, 0.123, 12.3, rating_for(12.3), (mistake,)),
        PlayerReview(1, 10, 0.0, 0.0, rating_for(0.0), ()),
    )
    return GameReview("test engine", players), text


async def step_to(r: Running, text: str) -> None:
    """→ until the move line shows ``text``."""
    for _ in range(200):
        if text in caption(r):
            return
        r.term.press("right")
        await r.term.settle()
    raise AssertionError(f"{text!r} never came: {caption(r)}")


@pytest.mark.parametrize("size", [(80, 24), (132, 50)], ids=["80x24", "132x50"])
async def test_the_review_of_each_move_shows_beside_the_board(
    start_session: StartSession, services: Services, alice: User, bob: User,
    size: tuple[int, int],
) -> None:  # fmt: skip
    game = await two_game_match(services, alice, bob)
    review, played = await review_with_a_mistake_on_move(services, game, 2)
    services.bots = FixedRunner(review)
    r = await open_archive(start_session, alice, width=size[0], height=size[1])
    await open_first(r)
    await step_to(r, f"played {played}")
    found = r.term.find("Review: lost 0.123")
    assert found is not None, r.term.display_text()
    x, y = found
    board_end = r.term.row(y).index("│")  # the review is right of the board, in the panel
    assert x > board_end
    panel = [r.term.row(y + i)[x:].strip() for i in (1, 2)]
    assert panel == [f"played {played}", "better 24/13"], r.term.display_text()
    assert "Alice: error rate 12.3" in r.term.display_text()
    r.term.press("right")
    await r.term.settle()
    assert "lost 0.123" not in r.term.display_text()
    assert services.bots.asked == [game]


async def test_on_a_narrow_terminal_the_review_goes_under_the_board_and_r_hides_it(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    game = await two_game_match(services, alice, bob)
    review, played = await review_with_a_mistake_on_move(services, game, 2)
    services.bots = FixedRunner(review)
    r = await open_archive(start_session, alice, width=40, height=15)
    await open_first(r)
    for _ in range(200):
        if "lost 0.123" in r.term.display_text():
            break
        r.term.press("right")
        await r.term.settle()
    shown = r.term.display()
    at = next(i for i, line in enumerate(shown) if "lost 0.123" in line)
    assert at > next(i for i, line in enumerate(shown) if re.search(r"move \d+/", line))
    assert f"played {played}" in " ".join(line.strip() for line in shown)
    assert "Q)uit" in bottom(r)
    r.term.type("r")
    await r.term.settle()
    assert "lost 0.123" not in r.term.display_text()
    assert "The review is hidden." in r.term.display_text()


async def test_without_the_engine_the_viewer_says_there_is_no_review(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await two_game_match(services, alice, bob)
    services.bots = None
    r = await open_archive(start_session, alice)
    await open_first(r)
    panel = " ".join(line[50:].strip() for line in r.term.display()[1:16])
    assert "No review: this server lacks the analysis engine (bgsage)." in panel


async def test_a_spectrangle_game_opens_with_each_move_its_score_and_the_standings(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob, "spectrangle")
    rules = services.games.rules_for("spectrangle")
    rng = random.Random(2)
    for _ in range(4):
        snap = await services.games.get(info.id)
        seat = snap.info.to_act
        assert seat is not None
        uid = snap.info.seats[seat].user_id
        assert uid is not None
        move = rng.choice(list(rules.legal_moves(snap.state)))
        await services.games.submit(
            info.id, uid, rules.format_move(snap.state, move), snap.info.version
        )
    await services.games.resign(info.id, bob.id)
    r = await open_archive(start_session, alice)
    await open_first(r)
    text = r.term.display_text()
    assert re.search(r"Move 1 of \d+: \w+ (placed \w+ on field \d+ for \d+|passed|swapped)", text)
    assert "Score" in text and "Alice" in text and "Bob" in text


# --- who sees what -------------------------------------------------------------------------


async def test_a_private_archive_hides_other_peoples_games_but_not_from_the_sysop(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    c = await carol(services)
    services.archive.public = False
    mine = await resigned_game(services, alice, bob)
    theirs = await resigned_game(services, bob, c)
    r = await open_archive(start_session, alice)
    assert listed(r) == [mine]
    assert "(your games)" in r.term.row(0)
    await search(r, "carol")
    assert listed(r) == []
    await services.accounts.set_sysop("Carol", True)
    s = await open_archive(start_session, c)
    assert listed(s) == [theirs, mine]


async def test_a_private_game_is_refused_if_asked_for_by_number(
    services: Services, alice: User, bob: User
) -> None:
    from door.games.base import Refusal

    c = await carol(services)
    services.archive.public = False
    theirs = await resigned_game(services, bob, c)
    with pytest.raises(Refusal, match="private"):
        await services.archive.open(theirs, alice.id)
    assert (await services.archive.open(theirs, bob.id)).id == theirs


# --- small and big terminals ---------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_archive_keeps_its_key_line_and_rows_at_every_size(
    start_session: StartSession, services: Services, alice: User, bob: User,
    size: tuple[int, int],
) -> None:  # fmt: skip
    game = await resigned_game(services, alice, bob)
    r = await open_archive(start_session, alice, width=size[0], height=size[1])
    assert "Q)uit" in bottom(r) and "S)earch" in bottom(r), r.term.display_text()
    row = next(line for line in r.term.display() if line.lstrip().startswith(f"#{game} "))
    assert "2026-01-01" in row and "Alice v Bob" in row
    assert not any(line.rstrip().endswith("»") for line in r.term.display()), "a row is cut"
    r.term.type("s")
    await r.term.settle()
    assert "Search:" in r.term.display_text() and "Esc back" in bottom(r)
    assert "2026-11" in r.term.display_text()  # the hint says how to write a date
    assert not any(line.rstrip().endswith("»") for line in r.term.display()), "a row is cut"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_match_viewer_keeps_its_key_line_and_move_line_at_every_size(
    start_session: StartSession, services: Services, alice: User, bob: User,
    size: tuple[int, int],
) -> None:  # fmt: skip
    await two_game_match(services, alice, bob)
    r = await open_archive(start_session, alice, width=size[0], height=size[1])
    await open_first(r)
    assert "Q)uit" in bottom(r), r.term.display_text()
    assert move_number(r)[0] == 1
    r.term.type("g")
    await r.term.settle()
    assert "Go to game" in r.term.display_text() and "Esc back" in bottom(r)


# --- the real engine -----------------------------------------------------------------------


@pytest.mark.skipif(not bgengine.has_bgsage(), reason="bgsage is not installed")
async def test_every_mistake_the_real_review_finds_shows_on_its_own_move(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    # plays by feel, so it makes mistakes; seeded, as the service's dice are
    helper = BgEngine("bg-beginner", use_bgsage=False, rng=random.Random(3))
    users = {0: alice.id, 1: bob.id}
    plays = 0
    while plays < 16:
        snap = await services.games.get(info.id)
        assert snap.info.status == "active" and snap.info.to_act is not None
        plays += snap.state.phase == MOVING
        move = helper.rules.format_move(snap.state, helper.choose(snap.state))
        await services.games.submit(info.id, users[snap.info.to_act], move, snap.info.version)
    await services.games.resign(info.id, bob.id)
    runner = BotRunner(services)
    services.bots = runner
    expected = await runner.review(info.id, worst=10_000)
    losses = sorted(f"{m.loss:.3f}" for p in expected.players for m in p.mistakes)
    assert losses, "the beginner made no mistake: pick another seed"
    r = await open_archive(start_session, alice)
    await open_first(r)
    _, total = move_number(r)
    shown: list[str] = []
    for _ in range(total):
        shown += re.findall(r"lost (\d\.\d{3})", r.term.display_text())
        r.term.press("right")
        await r.term.settle()
    assert sorted(shown) == losses


async def test_a_search_typed_ahead_of_the_screen_is_kept_whole(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    c = await carol(services)
    await resigned_game(services, alice, bob)
    bc = await resigned_game(services, bob, c)
    r = await open_archive(start_session, alice)
    r.term.type("scarol")  # one Text event, as a fast typist or a paste sends it
    r.term.press("enter")
    await r.term.settle()
    assert listed(r) == [bc]
