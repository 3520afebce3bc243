"""The Exporter: who may read which game's record, what a refusal says, "up to now"."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.export import Exporter, RecordRefused
from door.services.games import GameEvent, GameInfo, GameService, SeatSpec
from door.store.records import JSON
from tests.export.play import begin_backgammon, play_backgammon


async def finished_game(games: GameService, clock: FakeClock, a: User, b: User) -> int:
    return await play_backgammon(games, clock, a, b, {"match_length": 1}, random.Random(5))


async def test_the_players_and_the_sysops_read_a_private_finished_game(
    games: GameService, clock: FakeClock, alice: User, bob: User, carol: User
) -> None:
    game_id = await finished_game(games, clock, alice, bob)
    private = Exporter(games, public_finished=False)
    for viewer in (alice.id, bob.id):
        record = await private.export(game_id, "mat", viewer)
        assert record.filename == f"game{game_id}.mat" and " 1 point match" in record.text
    assert (await private.export(game_id, "sgf", carol.id, sysop=True)).fmt == "sgf"


async def test_a_stranger_reads_a_finished_game_only_when_finished_games_are_public(
    games: GameService, clock: FakeClock, alice: User, bob: User, carol: User
) -> None:
    game_id = await finished_game(games, clock, alice, bob)
    assert (await Exporter(games, public_finished=True).export(game_id, "json", carol.id)).text
    with pytest.raises(RecordRefused):
        await Exporter(games, public_finished=False).export(game_id, "json", carol.id)
    with pytest.raises(RecordRefused):
        await Exporter(games, public_finished=False).export(game_id, "json", None)


async def test_a_private_game_and_a_missing_one_look_the_same_to_a_stranger(
    games: GameService, clock: FakeClock, alice: User, bob: User, carol: User
) -> None:
    game_id = await finished_game(games, clock, alice, bob)
    private = Exporter(games, public_finished=False)
    with pytest.raises(RecordRefused) as hidden:
        await private.export(game_id, "mat", carol.id)
    with pytest.raises(RecordRefused) as missing:
        await private.export(game_id + 1000, "mat", carol.id)
    assert str(hidden.value).replace(str(game_id), "N") == str(missing.value).replace(
        str(game_id + 1000), "N"
    )
    with pytest.raises(RecordRefused, match=f"there is no game {game_id + 1000}$"):
        await private.export(game_id + 1000, "mat", None, sysop=True)


async def test_anyone_may_read_a_running_game_up_to_now(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    game_id = await begin_backgammon(games, alice, bob, {"match_length": 3})
    exporter = Exporter(games, public_finished=False)
    before = json.loads((await exporter.export(game_id, "json", carol.id)).text)
    assert before["status"] == "active" and before["outcome"] is None
    snap = await games.get(game_id)
    rules = games.rules_for("backgammon")
    move = rules.format_move(snap.state, rules.legal_moves(snap.state)[0])
    seat = next(s for s in snap.info.seats if s.seat == snap.info.to_act)
    assert seat.user_id is not None
    await games.submit(game_id, seat.user_id, move, snap.info.version)
    after = json.loads((await exporter.export(game_id, "json", carol.id)).text)
    assert [m["seq"] for m in after["moves"]][: len(before["moves"])] == [
        m["seq"] for m in before["moves"]
    ]
    assert move in [m["text"] for m in after["moves"][len(before["moves"]):]]


async def test_an_invitation_is_only_its_players_until_it_starts(
    games: GameService, alice: User, bob: User, carol: User
) -> None:
    invited = await games.begin(
        alice.id, "backgammon", {"match_length": 1}, [SeatSpec("me"), SeatSpec("user", bob.name)]
    )
    listed = await games.begin(
        alice.id, "backgammon", {"match_length": 1}, [SeatSpec("me"), SeatSpec("open")]
    )
    exporter = Exporter(games, public_finished=True)
    assert (await exporter.export(invited.id, "json", bob.id)).text
    with pytest.raises(RecordRefused):
        await exporter.export(invited.id, "json", carol.id)
    assert (await exporter.export(listed.id, "json", carol.id)).text


async def test_a_format_of_the_other_game_is_refused_with_the_reason(
    games: GameService, alice: User, bob: User
) -> None:
    info = await games.begin(
        alice.id, "spectrangle", {}, [SeatSpec("me"), SeatSpec("user", bob.name)]
    )
    await games.join(info.id, bob.id)
    exporter = Exporter(games, public_finished=True)
    with pytest.raises(RecordRefused, match=f"^mat is a backgammon format; game {info.id} is "
                                            "Spectrangle$"):  # fmt: skip
        await exporter.export(info.id, "mat", alice.id)
    assert "; P1 Alice" in (await exporter.export(info.id, "txt", alice.id)).text
    with pytest.raises(RecordRefused, match="no record format 'pgn'"):
        await exporter.export(info.id, "pgn", alice.id)  # type: ignore[arg-type]


async def test_extra_keys_reach_every_format(
    games: GameService, clock: FakeClock, alice: User, bob: User
) -> None:
    game_id = await finished_game(games, clock, alice, bob)

    async def proof(game: GameInfo) -> Mapping[str, JSON]:
        return {"commitment_hex": f"c{game.id}", "words": ["", ""]}

    exporter = Exporter(games, public_finished=True, extra_keys=proof)
    record = json.loads((await exporter.export(game_id, "json", alice.id)).text)
    assert record["commitment_hex"] == f"c{game_id}" and record["words"] == ["", ""]
    assert f"; commitment_hex: c{game_id}\n" in (await exporter.export(game_id, "mat", None)).text
    assert f"\ncommitment_hex: c{game_id}\nwords: [" in (
        await exporter.export(game_id, "sgf", None)
    ).text


@pytest.mark.parametrize("public", [True, False])
async def test_the_server_puts_an_exporter_on_its_services_with_the_configs_rule(
    tmp_path: Path, public: bool
) -> None:
    from door.app import start_server
    from tests.net.conftest import make_config

    config = make_config(tmp_path)
    config = replace(
        config,
        server=replace(config.server, telnet_port=0, ssh_port=0, rlogin_port=0),
        games=replace(config.games, public_finished=public),
    )
    app = await start_server(config)
    try:
        exporter = app.services.exporter
        assert isinstance(exporter, Exporter) and exporter.public_finished is public
        assert exporter.games is app.services.games
    finally:
        await app.shutdown()


async def test_a_log_that_does_not_replay_is_refused_with_a_reason(
    games: GameService, clock: FakeClock, alice: User, bob: User,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    game_id = await finished_game(games, clock, alice, bob)
    real = await games.events(game_id)
    spoiled = [replace(e, payload={"move": "24/1"}) if e.kind == "move" else e for e in real]

    async def events(game_id: int, since_seq: int = 0) -> list[GameEvent]:
        return spoiled

    monkeypatch.setattr(games, "events", events)
    for fmt in ("mat", "sgf", "json"):
        with pytest.raises(RecordRefused, match="log does not replay"):
            await Exporter(games, public_finished=True).export(game_id, fmt, alice.id)
