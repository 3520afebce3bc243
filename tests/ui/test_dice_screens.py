"""The dice proof on the screens of a real session (read with pyte): the commitment on
I)D from the start, the seed nowhere on screen until the game is over and then on its
board, the game-over view and the review; "dice not provable" for a game made before
provable dice; the dice word asked for at Begin and when joining (Enter: none)."""

from __future__ import annotations

import random
import re
from typing import Any

from sqlalchemy import text

from door.games import fairdice
from door.services import Services
from door.services.accounts import User
from door.services.games import SeatSpec
from door.store.records import GameRecord, SeatRecord
from door.store.repository import Repository
from tests.ui.conftest import Running, StartSession
from tests.ui.faketerm import FakeTerminal


async def record_of(services: Services, gid: int) -> tuple[GameRecord, list[SeatRecord]]:
    def read(repo: Repository) -> tuple[GameRecord, list[SeatRecord]]:
        game, seats = repo.game_with_seats(gid)
        assert game is not None
        return game, seats

    return await services.db.run_read(read)


async def seed_of(services: Services, gid: int) -> bytes:
    game, _ = await record_of(services, gid)
    assert game.dice_seed is not None
    return game.dice_seed


def squeezed(term: FakeTerminal) -> str:
    """The screen's text without line breaks or spaces (so a hex cut over lines reads
    whole)."""
    return "".join("".join(term.display()).split())


def hex_runs(term: FakeTerminal) -> str:
    """The screen's runs of five or more hex digits, row by row, joined: a hex cut into
    pieces under each other (beside other text) reads whole."""
    return "".join("".join(re.findall(r"[0-9a-f]{5,}", row)) for row in term.display())


def shows_any_of(term: FakeTerminal, secrets: list[str]) -> list[str]:
    screen = squeezed(term) + "\n" + hex_runs(term)
    return [s for s in secrets if s in screen]


async def secrets_now(services: Services, gid: int) -> list[str]:
    """The seed (whole, and its first and last 16 hex digits) and the next chance event's
    digest, which would give away the next roll."""
    game, seats = await record_of(services, gid)
    assert game.dice_seed is not None
    seed = game.dice_seed.hex()
    words = [s.dice_word for s in seats]
    upcoming = fairdice.event_digest(game.dice_seed, gid, game.chance_count, words).hex()
    return [seed, seed[:16], seed[-16:], upcoming[:16]]


async def begin_bg(services: Services, a: User, b: User) -> int:
    info = await services.games.begin(
        a.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("user", b.name)]
    )
    await services.games.join(info.id, b.id)
    return info.id


async def play_randomly(services: Services, gid: int, rng: random.Random, turns: int) -> None:
    """Up to ``turns`` random legal moves through the service (no doubles)."""
    games = services.games
    for _ in range(turns):
        snap = await games.get(gid)
        if snap.info.status != "active" or snap.info.to_act is None:
            return
        rules = games.rules_for(snap.info.kind)
        user = snap.info.seats[snap.info.to_act].user_id
        assert user is not None
        moves = [
            m for m in rules.legal_moves(snap.state)
            if rules.format_move(snap.state, m) != "double"
        ] or list(rules.legal_moves(snap.state))  # fmt: skip
        move = rules.format_move(snap.state, rng.choice(moves))
        await games.submit(gid, user, move, snap.info.version)


async def look(r: Running, *keys: str) -> None:
    for key in keys:
        r.term.type(key)
    await r.term.settle()


# --- the commitment, and the seed only at the end ------------------------------------------


