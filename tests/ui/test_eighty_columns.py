"""At 80 columns nothing a player needs is cut: the typed-move line's keys, the bot
descriptions, the game list's Position column, and the Finished list has a Result."""

from __future__ import annotations

import pytest

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import StartSession, started_game, won_by_resignation


@pytest.mark.parametrize(
    ("kind", "key", "hint"),
    [
        ("backgammon", "m", "Type a play: 13/7 8/7, bar/22*, roll, double, take, drop"),
        ("spectrangle", ":", "Type a move: RGY3@11:1 (m: turned over), pass, swap RRY5"),
    ],
)
async def test_typed_move_line_shows_its_keys_and_its_hint_in_full(
    start_session: StartSession, services: Services, alice: User, bob: User,
    kind: str, key: str, hint: str,
) -> None:  # fmt: skip
    info = await started_game(services, alice, bob, kind)
    snap = await services.games.get(info.id, alice.id)
    me = alice if snap.info.to_act == 0 else bob
    r = await start_session(me, start=f"game:{info.id}")
    r.term.type(key)
    await r.term.settle()
    assert "Esc back" in r.term.row(23), r.term.display_text()
    assert hint in r.term.display_text()


async def test_position_column_is_not_cut_mid_word(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await started_game(services, alice, bob, "backgammon")
    r = await start_session(alice, start="active")
    row = next(line for line in r.term.display() if line.startswith(" #1"))
    assert "5-pt match, 0-0" in row, row
    assert row.rstrip().endswith("0-0"), row


async def test_finished_list_has_a_result_column_naming_the_winner(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await won_by_resignation(services, alice, bob)
    r = await start_session(alice, start="finished")
    text = r.term.display_text()
    assert "Result" in text
    row = next(line for line in r.term.display() if line.startswith(" #1"))
    assert "Alice won" in row, row
    assert "resigned" in row, row


async def test_bot_descriptions_on_the_begin_screen_are_wrapped_not_cut(
    start_session: StartSession, services: Services, alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from door.services import bots

    levels = list(bots.levels("backgammon"))

    class Levels:  # the bot service's face the Begin screen reads (bots are off here)
        def levels(self, kind: str) -> list[tuple[str, str]]:
            return list(bots.levels(kind))

    monkeypatch.setattr(services, "bots", Levels())
    # 80x30: room for the whole list under the set-up
    r = await start_session(alice, start="begin", height=30)
    r.term.type("b")
    await r.term.settle()
    text = " ".join(line.strip() for line in r.term.display())
    text = " ".join(text.split())
    for name, desc in levels:
        assert " ".join(desc.split()) in text, (name, r.term.display_text())


async def test_where_the_levels_do_not_all_fit_the_begin_screen_says_where_they_are(
    start_session: StartSession, services: Services, alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from door.services import bots

    class Levels:
        def levels(self, kind: str) -> list[tuple[str, str]]:
            return list(bots.levels(kind))

    monkeypatch.setattr(services, "bots", Levels())
    r = await start_session(alice, start="begin")  # 80x24: the set-up takes the room
    r.term.type("b")
    await r.term.settle()
    text = r.term.display_text()
    assert "Computer levels: 5, each described when you press 1" in text, text
    # no description begun and left unfinished
    assert not any(desc.split()[0] in text for _, desc in bots.levels("backgammon")), text


@pytest.mark.parametrize("kind", ["b", "s"])
async def test_opponent_chooser_shows_each_computer_level_description_whole(
    start_session: StartSession, services: Services, alice: User, monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:  # fmt: skip
    from door.services import bots

    class Levels:
        def levels(self, kind: str) -> list[tuple[str, str]]:
            return list(bots.levels(kind))

    monkeypatch.setattr(services, "bots", Levels())
    r = await start_session(alice, start="begin")
    r.term.type(kind)
    await r.term.settle()
    r.term.type("1")  # the first opponent's seat
    await r.term.settle()
    text = r.term.display_text()
    assert "Who will be" in text, text
    assert "a number: the computer" in text
    for name, desc in bots.levels("backgammon" if kind == "b" else "spectrangle"):
        tail = desc.split(": ", 1)[-1]
        assert f"{name}: {tail}" in text, text


def test_a_position_too_long_for_its_column_loses_whole_phrases_or_words() -> None:
    from door.ui.widgets import fit_phrases

    assert fit_phrases("money game", 17) == "money game"
    assert fit_phrases("5-pt match, 2-1, Black to roll", 17) == "5-pt match, 2-1"
    assert fit_phrases("1-pt match, 0-0, opening roll", 17) == "1-pt match, 0-0"
    assert fit_phrases("drawing pieces to see who starts", 17) == "drawing pieces…"
