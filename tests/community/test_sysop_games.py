"""The sysop's console, the games (issue 17, point 6): the sysop finds a game by its number
or by a player's name and abandons a stuck one with a reason. The game is over with no
result (nobody's rating moves), its log keeps a system event that ``door check`` replays,
its players are told why, a move racing the abandon and the abandon never both win, and
the audit log says who did it. Through the services, and through real sessions read with
pyte (80×24 and 40×15)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from door.cli.check import check_all
from door.config import Config, DatabaseConfig, GamesConfig
from door.services import Services
from door.services.accounts import User
from door.services.games import GameClosedError, GameSnapshot, SeatSpec
from door.services.notify import LocalHub, LocalSubscription, Notice
from door.services.sysop import GameMovedError, SysopError
from tests.ui.conftest import StartSession, started_game

REASON = "stuck for a month"


@pytest.fixture
async def keeper(services: Services) -> User:
    """A sysop who plays in none of the games."""
    await services.accounts.register("Keeper", "keeper-pw")
    return await services.accounts.set_sysop("Keeper", True)


async def a_move(services: Services, snap: GameSnapshot) -> tuple[int, str]:
    """(the user to act, a legal move for them) in the running game ``snap``."""
    rules = services.games.rules_for(snap.info.kind)
    seat = snap.info.to_act
    user = next(s.user_id for s in snap.info.seats if s.seat == seat)
    assert user is not None
    return user, rules.format_move(snap.state, rules.legal_moves(snap.state)[0])


async def door_check(services: Services, tmp_path: Path) -> tuple[int, list[str], list[str]]:
    """What ``door check`` finds on the services' database: (games, game problems,
    rating problems)."""
    config = Config(
        data_dir=tmp_path,
        database=DatabaseConfig(url=services.db.url, auto_upgrade=False),
        games=GamesConfig(bots=False),
    )
    n, problems, ratings, _ = await check_all(config)
    return n, problems, ratings.problems


def drained(*subs: LocalSubscription) -> list[Notice]:
    """Every notice waiting on ``subs``."""
    out: list[Notice] = []
    for sub in subs:
        while (n := sub.get_nowait()) is not None:
            out.append(n)
    return out


# --- through the services ----------------------------------------------------------------


async def test_the_sysop_abandons_a_running_game_and_its_players_are_told_why(
    services: Services, alice: User, bob: User, keeper: User
) -> None:
    game = await started_game(services, alice, bob)
    before = await services.games.get(game.id)
    hub = services.hub
    assert isinstance(hub, LocalHub)  # one process: its notices are read off its queues
    a, b = hub.subscribe(alice.id), hub.subscribe(bob.id)
    try:
        after = await services.sysop.abandon_game(keeper.id, game.id, REASON, before.info.version)
        told = drained(a, b)
    finally:
        a.close()
        b.close()
    assert after.info.status == "abandoned" and after.info.to_act is None
    assert after.info.outcome is None and after.info.deadline is None
    assert after.info.version == before.info.version + 1
    assert after.state == before.state  # the game itself is left as it stood
    text = f"Game #{game.id} was abandoned by the sysop: {REASON}"
    assert [(n.kind, n.text) for n in told] == [("abandoned", text)] * 2
    assert set(told[0].user_ids) == {alice.id, bob.id}
    (last,) = await services.games.events(game.id, before.info.last_seq)
    assert (last.kind, last.seat) == ("system", None)
    assert last.payload == {"action": "abandon", "by": "Keeper", "reason": REASON}


async def test_door_check_replays_an_abandoned_game_and_no_rating_moved(
    services: Services, alice: User, bob: User, keeper: User, tmp_path: Path
) -> None:
    game = await started_game(services, alice, bob)
    snap = await services.games.get(game.id)
    user, move = await a_move(services, snap)
    snap = await services.games.submit(game.id, user, move, snap.info.version)
    ratings_before = await services.db.run_read(lambda repo: repo.all_ratings())
    await services.sysop.abandon_game(keeper.id, game.id, REASON)
    assert await services.games.replay_check(game.id) is None
    n, problems, rating_problems = await door_check(services, tmp_path / "check")
    assert n >= 1 and problems == [] and rating_problems == []
    assert await services.db.run_read(lambda repo: repo.all_ratings()) == ratings_before
    changes = await services.db.run_read(lambda repo: repo.rating_changes())
    assert all(c.game_id != game.id for c in changes)


async def test_a_player_away_hears_of_the_abandon_in_the_summary_after_their_login(
    services: Services, alice: User, bob: User, keeper: User
) -> None:
    game = await started_game(services, alice, bob)
    await services.sysop.abandon_game(keeper.id, game.id, REASON)
    summary = await services.games.since_last_visit(bob.id)
    assert [g.id for g in summary.finished] == [game.id]
    assert summary.finished[0].summary == f"abandoned by the sysop: {REASON}"


async def test_an_open_game_waiting_for_players_may_be_abandoned_too(
    services: Services, alice: User, keeper: User
) -> None:
    seats = [SeatSpec("me"), SeatSpec("open")]
    info = await services.games.begin(alice.id, "backgammon", {}, seats)
    after = await services.sysop.abandon_game(keeper.id, info.id, "nobody came")
    assert after.info.status == "abandoned"
    assert await services.games.replay_check(info.id) is None


async def test_a_game_that_is_over_cannot_be_abandoned(
    services: Services, alice: User, bob: User, keeper: User
) -> None:
    game = await started_game(services, alice, bob)
    await services.games.resign(game.id, alice.id)
    with pytest.raises(SysopError, match="over"):
        await services.sysop.abandon_game(keeper.id, game.id, REASON)
    assert (await services.games.get(game.id)).info.status == "finished"
    assert await services.sysop.audit(keeper.id) == []


async def test_an_abandon_needs_a_reason_and_nothing_is_done_without_one(
    services: Services, alice: User, bob: User, keeper: User
) -> None:
    game = await started_game(services, alice, bob)
    with pytest.raises(SysopError, match="reason"):
        await services.sysop.abandon_game(keeper.id, game.id, " \x07\x1b\u202e\t ")
    assert (await services.games.get(game.id)).info.status == "active"


async def test_a_player_who_is_not_a_sysop_may_neither_find_nor_abandon_games(
    services: Services, alice: User, bob: User
) -> None:
    game = await started_game(services, alice, bob)
    with pytest.raises(SysopError, match="Only a sysop"):
        await services.sysop.find_games(alice.id, "Bob")
    with pytest.raises(SysopError, match="Only a sysop"):
        await services.sysop.abandon_game(alice.id, game.id, "I am losing")
    assert (await services.games.get(game.id)).info.status == "active"


async def test_a_sysop_whose_rights_were_taken_is_refused_at_once(
    services: Services, alice: User, bob: User, keeper: User
) -> None:
    game = await started_game(services, alice, bob)
    await services.accounts.set_sysop("Keeper", False)  # keeper's own copy still says sysop
    assert keeper.is_sysop
    with pytest.raises(SysopError):
        await services.sysop.abandon_game(keeper.id, game.id, REASON)
    assert (await services.games.get(game.id)).info.status == "active"


async def test_the_sysop_finds_a_game_by_number_or_a_players_open_and_running_games(
    services: Services, alice: User, bob: User, keeper: User
) -> None:
    first = await started_game(services, alice, bob)
    second = await started_game(services, bob, alice)
    over = await started_game(services, alice, bob)
    await services.games.resign(over.id, bob.id)
    found = await services.sysop.find_games(keeper.id, "bob")  # names match in any case
    assert [g.id for g in found] == [second.id, first.id]
    assert [g.id for g in await services.sysop.find_games(keeper.id, f"#{over.id}")] == [over.id]
    assert [g.id for g in await services.sysop.find_games(keeper.id, str(first.id))] == [first.id]
    assert await services.sysop.find_games(keeper.id, "999999") == []
    with pytest.raises(SysopError, match="no user"):
        await services.sysop.find_games(keeper.id, "Nobody")


async def test_every_abandon_writes_who_what_to_which_game_and_why_in_the_audit_log(
    services: Services, alice: User, bob: User, keeper: User
) -> None:
    game = await started_game(services, alice, bob)
    await services.sysop.abandon_game(keeper.id, game.id, REASON)
    (entry,) = await services.sysop.audit(keeper.id)
    assert (entry.sysop_id, entry.sysop_name, entry.action, entry.target, entry.detail) == (
        keeper.id, "Keeper", "abandon-game", f"game #{game.id}", REASON,
    )  # fmt: skip


@pytest.mark.parametrize("first", ["move", "abandon"])
async def test_an_abandon_and_a_move_made_at_the_same_version_never_both_win(
    services: Services, alice: User, bob: User, keeper: User, first: str, tmp_path: Path
) -> None:
    game = await started_game(services, alice, bob)
    seen = await services.games.get(game.id)
    user, move = await a_move(services, seen)
    version = seen.info.version
    if first == "move":
        await services.games.submit(game.id, user, move, version)
        with pytest.raises(GameMovedError) as moved:
            await services.sysop.abandon_game(keeper.id, game.id, REASON, version)
        assert moved.value.snapshot.info.version == version + 1
        assert (await services.games.get(game.id)).info.status == "active"
        assert await services.sysop.audit(keeper.id) == []
    else:
        await services.sysop.abandon_game(keeper.id, game.id, REASON, version)
        with pytest.raises(GameClosedError):
            await services.games.submit(game.id, user, move, version)
        events = await services.games.events(game.id, seen.info.last_seq)
        assert [e.kind for e in events] == ["system"]
    assert (await door_check(services, tmp_path / "check"))[1] == []


async def test_abandons_racing_moves_at_once_let_exactly_one_of_each_pair_win(
    services: Services, alice: User, bob: User, keeper: User, tmp_path: Path
) -> None:
    abandoned = 0
    for i in range(6):
        game = await started_game(services, alice, bob)
        seen = await services.games.get(game.id)
        user, move = await a_move(services, seen)
        v = seen.info.version
        racers = [
            services.games.submit(game.id, user, move, v),
            services.sysop.abandon_game(keeper.id, game.id, REASON, v),
        ]
        if i % 2:  # each starts first half of the time
            racers.reverse()
        results = await asyncio.gather(*racers, return_exceptions=True)
        lost = [r for r in results if isinstance(r, BaseException)]
        assert len(lost) == 1, results
        assert isinstance(lost[0], (GameClosedError, GameMovedError)), lost[0]
        now = await services.games.get(game.id)
        assert now.info.version == v + 1
        move_won = isinstance(lost[0], GameMovedError)
        assert now.info.status == ("active" if move_won else "abandoned")
        abandoned += not move_won
    assert (await door_check(services, tmp_path / "check"))[1] == []
    # an abandon that lost wrote nothing in the audit log
    assert len(await services.sysop.audit(keeper.id)) == abandoned


# --- through real sessions ------------------------------------------------------------------


async def test_the_sysop_finds_a_players_game_and_abandons_it_with_a_reason(
    start_session: StartSession, services: Services, alice: User, bob: User, keeper: User
) -> None:
    other = await started_game(services, alice, keeper)
    game = await started_game(services, alice, bob)
    b = await start_session(bob)
    k = await start_session(keeper)
    k.term.type("!")
    await k.term.wait_for("Nothing done yet.")
    k.term.type("g")
    await k.term.wait_for("Games — Game number or player:")
    k.term.line("bob")
    await k.term.wait_for("Players")
    row = next(r for r in k.term.display() if r.strip().startswith(f"#{game.id} "))
    assert "Backgammon" in row and "active" in row and "Alice" in row and "Bob" in row
    assert f"#{other.id} " not in k.term.display_text()  # Bob does not play that one
    k.term.type("a")
    await k.term.wait_for("Abandon game — Reason:")
    k.term.line(REASON)
    await k.term.wait_for(f"Abandon game #{game.id}? (Y/N)")
    k.term.type("y")
    await k.term.wait_for(f"Game #{game.id} is abandoned; its players are told.")
    assert f"Keeper abandon-game game #{game.id}: {REASON}" in k.term.display_text()
    await b.term.wait_for(f"Game #{game.id} was abandoned by the sysop: {REASON}")
    assert (await services.games.get(game.id)).info.status == "abandoned"
    assert (await services.games.get(other.id)).info.status == "active"


async def test_on_a_40_by_15_terminal_the_list_and_the_questions_clear_the_key_help(
    start_session: StartSession, services: Services, alice: User, bob: User, keeper: User
) -> None:
    older = await started_game(services, bob, alice)
    game = await started_game(services, alice, bob)
    k = await start_session(keeper, width=40, height=15)
    k.term.type("!")
    await k.term.wait_for("Nothing done yet.")
    k.term.type("g")
    k.term.line("Bob")
    await k.term.wait_for("Ago Players")
    rows = k.term.display()
    first = next(y for y, r in enumerate(rows) if r.strip().startswith(f"#{game.id} "))
    assert rows[first + 1].strip().startswith(f"#{older.id} ")
    assert "Backg" in rows[first] and "active" in rows[first]
    k.term.press("down")  # the older game is picked now
    await k.term.settle()
    k.term.type("a")
    k.term.line("duplicate")
    await k.term.wait_for(f"Abandon game #{older.id}? (Y/N)")
    rows = k.term.display()
    prompt = next(y for y, r in enumerate(rows) if "(Y/N)" in r)
    help_top = next(y for y, r in enumerate(rows) if "A)bandon" in r)
    assert prompt < help_top - 1  # the status line sits between them
    assert "Q)uit" in "".join(rows[help_top:])  # the key help is whole
    k.term.type("n")
    await k.term.wait_for(f"Game #{older.id} is left as it is.")
    assert (await services.games.get(older.id)).info.status == "active"
    k.term.type("a")
    k.term.line("duplicate")
    k.term.type("y")
    await k.term.wait_for(f"Game #{older.id} is abandoned")
    assert (await services.games.get(older.id)).info.status == "abandoned"
    assert (await services.games.get(game.id)).info.status == "active"