async def test_the_backgammon_id_screen_shows_the_commitment_and_not_the_seed(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin_bg(services, alice, bob)
    seed = await seed_of(services, gid)
    r = await start_session(alice, start=f"game:{gid}")
    assert "Dice commitment" not in r.term.display_text()
    await look(r, "i")
    assert "Dice commitment:" in r.term.display_text()
    assert fairdice.commitment(seed) in hex_runs(r.term)
    assert not shows_any_of(r.term, await secrets_now(services, gid))
    assert all(len(line.rstrip()) <= 80 for line in r.term.display())


async def test_the_spectrangle_id_key_shows_the_commitment_and_not_the_seed(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    carol = await services.accounts.register("Carol", "carol-pw")
    info = await services.games.begin(
        alice.id, "spectrangle", {},
        [SeatSpec("me"), SeatSpec("user", bob.name), SeatSpec("user", carol.name)],
    )  # fmt: skip
    await services.games.join(info.id, bob.id)
    await services.games.join(info.id, carol.id)
    seed = await seed_of(services, info.id)
    r = await start_session(bob, start=f"game:{info.id}")
    assert "Dice commitment" not in r.term.display_text()
    await look(r, "i")
    assert "Dice commitment:" in r.term.display_text()
    assert fairdice.commitment(seed) in hex_runs(r.term)
    assert not shows_any_of(r.term, await secrets_now(services, info.id))


async def test_no_screen_of_a_running_game_shows_the_seed_and_its_end_does(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin_bg(services, alice, bob)
    carol = await services.accounts.register("Carol", "carol-pw")
    rng = random.Random(8)
    player = await start_session(alice, start=f"game:{gid}")
    watcher = await start_session(carol, start=f"game:{gid}")
    for _ in range(6):
        await play_randomly(services, gid, rng, 3)
        secret = await secrets_now(services, gid)
        for r in (player, watcher):
            for keys in ((), ("i",), ("i",)):  # the board, with the IDs, and without
                await look(r, *keys)
                assert not shows_any_of(r.term, secret), "\n".join(r.term.display())
    lists = await start_session(carol, start="active")
    assert not shows_any_of(lists.term, await secrets_now(services, gid))
    seed = await seed_of(services, gid)
    await services.games.resign(gid, alice.id)
    # the game-over view: the seed, without asking (the I)D toggle is off again)
    await player.term.settle()
    assert "wins the 5-point match" in player.term.display_text()
    assert "Dice seed:" in player.term.display_text()
    assert seed.hex() in hex_runs(player.term)
    assert fairdice.commitment(seed) in hex_runs(player.term)


async def test_the_review_of_a_finished_game_shows_the_seed(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin_bg(services, alice, bob)
    seed = await seed_of(services, gid)
    await services.games.resign(gid, bob.id)
    r = await start_session(alice, start="finished")
    await look(r, "r")
    assert "Review of game" in r.term.row(0)
    assert f"Dice seed: {seed.hex()}" in r.term.display_text()


async def test_a_game_from_before_provable_dice_says_so_on_its_id_screen(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin_bg(services, alice, bob)

    def forget_seed(conn: Any) -> None:
        conn.execute(text("UPDATE games SET dice_seed = NULL WHERE id = :id"), {"id": gid})

    await services.db.run_sync(forget_seed)
    services.games.core.cache.forget(gid)
    r = await start_session(alice, start=f"game:{gid}")
    await look(r, "i")
    assert "dice not provable for this game" in r.term.display_text()
    assert "Dice commitment" not in r.term.display_text()


# --- the dice word --------------------------------------------------------------------------


async def test_begin_asks_for_a_dice_word_and_keeps_it(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    r = await start_session(alice, start="begin")
    for key in ("b", "1", "n"):
        r.term.type(key)
    r.term.line("Bob")
    r.term.type("s")
    await r.term.settle()
    assert "Dice word (optional, Enter for none):" in r.term.display_text()
    r.term.line("lucky seven")
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)
    (game,), _ = await services.games.list_games("mine", alice.id)
    _, seats = await record_of(services, game.id)
    assert [s.dice_word for s in seats] == ["lucky seven", ""]
    assert game.dice is not None and game.dice.words == ("lucky seven", "")


async def test_escape_at_the_dice_word_begins_nothing(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    r.term.type("s")
    await r.term.settle()
    r.term.press("escape")
    await r.term.settle()
    assert "Start the game" in r.term.display_text()
    assert (await services.games.list_games("mine", alice.id))[1] == 0


async def test_joining_asks_for_a_dice_word_and_enter_alone_gives_none(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    for word in ("", "bob was here"):
        info = await services.games.begin(
            alice.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("open")]
        )
        r = await start_session(bob, start="open")
        r.term.press("enter")
        await r.term.settle()
        assert "Dice word (optional, Enter for none):" in r.term.display_text()
        assert (await services.games.get(info.id)).info.status == "open"  # not yet
        r.term.line(word)
        await r.term.wait_for("It has begun!")
        _, seats = await record_of(services, info.id)
        assert [s.dice_word for s in seats] == ["", word]
        await r.stop()
