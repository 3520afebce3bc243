"""Names nobody can use to pass for someone else: reserved names, NFKC, invisible
characters, and look-alikes by Unicode TR39 confusable skeleton."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from door.services.accounts import AccountError, Accounts, User, clean_name
from door.services.clock import FakeClock
from door.services.names import NameRules
from door.store.db import Database
from tests.store import dbutil


@pytest.fixture(scope="module")
def rules() -> NameRules:
    return NameRules.load()


# --- normalising and invisible characters ---------------------------------------------


def test_fullwidth_letters_are_stored_as_plain_ones() -> None:
    assert clean_name("ａｌｉｃｅ") == "alice"


@pytest.mark.parametrize(
    "name",
    [
        "a\u034f\u034fb",  # combining grapheme joiner: looks like "ab"
        "\u3164\u3164",  # Hangul filler
        "\u115f\u1160bob",  # Hangul choseong/jungseong fillers
        "bo\uffa0b",  # halfwidth Hangul filler
        "al\u200bice",  # zero-width space
        "ali\u200dce",  # zero-width joiner
        "\u202eecila",  # right-to-left override
        "bob\u2066x",  # left-to-right isolate
        "al\u00adice",  # soft hyphen
        "bob\ufe0f",  # variation selector
        "bo\U000e0062b",  # tag character
        "bo\x9b2Jb",  # C1 control (CSI)
        "bo\x1bb",  # C0 control
        "bo\ue000b",  # private use
    ],
)
def test_invisible_and_control_characters_are_refused(name: str) -> None:
    with pytest.raises(AccountError, match=r"invisible or control|control characters"):
        clean_name(name)


def test_a_stack_of_combining_marks_is_refused() -> None:
    with pytest.raises(AccountError, match="combining marks"):
        clean_name("Zo\u0301\u0302\u0303\u0304rro")


def test_a_name_may_not_start_with_a_combining_mark() -> None:
    with pytest.raises(AccountError, match="combining mark"):
        clean_name("\u0301bob")


def test_two_spaces_in_a_row_are_refused() -> None:
    with pytest.raises(AccountError, match="two spaces"):
        clean_name("Sam  Smith")


def test_accented_and_other_scripts_are_welcome() -> None:
    for name in ("Zoë", "Renée", "Łukasz", "Борис", "日本太郎", "Ngô Bảo Châu"):
        assert clean_name(name) == unicodedata.normalize("NFKC", name)


# --- look-alikes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("alice", "\u0430lice"),  # Cyrillic а
        ("alice", "ALICE"),
        ("alice", "ａｌｉｃｅ"),
        ("paypal", "\u0440\u0430ypal"),  # Cyrillic р and а
        ("amy", "arny"),  # m and rn
        ("Il", "ll"),  # capital I and small l
        ("BiII", "Bill"),
        ("ALICE", "\u0430lice"),
        ("R00T", "root"),
        ("bob0", "bobO"),  # zero and O
    ],
)
def test_look_alike_names_are_confusable(rules: NameRules, one: str, other: str) -> None:
    assert rules.is_confusable(one, other)


@pytest.mark.parametrize(("one", "other"), [("alice", "alicia"), ("bob", "rob"), ("Zoë", "Zoe")])
def test_different_names_are_not_confusable(
    rules: NameRules, one: str, other: str
) -> None:
    assert not rules.is_confusable(one, other)


def test_the_skeleton_is_tr39s(rules: NameRules) -> None:
    """TR39 §4: NFD, drop default-ignorables, map to prototypes, NFD."""
    assert rules.skeleton("\u0430") == "a"
    assert rules.skeleton("m") == "rn"
    assert rules.skeleton("a\u200bb") == "ab"
    assert rules.skeleton("é") == unicodedata.normalize("NFD", "é")


@pytest.mark.parametrize("lookalike", ["\u0430lice", "A1ice", "ＡＬＩＣＥ", "ALICE", "Alice\u200b"])
async def test_a_name_that_looks_like_a_taken_one_is_refused(
    accounts: Accounts, alice: User, lookalike: str
) -> None:
    with pytest.raises(AccountError, match=r"taken|looks too much like 'Alice'|invisible"):
        await accounts.register(lookalike, "pw-pw-pw")


async def test_a_look_alike_is_told_whose_name_it_resembles(
    accounts: Accounts, alice: User
) -> None:
    with pytest.raises(AccountError, match="looks too much like 'Alice'"):
        await accounts.register("\u0430lice", "pw-pw-pw")


async def test_the_older_name_wins_whichever_script_came_first(accounts: Accounts) -> None:
    await accounts.register("\u0430lice", "pw-pw-pw")  # the Cyrillic one first
    with pytest.raises(AccountError, match="looks too much like"):
        await accounts.register("alice", "pw-pw-pw")


async def test_two_look_alike_sign_ups_racing_exactly_one_wins(accounts: Accounts) -> None:
    results = await asyncio.gather(
        accounts.register("carol", "pw-pw-pw"),
        accounts.register("c\u0430rol", "pw-pw-pw"),
        accounts.register("CAROL", "pw-pw-pw"),
        return_exceptions=True,
    )
    made = [r for r in results if isinstance(r, User)]
    refused = [r for r in results if isinstance(r, AccountError)]
    assert len(made) == 1 and len(refused) == 2


# --- reserved names --------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["sysop", "admin", "root", "door", "Guest", "ADMIN", "Sys-Op", "s y s o p",
             "\u0430dmin", "ｒｏｏｔ", "Administrator"],
)  # fmt: skip
async def test_reserved_names_and_their_look_alikes_are_refused(
    accounts: Accounts, name: str
) -> None:
    with pytest.raises(AccountError, match="reserved"):
        await accounts.register(name, "pw-pw-pw")


async def test_the_sysop_may_still_make_a_reserved_name(accounts: Accounts) -> None:
    user = await accounts.add_user("sysop", "pw-pw-pw")
    assert user.name == "sysop"


async def test_the_reserved_list_is_configurable(db: Database, clock: FakeClock) -> None:
    accounts = Accounts(db, clock, names=NameRules.load(reserved=("Zorro",)))
    with pytest.raises(AccountError, match="reserved"):
        await accounts.register("zorro", "pw-pw-pw")
    assert (await accounts.register("admin", "pw-pw-pw")).name == "admin"


# --- BBS users and bots go through the same rules --------------------------------------


async def test_a_bbs_alias_that_is_reserved_gets_another_door_name(accounts: Accounts) -> None:
    user = await accounts.bbs_user("DOVE", "Sysop")
    assert user.name != "Sysop"
    assert user.name.startswith("Sysop")
    assert (await accounts.bbs_user("DOVE", "sysop")).id == user.id


async def test_a_bbs_alias_that_looks_like_a_member_gets_another_door_name(
    accounts: Accounts, alice: User
) -> None:
    user = await accounts.bbs_user("DOVE", "\u0430lice")
    assert user.id != alice.id
    assert not accounts.names.is_confusable(user.name, "Alice")


async def test_invisible_characters_are_dropped_from_a_bbs_alias(accounts: Accounts) -> None:
    user = await accounts.bbs_user("DOVE", "Zo\u200brro\u3164")
    assert user.name == "Zorro"


async def test_a_bot_cannot_take_a_look_alike_of_a_person(
    accounts: Accounts, alice: User
) -> None:
    with pytest.raises(AccountError, match="person"):
        await accounts.ensure_bot("\u0430lice")


# --- the invariant, under Hypothesis ---------------------------------------------------

# letters with look-alikes among them: Latin, Cyrillic, Greek, fullwidth, digits
ALPHABET = "aаαｏoо0OΟlI1|iіrnmеeЕEсcpр "
NAMES = st.text(alphabet=ALPHABET, min_size=2, max_size=6)


async def register_all(path: Path, names: list[str]) -> list[User]:
    db = Database(dbutil.sqlite_url(path))
    accounts = Accounts(db, FakeClock())
    made: list[User] = []
    try:
        for name in names:
            with contextlib.suppress(AccountError):
                made.append(await accounts.register(name, "pw-pw-pw"))
        return made
    finally:
        await db.dispose()


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(names=st.lists(NAMES, min_size=2, max_size=8))
def test_no_two_accepted_names_look_alike(sqlite_template: Path, names: list[str]) -> None:
    rules = NameRules.load()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "door.sqlite3"
        shutil.copyfile(sqlite_template, path)
        made = asyncio.run(register_all(path, names))
    for i, one in enumerate(made):
        for other in made[i + 1 :]:
            assert not rules.is_confusable(one.name, other.name), (one.name, other.name)
    for user in made:
        assert rules.invisible_problem(user.name) is None
        assert user.name == unicodedata.normalize("NFKC", user.name)


@given(name=st.text(min_size=1, max_size=30))
def test_a_clean_name_is_clean_again_unchanged(name: str) -> None:
    try:
        cleaned = clean_name(name)
    except AccountError:
        return
    assert clean_name(cleaned) == cleaned
