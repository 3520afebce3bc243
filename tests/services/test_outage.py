"""What the sessions are told of the database's health (door/services/outage.py over
``Database.health``): nothing for a blip, "lost" for an outage that lasts, then "back"
for a moment; and which kind of success ends which kind of failure."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from door.services.outage import DatabaseOutage
from door.store.db import WriteHealth

FULL = OSError("database or disk is full")


def next_change(outage: DatabaseOutage) -> asyncio.Future[object]:
    """A future that the outage's next change of state settles, with that state."""
    news: asyncio.Future[object] = asyncio.get_running_loop().create_future()

    def told(state: object) -> None:
        if not news.done():
            news.set_result(state)

    news.add_done_callback(lambda _: stop())
    stop = outage.subscribe(told)
    return news


async def test_a_failure_mended_within_the_grace_period_tells_nobody() -> None:
    health = WriteHealth()
    outage = DatabaseOutage(health, grace_s=0.1)
    news = next_change(outage)
    health.failed(FULL)
    await asyncio.sleep(0.02)
    health.succeeded()
    await asyncio.sleep(0.2)
    assert outage.state is None and not news.done()
    assert outage.recoveries == 0


async def test_an_outage_that_lasts_is_lost_then_back_for_a_moment_then_nothing() -> None:
    health = WriteHealth()
    outage = DatabaseOutage(health, grace_s=0.05, back_s=0.1)
    told: list[object] = []
    outage.subscribe(told.append)
    news = next_change(outage)
    health.failed(FULL)
    assert await asyncio.wait_for(news, 1) == "lost"
    health.succeeded()
    assert outage.state == "back" and outage.recoveries == 1
    assert await asyncio.wait_for(next_change(outage), 1) is None
    assert told == ["lost", "back", None]


async def test_a_read_that_works_does_not_end_a_failure_to_write() -> None:
    """A full SQLite disk still reads: only a write (or the server answering a
    listening connection again) says writes work."""
    health = WriteHealth()
    health.failed(FULL)
    health.succeeded(write=False)
    assert health.lost and health.failing
    health.failed(FULL, write=False)
    health.succeeded(write=True)
    assert not health.lost


async def test_a_listening_connection_back_ends_the_loss_and_wakes_whoever_waits_to_write(
) -> None:
    health = WriteHealth()
    woken: list[bool] = []
    changes: list[bool] = []
    health.on_recovered(lambda: woken.append(True))
    health.on_change(changes.append)
    first, second = object(), object()
    health.link_lost(first)
    health.link_lost(second)
    health.failed(FULL)  # a write tried while the server was away
    health.link_back(first)
    assert health.lost  # the other connection is still away
    health.link_back(second)
    assert not health.lost and woken == [True]
    assert changes == [True, False]


EVENTS = st.lists(
    st.one_of(
        st.sampled_from(["write failed", "write worked", "read failed", "read worked"]),
        st.tuples(st.sampled_from(["link lost", "link back"]), st.integers(0, 2)),
    ),
    max_size=40,
)


@given(EVENTS)
def test_the_change_listeners_hear_every_flip_of_lost_and_only_those(events: list[object]) -> None:
    health = WriteHealth()
    heard: list[bool] = []
    woken: list[bool] = []
    health.on_change(heard.append)
    health.on_recovered(lambda: woken.append(True))
    links = [object(), object(), object()]
    away: set[int] = set()  # the links lost now
    flips = recoveries = 0
    for event in events:
        was, was_failing = health.lost, health.failing
        if event == "write failed":
            health.failed(FULL)
        elif event == "write worked":
            health.succeeded()
        elif event == "read failed":
            health.failed(FULL, write=False)
        elif event == "read worked":
            health.succeeded(write=False)
        else:
            assert isinstance(event, tuple)
            kind, i = event
            (health.link_lost if kind == "link lost" else health.link_back)(links[i])
            (away.add if kind == "link lost" else away.discard)(i)
        flips += health.lost != was
        recoveries += was_failing and not health.failing
        if event == "write worked":
            assert health.lost == bool(away)  # a write that works ends all but lost links
    assert len(heard) == flips
    assert heard == [i % 2 == 0 for i in range(flips)]  # lost, back, lost, …
    assert heard[-1:] in ([], [health.lost])
    assert len(woken) == recoveries
