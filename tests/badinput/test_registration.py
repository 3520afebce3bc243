"""Registration and names: what people (and BBSs) type as a name is checked, never trusted.

Each refusal is an :class:`AccountError` whose message says the rule, fit to show the
person; nothing is written when a name is refused, and what is accepted is stored as text
(SQL metacharacters included) and never contains a control character.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from door.services import Services
from door.services.accounts import AccountError


async def all_names(services: Services) -> list[str]:
    rows = await services.db.run_sync(
        lambda c: c.execute(text("SELECT name FROM users ORDER BY id")).all()
    )
    return [r[0] for r in rows]


@pytest.mark.parametrize(
    "name",
    [
        "\x1b[31mRed\x1b[0m",  # ANSI colour
        "Evil\x1b]0;title\x07",  # OSC: sets the window title
        "tab\there",
        "bell\x07",
        "back\x08space",
        "line\r\nbreak",
        "nul\x00byte",
        "c1\x9bcontrol",
        "del\x7f",
    ],
)
async def test_control_characters_in_a_name_are_refused(services: Services, name: str) -> None:
    with pytest.raises(AccountError, match="control characters"):
        await services.accounts.register(name, "secret")
    assert await all_names(services) == []


@pytest.mark.parametrize("name", ["x" * 21, "y" * 10_000, "é" * 21])
async def test_over_long_names_are_refused_with_the_length_rule(
    services: Services, name: str
) -> None:
    with pytest.raises(AccountError, match="2 to 20 characters"):
        await services.accounts.register(name, "secret")
    assert await all_names(services) == []


@pytest.mark.parametrize("name", ["", " ", "x", "   y   "])
async def test_too_short_or_blank_names_are_refused(services: Services, name: str) -> None:
    with pytest.raises(AccountError, match="2 to 20 characters"):
        await services.accounts.register(name, "secret")


@pytest.mark.parametrize(
    "name", ["Robert'); DROP--", "' OR '1'='1", '"; DELETE FROM x', "a%_\\b", "x;--y/*z*/"]
)
async def test_sql_metacharacters_in_names_are_stored_as_text(
    services: Services, name: str
) -> None:
    await services.accounts.register("Alice", "alice-pw")
    user = await services.accounts.register(name, "secret")
    assert user.name == name
    assert await all_names(services) == ["Alice", name]
    assert (await services.accounts.authenticate(name, "secret")) is not None
    assert (await services.accounts.authenticate("Alice", "' OR '1'='1")) is None


async def test_like_wildcards_do_not_match_other_names(services: Services) -> None:
    await services.accounts.register("Alice", "alice-pw")
    assert await services.accounts.by_name("%") is None
    assert await services.accounts.by_name("A_ice") is None
    assert await services.accounts.authenticate("Al%", "alice-pw") is None


async def test_a_name_differing_only_in_case_is_taken(services: Services) -> None:
    first = await services.accounts.register("Alice", "alice-pw")
    with pytest.raises(AccountError, match="taken"):
        await services.accounts.register("aLICE", "other-pw")
    assert await all_names(services) == ["Alice"]
    assert await services.accounts.authenticate("alice", "alice-pw") == first


async def test_a_ten_kilobyte_password_is_refused_with_the_limit(services: Services) -> None:
    with pytest.raises(AccountError, match="at most 200"):
        await services.accounts.register("Alice", "p" * 10_000)
    assert await all_names(services) == []


async def test_a_huge_password_at_login_is_just_a_failed_login(services: Services) -> None:
    await services.accounts.register("Alice", "alice-pw")
    assert await services.accounts.authenticate("Alice", "p" * 1_000_000) is None
    assert await services.accounts.authenticate("Alice", "alice-pw") is not None


async def test_control_characters_in_a_bbs_alias_are_stripped(services: Services) -> None:
    user = await services.accounts.bbs_user("XA", "\x1b[5mZor\x00ro\x07")
    assert user.name.isprintable()
    assert "\x1b" not in user.name and "\x00" not in user.name
    again = await services.accounts.bbs_user("XA", "\x1b[5mZor\x00ro\x07")
    assert again.id == user.id


async def test_an_over_long_bbs_alias_gets_a_valid_unique_name(services: Services) -> None:
    long_alias = "TheLordOfTheVeryLongHandles" * 3
    first = await services.accounts.bbs_user("XA", long_alias)
    second = await services.accounts.bbs_user("XB", long_alias)
    for user in (first, second):
        assert 2 <= len(user.name) <= 20 and user.name.isprintable()
    assert first.name.casefold() != second.name.casefold()


async def test_an_alias_of_only_control_characters_is_refused(services: Services) -> None:
    with pytest.raises(AccountError, match="no user name"):
        await services.accounts.bbs_user("XA", "\x1b\x07\x00\r\n")
    assert await all_names(services) == []
