"""The bot runner inside a running game service: accounts, prompt turns, restarts, hints,
reviews."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from door.games.backgammon.rules import BackgammonRules
from door.games.base import Refusal
from door.games.spectrangle.rules import SpectrangleRules
from door.services import Services, bgengine
from door.services.bgengine import BgEngine, has_bgsage
from door.services.bots import BotBrains, BotRunner, all_levels, levels
from door.services.games import GameSnapshot, LobbyError, SeatSpec

ME = SeatSpec("me")

needs_bgsage = pytest.mark.skipif(not has_bgsage(), reason="bgsage is not installed here")


def bot(level: str) -> SeatSpec:
    return SeatSpec("bot", level)


async def human(services: Services, name: str = "alice") -> int:
    return (await services.accounts.register(name, "correct horse")).id


async def wait_for(
    services: Services, game_id: int, pred: Any, timeout: float = 5.0
) -> GameSnapshot:
    """Poll the game until ``pred(snapshot)`` holds (the bots work in the background)."""
    end = time.monotonic() + timeout
    while True:
        snap = await services.games.get(game_id)
        if pred(snap):
            return snap
        if time.monotonic() > end:
            raise AssertionError(f"timed out; the game is at {snap.info.summary!r}")
        await asyncio.sleep(0.01)


def humans_turn(uid: int) -> Any:
    return lambda s: s.info.status != "active" or s.info.is_waiting_on(uid)


async def test_every_level_has_its_own_bot_account_after_start(
    services: Services, runner: BotRunner
) -> None:
    for level in all_levels():
        user = await services.accounts.by_name(level)
        assert user is not None and user.is_bot, level


async def test_levels_lists_each_games_levels_weakest_first(runner: BotRunner) -> None:
    assert [n for n, _ in runner.levels("backgammon")] == [
        "bg-beginner",
        "bg-casual",
        "bg-club",
        "bg-strong",
        "bg-expert",
    ]
    assert [n for n, _ in runner.levels("spectrangle")] == [
        "spectrangle-novice",
        "spectrangle-greedy",
        "spectrangle-strong",
    ]
    assert runner.levels("chess") == []


def test_without_bgsage_the_level_descriptions_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bgengine, "load_bgsage", lambda: None)
    described = dict(levels("backgammon"))
    assert "no bgsage" in described["bg-expert"]


async def test_spectrangle_bot_replies_within_a_second_of_a_humans_move(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    rules = SpectrangleRules()
    info = await services.games.begin(uid, "spectrangle", {}, [ME, bot("spectrangle-strong")])
    snap = await wait_for(services, info.id, humans_turn(uid))
    for _ in range(3):
        assert snap.info.status == "active"
        move = rules.format_move(snap.state, rules.legal_moves(snap.state)[0])
        started = time.monotonic()
        snap = await services.games.submit(info.id, uid, move, snap.info.version)
        snap = await wait_for(services, info.id, humans_turn(uid), timeout=1.0)
        assert time.monotonic() - started < 1.0


@needs_bgsage
async def test_backgammon_expert_bot_replies_within_a_second_of_a_humans_move(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    helper = BgEngine("bg-intermediate", use_bgsage=False)
    info = await services.games.begin(
        uid, "backgammon", {"match_length": 3}, [ME, bot("bg-expert")]
    )
    snap = await wait_for(services, info.id, humans_turn(uid))
    for _ in range(4):
        if snap.info.status != "active":
            break
        move = helper.rules.format_move(snap.state, helper.choose(snap.state))
        started = time.monotonic()
        snap = await services.games.submit(info.id, uid, move, snap.info.version)
        if snap.info.is_waiting_on(uid):
            continue  # e.g. "roll": the dice came and it is still the human's turn
        snap = await wait_for(services, info.id, humans_turn(uid), timeout=1.0)
        assert time.monotonic() - started < 1.0


async def test_a_thinking_bot_does_not_hold_up_the_event_loop(
    services: Services, runner: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_choose = runner.brains.choose
    thinking = 0

    def slow_choose(kind: str, level: str, state: Any) -> str:
        nonlocal thinking
        thinking += 1
        time.sleep(0.3)  # a long think that blocks its own thread
        return real_choose(kind, level, state)

    monkeypatch.setattr(runner.brains, "choose", slow_choose)
    uid = await human(services)
    await services.games.begin(
        uid, "spectrangle", {}, [bot("spectrangle-greedy"), bot("spectrangle-greedy")]
    )
    worst_gap = 0.0
    last = time.monotonic()
    end = last + 1.0
    while time.monotonic() < end:
        await asyncio.sleep(0.01)
        now = time.monotonic()
        worst_gap = max(worst_gap, now - last)
        last = now
    assert thinking >= 2
    assert worst_gap < 0.2


async def test_a_bot_whose_move_is_refused_still_moves_and_the_game_goes_on(
    services: Services, runner: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner.brains, "choose", lambda kind, level, state: "nonsense")
    uid = await human(services)
    info = await services.games.begin(uid, "spectrangle", {}, [ME, bot("spectrangle-greedy")])
    snap = await wait_for(services, info.id, humans_turn(uid))
    rules = SpectrangleRules()
    move = rules.format_move(snap.state, rules.legal_moves(snap.state)[0])
    await services.games.submit(info.id, uid, move, snap.info.version)
    snap = await wait_for(services, info.id, humans_turn(uid))
    bot_moves = [
        e for e in await services.games.events(info.id) if e.kind == "move" and e.seat == 1
    ]
    assert bot_moves


async def test_two_bots_play_a_spectrangle_game_to_the_end_and_the_log_replays(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    info = await services.games.begin(
        uid, "spectrangle", {}, [bot("spectrangle-greedy"), bot("spectrangle-strong")]
    )
    snap = await wait_for(services, info.id, lambda s: s.info.status == "finished", timeout=20)
    assert snap.info.outcome is not None
    assert await services.games.replay_check(info.id) is None


async def test_bot_turns_left_from_before_a_restart_are_played_at_start(
    services: Services, brains: BotBrains
) -> None:
    uid = await human(services)
    info = await services.games.begin(
        uid, "spectrangle", {}, [bot("spectrangle-greedy"), bot("spectrangle-greedy")]
    )
    before = await services.games.get(info.id)
    assert before.info.status == "active" and before.info.last_seq > 0
    bots = BotRunner(services, brains=brains)
    bots.start()
    try:
        await bots.ready()
        snap = await wait_for(services, info.id, lambda s: s.info.status == "finished", timeout=20)
        assert snap.info.version > before.info.version
    finally:
        await bots.stop()


async def test_a_bot_turn_the_runner_was_not_told_about_is_found_by_the_rescan(
    services: Services, brains: BotBrains
) -> None:
    bots = BotRunner(services, brains=brains, rescan_interval=0.05)
    bots.start()
    try:
        await bots.ready()
        services.games.on_after_commit = None  # as if the change happened elsewhere
        uid = await human(services)
        info = await services.games.begin(
            uid, "spectrangle", {}, [bot("spectrangle-greedy"), bot("spectrangle-greedy")]
        )
        await wait_for(services, info.id, lambda s: s.info.status == "finished", timeout=20)
    finally:
        await bots.stop()


async def test_with_bgsage_absent_two_backgammon_bots_finish_a_match_through_the_service(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bgengine, "load_bgsage", lambda: None)
    bots = BotRunner(services, brains=BotBrains(random.Random(2)))
    bots.start()
    try:
        await bots.ready()
        assert bots.brains.engine("bg-expert").engine == "pubeval"
        uid = await human(services)
        info = await services.games.begin(
            uid, "backgammon", {"match_length": 1}, [bot("bg-beginner"), bot("bg-expert")]
        )
        snap = await wait_for(services, info.id, lambda s: s.info.status == "finished", timeout=60)
        assert snap.info.outcome is not None
        assert await services.games.replay_check(info.id) is None
    finally:
        await bots.stop()


async def test_an_unknown_bot_name_is_refused_and_makes_no_game_and_no_account(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    with pytest.raises(LobbyError, match="no computer player called 'robbie'"):
        await services.games.begin(uid, "spectrangle", {}, [bot("robbie"), ME])
    assert await services.accounts.by_name("robbie") is None
    assert await services.games.list_games("mine", uid) == ([], 0)


async def test_spectrangle_hint_gives_the_best_scoring_placements_with_scores(
    runner: BotRunner,
) -> None:
    rules = SpectrangleRules()
    rng = random.Random(5)
    state = rules.new_game(2, {})
    while rules.chance_pending(state):
        state = rules.apply_chance(state, rules.sample_chance(state, rng))
    for _ in range(6):
        state = rules.apply(state, rules.legal_moves(state)[0])
        while rules.chance_pending(state):
            state = rules.apply_chance(state, rules.sample_chance(state, rng))
    hints = await runner.hint("spectrangle", state, n=3)
    best = max(score for _, score in rules.scored_moves(state))
    assert len(hints) == min(3, len(rules.legal_moves(state)))
    assert hints[0][1] == f"score {best}"
    for text, worth in hints:
        move = rules.parse_move(state, text)
        assert worth == f"score {rules.move_score(state, move)}"


async def test_backgammon_hint_gives_three_plays_best_first_with_equities(
    runner: BotRunner,
) -> None:
    rules = BackgammonRules()
    state = rules.apply_chance(rules.new_game(2, {"match_length": 0}), (3, 1))
    hints = await runner.hint("backgammon", state, n=3)
    assert hints[0][0] == "8/5 6/5"
    equities = [float(e) for _, e in hints]
    assert len(hints) == 3 and equities == sorted(equities, reverse=True)
    for text, _ in hints:
        rules.parse_move(state, text)


async def test_a_game_hint_is_refused_when_the_creator_did_not_allow_hints(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    info = await services.games.begin(
        uid, "spectrangle", {}, [ME, bot("spectrangle-greedy")], hints_allowed=False
    )
    await wait_for(services, info.id, humans_turn(uid))
    with pytest.raises(Refusal, match="hints are off"):
        await runner.game_hint(info.id, uid)


async def test_a_game_hint_is_given_on_the_players_turn_when_allowed(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    info = await services.games.begin(uid, "spectrangle", {}, [ME, bot("spectrangle-greedy")])
    snap = await wait_for(services, info.id, humans_turn(uid))
    hints = await runner.game_hint(info.id, uid, n=2)
    assert hints and len(hints) <= 2
    SpectrangleRules().parse_move(snap.state, hints[0][0])


async def test_a_game_hint_is_refused_to_a_player_waiting_for_the_other(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    other = await human(services, "bob")
    info = await services.games.begin(uid, "spectrangle", {}, [ME, SeatSpec("user", "bob")])
    await services.games.join(info.id, other)
    snap = await services.games.get(info.id)
    waiting = uid if snap.info.is_waiting_on(other) else other
    with pytest.raises(Refusal, match="whose turn"):
        await runner.game_hint(info.id, waiting)


@needs_bgsage
async def test_review_of_a_finished_game_rates_both_players(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    helper = BgEngine("bg-intermediate", use_bgsage=False)
    info = await services.games.begin(
        uid, "backgammon", {"match_length": 1}, [ME, bot("bg-expert")]
    )
    snap = await wait_for(services, info.id, humans_turn(uid))
    played = 0
    while played < 6 and snap.info.status == "active":
        move = helper.choose(snap.state)
        played += move.action == "play"
        text = helper.rules.format_move(snap.state, move)
        await services.games.submit(info.id, uid, text, snap.info.version)
        snap = await wait_for(services, info.id, humans_turn(uid))
    if snap.info.status == "active":
        await services.games.resign(info.id, uid)
    review = await runner.review(info.id)
    assert review.engine == "bgsage"
    assert [p.seat for p in review.players] == [0, 1]
    assert review.players[0].decisions > 0
    for p in review.players:
        assert p.error_rate >= 0.0
        assert list(p.mistakes) == sorted(p.mistakes, key=lambda m: -m.loss)


async def test_review_refuses_a_game_that_is_not_over(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    info = await services.games.begin(
        uid, "backgammon", {"match_length": 3}, [ME, SeatSpec("open")]
    )
    with pytest.raises(Refusal, match="once it is over"):
        await runner.review(info.id)


async def test_review_refuses_a_game_that_is_not_backgammon(
    services: Services, runner: BotRunner
) -> None:
    uid = await human(services)
    info = await services.games.begin(uid, "spectrangle", {}, [ME, bot("spectrangle-greedy")])
    with pytest.raises(Refusal, match="only backgammon"):
        await runner.review(info.id)


async def test_review_without_bgsage_is_refused_with_a_reason(
    services: Services, runner: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    uid = await human(services)
    other = await human(services, "bob")
    info = await services.games.begin(uid, "backgammon", {}, [ME, SeatSpec("user", "bob")])
    await services.games.join(info.id, other)
    await services.games.resign(info.id, other)
    monkeypatch.setattr(bgengine, "load_bgsage", lambda: None)
    with pytest.raises(Refusal, match="needs the bgsage engine"):
        await runner.review(info.id)
