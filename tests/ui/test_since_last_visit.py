"""The main menu's "Since your last visit": every kind of news from the player's games,
within the screen's width, with the rest a key away; and a last-visit figure that stays
put all session."""

from __future__ import annotations

import re
from datetime import timedelta

from door.services import Services
from door.services.accounts import User
from door.services.clock import FakeClock
from door.services.games import SeatSpec
from tests.ui.conftest import StartSession, started_game


def screen_text(rows: list[str]) -> str:
    """The rows joined as one text (a sentence wrapped over lines reads whole)."""
    return " ".join(" ".join(r.split()) for r in rows)


async def play_one_turn(services: Services, game_id: int, user: User) -> None:
    """``user`` makes moves (the first legal one each time) until it is not their turn."""
    rules = services.games.rules_for("backgammon")
    while True:
        snap = await services.games.get(game_id, user.id)
        if not snap.info.is_waiting_on(user.id):
            return
        move = rules.format_move(snap.state, rules.legal_moves(snap.state)[0])
        await services.games.submit(game_id, user.id, move, snap.info.version)


async def test_the_last_visit_figure_stays_the_same_all_session(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User
) -> None:
    await services.accounts.record_login(alice.id)
    clock.advance(timedelta(hours=5))
    r = await start_session(alice)
    assert "Your last visit was 5h ago." in r.term.display_text()
    clock.advance(timedelta(hours=2))
    r.term.type("s")  # the menu reloads, and the user comes back from the store
    await r.term.settle()
    assert "Your last visit was 5h ago." in r.term.display_text()


