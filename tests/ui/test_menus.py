"""The menu screens through a real session: game lists, begin, rank, settings and the
instructions, read with pyte at 80×24."""

from __future__ import annotations

import re

from door.services import Services
from door.services.accounts import User
from door.services.games import SeatSpec
from tests.ui.conftest import StartSession, started_game


async def open_game_by(services: Services, user: User, kind: str = "backgammon") -> int:
    info = await services.games.begin(user.id, kind, {}, [SeatSpec("me"), SeatSpec("open")])
    return info.id


# --- game lists ------------------------------------------------------------------------


async def test_view_lists_games_open_to_join(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    gid = await open_game_by(services, bob)
    r = await start_session(alice)
    r.term.type("v")
    await r.term.settle()
    assert "Open to join" in r.term.row(0)
    assert re.search(rf"#{gid}\s+Backgammon\s+Bob v \(open\)", r.term.display_text())


async def test_enter_on_an_open_game_joins_it(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    gid = await open_game_by(services, bob)
    r = await start_session(alice, start="open")
    r.term.press("enter")
    r.term.press("enter")  # no dice word
    await r.term.settle()
    snapshot = await services.games.get(gid, alice.id)
    assert snapshot.info.status == "active"
    assert snapshot.my_seat is not None


async def test_letters_switch_between_the_lists(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="open")
    for key, title in (("w", "Waiting on me"), ("f", "Finished"), ("m", "Mine"),
                       ("a", "In progress"), ("o", "Open to join")):  # fmt: skip
        r.term.type(key)
        await r.term.settle()
        assert title in r.term.row(0)


async def test_left_and_right_arrows_switch_lists(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="open")
    r.term.press("right")
    await r.term.settle()
    assert "In progress" in r.term.row(0)
    r.term.press("left", "left", "left")  # open, invitations (the first), then round
    await r.term.settle()
    assert "Finished" in r.term.row(0)


async def test_in_progress_list_shows_who_is_to_move_and_the_deadline(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    mover = next(s.name for s in info.seats if s.seat == info.to_act)
    r = await start_session(alice, start="active")
    row = next(line for line in r.term.display() if f"#{info.id}" in line)
    # The player to move is starred in the Players column.
    assert f"*{mover}" in row and ("Alice v *Bob" in row or "*Alice v Bob" in row)
    assert re.search(r"\b7d\b", row)  # a week to move


async def test_lists_page_with_n_and_p(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    ids = [await open_game_by(services, bob) for _ in range(17)]
    r = await start_session(alice, start="open")
    assert "Page 1 of 2  (17 in all)" in r.term.display_text()
    r.term.type("n")
    await r.term.settle()
    assert "Page 2 of 2" in r.term.display_text()
    shown = [int(m) for m in re.findall(r"^ ?#(\d+)", r.term.display_text(), re.M)]
    assert shown and set(shown) < set(ids)
    r.term.type("p")
    await r.term.settle()
    assert "Page 1 of 2" in r.term.display_text()


async def test_leave_gives_the_seat_back(
    start_session: StartSession, services: Services, alice: User
) -> None:
    gid = await open_game_by(services, alice)
    r = await start_session(alice, start="mine")
    assert f"#{gid}" in r.term.display_text()
    r.term.type("l")
    await r.term.settle()
    assert f"You left game #{gid}." in r.term.display_text()
    assert (await services.games.get(gid)).info.seat_of(alice.id) is None


async def test_finished_list_shows_a_resigned_game(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    await services.games.resign(info.id, bob.id)
    r = await start_session(alice, start="finished")
    assert f"#{info.id}" in r.term.display_text()


async def test_quit_from_a_list_returns_to_the_main_menu(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="open")
    r.term.type("q")
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)


# --- begin ----------------------------------------------------------------------------


async def test_begin_offers_each_game_kind(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("b")
    await r.term.settle()
    assert "B) Backgammon" in r.term.display_text()
    assert "S) Spectrangle" in r.term.display_text()


async def test_begin_shows_the_rules_default_options(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    await r.term.settle()
    text = r.term.display_text()
    assert "Match length: 5" in text and "Cube: yes" in text and "Crawford: yes" in text


async def test_begin_a_backgammon_game_against_a_named_user(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    r.term.type("1")
    r.term.type("n")
    await r.term.settle()
    assert "Opponent's name:" in r.term.display_text()
    r.term.line("bob")
    await r.term.settle()
    assert "Opponent: Player Bob" in r.term.display_text()
    r.term.type("s")
    r.term.press("enter")  # no dice word
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)
    assert "is waiting for 1 more player" in r.term.display_text()
    games, total = await services.games.list_games("mine", alice.id)
    assert total == 1
    seat = games[0].seats[1]
    assert seat.kind == "reserved" and seat.user_id == bob.id


async def test_named_opponent_joins_from_the_list_and_the_game_begins(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    a = await start_session(alice, start="begin")
    a.term.type("b")
    a.term.type("1")
    a.term.type("n")
    a.term.line("Bob")
    a.term.type("s")
    a.term.press("enter")  # no dice word
    await a.term.settle()
    b = await start_session(bob, start="open")
    assert "Alice v Bob" in b.term.display_text()
    b.term.press("enter")
    b.term.press("enter")  # no dice word
    await b.term.settle()
    games, _ = await services.games.list_games("active", bob.id)
    assert [g.status for g in games] == ["active"]


async def test_begin_with_an_unknown_opponent_says_so_and_keeps_asking(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    r.term.type("1")
    r.term.type("n")
    r.term.line("Nobody")
    await r.term.settle()
    assert "There is no player called Nobody" in r.term.display_text()
    assert "Opponent's name:" in r.term.display_text()


async def test_begin_refuses_yourself_as_opponent(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    r.term.type("1")
    r.term.type("n")
    r.term.line("alice")
    await r.term.settle()
    assert "cannot play against yourself" in r.term.display_text()


async def test_begin_toggles_a_yes_no_option(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    r.term.type("b")  # the second option line: Cube
    await r.term.settle()
    assert "Cube: no" in r.term.display_text()


async def test_begin_spectrangle_for_three_adds_an_opponent_line(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("s")
    r.term.type("n")
    await r.term.settle()
    text = r.term.display_text()
    assert "Number of players: 3" in text
    assert "Opponent 1:" in text and "Opponent 2:" in text


async def test_begin_an_open_spectrangle_game_for_three(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("s")
    r.term.type("n")
    r.term.type("s")
    r.term.press("enter")  # no dice word
    await r.term.settle()
    assert "is waiting for 2 more players" in r.term.display_text()
    games, _ = await services.games.list_games("open", None)
    assert [len(g.seats) for g in games] == [3]


async def test_begin_time_for_each_move_cycles(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    r.term.type("d")
    await r.term.settle()
    assert "Time for each move: 14 days" in r.term.display_text()


# --- rank -------------------------------------------------------------------------------


async def test_rank_shows_top_players_and_your_own_place(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    await services.games.resign(info.id, bob.id)
    r = await start_session(bob, start="rank")
    text = r.term.display_text()
    assert re.search(r"1\. Alice", text)
    assert re.search(r"2\. Bob", text)
    assert re.search(r"You: 2\. Bob", text)


async def test_rank_switches_game_with_digits(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="rank")
    assert "Top players: Backgammon" in r.term.row(0)
    r.term.type("2")
    await r.term.settle()
    assert "Top players: Spectrangle" in r.term.row(0)


async def test_rank_when_unranked_says_how_to_be(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice, start="rank")
    assert "You are not ranked in this game yet" in r.term.display_text()


# --- settings --------------------------------------------------------------------------


async def test_settings_charset_cycles_and_switches_the_terminal(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="settings", encoding="utf-8")
    r.term.type("c")
    await r.term.settle()
    assert r.term.caps.encoding == "cp437"
    assert "Character set: CP437" in r.term.display_text()
    assert (await services.accounts.get(alice.id)).settings.charset == "cp437"
    r.term.type("c")
    await r.term.settle()
    assert r.term.caps.encoding == "utf-8"
    r.term.type("c")
    await r.term.settle()
    assert "Character set: automatic (now UTF-8)" in r.term.display_text()


async def test_settings_colour_off_sends_no_colour_codes(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="settings")
    r.term.type("o")
    await r.term.settle()
    assert "Colour: OFF" in r.term.display_text()
    assert (await services.accounts.get(alice.id)).settings.color is False
    before = len(r.term.raw)
    r.term.type("q")
    await r.term.settle()
    sent = bytes(r.term.raw[before:]).decode()
    params = [p for m in re.findall(r"\x1b\[([0-9;]*)m", sent) for p in m.split(";")]
    assert params and not [p for p in params if len(p) == 2 and p[0] in "34"]


async def test_settings_sound_toggle(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="settings")
    r.term.type("s")
    await r.term.settle()
    assert "Sound effects: OFF" in r.term.display_text()
    assert (await services.accounts.get(alice.id)).settings.sound is False


async def test_settings_password_change(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="settings")
    r.term.type("p")
    r.term.line("alice-pw")
    r.term.line("new-secret")
    r.term.line("new-secret")
    await r.term.settle()
    assert "Your password is changed." in r.term.display_text()
    assert await services.accounts.authenticate("Alice", "new-secret") is not None


async def test_settings_password_change_with_a_wrong_old_password_changes_nothing(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="settings")
    r.term.type("p")
    r.term.line("not-it")
    r.term.line("new-secret")
    r.term.line("new-secret")
    await r.term.settle()
    assert "Your password is changed." not in r.term.display_text()
    assert await services.accounts.authenticate("Alice", "alice-pw") is not None


async def test_settings_password_change_with_differing_new_ones_asks_again(
    start_session: StartSession, services: Services, alice: User
) -> None:
    r = await start_session(alice, start="settings")
    r.term.type("p")
    r.term.line("alice-pw")
    r.term.line("new-secret")
    r.term.line("new-secreT")
    await r.term.settle()
    assert "The two new passwords differ" in r.term.display_text()
    assert await services.accounts.authenticate("Alice", "alice-pw") is not None


# --- instructions ----------------------------------------------------------------------


async def test_instructions_page_forward_and_back(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("i")
    await r.term.settle()
    m = re.search(r"Page 1 of (\d+)", r.term.display_text())
    assert m and int(m.group(1)) >= 3
    assert "USING DOOR" in r.term.display_text()
    r.term.type(" ")
    await r.term.settle()
    assert "Page 2 of" in r.term.display_text()
    r.term.press("pgup")
    await r.term.settle()
    assert "Page 1 of" in r.term.display_text()


async def test_instructions_jump_to_each_games_rules(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="instructions")
    r.term.type("2")
    await r.term.settle()
    assert "BACKGAMMON" in r.term.display_text()
    r.term.type("3")
    await r.term.settle()
    assert "SPECTRANGLE" in r.term.display_text()


async def test_instructions_say_when_there_is_no_further_page(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="instructions")
    r.term.press("end")
    r.term.type("n")
    await r.term.settle()
    assert "That was the last page" in r.term.display_text()


async def test_instructions_rewrap_on_a_wider_terminal(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="instructions")
    narrow = int(re.search(r"Page 1 of (\d+)", r.term.display_text()).group(1))  # type: ignore[union-attr]
    r.term.resize(120, 40)
    await r.term.settle()
    wide = int(re.search(r"Page 1 of (\d+)", r.term.display_text()).group(1))  # type: ignore[union-attr]
    assert wide < narrow


# --- from the lists to the boards --------------------------------------------------------


async def test_joining_an_open_game_opens_its_board(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    gid = await open_game_by(services, bob)
    r = await start_session(alice, start="open")
    r.term.press("enter")
    r.term.press("enter")  # no dice word
    await r.term.settle()
    assert f"Backgammon #{gid}" in r.term.row(0)
    r.term.type("q")
    await r.term.settle()
    assert "Games:" in r.term.row(0)  # back on the list it was opened from


async def test_play_with_one_game_waiting_opens_that_board(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    waiter = alice if info.is_waiting_on(alice.id) else bob
    r = await start_session(waiter)
    r.term.type("p")
    await r.term.settle()
    assert f"Backgammon #{info.id}" in r.term.row(0)


async def test_play_with_nothing_waiting_says_so(start_session: StartSession, alice: User) -> None:
    r = await start_session(alice)
    r.term.type("p")
    await r.term.settle()
    assert "Main Menu" in r.term.row(0)
    assert "No game is waiting for your move" in r.term.display_text()


async def test_a_game_you_are_not_in_opens_for_watching(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob, kind="spectrangle")
    carol = await services.accounts.register("Carol", "carol-pw")
    r = await start_session(carol, start="active")
    r.term.press("enter")
    await r.term.settle()
    assert f"Spectrangle #{info.id}" in r.term.row(0)
    snapshot = await services.games.get(info.id, carol.id)
    assert snapshot.my_seat is None


async def test_begin_against_a_named_user_then_both_see_the_board(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    a = await start_session(alice, start="begin")
    a.term.type("s")  # Spectrangle
    a.term.type("1")
    a.term.type("n")
    a.term.line("Bob")
    a.term.type("s")
    a.term.press("enter")  # no dice word
    await a.term.settle()
    b = await start_session(bob, start="open")
    b.term.press("enter")
    b.term.press("enter")  # no dice word
    await b.term.settle()
    (game,), _ = await services.games.list_games("active", bob.id)
    assert f"Spectrangle #{game.id}" in b.term.row(0)
    a.term.type("v")
    a.term.type("a")
    a.term.press("enter")
    await a.term.settle()
    assert f"Spectrangle #{game.id}" in a.term.row(0)


async def test_begin_opponent_chooser_offers_anyone_a_name_and_the_computer_levels(
    start_session: StartSession, services: Services, alice: User
) -> None:
    from door.services.bots import BotRunner, levels

    services.bots = BotRunner(services)
    r = await start_session(alice, start="begin")
    r.term.type("b")
    r.term.type("1")
    await r.term.settle()
    text = r.term.display_text()
    assert "Who will be your opponent?" in text
    assert "A) Anyone who joins" in text and "N) A player I name" in text
    for i, (name, _) in enumerate(levels("backgammon"), 1):
        assert f"{i}) {name}: " in text


async def test_begin_against_the_computer_starts_at_once_on_the_board(
    start_session: StartSession, services: Services, alice: User
) -> None:
    from door.services.bots import BotRunner, levels

    services.bots = BotRunner(services)  # not started: the bot will not move here
    r = await start_session(alice, start="begin")
    r.term.type("s")  # Spectrangle
    r.term.type("1")
    r.term.type("1")  # the first computer level
    await r.term.settle()
    first = levels("spectrangle")[0][0]
    assert f"Opponent: Computer ({first})" in r.term.display_text()
    r.term.type("s")
    r.term.press("enter")  # no dice word
    await r.term.settle()
    (game,), _ = await services.games.list_games("active", alice.id)
    assert f"Spectrangle #{game.id}" in r.term.row(0)
    assert game.seats[1].kind == "bot"


async def test_begin_escape_from_the_opponent_chooser_changes_nothing(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="begin")
    r.term.type("b")
    r.term.type("1")
    r.term.press("escape")
    await r.term.settle()
    assert "Opponent: Anyone who joins" in r.term.display_text()
    assert "Who will be" not in r.term.display_text()


async def test_kind_key_filters_the_list_to_one_game(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    bg = await open_game_by(services, bob, "backgammon")
    sp = await open_game_by(services, bob, "spectrangle")
    r = await start_session(alice, start="open")
    assert f"#{bg}" in r.term.display_text() and f"#{sp}" in r.term.display_text()
    r.term.type("k")
    await r.term.settle()
    assert "(Backgammon)" in r.term.row(0)
    assert f"#{bg}" in r.term.display_text() and f"#{sp}" not in r.term.display_text()
    r.term.type("k")
    await r.term.settle()
    assert f"#{sp}" in r.term.display_text() and f"#{bg}" not in r.term.display_text()
    r.term.type("k")
    await r.term.settle()
    assert "(" not in r.term.row(0)


async def test_start_naming_a_game_kind_shows_its_games_waiting_on_you(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob, kind="spectrangle")
    waiter = alice if info.is_waiting_on(alice.id) else bob
    r = await start_session(waiter, start="spectrangle")
    assert "Waiting on me (Spectrangle)" in r.term.row(0)
    assert f"#{info.id}" in r.term.display_text()


async def test_start_naming_a_game_kind_with_nothing_going_on_begins_one(
    start_session: StartSession, alice: User
) -> None:
    r = await start_session(alice, start="backgammon")
    assert "Begin a new game" in r.term.row(0)
    assert "A new game of Backgammon" in r.term.display_text()


async def test_begin_starts_from_the_sysops_default_deadline(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    services.games.lobby.default_deadline_hours = 48
    r = await start_session(alice, start="begin")
    r.term.type("b")
    await r.term.settle()
    assert "48 hours" in r.term.display_text()
    r.term.type("1")
    r.term.type("n")
    r.term.line("bob")
    r.term.type("s")
    r.term.press("enter")  # no dice word
    await r.term.settle()
    games, _ = await services.games.list_games("mine", alice.id)
    assert games[0].deadline_hours == 48
