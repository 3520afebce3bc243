"""Provable dice through the game service: every chance event is the one the game's secret
seed makes (``door-dice-v1``), the seed is in nothing anyone sees before the game is over
and in the proof after it, and a game made before provable dice plays on without one."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import text

from door.games import fairdice
from door.games.registry import build_registry
from door.services.accounts import User
from door.services.bots import levels
from door.services.clock import FakeClock
from door.services.dice import NOT_PROVABLE
from door.services.games import GameService, GameSnapshot, SeatSpec
from door.services.notify import LocalHub, Notice, notices_to_payload
from door.store.db import Database
from door.store.records import GameRecord, SeatRecord
from door.store.repository import Repository

ME = SeatSpec("me")


class RecordingHub(LocalHub):
    """A hub that keeps, as text, every notice and every cross-process payload made."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def announcement(self, notices: Sequence[Notice]) -> tuple[str, str] | None:
        self.texts.append(notices_to_payload("test", notices))
        return super().announcement(notices)

    def deliver(self, notice: Notice) -> None:
        self.texts.append(repr(notice) + notices_to_payload("test", [notice]))
        super().deliver(notice)

    def publish(self, notice: Notice) -> None:
        self.texts.append(repr(notice) + notices_to_payload("test", [notice]))
        super().publish(notice)


@pytest.fixture
def recording() -> RecordingHub:
    return RecordingHub()


@pytest.fixture
def real(db: Database, recording: RecordingHub, clock: FakeClock) -> GameService:
    return GameService(db, build_registry(), recording, clock, random.Random(11))


async def record_of(games: GameService, gid: int) -> tuple[GameRecord, list[SeatRecord]]:
    def read(repo: Repository) -> tuple[GameRecord, list[SeatRecord]]:
        game, seats = repo.game_with_seats(gid)
        assert game is not None
        return game, seats

    return await games.db.run_read(read)


def secrets_of(game: GameRecord, seats: Sequence[SeatRecord]) -> list[str]:
    """What must stay hidden while the game runs: the seed (hex, and a long piece of
    it) and the digest of the next chance event (which gives away the next roll)."""
    assert game.dice_seed is not None
    words = [s.dice_word for s in seats]
    upcoming = fairdice.event_digest(game.dice_seed, game.id, game.chance_count, words)
    seed_hex = game.dice_seed.hex()
    return [seed_hex, seed_hex[:16], seed_hex[-16:], upcoming.hex()]


async def everything_shown(
    games: GameService, gid: int, people: Sequence[int], recording: RecordingHub
) -> str:
    """Every view of the game anyone is given, as text: snapshots (players, bots and a
    spectator), ``rules.view`` for each seat and for spectators, the game lists, the
    events, what since-last-visit says, the proof, and every notice sent so far."""
    parts: list[str] = []
    for viewer in [*people, None]:
        snap = await games.get(gid, viewer)
        parts.append(repr(snap))
        parts.append(repr(snap.info))
        rules = games.rules_for(snap.info.kind)
        parts.append(repr(rules.view(snap.state, snap.my_seat)))
        parts.append(repr(rules.view(snap.state, None)))
    for which in ("active", "finished", "open"):
        parts.append(repr(await games.list_games(which, None)))  # type: ignore[arg-type]
    for user in people:
        parts.append(repr(await games.list_games("mine", user)))
        parts.append(repr(await games.since_last_visit(user)))
    parts.append(repr(await games.events(gid)))
    parts.append(repr(await games.dice_proof(gid)))
    parts.extend(recording.texts)
    return "\n".join(parts)


async def play_out(
    games: GameService, gid: int, rng: random.Random, check: Any = None, limit: int = 3000
) -> GameSnapshot:
    """Random legal moves for whoever is to act (person or bot) until the game is over;
    ``check(snapshot)`` is awaited before each move."""
    snap = await games.get(gid)
    for _ in range(limit):
        if snap.info.status != "active":
            return snap
        if check is not None:
            await check(snap)
        seat = snap.info.to_act
        assert seat is not None
        user = snap.info.seats[seat].user_id
        assert user is not None
        rules = games.rules_for(snap.info.kind)
        moves = list(rules.legal_moves(snap.state))
        # no doubles, so that a random game ends in a reasonable number of turns
        plain = [m for m in moves if rules.format_move(snap.state, m) != "double"] or moves
        move = rng.choice(plain)
        snap = await games.submit(gid, user, rules.format_move(snap.state, move), snap.info.version)
    raise AssertionError(f"game {gid} did not end in {limit} moves")


