"""Names up to the longest allowed (20) are readable wherever a player is named; where a
column truly lacks room they are abbreviated, and never so two players look alike."""

from __future__ import annotations

from door.services import Services
from door.services.accounts import NAME_MAX, User
from tests.ui.conftest import StartSession, started_game

LONG_A = "spectrangle-expertAA"
LONG_B = "spectrangle-beginner"


async def long_players(services: Services) -> tuple[User, User]:
    assert len(LONG_A) == len(LONG_B) == NAME_MAX
    a = await services.accounts.register(LONG_A, "long-pw-one")
    b = await services.accounts.register(LONG_B, "long-pw-two")
    return a, b


async def test_spectrangle_score_table_tells_two_long_names_apart(
    start_session: StartSession, services: Services
) -> None:
    a, b = await long_players(services)
    info = await started_game(services, a, b, "spectrangle")
    r = await start_session(a, start=f"game:{info.id}")
    rows = [line for line in r.term.display() if "Score" in line or "spec" in line]
    table = "\n".join(rows)
    # Two rows of the table, different from each other and not cut to the shared prefix.
    shown = [line[38:].split()[1 if line[38] != " " else 0] for line in r.term.display()[4:6]]
    shown = [s.rstrip("*") for s in shown]
    assert len(set(shown)) == 2, table
    # Each keeps the end that tells it apart (not just the shared "spectrangle-").
    for name in (LONG_A, LONG_B):
        assert any(s.endswith(name[-4:]) and len(s) <= len(name) for s in shown), table


async def test_whose_turn_names_the_player_in_full(
    start_session: StartSession, services: Services
) -> None:
    a, b = await long_players(services)
    info = await started_game(services, a, b, "spectrangle")
    snap = await services.games.get(info.id, a.id)
    watcher = a if snap.info.to_act != 0 else b  # whoever is not to move
    r = await start_session(watcher, start=f"game:{info.id}")
    other = LONG_B if watcher.id == a.id else LONG_A
    assert f"It is {other}'s turn." in r.term.display_text()


async def test_game_over_names_the_winner_in_full(
    start_session: StartSession, services: Services
) -> None:
    a, b = await long_players(services)
    info = await started_game(services, a, b, "spectrangle")
    snap = await services.games.get(info.id, b.id)
    await services.games.resign(info.id, b.id, snap.info.version)
    r = await start_session(a, start=f"game:{info.id}")
    assert f"Game over: {LONG_A} won." in r.term.display_text()


async def test_meanwhile_line_names_the_mover_in_full(
    start_session: StartSession, services: Services
) -> None:
    a, b = await long_players(services)
    info = await started_game(services, a, b, "backgammon")
    snap = await services.games.get(info.id, a.id)
    mover, watcher = (a, b) if snap.info.to_act == 0 else (b, a)
    r = await start_session(watcher, start=f"game:{info.id}")
    snap = await services.games.get(info.id, mover.id)
    await services.games.resign(info.id, mover.id, snap.info.version)
    await r.term.settle()
    await r.term.wait_for(mover.name)
    text = " ".join(r.term.display())
    assert mover.name in text


async def test_game_list_shows_long_names_whole_when_they_fit(
    start_session: StartSession, services: Services, alice: User
) -> None:
    a, _ = await long_players(services)
    await started_game(services, a, alice, "backgammon")
    r = await start_session(alice, start="active")
    assert f"{LONG_A} v *Alice" in r.term.display_text() or (
        f"*{LONG_A} v Alice" in r.term.display_text()
    )


def test_abbreviations_of_names_sharing_a_long_prefix_differ() -> None:
    from door.ui.widgets import short_names

    names = ["spectrangle-expert", "spectrangle-easy", "spectrangle-beginner"]
    for width in range(6, 21):
        shown = short_names(names, width)
        assert len(set(shown)) == 3, (width, shown)
        assert all(len(s) <= width for s in shown)


def test_fitted_player_lists_keep_names_apart() -> None:
    from door.ui.widgets import fit_names

    names = ["spectrangle-expert", "spectrangle-easy", "spectrangle-beginner", "Alice"]
    text = fit_names(names, 40)
    assert len(text) <= 40
    assert len(set(text.split(" v "))) == 4, text


async def test_a_long_name_shows_whole_in_the_title_bar_at_40_columns(
    start_session: StartSession, services: Services
) -> None:
    a, _ = await long_players(services)
    r = await start_session(a, width=40, height=15)
    assert r.term.row(0).rstrip().endswith(LONG_A)
