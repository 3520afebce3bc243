"""The sysop console's T)ournaments, through real sessions read with pyte: the list of
events open, running and recurring; a new one from the short form (name, game, format,
size, match length, the computer players filling it, the clock); changing one before it
starts (and not after); cancelling one after a Y/N. The screens call the same service
methods as ``door tournament``."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import User
from door.services.timecontrol import ClockOptions
from door.services.tournaments.service import Tournaments, clock_of
from tests.ui.conftest import Running, StartSession


def tours_of(services: Services) -> Tournaments:
    assert services.tournaments is not None
    return services.tournaments


async def console(start_session: StartSession, keeper: User) -> Running:
    k = await start_session(keeper)
    k.term.type("!")
    await k.term.wait_for("Nothing done yet.")
    k.term.type("t")
    await k.term.wait_for("Tournaments open, running and recurring")
    return k


async def test_the_sysop_creates_a_tournament_with_its_clock_from_the_short_form(
    start_session: StartSession, services: Services, keeper: User
) -> None:
    k = await console(start_session, keeper)
    assert "No tournaments open or running" in k.term.display_text()
    k.term.type("c")
    await k.term.wait_for("A new tournament")
    k.term.type("n")
    await k.term.wait_for("Name:")
    k.term.line("Winter cup")
    k.term.type("s")
    await k.term.wait_for("Size (players):")
    k.term.line("16")
    k.term.type("m")  # 1 → 3 points
    k.term.type("r")  # bank: none → 1 day
    k.term.type("r")  # → 3 days
    k.term.type("p")  # weekends off
    await k.term.wait_for("Pause the clock at weekends: yes")
    screen = k.term.display_text()
    assert "Match length: 3 points" in screen and "Time bank (reserve): 3 days" in screen
    k.term.type("c")
    await k.term.wait_for("is open for entry.")
    (made,) = await tours_of(services).listing(("open",))
    assert (made.name, made.kind, made.format, made.size) == (
        "Winter cup", "backgammon", "knockout", 16,
    )  # fmt: skip
    game = made.options["game"]
    assert isinstance(game, dict) and game["match_length"] == 3
    assert clock_of(made) == ClockOptions(168 * 3600, 3 * 86400, True)
    row = next(r for r in k.term.display() if f"#{made.id} " in r)
    assert "open" in row and "Winter cup" in row and "16" in row


async def test_the_tournaments_page_tells_its_clock(
    start_session: StartSession, services: Services, keeper: User
) -> None:
    game_clock = ClockOptions(2 * 86400, 5 * 86400, True)
    await tours_of(services).create(keeper.id, "Cup", "backgammon", "knockout", 8, clock=game_clock)
    k = await console(start_session, keeper)
    k.term.press("enter")
    await k.term.wait_for("Clock: 2d a move, bank 5d, weekends off")


async def test_a_spectrangle_round_robin_filled_with_computer_players_starts_at_once(
    start_session: StartSession, services: Services, keeper: User
) -> None:
    level = tours_of(services).bot_levels["spectrangle"][0]
    k = await console(start_session, keeper)
    k.term.type("c")
    await k.term.wait_for("A new tournament")
    k.term.type("n")
    k.term.line("Triangles")
    k.term.type("g")  # Backgammon → Spectrangle
    await k.term.wait_for("Game: Spectrangle")
    k.term.type("f")  # knock-out → round-robin
    await k.term.wait_for("Players at a table: 3")
    k.term.type("s")
    k.term.line("6")
    k.term.type("b")
    await k.term.wait_for(f"Fill with computer players: {level}")
    k.term.type("c")
    await k.term.wait_for("is open for entry.")
    (made,) = await tours_of(services).listing(("running",))
    view = await tours_of(services).show(made.id)
    assert (made.name, made.kind, made.format, made.options["table_size"]) == (
        "Triangles", "spectrangle", "roundrobin", 3,
    )  # fmt: skip
    assert len([e for e in view.entries if e.is_bot]) == 6
    assert view.tables and all(len(t.seats) == 3 for t in view.tables)


async def test_a_tournament_not_started_is_changed_from_the_console(
    start_session: StartSession, services: Services, keeper: User
) -> None:
    tid = await tours_of(services).create(keeper.id, "Cup", "backgammon", "knockout", 8)
    k = await console(start_session, keeper)
    await k.term.wait_for(f"#{tid} ")
    k.term.type("e")
    await k.term.wait_for("Before it starts")
    assert "Name: Cup" in k.term.display_text()
    k.term.type("n")
    k.term.press("ctrl-u")
    k.term.line("Spring cup")
    k.term.type("s")
    k.term.line("4")
    k.term.type("d")  # 168 h → 336 h a move
    k.term.type("a")
    await k.term.wait_for(f"Tournament #{tid} is changed.")
    r = (await tours_of(services).show(tid)).record
    assert (r.name, r.size, r.status) == ("Spring cup", 4, "open")
    assert clock_of(r).move_s == 336 * 3600
    assert "Spring cup" in k.term.display_text()


async def test_a_running_tournament_cannot_be_changed_from_the_console(
    start_session: StartSession, services: Services, keeper: User, alice: User, bob: User,
) -> None:  # fmt: skip
    tid = await tours_of(services).create(keeper.id, "Duel", "backgammon", "knockout", 2)
    for u in (alice, bob):
        await tours_of(services).enter(tid, u.id)
    k = await console(start_session, keeper)
    await k.term.wait_for(f"#{tid} ")
    assert "running" in next(r for r in k.term.display() if f"#{tid} " in r)
    k.term.type("e")
    await k.term.wait_for(f"Tournament #{tid} has started: it can only be cancelled.")
    assert "Before it starts" not in k.term.display_text()


async def test_cancelling_asks_first_and_no_leaves_it_open(
    start_session: StartSession, services: Services, keeper: User
) -> None:
    tours = tours_of(services)
    older = await tours.create(keeper.id, "Older", "backgammon", "knockout", 8)
    newer = await tours.create(keeper.id, "Newer", "backgammon", "knockout", 8)
    k = await console(start_session, keeper)
    await k.term.wait_for(f"#{older} ")
    k.term.press("down")  # newest first: the older one is second
    k.term.type("x")
    await k.term.wait_for(f"Cancel tournament #{older} Older? (Y/N)")
    k.term.type("n")
    await k.term.wait_for(f"Tournament #{older} is left as it is.")
    assert (await tours.show(older)).record.status == "open"
    k.term.type("x")
    await k.term.wait_for("(Y/N)")
    k.term.type("y")
    await k.term.wait_for(f"Tournament #{older} is cancelled.")
    cancelled = (await tours.show(older)).record
    assert (cancelled.status, cancelled.note) == ("cancelled", "cancelled by Keeper")
    assert (await tours.show(newer)).record.status == "open"
    rows = [r.strip() for r in k.term.display()]
    assert not any(r.startswith(f"#{older} ") for r in rows)  # it lists live ones only
    assert any(r.startswith(f"#{newer} ") for r in rows)


async def test_an_ordinary_player_is_offered_no_create_when_the_setting_is_off(
    start_session: StartSession, services: Services, alice: User
) -> None:
    assert not tours_of(services).players_may_create  # the default
    a = await start_session(alice)
    a.term.type("t")
    await a.term.wait_for("Open for entry")
    assert "C)reate" not in a.term.display_text()
    a.term.type("c")
    await a.term.settle()
    assert "A new tournament" not in a.term.display_text()