def steps_chance(rules: Any, game: GameRecord, events: Sequence[Any]) -> list[Any]:
    """The replay steps of the chance events, in order."""
    from door.games.replay import replay

    steps = replay(rules, rules.new_game(2, game.options), events)
    return [s for s in steps if s.event.kind == "chance"]


def logged_chance(events: Sequence[Any]) -> list[Any]:
    return [e.payload["chance"] for e in events if e.kind == "chance"]


# --- the dice are the seed's ---------------------------------------------------------------


async def test_every_backgammon_roll_of_a_match_is_the_seeds_counting_k_from_0(
    real: GameService, alice: User, bob: User
) -> None:
    info = await real.begin(
        alice.id, "backgammon", {"match_length": 3}, [ME, SeatSpec("user", bob.name)],
        dice_word="  Ålice\x07 ",
    )  # fmt: skip
    await real.join(info.id, bob.id, dice_word="bob's word")
    await play_out(real, info.id, random.Random(1))
    game, seats = await record_of(real, info.id)
    assert game.dice_seed is not None
    words = [s.dice_word for s in seats]
    assert words == [fairdice.clean_word("  Ålice\x07 "), "bob's word"] == ["Ålice", "bob's word"]
    rolls = logged_chance(await real.events(info.id))
    assert len(rolls) == game.chance_count > 3
    expected = [list(fairdice.dice(game.dice_seed, game.id, k, words)) for k in range(len(rolls))]
    assert [r["dice"] for r in rolls] == expected
    assert game.status == "finished"
    # the match had more than one game: k went on counting into the later games' openings
    from door.games.backgammon.phases import OPENING
    from door.games.replay import replay

    rules = real.rules_for("backgammon")
    steps = replay(rules, rules.new_game(2, game.options), await real.events(info.id))
    openings = [s for s in steps if s.event.kind == "chance" and s.before.phase == OPENING]
    first_game_rolls = next(
        i
        for i, s in enumerate(steps_chance(rules, game, await real.events(info.id)))
        if s.before.phase != OPENING
    )
    assert len(openings) > first_game_rolls  # some opening came after the first game
    assert await real.replay_check(info.id) is None


async def test_opening_ties_are_rolled_again_and_counted(
    real: GameService, alice: User, bob: User
) -> None:
    # a tie in the opening roll is a chance event of its own: find games that had one
    tied = 0
    for _ in range(12):
        info = await real.begin(alice.id, "backgammon", {}, [ME, SeatSpec("user", bob.name)])
        await real.join(info.id, bob.id)
        game, seats = await record_of(real, info.id)
        assert game.dice_seed is not None
        rolls = logged_chance(await real.events(info.id))
        words = [s.dice_word for s in seats]
        assert [r["dice"] for r in rolls] == [
            list(fairdice.dice(game.dice_seed, game.id, k, words)) for k in range(len(rolls))
        ]
        assert game.chance_count == len(rolls)
        tied += any(r["dice"][0] == r["dice"][1] for r in rolls[:-1])
    assert tied  # 12 openings without a single tie happen once in about nine times


async def test_every_spectrangle_draw_is_the_seeds(
    real: GameService, alice: User, bob: User, carol: User
) -> None:
    info = await real.begin(
        alice.id, "spectrangle", {},
        [ME, SeatSpec("user", bob.name), SeatSpec("user", carol.name)], dice_word="a",
    )  # fmt: skip
    await real.join(info.id, bob.id, dice_word="b")
    await real.join(info.id, carol.id)
    await play_out(real, info.id, random.Random(2))
    game, seats = await record_of(real, info.id)
    assert game.dice_seed is not None
    words = [s.dice_word for s in seats]
    assert words == ["a", "b", ""]
    rules = real.rules_for("spectrangle")
    from door.games.replay import replay

    k = 0
    for step in replay(rules, rules.new_game(3, game.options), await real.events(info.id)):
        if step.event.kind != "chance":
            continue
        stream = fairdice.event_stream(game.dice_seed, game.id, k, words)
        assert (
            rules.chance_to_json(rules.chance_from_bytes(step.before, stream))
            == (step.event.payload["chance"])
        )
        k += 1
    assert k == game.chance_count > 1


