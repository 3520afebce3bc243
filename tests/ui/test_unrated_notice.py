"""Money games are unrated (FIBS's convention), and the player is told so where a game is
begun and on the rank screen."""

from __future__ import annotations

from door.services.accounts import User
from tests.ui.conftest import StartSession


async def test_the_begin_screen_says_a_money_game_is_not_rated(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="backgammon")
    assert "Rated: the result counts on R)ank." in r.term.display_text()
    from door.games.backgammon.options import MATCH_LENGTHS

    for _ in range(len(MATCH_LENGTHS) - MATCH_LENGTHS.index(5)):
        r.term.type("a")  # the match length steps 5, 7, … 25, then Money
        await r.term.settle()
    assert "Money game: not rated" in r.term.display_text()


async def test_the_rank_screen_says_money_games_are_not_rated(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="rank")
    assert "Ratings count matches; money games are not rated." in r.term.display_text()
