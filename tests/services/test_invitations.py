"""Named invitations: where they are listed, the live notice, declining, and what the
since-your-last-visit summary tells of them and of finished games."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.games import GameService, LobbyError, SeatSpec
from door.services.notify import LocalHub, PgHub
from door.store.db import Database
from tests.services.conftest import NIM_BOTS
from tests.services.nim import NimRules
from tests.store import dbutil

ME = SeatSpec("me")


async def invite(games: GameService, host: User, guest: User) -> int:
    info = await games.begin(host.id, "nim", {"heap": 12}, [ME, SeatSpec("user", guest.name)])
    assert info.status == "open"
    return info.id


async def test_an_invitation_is_listed_for_the_invitee_only(
    games: GameService, alice: User, bob: User
) -> None:
    game_id = await invite(games, alice, bob)
    listed, total = await games.list_games("invited", bob.id)
    assert [g.id for g in listed] == [game_id] and total == 1
    assert (await games.list_games("invited", alice.id))[1] == 0


async def test_mine_lists_the_games_you_are_invited_to(
    games: GameService, alice: User, bob: User
) -> None:
    game_id = await invite(games, alice, bob)
    listed, _ = await games.list_games("mine", bob.id)
    assert [g.id for g in listed] == [game_id]


async def test_the_invitee_hears_of_the_invitation_at_once(
    games: GameService, hub: LocalHub, alice: User, bob: User
) -> None:
    with hub.subscribe(bob.id) as heard:
        game_id = await invite(games, alice, bob)
        notices = [n for n in iter(heard.get_nowait, None)]
    invited = [n for n in notices if n.kind == "invited"]
    assert len(invited) == 1
    assert invited[0].game_id == game_id and invited[0].user_ids == (bob.id,)
    assert invited[0].text.startswith("Alice invites you to")


async def test_declining_cancels_the_game_so_nobody_else_gets_the_seat(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    game_id = await invite(games, alice, bob)
    info = await games.decline(game_id, bob.id)
    assert info.status == "abandoned"
    assert (await games.list_games("invited", bob.id))[1] == 0
    assert (await games.list_games("open", carol.id))[1] == 0
    with pytest.raises(LobbyError):
        await games.join(game_id, carol.id)


async def test_the_host_hears_that_the_invitation_was_declined(
    games: GameService, hub: LocalHub, alice: User, bob: User
) -> None:
    game_id = await invite(games, alice, bob)
    with hub.subscribe(alice.id) as heard:
        await games.decline(game_id, bob.id)
        notices = [n for n in iter(heard.get_nowait, None)]
    assert [n.kind for n in notices] == ["declined"]
    assert "Bob declined" in notices[0].text


async def test_only_the_invitee_can_decline(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    game_id = await invite(games, alice, bob)
    with pytest.raises(LobbyError):
        await games.decline(game_id, carol.id)
    assert (await games.list_games("invited", bob.id))[1] == 1


async def test_the_summary_lists_an_invitation(
    games: GameService, alice: User, bob: User
) -> None:
    game_id = await invite(games, alice, bob)
    summary = await games.since_last_visit(bob.id)
    assert [g.id for g in summary.invitations] == [game_id]
    assert summary.news[0].invited and summary.news[0].info.id == game_id


async def test_the_summary_tells_the_host_who_joined(
    games: GameService, alice: User, bob: User
) -> None:
    game_id = await invite(games, alice, bob)
    await games.join(game_id, bob.id)
    news = {n.info.id: n for n in (await games.since_last_visit(alice.id)).news}
    assert news[game_id].joined == (1,)


async def test_the_summary_tells_a_resignation_and_its_result(
    games: GameService, alice: User, bob: User
) -> None:
    game_id = await invite(games, alice, bob)
    await games.join(game_id, bob.id)
    await games.resign(game_id, bob.id)
    summary = await games.since_last_visit(alice.id)
    news = {n.info.id: n for n in summary.news}
    finished = news[game_id]
    assert finished.is_finished
    assert finished.info.outcome is not None
    assert finished.info.outcome.winners == (finished.my_seat,)
    assert finished.info.outcome.reason == "resign"


async def test_the_summary_lists_the_opponents_moves(
    games: GameService, alice: User, bob: User
) -> None:
    info = await games.begin(alice.id, "nim", {"heap": 12}, [ME, SeatSpec("open")])
    info = await games.join(info.id, bob.id)
    mover = bob if info.is_waiting_on(bob.id) else alice
    other = alice if mover is bob else bob
    snap = await games.get(info.id, mover.id)
    await games.submit(info.id, mover.id, "take 1", snap.info.version)
    news = {n.info.id: n for n in (await games.since_last_visit(other.id)).news}
    assert [m for _, m in news[info.id].moves] == ["take 1"]
    assert news[info.id].is_waiting_on_me


def test_money_backgammon_is_unrated_and_says_so() -> None:
    from door.services.games.notices import game_terms
    from door.services.ratings import is_rated, rank_note, rated_note

    assert not is_rated("backgammon", {"match_length": 0})
    assert "not rated" in rated_note("backgammon", {"match_length": 0})
    assert is_rated("backgammon", {"match_length": 5})
    assert "money games are not rated" in rank_note("backgammon")
    assert game_terms("backgammon", {"match_length": 5}) == "5-point match"


# --- across processes, on PostgreSQL -----------------------------------------------------


@pytest.fixture
async def two_processes(
    pg_url: str, pg_template: str
) -> AsyncIterator[tuple[GameService, GameService, PgHub, Accounts]]:
    url = dbutil.pg_database_url(pg_url, pg_template)
    dbs = [Database(url), Database(url)]
    await dbutil.truncate_all(dbs[0])
    hubs = (PgHub(dbs[0]), PgHub(dbs[1]))
    for hub in hubs:
        await hub.start()
    clock = FakeClock()
    services = tuple(
        GameService(db, {"nim": NimRules()}, hub, clock, random.Random(5), bot_levels=NIM_BOTS)
        for db, hub in zip(dbs, hubs, strict=True)
    )
    yield services[0], services[1], hubs[1], Accounts(dbs[0], clock)
    for hub in hubs:
        await hub.stop()
    for db in dbs:
        await db.dispose()


async def test_an_invitation_made_in_one_process_is_heard_in_another(
    two_processes: tuple[GameService, GameService, PgHub, Accounts],
) -> None:
    here, _there, their_hub, accounts = two_processes
    alice = await accounts.register("Alice", "alice-pw")
    bob = await accounts.register("Bob", "bob-pw1")
    with their_hub.subscribe(bob.id) as heard:
        game_id = await invite(here, alice, bob)
        notice = await asyncio.wait_for(heard.get(), 5)
    assert notice.kind == "invited" and notice.game_id == game_id


async def test_a_game_you_resigned_yourself_is_not_news(
    games: GameService, alice: User, bob: User
) -> None:
    game_id = await invite(games, alice, bob)
    await games.join(game_id, bob.id)
    await games.mark_seen(game_id, bob.id, (await games.get(game_id)).info.last_seq)
    await games.resign(game_id, bob.id)
    summary = await games.since_last_visit(bob.id)
    assert summary.finished == [] and summary.news == []


async def test_your_own_turn_timing_out_is_news(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    from datetime import timedelta

    game_id = await invite(games, alice, bob)
    info = await games.join(game_id, bob.id)
    waiter = alice if info.is_waiting_on(alice.id) else bob
    await games.mark_seen(game_id, waiter.id, info.last_seq)
    clock.advance(timedelta(hours=info.deadline_hours + 1))
    await games.sweep_deadlines()
    news = {n.info.id: n for n in (await games.since_last_visit(waiter.id)).news}
    assert news[game_id].timeouts == (news[game_id].my_seat,)


async def test_news_told_before_the_previous_session_is_not_told_again(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    from datetime import timedelta

    game_id = await invite(games, alice, bob)
    await games.join(game_id, bob.id)
    await games.resign(game_id, bob.id)
    clock.advance(timedelta(hours=1))
    previous_login = clock.now()  # that session's summary told alice she won
    assert (await games.since_last_visit(alice.id)).finished
    summary = await games.since_last_visit(alice.id, since=previous_login)
    assert summary.finished == [] and summary.news == [] and summary.moves_against_you == 0