async def test_no_chance_is_drawn_before_every_seat_is_taken(
    real: GameService, alice: User, bob: User, carol: User
) -> None:
    info = await real.begin(alice.id, "spectrangle", {}, [ME, SeatSpec("open"), SeatSpec("open")])
    await real.join(info.id, bob.id, dice_word="late")
    game, _ = await record_of(real, info.id)
    assert game.chance_count == 0 and not logged_chance(await real.events(info.id))
    await real.join(info.id, carol.id)
    game, _ = await record_of(real, info.id)
    assert game.chance_count > 0


async def test_a_seat_given_back_loses_its_dice_word(
    real: GameService, alice: User, bob: User
) -> None:
    info = await real.begin(alice.id, "spectrangle", {}, [ME, SeatSpec("open"), SeatSpec("open")])
    await real.join(info.id, bob.id, dice_word="mine")
    await real.leave(info.id, bob.id)
    _, seats = await record_of(real, info.id)
    assert [s.dice_word for s in seats] == ["", "", ""]


# --- the seed is secret until the end --------------------------------------------------------


@pytest.mark.parametrize("kind", ["backgammon", "spectrangle"])
async def test_the_seed_is_in_no_view_notice_or_list_until_the_game_is_over(
    real: GameService, recording: RecordingHub, alice: User, bob: User, kind: str
) -> None:
    bot_level = levels(kind)[0][0]
    seats = [ME, SeatSpec("user", bob.name), SeatSpec("bot", bot_level)]
    options: dict[str, Any] = {}
    if kind == "backgammon":
        seats = [ME, SeatSpec("bot", bot_level)]
        options = {"match_length": 3}
    info = await real.begin(alice.id, kind, options, seats, dice_word="hello")
    if kind == "spectrangle":
        await real.join(info.id, bob.id)
    people = [s.user_id for s in (await real.get(info.id)).info.seats if s.user_id is not None]
    checked = 0

    async def nothing_secret(snap: GameSnapshot) -> None:
        nonlocal checked
        if checked % 5 == 0:  # every fifth turn: the whole picture is slow to gather
            game, stored = await record_of(real, info.id)
            shown = await everything_shown(real, info.id, people, recording)
            for secret in secrets_of(game, stored):
                assert secret not in shown
        checked += 1

    await play_out(real, info.id, random.Random(3), nothing_secret)
    assert checked > 5
    game, _ = await record_of(real, info.id)
    assert game.dice_seed is not None
    proof = await real.dice_proof(info.id)
    assert proof.provable and proof.seed_hex == game.dice_seed.hex()
    assert proof.commitment_hex == fairdice.commitment(game.dice_seed)
    assert proof.chance_count == game.chance_count
    assert (await real.get(info.id)).info.dice == proof
    assert "Dice seed:" in "\n".join(proof.lines(80))


async def test_the_proof_shows_the_commitment_from_the_start_and_the_seed_only_at_the_end(
    real: GameService, alice: User, bob: User
) -> None:
    info = await real.begin(alice.id, "backgammon", {}, [ME, SeatSpec("open")], dice_word="x")
    proof = await real.dice_proof(info.id)
    game, _ = await record_of(real, info.id)
    assert game.dice_seed is not None and len(game.dice_seed) == fairdice.SEED_BYTES
    assert proof.provable and proof.seed_hex is None and proof.words == ("x", "")
    assert proof.commitment_hex == fairdice.commitment(game.dice_seed)
    assert info.dice is not None and info.dice.seed_hex is None
    await real.join(info.id, bob.id)
    assert (await real.dice_proof(info.id)).seed_hex is None
    await real.resign(info.id, alice.id)
    after = await real.dice_proof(info.id)
    assert after.seed_hex == game.dice_seed.hex() and after.words == ("x", "")


