"""Setting a Backgammon game up: the match length is a choice (Money, 1, 3, 5, …) stepped
through with its letter, options that cannot apply are not shown, and a number line takes
only digits. Real sessions on fake terminals, read with pyte at 80×24."""

from __future__ import annotations

from typing import Any

from door.games.backgammon.options import MATCH_LENGTHS, fit_options, option_choices
from door.services import Services
from door.services.accounts import User
from door.ui.screens.begin import BeginScreen
from door.ui.terminal import Key, Text
from tests.ui.conftest import Running, StartSession


async def setup(start_session: StartSession, alice: User) -> Running:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    await r.term.settle()
    return r


async def press(r: Running, *letters: str) -> str:
    for letter in letters:
        r.term.type(letter)
        await r.term.settle()
    return r.term.display_text()


async def test_the_match_length_letter_steps_to_the_next_length_without_a_typing_line(
    start_session: StartSession, alice: User
) -> None:
    r = await setup(start_session, alice)
    assert "Match length: 5 points" in r.term.display_text()
    text = await press(r, "a")
    assert "Match length: 7 points" in text
    assert "Match length:" in text and "7a" not in text
    text = await press(r, "a")
    assert "Match length: 9 points" in text


async def test_the_match_lengths_go_round_from_money_through_the_odd_lengths() -> None:
    assert MATCH_LENGTHS[:7] == (0, 1, 3, 5, 7, 9, 11)
    assert MATCH_LENGTHS[-1] == 25


async def test_money_play_is_named_so_and_has_no_crawford_line(
    start_session: StartSession, alice: User
) -> None:
    r = await setup(start_session, alice)
    steps = len(MATCH_LENGTHS) - MATCH_LENGTHS.index(5)  # 5 → … → 25 → money
    text = await press(r, *["a"] * steps)
    assert "Match length: Money game" in text
    assert "Crawford" not in text
    assert "Beavers: no" in text and "Jacoby: no" in text  # money-only options appear


async def test_a_one_point_match_shows_neither_cube_nor_crawford(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await setup(start_session, alice)
    steps = len(MATCH_LENGTHS) - MATCH_LENGTHS.index(5) + 1  # … → money → 1
    text = await press(r, *["a"] * steps)
    assert "Match length: 1 point" in text
    assert "Cube" not in text and "Crawford" not in text
    r.term.type("s")
    r.term.press("enter")  # start, no dice word
    await r.term.settle()
    games, _ = await services.games.list_games("mine", alice.id)
    assert games[0].options["cube"] is False and games[0].options["crawford"] is False


async def test_cube_off_hides_crawford_and_cube_on_brings_it_back(
    start_session: StartSession, alice: User
) -> None:
    r = await setup(start_session, alice)
    text = await press(r, "b")
    assert "Cube: no" in text and "Crawford" not in text
    text = await press(r, "b")
    assert "Cube: yes" in text and "Crawford: yes" in text


async def test_options_keep_their_letters_when_others_are_hidden(
    start_session: StartSession, alice: User
) -> None:
    r = await setup(start_session, alice)
    text = await press(r, "b")  # the cube off hides Crawford (C)
    assert "Cube: no" in text
    await press(r, "c")  # C is no other line now
    assert "Cube: no" in r.term.display_text()


async def test_going_to_a_one_point_match_and_back_keeps_the_cube(
    start_session: StartSession, alice: User
) -> None:
    r = await setup(start_session, alice)
    to_one = len(MATCH_LENGTHS) - MATCH_LENGTHS.index(5) + 1
    await press(r, *["a"] * to_one)
    text = await press(r, "a")  # 1 → 3
    assert "Match length: 3 points" in text and "Cube: yes" in text and "Crawford: yes" in text


async def test_money_options_are_switched_off_when_a_match_is_chosen() -> None:
    assert fit_options({"match_length": 3, "beavers": True, "jacoby": True}) == {
        "match_length": 3, "cube": True, "crawford": True, "jacoby": False,
        "beavers": False, "auto_doubles": False,
    }  # fmt: skip
    assert option_choices({"match_length": 0, "cube": False})["beavers"] == (False,)


class NumberRules:
    """A stand-in game with one number option and no list of choices."""

    kind = "count"
    title = "Counting"
    min_seats = max_seats = 2

    def default_options(self) -> dict[str, Any]:
        return {"target": 10}

    def validate_options(self, seats: int, options: dict[str, Any]) -> dict[str, Any]:
        return {"target": int(options.get("target", 10))}


async def test_a_number_line_takes_only_digits() -> None:
    screen = BeginScreen()
    screen.rules = NumberRules()
    screen.kind = "count"
    screen.options = {"target": 10}
    screen.wanted = {"target": 10}
    await screen.change_option(None, key="target")  # type: ignore[arg-type]
    assert screen.phase == "edit"
    for ch in "5a7":
        screen.editor.handle(Text(ch))
    assert screen.editor.text == "57"
    assert screen.editor.handle(Key("enter")) == "submit"
