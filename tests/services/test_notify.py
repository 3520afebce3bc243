"""The in-process notification hub."""

from __future__ import annotations

import asyncio

import pytest

from door.services.notify import LocalHub, Notice, notice_from_json, notice_to_json


def notice(game: int = 1, users: tuple[int, ...] = (7,), seq: int = 3) -> Notice:
    return Notice(game, "move", users, "a move was made", seq)


async def test_a_user_gets_notices_naming_them_only() -> None:
    hub = LocalHub()
    mine, other = hub.subscribe(7), hub.subscribe(8)
    hub.publish(notice(users=(7,)))
    assert (await asyncio.wait_for(mine.get(), 1)).user_ids == (7,)
    assert other.get_nowait() is None


async def test_a_game_subscription_gets_every_notice_of_that_game() -> None:
    hub = LocalHub()
    watch = hub.subscribe_game(5)
    hub.publish(notice(game=5, users=()))
    hub.publish(notice(game=6, users=()))
    assert (await asyncio.wait_for(watch.get(), 1)).game_id == 5
    assert watch.get_nowait() is None


async def test_closed_subscriptions_get_nothing_and_are_forgotten() -> None:
    hub = LocalHub()
    sub = hub.subscribe(7)
    sub.close()
    sub.close()
    hub.publish(notice())
    assert sub.get_nowait() is None
    assert hub.subscriber_count() == 0


async def test_a_slow_reader_keeps_the_newest_notices() -> None:
    hub = LocalHub(queue_size=3)
    sub = hub.subscribe(7)
    for seq in range(10):
        hub.publish(notice(seq=seq))
    got = [n.seq for n in iter(sub.get_nowait, None)]
    assert got == [7, 8, 9]


def test_notices_round_trip_through_json() -> None:
    n = notice(users=(1, 2))
    assert notice_from_json(notice_to_json(n)) == n


@pytest.mark.parametrize("text", ["", "{}", "[1]", '{"game_id": "x"}'])
def test_malformed_notice_json_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        notice_from_json(text)