async def test_an_abandoned_game_reveals_its_seed(real: GameService, alice: User) -> None:
    info = await real.begin(alice.id, "backgammon", {}, [ME, SeatSpec("open")])
    await real.leave(info.id, alice.id)
    game, _ = await record_of(real, info.id)
    assert game.status == "abandoned" and game.dice_seed is not None
    assert (await real.dice_proof(info.id)).seed_hex == game.dice_seed.hex()


async def test_each_game_has_its_own_seed(real: GameService, alice: User) -> None:
    seeds = set()
    for _ in range(5):
        info = await real.begin(alice.id, "backgammon", {}, [ME, SeatSpec("open")])
        seeds.add((await record_of(real, info.id))[0].dice_seed)
    assert len(seeds) == 5


def test_the_service_draws_seeds_with_secrets_unless_a_test_hands_in_an_rng(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import secrets

    drawn: list[int] = []

    def token_bytes(n: int) -> bytes:
        drawn.append(n)
        return b"\x01" * n

    monkeypatch.setattr(secrets, "token_bytes", token_bytes)
    from door.services.games.core import GameCore

    core = GameCore(None, {}, FakeClock(), random.Random(1), None, seeds=secrets.token_bytes)  # type: ignore[arg-type]
    assert core.new_seed() == b"\x01" * 32 and drawn == [32]


# --- games from before provable dice ------------------------------------------------------------


async def make_old(db: Database, gid: int) -> None:
    """Make ``gid`` a game from before migration 0006: no seed."""

    def write(conn: Any) -> None:
        conn.execute(text("UPDATE games SET dice_seed = NULL WHERE id = :id"), {"id": gid})

    await db.run_sync(write)


async def test_a_game_without_a_seed_plays_on_and_says_its_dice_are_not_provable(
    db: Database, recording: RecordingHub, clock: FakeClock, alice: User, bob: User
) -> None:
    rng = random.Random(4)
    games = GameService(db, build_registry(), recording, clock, rng)
    info = await games.begin(alice.id, "backgammon", {}, [ME, SeatSpec("user", bob.name)])
    await games.join(info.id, bob.id)
    await make_old(db, info.id)
    games.core.cache.forget(info.id)  # as a fresh process would: read the game again
    proof = await games.dice_proof(info.id)
    assert not proof.provable and proof.commitment_hex is None and proof.seed_hex is None
    assert proof.lines(80) == [NOT_PROVABLE] == ["dice not provable for this game"]
    before = len(logged_chance(await games.events(info.id)))
    await play_out(games, info.id, random.Random(5))
    game, _ = await record_of(games, info.id)
    assert game.status == "finished" and game.dice_seed is None
    assert game.chance_count == len(logged_chance(await games.events(info.id))) > before
    assert not (await games.dice_proof(info.id)).provable
    assert await games.replay_check(info.id) is None


# --- door check ----------------------------------------------------------------------------------


async def test_replay_check_finds_a_logged_roll_that_is_not_the_seeds(
    db: Database, real: GameService, alice: User, bob: User
) -> None:
    info = await real.begin(alice.id, "backgammon", {}, [ME, SeatSpec("user", bob.name)])
    await real.join(info.id, bob.id)
    await play_out(real, info.id, random.Random(6))
    assert await real.replay_check(info.id) is None
    game, _ = await record_of(real, info.id)
    # another seed: the log (which replays fine) is no longer the seed's
    other = bytes(b ^ 0xFF for b in game.dice_seed or b"")

    def write(conn: Any) -> None:
        conn.execute(
            text("UPDATE games SET dice_seed = :s WHERE id = :id"), {"s": other, "id": info.id}
        )

    await db.run_sync(write)
    problem = await real.replay_check(info.id)
    assert problem is not None and "chance event 0" in problem and "dice seed" in problem


async def test_a_game_records_repr_leaves_the_seed_out(real: GameService, alice: User) -> None:
    # a log line or a traceback may show a record: it must not give the seed away
    info = await real.begin(alice.id, "backgammon", {}, [ME, SeatSpec("open")])
    game, _ = await record_of(real, info.id)
    assert game.dice_seed is not None
    assert game.dice_seed.hex() not in repr(game) and repr(game.dice_seed) not in repr(game)
