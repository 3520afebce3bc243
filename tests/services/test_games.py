"""The game service on a test-only game (Dice Nim): lobby, turns, versions, notices."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from door.games.base import IllegalMoveError, InvalidMoveError
from door.services.accounts import Accounts, User
from door.services.games import (
    GameClosedError,
    GameService,
    GameSnapshot,
    LobbyError,
    NotYourTurnError,
    SeatSpec,
    StaleVersionError,
)
from door.services.notify import LocalHub
from door.services.ratings import Ratings
from door.store.db import Database
from tests.services.nim import NimRules

ME, OPEN = SeatSpec("me"), SeatSpec("open")


def user_seat(name: str) -> SeatSpec:
    return SeatSpec("user", name)


async def two_player_game(games: GameService, a: User, b: User, heap: int = 12) -> GameSnapshot:
    info = await games.begin(a.id, "nim", {"heap": heap}, [ME, OPEN])
    await games.join(info.id, b.id)
    return await games.get(info.id)


def player_to_act(snap: GameSnapshot) -> int:
    seat = snap.info.to_act
    assert seat is not None
    uid = snap.info.seats[seat].user_id
    assert uid is not None
    return uid


async def play_to_the_end(games: GameService, snap: GameSnapshot) -> GameSnapshot:
    """Both sides always take one stone."""
    while snap.info.status == "active":
        snap = await games.submit(snap.info.id, player_to_act(snap), "take 1", snap.info.version)
    return snap


# --- lobby -------------------------------------------------------------------------------


async def test_kinds_lists_the_registered_games(games: GameService) -> None:
    assert games.kinds() == [("nim", "Dice Nim")]


async def test_begin_with_an_open_seat_waits_for_players(
    games: GameService, alice: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, OPEN])
    assert info.status == "open"
    assert [s.kind for s in info.seats] == ["user", "open"]
    assert info.seats[0].name == "Alice"
    assert info.to_act is None and info.deadline is None
    assert info.options == {"heap": 12}
    assert info.deadline_hours == 168 and info.hints_allowed


async def test_joining_the_last_seat_starts_the_game_and_draws_set_up_chance(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    assert snap.info.status == "active"
    assert snap.info.to_act in (0, 1)
    assert snap.state.started and snap.state.die is not None
    kinds = [(e.kind, e.payload.get("action")) for e in await games.events(snap.info.id)]
    assert kinds == [("system", "join"), ("system", "start"), ("chance", None), ("chance", None)]
    assert snap.info.deadline == games.clock.now() + __import__("datetime").timedelta(hours=168)


async def test_a_game_with_every_seat_filled_starts_at_once(
    games: GameService, alice: User, bob: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, SeatSpec("bot", "nim-bot")])
    assert info.status == "active"
    assert info.seats[1].kind == "bot" and info.seats[1].name == "nim-bot"
    assert info.seats[1].user_id is not None


async def test_bot_seats_use_one_bot_account_per_level(
    games: GameService, accounts: Accounts, alice: User
) -> None:
    a = await games.begin(alice.id, "nim", {}, [ME, SeatSpec("bot", "nim-bot")])
    b = await games.begin(alice.id, "nim", {}, [ME, SeatSpec("bot", "nim-bot")])
    assert a.seats[1].user_id == b.seats[1].user_id
    bot = await accounts.get(a.seats[1].user_id or 0)
    assert bot.is_bot


@pytest.mark.parametrize(
    "seats, options, hours, message",
    [
        ([ME], {}, 168, "2 to 4 players"),
        ([ME, OPEN, OPEN, OPEN, OPEN], {}, 168, "2 to 4 players"),
        ([ME, OPEN], {"heap": 0}, 168, "heap"),
        ([ME, OPEN], {"colour": "red"}, 168, "unknown option"),
        ([ME, OPEN], {}, 0, "deadline"),
        ([ME, OPEN], {}, 721, "deadline"),
        ([ME, ME], {}, 168, "only one seat"),
        ([ME, SeatSpec("user", "Nobody")], {}, 168, "no player called"),
    ],
)
async def test_bad_game_settings_are_refused_with_a_reason(
    games: GameService,
    alice: User,
    seats: list[SeatSpec],
    options: dict[str, Any],
    hours: int,
    message: str,
) -> None:
    with pytest.raises(LobbyError, match=message):
        await games.begin(alice.id, "nim", options, seats, deadline_hours=hours)
    assert (await games.list_games("mine", alice.id))[1] == 0


async def test_unknown_kind_is_a_lobby_error(games: GameService, alice: User) -> None:
    with pytest.raises(LobbyError, match="no game called"):
        await games.begin(alice.id, "chess", {}, [ME, OPEN])


async def test_a_reserved_seat_waits_for_the_named_user_only(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, user_seat("bob")])
    assert info.status == "open"
    assert (info.seats[1].kind, info.seats[1].user_id, info.seats[1].name) == (
        "reserved",
        bob.id,
        "Bob",
    )
    with pytest.raises(LobbyError):
        await games.join(info.id, carol.id)
    with pytest.raises(LobbyError, match="someone else"):
        await games.join(info.id, carol.id, seat=1)
    started = await games.join(info.id, bob.id)
    assert started.status == "active" and started.seats[1].kind == "user"


async def test_join_refuses_a_second_seat_and_a_started_game(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, OPEN, OPEN])
    with pytest.raises(LobbyError, match="already"):
        await games.join(info.id, alice.id)
    await games.join(info.id, bob.id)
    await games.join(info.id, carol.id)
    with pytest.raises(LobbyError, match="not open"):
        await games.join(info.id, bob.id)


async def test_join_of_a_missing_game_is_a_lobby_error(games: GameService, alice: User) -> None:
    with pytest.raises(LobbyError, match="no game"):
        await games.join(4242, alice.id)


async def test_leave_gives_the_seat_back(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, OPEN, OPEN])
    await games.join(info.id, bob.id)
    after = await games.leave(info.id, bob.id)
    assert after.status == "open"
    assert [s.kind for s in after.seats] == ["user", "open", "open"]
    again = await games.join(info.id, carol.id, seat=2)
    assert again.seats[2].user_id == carol.id


async def test_the_last_person_leaving_abandons_the_game(
    games: GameService, alice: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, OPEN])
    after = await games.leave(info.id, alice.id)
    assert after.status == "abandoned"
    assert (await games.list_games("open", None))[1] == 0


async def test_leave_of_a_started_game_says_to_resign(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    with pytest.raises(GameClosedError, match="resign"):
        await games.leave(snap.info.id, alice.id)


# --- lists -----------------------------------------------------------------------------------


async def test_lists_sort_games_into_open_active_mine_waiting_finished(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    open_game = await games.begin(alice.id, "nim", {}, [ME, OPEN])
    running = await two_player_game(games, alice, bob, heap=3)
    finished = await play_to_the_end(games, await two_player_game(games, bob, carol, heap=2))

    async def ids(which: Any, uid: int | None) -> set[int]:
        page, total = await games.list_games(which, uid)
        assert total == len(page)
        return {g.id for g in page}

    assert await ids("open", carol.id) == {open_game.id}
    assert await ids("open", alice.id) == set()  # she already sits there
    assert await ids("active", None) == {running.info.id}
    assert await ids("mine", alice.id) == {open_game.id, running.info.id}
    waiting_on = player_to_act(running)
    assert await ids("waiting", waiting_on) == {running.info.id}
    other = alice.id if waiting_on == bob.id else bob.id
    assert await ids("waiting", other) == set()
    assert await ids("finished", carol.id) == {finished.info.id}
    assert await ids("finished", alice.id) == set()
    assert await ids("finished", None) == {finished.info.id}


async def test_lists_page_with_offset_and_limit_and_report_the_total(
    games: GameService, alice: User
) -> None:
    made = [(await games.begin(alice.id, "nim", {}, [ME, OPEN])).id for _ in range(5)]
    seen: list[int] = []
    for offset in (0, 2, 4):
        page, total = await games.list_games("mine", alice.id, offset=offset, limit=2)
        assert total == 5
        seen += [g.id for g in page]
    assert sorted(seen) == sorted(made)


async def test_a_list_asked_for_no_games_gives_its_total_alone(
    games: GameService, alice: User
) -> None:
    for _ in range(3):
        await games.begin(alice.id, "nim", {}, [ME, OPEN])
    assert await games.list_games("mine", alice.id, limit=0) == ([], 3)
    assert await games.list_games("open", None, limit=-5) == ([], 3)


async def test_lists_filter_by_kind(games: GameService, alice: User) -> None:
    await games.begin(alice.id, "nim", {}, [ME, OPEN])
    assert (await games.list_games("mine", alice.id, kind="nim"))[1] == 1
    assert (await games.list_games("mine", alice.id, kind="backgammon"))[1] == 0


# --- turns ---------------------------------------------------------------------------------


async def test_submit_applies_the_move_and_the_dice_that_follow(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    mover = player_to_act(snap)
    after = await games.submit(snap.info.id, mover, "1", snap.info.version)
    assert after.state.heap == snap.state.heap - 1
    assert after.info.version == snap.info.version + 1
    assert after.info.to_act != snap.info.to_act
    assert after.state.die is not None
    new = await games.events(snap.info.id, since_seq=snap.info.last_seq)
    assert [(e.kind, e.payload.get("move")) for e in new] == [("move", "take 1"), ("chance", None)]
    assert new[0].seat == snap.info.to_act
    assert after.info.last_seq == new[-1].seq


async def test_a_stale_version_is_refused_with_the_current_game(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    mover = player_to_act(snap)
    with pytest.raises(StaleVersionError, match="changed") as caught:
        await games.submit(snap.info.id, mover, "take 1", snap.info.version - 1)
    assert caught.value.snapshot.info.version == snap.info.version
    assert caught.value.snapshot.state == snap.state
    assert (await games.get(snap.info.id)).info.last_seq == snap.info.last_seq


async def test_moving_out_of_turn_is_refused(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    waiting = alice.id if player_to_act(snap) == bob.id else bob.id
    with pytest.raises(NotYourTurnError, match="not your turn"):
        await games.submit(snap.info.id, waiting, "take 1", snap.info.version)
    with pytest.raises(NotYourTurnError, match="not playing"):
        await games.submit(snap.info.id, carol.id, "take 1", snap.info.version)


@pytest.mark.parametrize("text, error", [("take lots", InvalidMoveError), ("", InvalidMoveError),
                                         ("take 9", IllegalMoveError)])
async def test_bad_moves_raise_the_rules_errors_and_change_nothing(
    games: GameService, alice: User, bob: User, text: str, error: type[Exception]
) -> None:
    snap = await two_player_game(games, alice, bob)
    with pytest.raises(error):
        await games.submit(snap.info.id, player_to_act(snap), text, snap.info.version)
    again = await games.get(snap.info.id)
    assert again.info.version == snap.info.version and again.state == snap.state


async def test_moves_before_the_start_and_after_the_end_are_refused(
    games: GameService, alice: User, bob: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, OPEN])
    with pytest.raises(GameClosedError, match="not started"):
        await games.submit(info.id, alice.id, "take 1", info.version)
    done = await play_to_the_end(games, await two_player_game(games, alice, bob, heap=2))
    with pytest.raises(GameClosedError, match="over"):
        await games.submit(done.info.id, alice.id, "take 1", done.info.version)


async def test_the_last_stone_finishes_the_game_with_an_outcome(
    games: GameService, alice: User, bob: User
) -> None:
    done = await play_to_the_end(games, await two_player_game(games, alice, bob, heap=3))
    assert done.info.status == "finished"
    assert done.info.to_act is None and done.info.deadline is None
    assert done.info.outcome is not None and len(done.info.outcome.winners) == 1
    assert done.state.heap == 0


async def test_finishing_a_game_updates_both_ratings(
    games: GameService, ratings: Ratings, alice: User, bob: User
) -> None:
    done = await play_to_the_end(games, await two_player_game(games, alice, bob, heap=3))
    assert done.info.outcome is not None
    winner_seat = done.info.outcome.winners[0]
    winner = done.info.seats[winner_seat].user_id
    rows = {r.user_id: r for r in await ratings.rank("nim")}
    assert set(rows) == {alice.id, bob.id}
    assert winner is not None
    loser = alice.id if winner == bob.id else bob.id
    assert rows[winner].rating > 1500 > rows[loser].rating
    assert (rows[winner].wins, rows[winner].losses) == (1, 0)
    assert (rows[loser].wins, rows[loser].losses) == (0, 1)
    assert rows[winner].place == 1 and rows[loser].place == 2
    place = await ratings.place_of(loser, "nim")
    assert place is not None and place.place == 2


async def test_resign_ends_the_game_for_the_other_player(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    after = await games.resign(snap.info.id, alice.id, snap.info.version)
    assert after.info.status == "finished"
    assert after.info.outcome is not None
    assert after.info.outcome.winners == (1,) and after.info.outcome.reason == "resign"
    last = (await games.events(snap.info.id))[-1]
    assert (last.kind, last.seat, last.payload) == (
        "system",
        0,
        {"action": "forfeit", "reason": "resign"},
    )


async def test_resign_with_a_stale_version_is_refused(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    with pytest.raises(StaleVersionError):
        await games.resign(snap.info.id, alice.id, snap.info.version + 5)
    assert (await games.get(snap.info.id)).info.status == "active"


async def test_resigning_a_game_not_started_leaves_it(games: GameService, alice: User) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, OPEN])
    after = await games.resign(info.id, alice.id)
    assert after.info.status == "abandoned"


async def test_two_concurrent_submissions_of_one_turn_exactly_one_wins(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    mover = player_to_act(snap)
    results = await asyncio.gather(
        games.submit(snap.info.id, mover, "take 1", snap.info.version),
        games.submit(snap.info.id, mover, "take 1", snap.info.version),
        return_exceptions=True,
    )
    won = [r for r in results if isinstance(r, GameSnapshot)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and len(lost) == 1
    assert isinstance(lost[0], StaleVersionError)
    assert lost[0].snapshot.info.version == snap.info.version + 1
    moves = [e for e in await games.events(snap.info.id) if e.kind == "move"]
    assert len(moves) == 1


async def test_many_concurrent_submissions_never_lose_or_double_a_move(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=100)
    mover = player_to_act(snap)
    results = await asyncio.gather(
        *(games.submit(snap.info.id, mover, "take 1", snap.info.version) for _ in range(8)),
        return_exceptions=True,
    )
    assert sum(isinstance(r, GameSnapshot) for r in results) == 1, results
    assert all(isinstance(r, (GameSnapshot, StaleVersionError)) for r in results), results
    assert (await games.get(snap.info.id)).state.heap == 99


# --- seen / since last visit -------------------------------------------------------------


async def test_since_last_visit_counts_moves_against_you_until_marked_seen(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=50)
    for _ in range(4):
        snap = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    a = await games.since_last_visit(alice.id)
    assert a.moves_against_you == 2
    assert a.new_events == snap.info.last_seq
    assert [g.id for g in a.waiting] == ([snap.info.id] if player_to_act(snap) == alice.id else [])
    await games.mark_seen(snap.info.id, alice.id, snap.info.last_seq)
    a = await games.since_last_visit(alice.id)
    assert (a.moves_against_you, a.new_events) == (0, 0)
    mine = await games.get(snap.info.id, alice.id)
    assert mine.last_seen_seq == snap.info.last_seq and mine.my_seat == 0


async def test_mark_seen_never_goes_backwards(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    await games.mark_seen(snap.info.id, alice.id, snap.info.last_seq)
    await games.mark_seen(snap.info.id, alice.id, 1)
    assert (await games.get(snap.info.id, alice.id)).last_seen_seq == snap.info.last_seq


async def test_since_last_visit_lists_games_finished_meanwhile(
    games: GameService, alice: User, bob: User
) -> None:
    done = await play_to_the_end(games, await two_player_game(games, alice, bob, heap=2))
    summary = await games.since_last_visit(alice.id)
    assert [g.id for g in summary.finished] == [done.info.id]
    await games.mark_seen(done.info.id, alice.id, done.info.last_seq)
    assert (await games.since_last_visit(alice.id)).finished == []


async def test_a_spectator_snapshot_has_no_seat(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    seen = await games.get(snap.info.id, carol.id)
    assert seen.my_seat is None and seen.last_seen_seq == 0
    assert (await games.get(snap.info.id, bob.id)).my_seat == 1


async def test_get_of_a_missing_game_is_a_lobby_error(games: GameService) -> None:
    with pytest.raises(LobbyError):
        await games.get(999)


# --- notices -----------------------------------------------------------------------------


async def test_a_move_notifies_the_opponent_and_the_game_watchers(
    games: GameService, hub: LocalHub, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=30)
    mover = player_to_act(snap)
    other = alice.id if mover == bob.id else bob.id
    with hub.subscribe(other) as mine, hub.subscribe_game(snap.info.id) as watch, hub.subscribe(
        mover
    ) as movers:
        after = await games.submit(snap.info.id, mover, "1", snap.info.version)
        got = await asyncio.wait_for(mine.get(), 1)
        assert (got.kind, got.game_id, got.seq) == ("move", snap.info.id, after.info.last_seq)
        turn = await asyncio.wait_for(mine.get(), 1)
        assert turn.kind == "your_turn" and turn.user_ids == (other,)
        assert {(await asyncio.wait_for(watch.get(), 1)).kind for _ in range(2)} == {
            "move",
            "your_turn",
        }
        assert movers.get_nowait() is None


async def test_joining_notifies_the_players_already_seated(
    games: GameService, hub: LocalHub, alice: User, bob: User
) -> None:
    info = await games.begin(alice.id, "nim", {}, [ME, OPEN])
    with hub.subscribe(alice.id) as sub:
        await games.join(info.id, bob.id)
        kinds = []
        while (n := sub.get_nowait()) is not None:
            kinds.append(n.kind)
    assert "joined" in kinds


async def test_the_after_commit_hook_sees_each_committed_change(
    games: GameService, alice: User, bob: User
) -> None:
    seen: list[int] = []
    games.on_after_commit = lambda snap: seen.append(snap.info.version)
    snap = await two_player_game(games, alice, bob)
    after = await games.submit(snap.info.id, player_to_act(snap), "1", snap.info.version)
    assert seen[-1] == after.info.version
    assert len(seen) == 3  # begin, join (starts), move


async def test_an_async_after_commit_hook_runs_as_a_task(
    games: GameService, alice: User, bob: User
) -> None:
    done = asyncio.Event()

    async def hook(snap: GameSnapshot) -> None:
        done.set()

    games.on_after_commit = hook
    await two_player_game(games, alice, bob)
    await asyncio.wait_for(done.wait(), 1)


async def test_a_game_of_three_rates_everyone(
    db: Database, hub: LocalHub, alice: User, bob: User, carol: User, ratings: Ratings,
    games: GameService,
) -> None:
    info = await games.begin(alice.id, "nim", {"heap": 4}, [ME, OPEN, OPEN])
    await games.join(info.id, bob.id)
    await games.join(info.id, carol.id)
    done = await play_to_the_end(games, await games.get(info.id))
    assert done.info.outcome is not None
    rows = await ratings.rank("nim")
    assert len(rows) == 3
    assert sum(r.wins for r in rows) == 1 and sum(r.losses for r in rows) == 2
    assert abs(sum(r.rating for r in rows) - 3 * 1500) < 1e-6
    assert isinstance(NimRules().describe(done.state), str)


async def test_mark_seen_never_passes_the_end_of_the_log(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=50)
    await games.mark_seen(snap.info.id, alice.id, 10_000)
    assert (await games.get(snap.info.id, alice.id)).last_seen_seq == snap.info.last_seq
    mover = player_to_act(snap)
    await games.submit(snap.info.id, mover, "1", snap.info.version)
    if mover == bob.id:
        assert (await games.since_last_visit(alice.id)).moves_against_you == 1


async def test_a_move_text_far_too_long_is_refused_without_reaching_the_rules(
    games: GameService, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob)
    with pytest.raises(InvalidMoveError, match="too long"):
        await games.submit(snap.info.id, player_to_act(snap), "take 1 " * 100, snap.info.version)
