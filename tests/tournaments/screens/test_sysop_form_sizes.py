"""The sysop console's tournament form at every size from 40×15 up (issue 16 item 1):
every field with its value, and the key line with C)reate or A)pply and Q)uit, in sight
at once; a line being typed stays in sight with its prompt; on the small form, whose
menu has no C)reate line, C still creates."""

from __future__ import annotations

import pytest

from door.services import Services
from door.services.accounts import User
from tests.tournaments.screens.test_sysop_console import tours_of
from tests.ui.conftest import Running, StartSession

SIZES = [(40, 15), (60, 20), (80, 24)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


def bottom(r: Running, rows: int = 3) -> str:
    return " ".join(r.term.display()[-rows:])


async def longest_new_form(start_session: StartSession, keeper: User, size: tuple[int, int],
                           level: str) -> Running:  # fmt: skip
    """The new-tournament form with the most lines: a Swiss event (its rounds) filled with
    computer players (the longest value)."""
    width, height = size
    k = await start_session(keeper, width=width, height=height)
    k.term.type("!")
    await k.term.wait_for("Nothing done yet.")
    k.term.type("t")
    await k.term.wait_for("Tournaments")
    k.term.type("c")
    await k.term.wait_for("New tournament")
    k.term.type("f")  # knock-out → round-robin
    k.term.type("f")  # → Swiss
    k.term.type("b")  # → the first computer level
    await k.term.wait_for(level)
    return k


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_new_tournament_form_shows_every_field_and_its_keys_at_every_size(
    start_session: StartSession, services: Services, keeper: User, size: tuple[int, int]
) -> None:
    level = tours_of(services).bot_levels["backgammon"][0]
    k = await longest_new_form(start_session, keeper, size, level)
    text = k.term.display_text()
    for field in ("N) Name: (none yet)", "G) Game: Backgammon", "F) Format: Swiss",
                  "S) Size: 8 players", "M) Match length: 1 point", "O) Rounds: 5",
                  f"omputer players: {level}", "D) Time for each move: 7 days",
                  "R) Time bank (reserve): none", "P) Pause the clock at weekends: no",
                  "W) Starts: when full"):  # fmt: skip
        assert field in text, f"{field!r} not in sight:\n{text}"
    assert "C)reate" in bottom(k) and "Q)uit" in bottom(k), text
    assert k.term.display()[-1].strip(), "the bottom row is the key line"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_start_time_being_typed_stays_in_sight_with_its_prompt(
    start_session: StartSession, services: Services, keeper: User, size: tuple[int, int]
) -> None:
    level = tours_of(services).bot_levels["backgammon"][0]
    k = await longest_new_form(start_session, keeper, size, level)
    k.term.type("w")
    await k.term.settle()
    k.term.type_each("2031-03")
    await k.term.settle()
    text = k.term.display_text()
    assert "Starts at" in text and "2031-03" in text, text
    assert "Esc cancels" in bottom(k), text
    assert "R) Time bank (reserve): none" in text, "the fields stay in sight"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_change_form_shows_every_field_and_apply_at_every_size(
    start_session: StartSession, services: Services, keeper: User, size: tuple[int, int]
) -> None:
    tid = await tours_of(services).create(keeper.id, "Cup", "backgammon", "knockout", 8)
    width, height = size
    k = await start_session(keeper, width=width, height=height)
    k.term.type("!")
    await k.term.wait_for("Nothing done yet.")
    k.term.type("t")
    await k.term.wait_for(f"#{tid} ")
    k.term.type("e")
    await k.term.wait_for(f"Change tournament #{tid}")
    text = k.term.display_text()
    for field in ("N) Name: Cup", "S) Size: 8 players", "M) Match length: 1 point",
                  "D) Time for each move: 7 days", "R) Time bank (reserve): none",
                  "P) Pause the clock at weekends: no", "W) Starts: when full"):  # fmt: skip
        assert field in text, f"{field!r} not in sight:\n{text}"
    assert "A)pply" in bottom(k) and "Q)uit" in bottom(k), text


async def test_c_creates_from_the_small_form_whose_menu_has_no_create_line(
    start_session: StartSession, services: Services, keeper: User
) -> None:
    k = await start_session(keeper, width=40, height=15)
    k.term.type("!")
    await k.term.wait_for("Nothing done yet.")
    k.term.type("t")
    await k.term.wait_for("Tournaments")
    k.term.type("c")
    await k.term.wait_for("New tournament")
    k.term.type("n")
    await k.term.settle()
    k.term.line("Small cup")
    await k.term.wait_for("Name: Small cup")
    k.term.type("c")
    await k.term.wait_for("Small cup is open")
    (made,) = await tours_of(services).listing(("open",))
    assert made.name == "Small cup"
