"""The review of a finished backgammon game, reached with R from the finished-games list,
through a real session read with pyte at 80×24.

One test runs the real analysis (bgsage) on a real game; the others hand the screen a
runner whose review the test releases when it likes, to see exactly what shows while the
engine works, and how a long review pages.
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest

from door.games.backgammon.position import MOVING
from door.games.base import Refusal
from door.services import Services, bgengine
from door.services.accounts import User
from door.services.bgengine import BgEngine, GameReview, Mistake, PlayerReview, rating_for
from door.services.bots import BotRunner
from door.ui.screens.review import NO_ENGINE
from tests.ui.conftest import StartSession, started_game

needs_bgsage = pytest.mark.skipif(not bgengine.has_bgsage(), reason="bgsage is not installed")


class HeldRunner:
    """Stands in for ``BotRunner.review``: answers ``review`` (or raises ``error``) only
    once the test calls ``release()``; records what it was asked."""

    def __init__(self, review: GameReview | None = None, error: Exception | None = None) -> None:
        self.result = review
        self.error = error
        self.asked: list[tuple[int, int]] = []
        self.gate = asyncio.Event()
        self.cancelled = False

    def release(self) -> None:
        self.gate.set()

    async def review(self, game_id: int, *, worst: int = 5) -> GameReview:
        self.asked.append((game_id, worst))
        try:
            await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


def mistakes(seat: int, count: int, first_loss: float = 0.2) -> tuple[Mistake, ...]:
    """``count`` checker-play mistakes, worst first, each told apart by its move number."""
    return tuple(
        Mistake(seat, 10 + i, (6, 4), f"24/18 13/{9 - i % 3}", "24/14", first_loss / (i + 1))
        for i in range(count)
    )


def player(seat: int, decisions: int, total: float, found: tuple[Mistake, ...]) -> PlayerReview:
    rate = 1000.0 * total / decisions
    return PlayerReview(seat, decisions, total, rate, rating_for(rate), found)


async def finished_game(services: Services, alice: User, bob: User) -> Any:
    """A backgammon game Alice won when Bob resigned."""
    info = await started_game(services, alice, bob)
    await services.games.resign(info.id, bob.id)
    return info


async def open_review(start_session: StartSession, alice: User) -> Any:
    r = await start_session(alice, start="finished")
    r.term.type("r")
    await r.term.settle()
    return r


# --- the finished list ------------------------------------------------------------------


async def test_the_finished_list_names_the_review_key_and_the_others_keep_leave(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="finished")
    assert "R)eview" in r.term.row(23)
    r.term.type("o")
    await r.term.settle()
    assert "L)eave" in r.term.row(23)
    assert "R)eview" not in r.term.row(23)


async def test_review_on_a_running_game_points_to_the_finished_list(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await started_game(services, alice, bob)
    r = await start_session(alice, start="active")
    r.term.type("r")
    await r.term.settle()
    assert "Games: In progress" in r.term.row(0)
    assert "R)eview is for finished backgammon games" in r.term.display_text()


async def test_review_of_a_finished_spectrangle_game_is_refused_with_the_reason(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob, kind="spectrangle")
    await services.games.resign(info.id, bob.id)
    services.bots = HeldRunner()
    r = await open_review(start_session, alice)
    assert "Games: Finished" in r.term.row(0)
    assert "Only backgammon games can be reviewed." in r.term.display_text()
    assert services.bots.asked == []


# --- while the engine works -------------------------------------------------------------


async def test_analysing_shows_until_the_review_arrives_and_it_then_appears_without_a_key(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await finished_game(services, alice, bob)
    held = HeldRunner(GameReview("bgsage", (player(0, 20, 0.1, ()), player(1, 18, 0.5, ()))))
    services.bots = held
    r = await open_review(start_session, alice)
    assert f"Review of game #{info.id}" in r.term.row(0)
    assert "Analysing…" in r.term.display_text()
    assert held.asked == [(info.id, 10)]
    held.release()
    await r.term.wait_for("Error rate")
    assert "Analysing" not in r.term.display_text()


async def test_keys_are_answered_while_the_engine_works(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    services.bots = HeldRunner()
    r = await open_review(start_session, alice)
    r.term.type("n")
    await r.term.settle()
    assert "Still analysing" in r.term.display_text()
    assert "Analysing…" in r.term.display_text()


async def test_q_while_analysing_returns_to_the_list_and_drops_the_analysis(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await finished_game(services, alice, bob)
    held = HeldRunner()
    services.bots = held
    r = await open_review(start_session, alice)
    r.term.type("q")
    await r.term.settle()
    assert "Games: Finished" in r.term.row(0)
    assert f"#{info.id}" in r.term.display_text()
    for _ in range(5):
        await asyncio.sleep(0)
    assert held.cancelled


async def test_a_review_the_service_refuses_shows_its_reason(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    held = HeldRunner(error=Refusal("a game can be reviewed once it is over"))
    services.bots = held
    r = await open_review(start_session, alice)
    held.release()
    await r.term.wait_for("a game can be reviewed once it is over")
    assert "Error rate" not in r.term.display_text()


# --- without the engine ----------------------------------------------------------------


async def test_without_any_bot_runner_the_review_says_it_needs_the_analysis_engine(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    services.bots = None
    r = await open_review(start_session, alice)
    text = " ".join(r.term.display_text().split())
    assert "needs the analysis engine (bgsage)" in text
    assert "Analysing" not in text


async def test_without_bgsage_the_review_says_it_needs_the_analysis_engine(
    start_session: StartSession,
    services: Services,
    alice: User,
    bob: User,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await finished_game(services, alice, bob)
    monkeypatch.setattr(bgengine, "load_bgsage", lambda: None)
    held = HeldRunner()
    services.bots = held
    r = await open_review(start_session, alice)
    text = " ".join(r.term.display_text().split())
    assert NO_ENGINE.split(",")[0] in text
    assert held.asked == []


# --- what the review shows --------------------------------------------------------------


async def test_each_player_shows_error_rate_rating_and_decisions(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    alice_r = player(0, 25, 0.1, mistakes(0, 1))
    bob_r = player(1, 24, 0.72, mistakes(1, 1))
    held = HeldRunner(GameReview("bgsage", (alice_r, bob_r)))
    services.bots = held
    r = await open_review(start_session, alice)
    held.release()
    await r.term.wait_for("Error rate")
    text = r.term.display_text()
    assert "Alice (White)" in text and "Bob (Black)" in text
    assert f"Error rate {alice_r.error_rate:.1f} ({alice_r.rating})" in text
    assert "over 25 decisions" in text
    assert f"Error rate {bob_r.error_rate:.1f} ({bob_r.rating})" in text
    assert alice_r.rating != bob_r.rating


async def test_a_mistake_row_shows_move_dice_played_better_and_equity_lost(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    play = Mistake(0, 7, (5, 2), "13/8 13/11", "13/11 6/1*", 0.0876)
    cube = Mistake(0, 12, None, "roll", "double", 0.04)
    held = HeldRunner(GameReview("bgsage", (player(0, 30, 0.2, (play, cube)), player(1, 3, 0, ()))))
    services.bots = held
    r = await open_review(start_session, alice)
    held.release()
    await r.term.wait_for("Error rate")
    lines = r.term.display()
    assert any(re.search(r"Move\s+Dice\s+Played\s+Better\s+Lost", line) for line in lines)
    assert any(re.search(r"\b7\s+5-2\s+13/8 13/11\s+13/11 6/1\*\s+0\.088", line) for line in lines)
    assert any(re.search(r"\b12\s+cube\s+roll\s+double\s+0\.040", line) for line in lines)
    assert "No mistakes" in r.term.display_text()


async def test_a_long_review_is_paged_and_each_page_turns(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    review = GameReview(
        "bgsage", (player(0, 60, 1.0, mistakes(0, 10)), player(1, 60, 2.0, mistakes(1, 10)))
    )
    held = HeldRunner(review)
    services.bots = held
    r = await open_review(start_session, alice)
    held.release()
    await r.term.wait_for("Page 1/")
    assert "Alice (White)" in r.term.display_text()
    assert "Bob (Black)" not in r.term.display_text()
    r.term.type("p")
    await r.term.settle()
    assert "This is the first page." in r.term.display_text()
    r.term.type(" ")
    await r.term.settle()
    assert "Page 2/" in r.term.row(23)
    assert "Bob (Black)" in r.term.display_text()
    pages = int(re.search(r"Page 2/(\d+)", r.term.row(23)).group(1))  # type: ignore[union-attr]
    for _ in range(pages):
        r.term.press("pgdn")
    await r.term.settle()
    assert "That was the last page." in r.term.display_text()
    r.term.press("home")
    await r.term.settle()
    assert "Page 1/" in r.term.row(23)


async def test_a_larger_terminal_shows_the_whole_review_on_one_page(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    review = GameReview(
        "bgsage", (player(0, 60, 1.0, mistakes(0, 10)), player(1, 60, 2.0, mistakes(1, 10)))
    )
    held = HeldRunner(review)
    services.bots = held
    r = await open_review(start_session, alice)
    held.release()
    await r.term.wait_for("Page 1/2")
    r.term.resize(100, 40)
    await r.term.settle()
    assert "Page 1/1" in r.term.row(39)
    assert "Alice (White)" in r.term.display_text() and "Bob (Black)" in r.term.display_text()


async def test_q_from_the_review_returns_to_the_finished_list(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    held = HeldRunner(GameReview("bgsage", (player(0, 5, 0, ()), player(1, 5, 0, ()))))
    held.release()
    services.bots = held
    r = await open_review(start_session, alice)
    await r.term.wait_for("Error rate")
    r.term.press("escape")
    await r.term.settle()
    assert "Games: Finished" in r.term.row(0)


async def test_a_cp437_terminal_sees_analysing_in_plain_dots(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await finished_game(services, alice, bob)
    services.bots = HeldRunner()
    r = await start_session(alice, start="finished", encoding="cp437")
    r.term.type("r")
    await r.term.settle()
    assert "Analysing..." in r.term.display_text()


# --- the real engine -----------------------------------------------------------------


@needs_bgsage
async def test_the_real_analysis_of_a_played_game_shows_what_the_engine_found(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    # Plays by feel, so it makes mistakes; seeded, as the service's dice are.
    helper = BgEngine("bg-beginner", use_bgsage=False, rng=random.Random(3))
    users = {0: alice.id, 1: bob.id}
    plays = 0
    while plays < 12:
        snap = await services.games.get(info.id)
        assert snap.info.status == "active" and snap.info.to_act is not None
        plays += snap.state.phase == MOVING
        move = helper.rules.format_move(snap.state, helper.choose(snap.state))
        await services.games.submit(info.id, users[snap.info.to_act], move, snap.info.version)
    await services.games.resign(info.id, bob.id)
    runner = BotRunner(services)
    services.bots = runner
    r = await open_review(start_session, alice)
    assert "Analysing…" in r.term.display_text()
    await r.term.wait_for("Error rate", timeout=60)
    expected = await runner.review(info.id, worst=10)
    text = r.term.display_text()
    while m := re.search(r"Page (\d+)/(\d+)", r.term.row(23)):
        if m.group(1) == m.group(2):
            break
        r.term.type("n")
        await r.term.settle()
        text += r.term.display_text()
    for p in expected.players:
        if p.decisions:
            assert f"Error rate {p.error_rate:.1f} ({p.rating})" in text
            assert f"over {p.decisions} decision" in text
    worst = [p.mistakes[0] for p in expected.players if p.mistakes]
    assert worst, "a beginner's twelve plays had no mistake at all"
    m = worst[0]
    assert m.played in text and f"{m.loss:.3f}" in text
