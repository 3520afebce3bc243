"""A note with a move (issue 17, point 1), through real sessions read with pyte: the
mover writes it with N before sending; the opponent reads it in "Meanwhile", in V)iew,
in the since-last-visit summary; it stays in the log and the records; replays ignore it."""

from __future__ import annotations

from door.games.backgammon.rules import BackgammonRules
from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import StartSession
from tests.ui.test_backgammon_screen import NO_CUBE, begin, play_with_cursor, state_of

RULES = BackgammonRules()


async def note_of_last_move(services: Services, gid: int) -> object:
    events = await services.games.events(gid)
    return [e for e in events if e.kind == "move"][-1].payload.get("note")


async def test_two_players_exchange_notes_with_their_moves(
    services: Services, alice: User, bob: User, start_session: StartSession
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    r1 = await start_session(users[state.turn], start=f"game:{gid}")
    # the first mover writes a note, then plays with the cursor and confirms
    r1.term.type("n")
    await r1.term.settle()
    assert "Note with this move:" in r1.term.display_text()
    r1.term.type_each("Good luck!")
    r1.term.press("enter")
    await r1.term.settle()
    assert "Your note goes with your move." in r1.term.display_text()
    await play_with_cursor(r1, state)
    r1.term.type("y")
    await r1.term.settle()
    assert await note_of_last_move(services, gid) == "Good luck!"
    # the opponent opens the game: the note is in the news, and in V)iew
    state2 = await state_of(services, gid)
    r2 = await start_session(users[state2.turn], start=f"game:{gid}")
    assert '"Good luck!"' in r2.term.display_text()
    r2.term.type("v")
    await r2.term.settle()
    assert f"{users[state.turn].name}'s note: \"Good luck!\"" in r2.term.display_text()
    r2.term.type("q")
    await r2.term.settle()
    # and answers with a typed move and a note of its own, read live by the first
    r2.term.type("n")
    r2.term.type_each("Thanks, you too")
    r2.term.press("enter")
    text = RULES.format_move(state2, RULES.legal_moves(state2)[-1])
    r2.term.type(":")
    r2.term.type_each(text)
    r2.term.press("enter")
    await r2.term.settle()
    await r1.term.wait_for('"Thanks, you too"')
    assert "Meanwhile" in r1.term.display_text()
    assert await note_of_last_move(services, gid) == "Thanks, you too"


async def test_a_note_is_told_in_the_summary_kept_in_the_records_and_never_replayed(
    services: Services, alice: User, bob: User
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    users = {0: alice, 1: bob}
    state = await state_of(services, gid)
    mover, other = users[state.turn], users[1 - state.turn]
    text = RULES.format_move(state, RULES.legal_moves(state)[0])
    version = (await services.games.get(gid)).info.version
    hostile = "gg\x1b]52;c;ZXZpbA==\x07 \x9b2J\u202eok"
    await services.games.submit(gid, mover.id, text, version, note=hostile)
    assert await note_of_last_move(services, gid) == "gg ok"
    summary = await services.games.since_last_visit(other.id)
    told = [m for n in summary.news for m in n.moves]
    assert any(t.endswith('"gg ok"') for _, t in told)
    assert await services.games.replay_check(gid) is None
    json_record = await services.exporter.export(gid, "json", other.id)
    assert '"note": "gg ok"' in json_record.text


async def test_a_note_that_cleans_to_nothing_is_not_kept(
    services: Services, alice: User, bob: User
) -> None:
    gid = await begin(services, alice, bob, NO_CUBE)
    state = await state_of(services, gid)
    mover = {0: alice, 1: bob}[state.turn]
    text = RULES.format_move(state, RULES.legal_moves(state)[0])
    version = (await services.games.get(gid)).info.version
    await services.games.submit(gid, mover.id, text, version, note="\x1b[2J \x07")
    assert await note_of_last_move(services, gid) is None
