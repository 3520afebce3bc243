"""V)iew plays the opponent's turn "in action" (item 16 of issue 16): by itself, a
picture every step-delay seconds (a setting), any key pausing and the arrows stepping;
moves that arrive while you look play the same way; each picture is a small diff, and
a slow link never has pictures queued behind it."""

from __future__ import annotations

import asyncio
import itertools
import re
import time

from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.accounts import User
from door.session import run_session
from door.ui.boards import backgammon as bgb
from tests.ui.conftest import Running, StartSession
from tests.ui.faketerm import FakeTerminal
from tests.ui.test_backgammon_screen import NO_CUBE, begin, colour, state_of

CAPTION_ROW = 16


async def with_delay(services: Services, user: User, delay: float) -> User:
    return await services.accounts.update_settings(user.id, step_delay=delay)


async def opponent_moved(services: Services, gid: int, users: dict[int, User]) -> int:
    """The player to move makes a play through the service; returns the other seat."""
    state = await state_of(services, gid)
    rules = BackgammonRules()
    move = rules.legal_moves(state)[0]
    snap = await services.games.get(gid)
    await services.games.submit(
        gid, users[state.turn].id, rules.format_move(state, move), snap.info.version
    )
    return 1 - state.turn


def picture(r: Running) -> tuple[int, int] | None:
    """(this picture, of how many) from the viewer's caption, or None when it is closed."""
    m = re.match(r"\s*(\d+)/(\d+)\s", r.term.row(CAPTION_ROW))
    return (int(m.group(1)), int(m.group(2))) if m else None


