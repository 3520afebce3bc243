"""Dice proofs end to end: games played through the real game service into a database,
their records written by the Exporter (``door export --format json``), checked by
``verify_record`` (``door verify``): every finished game checks; a changed die, a changed
seed or a removed event is refused and named; a running game's record has no seed yet."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from door.games.registry import build_registry
from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.export import Exporter
from door.services.fairness import verify_record
from door.services.games import GameService, SeatSpec
from door.services.notify import LocalHub
from door.store.db import Database
from tests.dice.records import remove_chance, set_chance
from tests.export.play import Style, begin_backgammon, play_backgammon
from tests.store import dbutil

T = TypeVar("T")


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dbutil.make_sqlite_template(tmp_path_factory.mktemp("dice-template"))


def in_database(template: Path, tmp: Path, body: Callable[..., Awaitable[T]]) -> T:
    """Run ``body(games, exporter, clock, alice, bob)`` against a fresh migrated SQLite
    database, on an event loop of its own (Hypothesis calls this once per example)."""

    async def main() -> T:
        db = Database(dbutil.fresh_sqlite(template, tmp))
        try:
            clock = FakeClock()
            accounts = Accounts(db, clock)
            # the service's own seeds (secrets), as a server draws them
            games = GameService(db, build_registry(), LocalHub(), clock)
            alice = await accounts.register("Alice", "alice-pw")
            bob = await accounts.register("Bob", "bob-pw1")
            exporter = Exporter(games, public_finished=True)
            return await body(games, exporter, clock, alice, bob)
        finally:
            await db.dispose()

    return asyncio.run(main())


async def finished_backgammon_record(
    games: GameService, exporter: Exporter, clock: FakeClock, alice: User, bob: User,
    seed: int, length: int,
) -> dict[str, Any]:  # fmt: skip
    rng = random.Random(seed)
    game_id = await play_backgammon(
        games, clock, alice, bob, {"match_length": length}, rng, Style(late=0.0, give_up=0.0)
    )
    record: dict[str, Any] = json.loads((await exporter.export(game_id, "json", alice.id)).text)
    return record


async def finished_spectrangle_record(
    games: GameService, exporter: Exporter, alice: User, bob: User, seed: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    info = await games.begin(
        alice.id, "spectrangle", {}, [SeatSpec("me"), SeatSpec("user", bob.name)],
        dice_word="tri",
    )  # fmt: skip
    await games.join(info.id, bob.id, dice_word="angle")
    rules = games.rules_for("spectrangle")
    for _ in range(500):
        snap = await games.get(info.id)
        if snap.info.status != "active":
            break
        seat = next(s for s in snap.info.seats if s.seat == snap.info.to_act)
        assert seat.user_id is not None
        move = rules.format_move(snap.state, rng.choice(list(rules.legal_moves(snap.state))))
        await games.submit(info.id, seat.user_id, move, snap.info.version)
    record: dict[str, Any] = json.loads((await exporter.export(info.id, "json", alice.id)).text)
    assert record["status"] == "finished"
    return record


SLOW = settings(
    max_examples=6, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


@SLOW
@given(seed=st.integers(0, 2**32), length=st.sampled_from([0, 1, 3]), data=st.data())
def test_every_finished_backgammon_record_checks_and_any_tampering_is_named(
    template: Path, tmp_path_factory: pytest.TempPathFactory, seed: int, length: int,
    data: st.DataObject,
) -> None:  # fmt: skip
    tmp = tmp_path_factory.mktemp("bg")
    record = in_database(
        template, tmp,
        lambda g, e, c, a, b: finished_backgammon_record(g, e, c, a, b, seed, length),
    )  # fmt: skip
    assert record["seed_hex"] is not None and record["commitment_hex"]
    verdict = verify_record(record)
    assert verdict.ok, verdict.summary
    n = len(record["chance"])
    assert verdict.summary == (f"all {n} rolls check" if n > 1 else "the one roll checks")

    i = data.draw(st.integers(0, n - 1), label="event")
    k = record["chance"][i]["k"]
    changed = copy.deepcopy(record)
    d1, d2 = changed["chance"][i]["dice"]
    set_chance(changed, i, "dice", [d1 % 6 + 1, d2])
    bad = verify_record(changed)
    assert not bad.ok and f"k={k}" in bad.summary + " ".join(bad.problems)

    reseeded = copy.deepcopy(record)
    reseeded["seed_hex"] = ("00" if record["seed_hex"][:2] != "00" else "01") + record[
        "seed_hex"
    ][2:]
    assert "does not match the commitment" in verify_record(reseeded).summary

    removed = copy.deepcopy(record)
    remove_chance(removed, i)
    assert not verify_record(removed).ok


@SLOW
@given(seed=st.integers(0, 2**32))
def test_every_finished_spectrangle_record_checks(
    template: Path, tmp_path_factory: pytest.TempPathFactory, seed: int
) -> None:
    tmp = tmp_path_factory.mktemp("sp")
    record = in_database(
        template, tmp, lambda g, e, c, a, b: finished_spectrangle_record(g, e, a, b, seed)
    )
    assert record["words"] == ["tri", "angle"]
    verdict = verify_record(record)
    assert verdict.ok, verdict.summary
    changed = copy.deepcopy(record)
    removed = copy.deepcopy(record)
    remove_chance(removed, len(record["chance"]) - 1)
    assert not verify_record(removed).ok
    first = changed["chance"][0]
    other = "".join(reversed(first["draw"][0])) if len(first["draw"][0]) > 1 else "x"
    set_chance(changed, 0, "draw", [other, *first["draw"][1:]])
    assert not verify_record(changed).ok


def test_a_running_games_record_has_the_commitment_and_no_seed(
    template: Path, tmp_path: Path
) -> None:
    async def body(
        games: GameService, exporter: Exporter, clock: FakeClock, alice: User, bob: User
    ) -> dict[str, Any]:
        game_id = await begin_backgammon(games, alice, bob, {"match_length": 5})
        out: dict[str, Any] = json.loads((await exporter.export(game_id, "json", bob.id)).text)
        return out

    record = in_database(template, tmp_path, body)
    assert record["status"] == "active" and record["chance"]
    assert record["seed_hex"] is None and len(record["commitment_hex"]) == 64
    verdict = verify_record(record)
    assert not verdict.ok and record["commitment_hex"] in verdict.summary


def test_selfplay_export_and_verify_from_the_command_line(tmp_path: Path) -> None:
    """What a sysop (or a doubting player) runs: a demo game, its JSON record, the check."""
    data = ["--data-dir", str(tmp_path / "data")]

    def door(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "door", *args], capture_output=True, text=True, timeout=300
        )

    played = door("selfplay", *data, "--game", "backgammon", "--match-length", "1", "-q")
    assert played.returncode == 0, played.stderr
    game_id = played.stdout.strip().splitlines()[-1]
    out = tmp_path / f"game{game_id}.json"
    exported = door("export", *data, game_id, "--format", "json", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    checked = door("verify", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "rolls check" in checked.stdout or "roll checks" in checked.stdout

    record = json.loads(out.read_text())
    set_chance(record, 0, "dice", [record["chance"][0]["dice"][0] % 6 + 1,
                                   record["chance"][0]["dice"][1]])  # fmt: skip
    out.write_text(json.dumps(record))
    refused = door("verify", str(out))
    assert refused.returncode == 1 and "k=0" in refused.stdout
