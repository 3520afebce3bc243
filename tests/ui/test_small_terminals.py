"""Terminals smaller than 80×24 (down to 40×15) keep the key line, the prompts and the
status messages in sight, and mark a row cut on the right; below that they are told
plainly what size door needs."""

from __future__ import annotations

import pytest

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import StartSession, started_game, won_by_resignation

SIZES = [(40, 15), (60, 20), (80, 24), (80, 25), (132, 50)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
SCREENS = {
    # start screen → (the key help's last key, a line of the body a person needs first)
    None: ("G)oodbye", "P) Play"),
    "open": ("Q)uit", "Game"),
    "active": ("Q)uit", "Game"),
    "finished": ("Q)uit", "Game"),
    "begin": ("Q)uit", "Backgammon"),
    "rank": ("Q)uit", "Place"),
    "instructions": ("Q)uit", "USING DOOR"),
    "settings": ("Q)uit", "Sound"),
}


def bottom(lines: list[str], rows: int = 3) -> str:
    return "\n".join(lines[-rows:])


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("start", list(SCREENS), ids=lambda s: s or "main")
async def test_every_screen_keeps_its_whole_key_line_at_the_bottom(
    start_session: StartSession, alice: User, size: tuple[int, int], start: str | None
) -> None:
    width, height = size
    r = await start_session(alice, width=width, height=height, start=start)
    shown = r.term.display()
    key, body = SCREENS[start]
    assert key in bottom(shown), "\n".join(shown)
    assert shown[-1].strip(), "the bottom row is the key line"
    assert body in r.term.display_text()
    assert shown[0].rstrip().endswith("Alice"), "the title bar is drawn at the real width"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("kind", ["backgammon", "spectrangle"])
async def test_the_resign_question_and_its_keys_are_in_sight_over_a_board(
    start_session: StartSession, services: Services, alice: User, bob: User,
    size: tuple[int, int], kind: str,
) -> None:  # fmt: skip
    info = await started_game(services, alice, bob, kind)
    width, height = size
    r = await start_session(alice, width=width, height=height, start=f"game:{info.id}")
    r.term.type("x")
    await r.term.settle()
    if "M)atch" in " ".join(r.term.display()[-2:]):
        r.term.type("m")  # on one's turn X first offers the game or the match
        await r.term.settle()
    shown = r.term.display()
    body = " ".join(line.strip() for line in shown[1:-1])
    question = {"backgammon": "Resign the whole match? Your opponent wins it. (Y/N)",
                "spectrangle": "Resign and leave this game? (Y/N)"}[kind]  # fmt: skip
    assert question in body, "\n".join(shown)
    assert "Y)es" in bottom(shown) and "N)o" in bottom(shown), "\n".join(shown)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_typed_move_line_and_its_keys_are_in_sight(
    start_session: StartSession, services: Services, alice: User, bob: User,
    size: tuple[int, int],
) -> None:  # fmt: skip
    info = await started_game(services, alice, bob, "backgammon")
    width, height = size
    r = await start_session(alice, width=width, height=height, start=f"game:{info.id}")
    r.term.type("m")
    await r.term.settle()
    shown = r.term.display()
    assert any("Play:" in line for line in shown[1:-1]), "\n".join(shown)
    assert "Esc back" in bottom(shown) and "Enter send" in bottom(shown), "\n".join(shown)


@pytest.mark.parametrize("size", [(40, 15), (60, 20)], ids=["40x15", "60x20"])
async def test_a_status_message_shows_above_the_key_line_on_a_small_terminal(
    start_session: StartSession, alice: User, size: tuple[int, int]
) -> None:
    r = await start_session(alice, width=size[0], height=size[1], start="settings")
    r.term.type("o")  # colour off: the screen says what changed
    await r.term.settle()
    assert r.term.row(size[1] - 1).strip()
    text = bottom(r.term.display(), 4)
    assert "Colour" in text or "colour" in text, r.term.display_text()


async def test_a_row_cut_on_the_right_ends_in_a_mark(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob, "backgammon")
    r = await start_session(alice, width=40, height=15, start=f"game:{info.id}")
    cut = [line for line in r.term.display() if "║" in line]  # the 47-column board
    assert cut and all(line.rstrip().endswith("»") for line in cut), r.term.display_text()


async def test_the_main_menu_fits_a_narrow_terminal_with_its_counts_in_sight(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await started_game(services, alice, bob, "backgammon")
    r = await start_session(alice, width=60, height=20)
    rows = r.term.display()
    view = next(line for line in rows if "V) View games" in line)
    play = next(line for line in rows if "P) Play a game" in line)
    assert view.rstrip().endswith("…") and "»" not in view, view
    assert play.rstrip().endswith(")") and "»" not in play, play  # "(1)": one waiting


async def test_the_highlighted_menu_line_stays_in_sight_at_15_rows(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, width=40, height=15)
    r.term.press("end")
    r.term.press("up")
    r.term.press("down")
    await r.term.settle()
    # The menu line and the key help under it, both (the help takes two rows here).
    assert "G) Goodbye" in r.term.display_text()
    assert "G)oodbye" in bottom(r.term.display(), 2)


@pytest.mark.parametrize("size", [(38, 12), (39, 24), (80, 14)], ids=["38x12", "39x24", "80x14"])
async def test_a_terminal_below_40x15_is_told_the_size_door_needs(
    start_session: StartSession, alice: User, size: tuple[int, int]
) -> None:
    width, height = size
    r = await start_session(alice, width=width, height=height)
    text = " ".join(line.strip() for line in r.term.display())
    assert f"Your terminal is {width}×{height}; door needs at least 40×15." in text
    assert "Main Menu" not in text


async def test_growing_a_too_small_terminal_brings_the_screen_back(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, width=38, height=12)
    r.term.type("g")  # unseen keys do nothing
    await r.term.settle()
    assert not r.term.closed
    r.term.resize(60, 20)
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)
    assert "G)oodbye" in bottom(r.term.display())


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_welcome_screen_keeps_its_keys_and_the_typing_cursor_in_sight(
    start_session: StartSession, size: tuple[int, int]
) -> None:
    width, height = size
    r = await start_session(None, width=width, height=height)
    shown = r.term.display()
    assert shown[-1].strip(), "\n".join(shown)
    r.term.type("l")  # log in: a name is asked for
    await r.term.settle()
    shown = r.term.display()
    assert any("Name" in line or "name" in line for line in shown[1:-1]), "\n".join(shown)
    assert r.term.screen.cursor.x < width and r.term.screen.cursor.y < height


async def test_spectrangle_at_60x20_shows_the_players_own_hand(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob, "spectrangle")
    snap = await services.games.get(info.id, alice.id)
    me = alice if snap.info.to_act == 0 else bob
    hand = [p for p in (await services.games.get(info.id, me.id)).state.hands[snap.info.to_act]]
    r = await start_session(me, width=60, height=20, start=f"game:{info.id}")
    from door.games.spectrangle.pieces import piece

    text = r.term.display_text()
    assert "Your hand:" in text
    for p in hand:
        assert piece(p).name in text, text


@pytest.mark.parametrize("size", [(40, 15), (60, 20)], ids=["40x15", "60x20"])
async def test_the_board_scrolls_to_keep_the_spectrangle_cursor_in_sight(
    start_session: StartSession, services: Services, alice: User, bob: User,
    size: tuple[int, int],
) -> None:  # fmt: skip
    info = await started_game(services, alice, bob, "spectrangle")
    snap = await services.games.get(info.id, alice.id)
    me = alice if snap.info.to_act == 0 else bob
    r = await start_session(me, width=size[0], height=size[1], start=f"game:{info.id}")
    r.term.press(*["down"] * 6)  # to the bottom row of the board
    await r.term.settle()
    # The cursor is drawn reversed; some cell of the board's columns shows it.
    body = range(1, size[1] - 2)
    assert any(r.term.char_at(x, y).reverse for y in body for x in range(37)), (
        r.term.display_text()
    )


async def test_the_turns_news_is_told_under_the_board_when_the_panel_is_cut(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob, "backgammon")
    snap = await services.games.get(info.id)
    seat = snap.info.to_act
    assert seat is not None
    users = {s.seat: s.user_id for s in snap.info.seats}
    mover, other = (alice, bob) if users[seat] == alice.id else (bob, alice)
    r = await start_session(mover, width=60, height=20, start=f"game:{info.id}")
    text = " ".join(r.term.display())
    assert "You rolled" in text and "It is your turn." in text, r.term.display_text()
    await services.games.offer_resignation(info.id, mover.id, "gammon", snap.info.version)
    r = await start_session(other, width=60, height=20, start=f"game:{info.id}")
    text = " ".join(" ".join(r.term.display()).split())
    assert "Offered: resign a gammon." in text, r.term.display_text()
    assert "A)ccept or R)eject?" in text, r.term.display_text()


def box_rows(shown: list[str]) -> list[str] | None:
    """The text rows of the keys box on screen (between its edges), or None if it is not
    there whole: its top-right corner cut off, or a row of it cut on the right."""
    top = next((y for y, line in enumerate(shown) if "╔═ Keys" in line), None)
    if top is None:
        return None
    x = shown[top].index("╔═ Keys")
    right = shown[top].find("╗", x)
    if right < 0:
        return None
    rows = []
    for line in shown[top + 1 :]:
        if line[x] == "╚":
            return rows
        if line[right] != "║" or "»" in line:
            return None
        rows.append(line[x + 1 : right].strip())
    return None


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("kind", ["backgammon", "spectrangle"])
async def test_the_keys_box_fits_the_terminal_and_scrolls_to_every_line(
    start_session: StartSession, services: Services, alice: User, bob: User,
    size: tuple[int, int], kind: str,
) -> None:  # fmt: skip
    from door.ui.screens.backgammon import BackgammonScreen
    from door.ui.screens.spectrangle import SpectrangleScreen

    screen = {"backgammon": BackgammonScreen, "spectrangle": SpectrangleScreen}[kind]
    info = await started_game(services, alice, bob, kind)
    width, height = size
    r = await start_session(alice, width=width, height=height, start=f"game:{info.id}")
    r.term.type("?")
    await r.term.settle()
    window = box_rows(r.term.display())
    assert window, r.term.display_text()
    read = window[:-1]  # the last row says how to scroll or close
    for _ in range(60):
        if "more; others close" not in window[-1]:
            break
        r.term.press("down")
        await r.term.settle()
        moved = box_rows(r.term.display())
        assert moved, r.term.display_text()
        if moved == window:
            break
        window = moved
        read.append(window[-2])
    else:
        raise AssertionError("the box never reached its end")
    assert "?)help" in bottom(r.term.display()), "the key line stays under the box"
    text = words(" ".join(read))
    for line in screen.keys.help_page(200):
        for entry in line.split("   "):  # short entries share a line when there is room
            assert words(entry) in text, f"{entry!r} not readable in the box:\n{text}"


NARROW = [(40, 15), (60, 20)]


@pytest.mark.parametrize("size", NARROW, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_game_list_fits_a_narrow_terminal_with_the_players_whole(
    start_session: StartSession, services: Services, alice: User, size: tuple[int, int]
) -> None:
    carol = await services.accounts.register("Carol-Anne", "carol-pw")
    await started_game(services, alice, carol, "backgammon")
    width, height = size
    r = await start_session(alice, width=width, height=height, start="active")
    shown = r.term.display()
    row = next(line for line in shown if line.startswith(" #1"))
    assert "Alice v Carol-Anne" in row, r.term.display_text()
    assert not any(line.rstrip().endswith("»") for line in shown), r.term.display_text()
    assert "Due" in r.term.display_text()


@pytest.mark.parametrize("size", NARROW, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_finished_list_fits_a_narrow_terminal_with_winner_and_result(
    start_session: StartSession, services: Services, alice: User, bob: User,
    size: tuple[int, int],
) -> None:  # fmt: skip
    await won_by_resignation(services, alice, bob)
    width, height = size
    r = await start_session(alice, width=width, height=height, start="finished")
    shown = r.term.display()
    row = next(line for line in shown if line.startswith(" #1"))
    assert "Alice v Bob" in row and "Alice won" in row, r.term.display_text()
    assert not any(line.rstrip().endswith("»") for line in shown), r.term.display_text()


async def test_the_list_tabs_fit_40_columns_with_the_current_one_named(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, width=40, height=15, start="active")
    tabs = r.term.row(2)
    assert "A) In progress" in tabs, r.term.display_text()
    for key in "IOMWF":
        assert f" {key} " in tabs, tabs
    assert not tabs.rstrip().endswith("»"), tabs


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_rank_screen_says_what_its_ratings_count_at_every_size(
    start_session: StartSession, alice: User, size: tuple[int, int]
) -> None:
    width, height = size
    r = await start_session(alice, width=width, height=height, start="rank")
    text = words(" ".join(r.term.display()))
    assert "Ratings count matches; money games are not rated." in text, r.term.display_text()
    assert "not ranked" in text.lower(), r.term.display_text()
    assert not any(line.rstrip().endswith("»") for line in r.term.display())


async def test_a_narrow_rank_table_leaves_out_whole_columns_not_half_ones(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await won_by_resignation(services, alice, bob)
    r = await start_session(alice, width=40, height=15, start="rank")
    shown = r.term.display()
    header = next(line for line in shown if "Place" in line)
    assert header.split() == ["Place", "Player", "Rating"], r.term.display_text()
    row = next(line for line in shown if "1. Alice" in line)
    assert not row.rstrip().endswith("»"), r.term.display_text()


@pytest.mark.parametrize("size", NARROW, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_tournament_list_fits_a_narrow_terminal_with_its_name_whole(
    start_session: StartSession, services: Services, alice: User, size: tuple[int, int]
) -> None:
    await services.tournaments.create(None, "Winter Cup", "backgammon", "knockout", 8)
    width, height = size
    r = await start_session(alice, width=width, height=height)
    r.term.type("t")
    await r.term.settle()
    shown = r.term.display()
    row = next((line for line in shown if "Winter Cup" in line), None)
    assert row is not None and "knockout" in row, r.term.display_text()
    assert "3) Finished" in r.term.row(2), r.term.display_text()
    assert not any(line.rstrip().endswith("»") for line in shown), r.term.display_text()


@pytest.mark.parametrize("size", NARROW, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_who_is_online_fits_a_narrow_terminal(
    start_session: StartSession, alice: User, size: tuple[int, int]
) -> None:
    width, height = size
    r = await start_session(alice, width=width, height=height)
    r.term.type("w")
    await r.term.settle()
    shown = r.term.display()
    assert any("Alice" in line and "Idle" not in line for line in shown[4:]), "\n".join(shown)
    assert not any(line.rstrip().endswith("»") for line in shown), r.term.display_text()


async def test_a_narrow_title_bar_keeps_the_screens_name_whole(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, width=40, height=15)
    r.term.type("a")
    await r.term.settle()
    title = r.term.row(0)
    assert "Archive of finished games" in title and title.rstrip().endswith("Alice"), title


def with_levels(services: Services, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The computer levels the Begin screen shows (the bot service is off in these tests)."""
    from door.services import bots

    class Levels:
        def levels(self, kind: str) -> list[tuple[str, str]]:
            return list(bots.levels(kind))

    monkeypatch.setattr(services, "bots", Levels())
    return list(bots.levels("backgammon"))


async def test_the_begin_screen_wraps_the_levels_to_a_narrow_terminal(
    start_session: StartSession, services: Services, alice: User,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    levels = with_levels(services, monkeypatch)
    r = await start_session(alice, width=60, height=30, start="begin")
    r.term.type("b")
    await r.term.settle()
    shown = r.term.display()
    text = words(" ".join(shown))
    for _, desc in levels:
        assert words(desc) in text, r.term.display_text()
    assert not any(line.rstrip().endswith("»") for line in shown), r.term.display_text()


async def test_the_opponent_question_is_whole_at_40_columns(
    start_session: StartSession, services: Services, alice: User,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    with_levels(services, monkeypatch)
    r = await start_session(alice, width=40, height=15, start="begin")
    r.term.type("b")
    await r.term.settle()
    r.term.type("1")
    await r.term.settle()
    text = words(" ".join(r.term.display()))
    assert "Who will be your opponent? (a number: the computer)" in text, r.term.display_text()
