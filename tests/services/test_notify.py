"""The in-process notification hub."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from door.services.notify import (
    MAX_TEXT,
    LocalHub,
    Notice,
    NoticeKind,
    notices_from_payload,
    notices_to_payload,
    payload_header,
)


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


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["move", "your_turn", "finished", "joined", "invited"]),
            st.lists(st.integers(1, 2**31 - 1), max_size=4).map(tuple),
            st.text(max_size=MAX_TEXT),
        ),
        min_size=1,
        max_size=4,
    ),
    st.integers(1, 2**31 - 1),
    st.integers(0, 2**31 - 1),
)
def test_a_changes_notices_round_trip_through_one_payload(
    parts: list[tuple[NoticeKind, tuple[int, ...], str]], game_id: int, seq: int
) -> None:
    notices = [Notice(game_id, kind, users, text, seq) for kind, users, text in parts]
    payload = notices_to_payload("0123abcd", notices)
    assert notices_from_payload(payload) == notices
    origin, game, users, _ = payload_header(payload)
    assert (origin, game) == ("0123abcd", game_id)
    assert set(users) == {u for n in notices for u in n.user_ids}


@pytest.mark.parametrize(
    "payload", ["", "{}", "o|1|2|3|[1]", "o|x|2||[]", "o|1|2||[]", 'o|1|2||[["nope", [], ""]]']
)
def test_a_malformed_payload_is_a_value_error(payload: str) -> None:
    with pytest.raises(ValueError):
        notices_from_payload(payload)
