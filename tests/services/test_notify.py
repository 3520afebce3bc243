"""The in-process notification hub."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from door.services.notify import (
    MAX_TEXT,
    MUST_SHOW,
    LocalHub,
    LocalSubscription,
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


def drained(sub: LocalSubscription) -> list[Notice]:
    return list(iter(sub.get_nowait, None))


async def test_a_full_queue_collapses_to_one_resync_then_what_came_after() -> None:
    hub = LocalHub(queue_size=3)
    sub = hub.subscribe(7)
    for seq in range(10):
        hub.publish(notice(seq=seq))
    got = drained(sub)
    assert [n.kind for n in got] == ["resync", "move"]
    assert got[1].seq == 9


async def test_a_page_queued_before_the_queue_fills_is_kept_after_its_resync() -> None:
    hub = LocalHub(queue_size=4)
    sub = hub.subscribe(7)
    hub.publish(Notice(-8, "page", (7,), "Bob pages: are you there?", 1))
    for seq in range(10):
        hub.publish(notice(seq=seq))
    got = drained(sub)
    assert got[0].kind == "resync"
    assert [n.text for n in got if n.kind == "page"] == ["Bob pages: are you there?"]


async def test_each_collapse_is_a_resync_of_its_own() -> None:
    hub = LocalHub(queue_size=3)
    sub = hub.subscribe(7)
    seqs = []
    for _ in range(2):
        for seq in range(4):
            hub.publish(notice(seq=seq))
        seqs.append(drained(sub)[0].seq)
    assert seqs[0] != seqs[1]


KINDS: list[NoticeKind] = ["move", "chat", "your_turn", "page", "mail", "broadcast"]


@given(st.lists(st.sampled_from(KINDS), max_size=60), st.integers(3, 8))
def test_a_full_queue_loses_no_message_and_no_look_again_without_a_resync(
    kinds: list[NoticeKind], size: int
) -> None:
    hub = LocalHub(queue_size=size)
    sub = hub.subscribe(7)
    sent = [Notice(1, kind, (7,), f"{kind} {i}", i) for i, kind in enumerate(kinds)]
    for n in sent:
        sub.put(n)
    got = drained(sub)
    assert len(got) <= size
    lost = [n for n in sent if n not in got]
    messages = [n for n in sent if n.kind in MUST_SHOW]
    if lost:  # the screen is told to look again before anything after the loss
        assert got[0].kind == "resync"
        assert all(n.seq > max(x.seq for x in lost) or n.kind in MUST_SHOW for n in got[1:])
    if len(messages) <= size - 2:
        assert [n for n in got if n.kind in MUST_SHOW] == messages


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
