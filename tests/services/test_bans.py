"""A banned user's every action in the game service is refused, from the ban's commit on,
whichever process made it; and the ban watch finds bans among the users online."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest

from door.services.accounts import AccountError, Accounts, User
from door.services.bans import BanWatch
from door.services.clock import FakeClock
from door.services.games import GameService, SeatSpec
from door.services.games.model import BannedError
from door.store.db import Database
from tests.services.test_accounts import ssh_key_line
from tests.services.test_games import ME, OPEN, player_to_act, two_player_game

# Every public action of GameService is one of these two kinds: a new one must be added
# to one of them (test_every_action_of_the_game_service_is_classified).
REFUSED_TO_THE_BANNED = {
    "begin", "join", "leave", "decline", "submit", "resign", "mark_seen", "offer_resignation",
}  # fmt: skip
READS_AND_SERVER_WORK = {
    "get", "list_games", "events", "since_last_visit", "replay_check", "game_ids",
    "dice_proof",
    "sweep_deadlines",
    # the sysop's (door/services/sysop.py checks the caller is a sysop, in the database)
    "abandon",
}  # fmt: skip


def public_actions(games: GameService) -> set[str]:
    return {
        name
        for name in dir(games)
        if not name.startswith("_")
        and inspect.iscoroutinefunction(getattr(games, name, None))
    }


def test_every_action_of_the_game_service_is_classified(games: GameService) -> None:
    assert public_actions(games) == REFUSED_TO_THE_BANNED | READS_AND_SERVER_WORK


async def test_every_action_a_banned_user_asks_of_the_game_service_is_refused(
    games: GameService, accounts: Accounts, alice: User, bob: User, carol: User
) -> None:
    playing = await two_player_game(games, alice, bob)
    waiting = await games.begin(alice.id, "nim", {}, [ME, OPEN])
    bobs = await games.begin(bob.id, "nim", {}, [ME, OPEN])
    invited = await games.begin(bob.id, "nim", {}, [ME, SeatSpec("user", "Alice")])
    await accounts.set_banned("Alice", True)
    g = playing.info
    attempts: dict[str, Callable[[], Awaitable[Any]]] = {
        "begin": lambda: games.begin(alice.id, "nim", {}, [ME, SeatSpec("user", "Carol")]),
        "join": lambda: games.join(bobs.id, alice.id),
        "leave": lambda: games.leave(waiting.id, alice.id),
        "decline": lambda: games.decline(invited.id, alice.id),
        "submit": lambda: games.submit(g.id, alice.id, "take 1", g.version),
        "resign": lambda: games.resign(g.id, alice.id),
        "offer_resignation": lambda: games.offer_resignation(g.id, alice.id, "single", g.version),
        "mark_seen": lambda: games.mark_seen(g.id, alice.id, g.last_seq),
    }
    assert set(attempts) == REFUSED_TO_THE_BANNED
    for name, attempt in attempts.items():
        try:
            await attempt()
        except BannedError as exc:
            assert "suspended" in str(exc)
        else:
            pytest.fail(f"a banned user could {name}")
    after = await games.get(g.id)
    assert (after.info.version, after.info.status) == (g.version, "active")
    assert (await games.get(waiting.id)).info.seats == waiting.seats
    assert (await games.get(bobs.id)).info.seats == bobs.seats
    assert (await games.get(invited.id)).info.status == "open"


async def test_a_banned_user_cannot_begin_a_game_against_the_computer(
    games: GameService, accounts: Accounts, alice: User
) -> None:
    await accounts.set_banned("Alice", True)
    with pytest.raises(BannedError):
        await games.begin(alice.id, "nim", {}, [ME, SeatSpec("bot", "nim-bot")])
    assert await games.list_games("mine", alice.id) == ([], 0)


async def test_a_move_made_after_the_movers_ban_is_refused_and_writes_nothing(
    games: GameService, accounts: Accounts, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=30)
    # a move first, so that the next starts from this process's cache (no read at all)
    snap = await games.submit(snap.info.id, player_to_act(snap), "take 1", snap.info.version)
    mover = player_to_act(snap)
    await accounts.set_banned("Alice" if mover == alice.id else "Bob", True)
    with pytest.raises(BannedError):
        await games.submit(snap.info.id, mover, "take 1", snap.info.version)
    after = await games.get(snap.info.id)
    assert after.info.version == snap.info.version
    assert len(await games.events(snap.info.id)) == snap.info.last_seq


async def test_a_ban_made_by_another_process_refuses_the_very_next_move(
    games: GameService, db: Database, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=30)
    snap = await games.submit(snap.info.id, player_to_act(snap), "take 1", snap.info.version)
    mover = player_to_act(snap)
    other = Database(db.url)
    try:
        await Accounts(other, games.clock).set_banned(
            "Alice" if mover == alice.id else "Bob", True
        )
    finally:
        await other.dispose()
    with pytest.raises(BannedError):
        await games.submit(snap.info.id, mover, "take 1", snap.info.version)


async def test_a_lifted_ban_lets_the_player_move_again(
    games: GameService, accounts: Accounts, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=30)
    mover = player_to_act(snap)
    name = "Alice" if mover == alice.id else "Bob"
    await accounts.set_banned(name, True)
    with pytest.raises(BannedError):
        await games.submit(snap.info.id, mover, "take 1", snap.info.version)
    await accounts.set_banned(name, False)
    after = await games.submit(snap.info.id, mover, "take 1", snap.info.version)
    assert after.info.version == snap.info.version + 1


async def test_a_banned_players_turn_still_times_out(
    games: GameService, accounts: Accounts, clock: FakeClock, alice: User, bob: User
) -> None:
    snap = await two_player_game(games, alice, bob, heap=30)
    mover = player_to_act(snap)
    await accounts.set_banned("Alice" if mover == alice.id else "Bob", True)
    clock.advance(timedelta(hours=snap.info.deadline_hours + 1))
    assert await games.sweep_deadlines() == 1


async def test_a_banned_user_cannot_change_their_account_either(
    accounts: Accounts, alice: User
) -> None:
    fingerprint = await accounts.add_key(alice.id, ssh_key_line(b"one"))
    await accounts.set_banned("Alice", True)
    attempts: list[Callable[[], Awaitable[Any]]] = [
        lambda: accounts.update_settings(alice.id, sound=False),
        lambda: accounts.change_password(alice.id, "alice-pw", "new-password"),
        lambda: accounts.add_key(alice.id, ssh_key_line(b"two")),
        lambda: accounts.remove_key(alice.id, fingerprint),
    ]
    for attempt in attempts:
        with pytest.raises(AccountError, match="suspended"):
            await attempt()
    assert [k.fingerprint for k in await accounts.list_keys(alice.id)] == [fingerprint]
    assert (await accounts.get(alice.id)).settings.sound


# --- the ban watch ---------------------------------------------------------------------


async def test_the_ban_watch_ends_the_sessions_of_a_banned_user_online_here(
    db: Database, accounts: Accounts, alice: User, bob: User
) -> None:
    watch = BanWatch(db)
    ended: list[str] = []
    watch.watch(alice.id, lambda: ended.append("alice 1"))
    watch.watch(alice.id, lambda: ended.append("alice 2"))
    watch.watch(bob.id, lambda: ended.append("bob"))
    await accounts.set_banned("Alice", True)  # no hook: as if another process banned her
    assert await watch.check() == 1
    assert ended == ["alice 1", "alice 2"]
    assert watch.online() == [bob.id]


async def test_the_ban_watch_reads_nothing_while_nobody_is_online(db: Database) -> None:
    watch = BanWatch(db)
    assert await watch.check() == 0
    assert watch.polls == 0


async def test_a_closed_watch_is_not_called_when_its_user_is_banned(
    db: Database, accounts: Accounts, alice: User
) -> None:
    watch = BanWatch(db)
    ended: list[int] = []
    with watch.watch(alice.id, lambda: ended.append(1)):
        pass
    await accounts.set_banned("Alice", True)
    assert await watch.check() == 0
    assert ended == []


async def test_the_ban_watch_finds_a_banned_user_among_many_online(
    db: Database, accounts: Accounts
) -> None:
    users = [await accounts.register(f"user{i}", "pw-pw-pw") for i in range(150)]
    watch = BanWatch(db)
    ended: list[int] = []
    for u in users:
        watch.watch(u.id, lambda uid=u.id: ended.append(uid))  # type: ignore[misc]
    await accounts.set_banned("user140", True)
    await accounts.set_banned("user3", True)
    assert await watch.check() == 2
    assert sorted(ended) == sorted([users[3].id, users[140].id])