async def test_an_invitation_is_in_the_summary(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    seats = [SeatSpec("me"), SeatSpec("user", bob.name)]
    info = await services.games.begin(alice.id, "backgammon", {}, seats)
    r = await start_session(bob)
    text = screen_text(r.term.display())
    assert "1 invitation" in text
    assert f"Alice invites you to #{info.id} Backgammon (5-point match)" in text


async def test_the_opponents_moves_are_in_the_summary(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    mover, waiter = (alice, bob) if info.is_waiting_on(alice.id) else (bob, alice)
    await play_one_turn(services, info.id, mover)
    r = await start_session(waiter)
    text = screen_text(r.term.display())
    assert re.search(rf"#{info.id} Backgammon v {mover.name}: {mover.name} played \S+", text)
    assert "your turn (due in 7d)" in text


async def test_the_opponents_moves_are_told_in_the_readers_point_numbers(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    from door.games.backgammon.notation import from_viewpoint

    info = await started_game(services, alice, bob)
    mover, waiter = (alice, bob) if info.is_waiting_on(alice.id) else (bob, alice)
    await play_one_turn(services, info.id, mover)
    events = await services.games.events(info.id, 0)
    played = [e for e in events if e.kind == "move" and e.payload.get("move") != "roll"]
    seat = played[-1].seat
    as_logged = str(played[-1].payload["move"])
    as_read = from_viewpoint(as_logged, seat, 1 - seat)
    assert as_read != as_logged  # every opening play moves a checker off a point
    r = await start_session(waiter)
    text = screen_text(r.term.display())
    assert f"{mover.name} played {as_read}" in text


async def test_a_game_the_opponent_resigned_is_told_with_its_result(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    await services.games.resign(info.id, bob.id)
    r = await start_session(alice)
    text = screen_text(r.term.display())
    assert "1 game finished" in text
    assert f"#{info.id} Backgammon v Bob:" in text
    assert "you won against Bob: Bob resigned" in text


async def test_a_game_lost_on_time_is_told(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    waiter, other = (alice, bob) if info.is_waiting_on(alice.id) else (bob, alice)
    for _ in range(10):
        snap = await services.games.get(info.id)
        if snap.info.status != "active":
            break
        clock.advance(timedelta(days=8))
        await services.games.sweep_deadlines()
    assert (await services.games.get(info.id)).info.status == "finished"
    r = await start_session(other)
    text = screen_text(r.term.display())
    assert f"you won against {waiter.name}: {waiter.name} ran out of time" in text


async def test_a_long_line_wraps_instead_of_being_cut(
    start_session: StartSession, services: Services, alice: User
) -> None:
    host = await services.accounts.register("Bartholomew_Longname", "long-pw-1")
    seats = [SeatSpec("me"), SeatSpec("user", alice.name)]
    info = await services.games.begin(host.id, "backgammon", {}, seats)
    r = await start_session(alice)
    rows = r.term.display()
    sentence = (
        f"Bartholomew_Longname invites you to #{info.id} Backgammon (5-point match): "
        "V)iew to answer."
    )
    assert sentence in screen_text(rows)
    assert not any(sentence in row for row in rows)  # it took two lines, none cut


async def test_on_a_terminal_narrower_than_the_layout_the_news_wraps_to_its_width(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    await services.games.resign(info.id, bob.id)
    r = await start_session(alice, width=60, height=20)
    rows = r.term.display()
    assert f"#{info.id} Backgammon v Bob:" in screen_text(rows)
    assert "you won against Bob: Bob resigned" in screen_text(rows)
    news = [row for row in rows if "Backgammon v Bob" in row or "last visit" in row]
    assert news and not any(row.rstrip().endswith("»") for row in news), rows


async def test_more_news_than_fits_ends_with_a_key_that_shows_it_all(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    ids = []
    for _ in range(12):
        seats = [SeatSpec("me"), SeatSpec("user", alice.name)]
        ids.append((await services.games.begin(bob.id, "backgammon", {}, seats)).id)
    r = await start_session(alice)
    text = screen_text(r.term.display())
    shown = [i for i in ids if f"invites you to #{i} " in text]
    assert 0 < len(shown) < 12
    assert f"and {12 - len(shown)} more: press N to see them all." in text
    assert "G) Goodbye" in text  # the menu keeps its room
    r.term.type("n")
    await r.term.settle()
    text = screen_text(r.term.display())
    assert all(f"invites you to #{i} " in text for i in ids)
    r.term.type("q")
    await r.term.settle()
    assert "Main Menu" in r.term.display_text()


async def test_a_declined_invitation_is_in_the_hosts_summary(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    seats = [SeatSpec("me"), SeatSpec("user", bob.name)]
    info = await services.games.begin(alice.id, "backgammon", {}, seats)
    await services.games.decline(info.id, bob.id)
    r = await start_session(alice)
    text = screen_text(r.term.display())
    assert f"#{info.id} Backgammon v Bob: Bob declined; the game is cancelled." in text


async def test_news_from_before_the_previous_session_is_not_repeated(
    start_session: StartSession, services: Services, clock: FakeClock, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    await services.games.resign(info.id, bob.id)
    clock.advance(timedelta(hours=1))
    await services.accounts.record_login(alice.id)  # the session that told her she won
    clock.advance(timedelta(hours=1))
    r = await start_session(alice)
    text = screen_text(r.term.display())
    assert "Your last visit was 1h ago." in text
    assert "Since your last visit: nothing new." in text


async def test_a_resignation_offer_and_its_answer_are_told_in_words(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    info = await started_game(services, alice, bob)
    snap = await services.games.get(info.id)
    seat = snap.info.to_act
    assert seat is not None
    users = {s.seat: s.user_id for s in snap.info.seats}
    mover, other = (alice, bob) if users[seat] == alice.id else (bob, alice)
    offered = await services.games.offer_resignation(
        info.id, mover.id, "gammon", snap.info.version
    )
    r = await start_session(other)
    text = screen_text(r.term.display())
    assert f"{mover.name} offered to resign a gammon" in text
    assert "played resign" not in text
    await services.games.submit(info.id, other.id, "accept", offered.info.version)
    r = await start_session(mover)
    text = screen_text(r.term.display())
    assert f"{other.name} accepted the resignation" in text
    assert "played accept" not in text