async def test_view_plays_the_last_turn_by_itself(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    watcher = await opponent_moved(services, gid, users)
    await with_delay(services, users[watcher], 0.2)
    r = await start_session(users[watcher], start=f"game:{gid}")
    r.term.type("v")
    await r.term.settle()
    shown = picture(r)
    assert shown is not None and shown[0] < shown[1]
    total = shown[1]
    await r.term.wait_for(f"{total}/{total}", timeout=5)  # no key pressed meanwhile
    assert "step" in r.term.row(CAPTION_ROW)


async def test_any_key_pauses_the_playback_and_the_arrows_step(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    watcher = await opponent_moved(services, gid, users)
    await with_delay(services, users[watcher], 0.1)
    r = await start_session(users[watcher], start=f"game:{gid}")
    r.term.type("v")
    r.term.type("x")  # any key
    await r.term.settle()
    paused = picture(r)
    assert paused is not None
    await asyncio.sleep(0.4)  # four steps' time
    await r.term.settle()
    assert picture(r) == paused
    r.term.press("right")
    await r.term.settle()
    assert picture(r) == (paused[0] + 1, paused[1])
    r.term.press("left")
    await r.term.settle()
    assert picture(r) == paused
    await asyncio.sleep(0.3)
    assert picture(r) == paused  # stepping leaves it paused


async def test_a_move_arriving_while_you_look_is_played_then_the_board_comes_back(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    watcher = 1 - (await state_of(services, gid)).turn
    await with_delay(services, users[watcher], 0.05)
    r = await start_session(users[watcher], start=f"game:{gid}")
    assert picture(r) is None
    await opponent_moved(services, gid, users)
    await r.term.wait_for("step 1 of")
    await r.term.wait_for("It is your turn.")
    for _ in range(40):  # the last picture stays one beat, then the board is back
        if picture(r) is None:
            break
        await asyncio.sleep(0.05)
    assert picture(r) is None
    assert "V)iew" in r.term.row(23)  # the board's own keys


async def test_the_players_next_key_during_an_arriving_move_goes_to_the_board(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, {"match_length": 3})  # with the cube: R)oll
    users = {0: alice, 1: bob}
    watcher = 1 - (await state_of(services, gid)).turn
    await with_delay(services, users[watcher], 1.0)
    r = await start_session(users[watcher], start=f"game:{gid}")
    await opponent_moved(services, gid, users)
    await r.term.wait_for("1/")
    r.term.type("r")  # roll: not a key of the playback
    await r.term.settle()
    assert picture(r) is None
    assert "You rolled" in r.term.display_text()
    assert (await state_of(services, gid)).dice is not None


async def hitting_play(services: Services, gid: int, users: dict[int, User]) -> str:
    """Play plainly through the service until the mover can hit; return that play."""
    rules = BackgammonRules()
    for _ in range(400):
        state = await state_of(services, gid)
        plays = rules.legal_moves(state)
        hits = [m for m in plays if any(s[3] for s in m.steps)]
        if hits:
            return rules.format_move(state, hits[0])
        snap = await services.games.get(gid)
        await services.games.submit(
            gid, users[state.turn].id, rules.format_move(state, plays[-1]), snap.info.version
        )
    raise AssertionError("no hit came up")


async def test_a_hit_checker_is_shown_in_the_air_then_on_the_bar(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    play = await hitting_play(services, gid, users)
    state = await state_of(services, gid)
    watcher = 1 - state.turn
    await with_delay(services, users[watcher], 0.0)  # by hand: the test steps
    r = await start_session(users[watcher], start=f"game:{gid}")
    snap = await services.games.get(gid)
    await services.games.submit(gid, users[state.turn].id, play, snap.info.version)
    await r.term.settle()
    r.term.type("v")
    await r.term.settle()
    for _ in range(8):
        if "hit!" in r.term.row(CAPTION_ROW):
            break
        r.term.press("right")
        await r.term.settle()
    assert "hit!" in r.term.row(CAPTION_ROW)
    mid = r.term.row(1 + 7)  # the board's middle row: the checker in the air
    assert "●" in mid or "○" in mid
    # it was the watcher's checker: their bar checkers sit just under the middle row
    bar_x = 1 + bgb.bar_x(colour(watcher))
    assert r.term.char_at(bar_x, 1 + 8).data == " "
    r.term.press("right")
    await r.term.settle()
    assert "to the bar" in r.term.row(CAPTION_ROW)
    assert r.term.char_at(bar_x, 1 + 8).data in ("●", "○")
    assert "●" not in r.term.row(1 + 7)[2:46] and "○" not in r.term.row(1 + 7)[2:46]


async def test_each_picture_goes_out_as_a_small_diff(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    watcher = await opponent_moved(services, gid, users)
    await with_delay(services, users[watcher], 0.2)
    r = await start_session(users[watcher], start=f"game:{gid}")
    sizes: list[int] = []
    write = r.term.write

    def counting(text: str) -> None:
        sizes.append(len(text.encode("utf-8")))
        write(text)

    r.term.write = counting  # type: ignore[method-assign]
    r.term.type("v")
    await r.term.settle()
    total = picture(r)
    assert total is not None
    opened = len(sizes)
    await r.term.wait_for(f"{total[1]}/{total[1]}")
    frames = sizes[opened:]
    assert len(frames) == total[1] - 1  # one write per picture, none twice
    assert all(0 < n <= 130 for n in frames), frames


class SlowLink(FakeTerminal):
    """A terminal whose output takes ``lag`` seconds to drain; records each picture
    number written (read from the screen right after the write)."""

    def __init__(self, lag: float) -> None:
        super().__init__()
        self.lag = lag
        self.drains = 0
        self.shown: list[tuple[float, str]] = []

    def write(self, text: str) -> None:
        super().write(text)
        self.shown.append((time.monotonic(), self.row(CAPTION_ROW)[:8].strip()))

    async def drain(self) -> None:
        self.drains += 1
        await asyncio.sleep(self.lag)


async def test_a_slow_link_gets_every_picture_once_in_order_none_queued(
    services: Services, alice: User, bob: User
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    watcher = await opponent_moved(services, gid, users)
    user = await with_delay(services, users[watcher], 0.01)  # far faster than the link
    term = SlowLink(lag=0.1)
    task = asyncio.create_task(run_session(term, services, user, start=f"game:{gid}"))
    try:
        await term.settle()
        start = len(term.shown)
        term.type("v")
        await term.wait_for("step")
        r = Running(term, task)
        total = picture(r)
        assert total is not None
        await term.wait_for(f"{total[1]}/{total[1]}", timeout=10)
        numbers = [int(s.split("/")[0]) for _, s in term.shown[start:] if "/" in s]
        assert numbers == list(range(1, total[1] + 1))  # each once, in order
        times = [t for t, s in term.shown[start:] if "/" in s]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert all(g >= 0.09 for g in gaps), gaps  # one picture per drained write
    finally:
        term.hangup()
        await asyncio.wait_for(task, 5)


async def test_the_animation_speed_is_a_setting(
    services: Services, alice: User, start_session: StartSession
) -> None:
    r = await start_session(alice, start="settings")
    assert "Animation: 0.6 s per step" in r.term.display_text()
    r.term.type("a")
    await r.term.settle()
    assert "Animation: 1 s per step" in r.term.display_text()
    user = await services.accounts.get(alice.id)
    assert user.settings.step_delay == 1.0
