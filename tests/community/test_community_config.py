"""``[community]`` (issue 17, point 5): the chat, mail and page rate limits and the
presence interval a sysop writes in door.toml are the ones the services keep to, handed
down by build_services (the defaults would allow what these tests see refused)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import pytest

from door.config import CommunityConfig, ConfigError, load_config
from door.services import Services, build_services
from door.services.chat import ChatError
from door.services.clock import FakeClock
from door.services.mail import MailError
from door.services.presence import PageError
from door.services.safety import SLOW_DOWN
from door.store.records import PresenceRecord
from tests.store import dbutil
from tests.ui.test_backgammon_screen import NO_CUBE, begin

Build = Callable[[str], Awaitable[Services]]


@pytest.fixture
async def configured(
    ui_sqlite_template: Path, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Build]:
    """``await configured(toml)``: the services as ``door serve`` builds them from a
    door.toml holding ``toml`` (on a fresh copy of the database with Alice and Bob)."""
    built: list[Services] = []

    async def build(toml: str) -> Services:
        url = dbutil.fresh_sqlite(ui_sqlite_template, tmp_path)
        path = tmp_path / "door.toml"
        path.write_text(f'[database]\nurl = "{url}"\nauto_upgrade = false\n'
                        f"[games]\nbots = false\n{toml}")  # fmt: skip
        services = await build_services(
            load_config(path, data_dir=tmp_path), clock=clock, rng=random.Random(7),
            start_background=False,
        )  # fmt: skip
        built.append(services)
        return services

    yield build
    for services in built:
        await services.close()


async def test_the_configured_chat_limit_is_the_one_enforced(
    configured: Build, clock: FakeClock
) -> None:
    services = await configured("[community]\nchat_burst = 2\nchat_per_minute = 2\n")
    alice = await services.accounts.by_name("Alice")
    bob = await services.accounts.by_name("Bob")
    assert alice is not None and bob is not None
    gid = await begin(services, alice, bob, NO_CUBE)
    await services.chat.say(gid, alice.id, "one")
    await services.chat.say(gid, alice.id, "two")
    assert CommunityConfig().chat_burst > 2  # the default would have taken a third
    with pytest.raises(ChatError, match="Slow down") as refused:
        await services.chat.say(gid, alice.id, "three")
    assert str(refused.value) == SLOW_DOWN
    clock.advance(timedelta(seconds=30))  # 2 a minute: one more after half a minute
    await services.chat.say(gid, alice.id, "three, later")
    with pytest.raises(ChatError, match="Slow down"):
        await services.chat.say(gid, alice.id, "four")


async def test_the_configured_mail_limit_is_the_one_enforced(configured: Build) -> None:
    services = await configured("[community]\nmail_burst = 1\nmail_per_minute = 1\n")
    alice = await services.accounts.by_name("Alice")
    assert alice is not None
    await services.mail.send(alice.id, "Bob", "hello", "a first message")
    assert CommunityConfig().mail_burst > 1
    with pytest.raises(MailError, match="Slow down"):
        await services.mail.send(alice.id, "Bob", "again", "a second one at once")


async def test_the_configured_page_limit_is_the_one_enforced(configured: Build) -> None:
    services = await configured("[community]\npage_burst = 1\npage_per_minute = 1\n")
    alice = await services.accounts.by_name("Alice")
    bob = await services.accounts.by_name("Bob")
    assert alice is not None and bob is not None
    await services.presence.page(alice.id, "Alice", bob.id, "are you there?")
    assert CommunityConfig().page_burst > 1
    with pytest.raises(PageError, match="Slow down"):
        await services.presence.page(alice.id, "Alice", bob.id, "hello?")


async def test_the_configured_presence_interval_decides_when_another_process_is_gone(
    configured: Build, clock: FakeClock
) -> None:
    services = await configured("[community]\npresence_interval_s = 2\n")
    bob = await services.accounts.by_name("Bob")
    assert bob is not None
    now = clock.now()
    row = PresenceRecord("elsewhere", 1, bob.id, "Bob", "ssh", "in the main menu", now, now)
    await services.db.transact(lambda repo: repo.replace_presence("elsewhere", [row]))
    assert [w.name for w in await services.presence.who_everywhere()] == ["Bob"]
    clock.advance(timedelta(seconds=7))  # three intervals of 2 s, not of the default 10 s
    assert CommunityConfig().presence_interval_s * 3 > 7
    assert await services.presence.who_everywhere() == []


def test_a_limit_out_of_range_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "door.toml"
    path.write_text("[community]\nchat_burst = 0\n")
    with pytest.raises(ConfigError, match=r"\[community\] chat_burst must be 1 to 1000"):
        load_config(path)
