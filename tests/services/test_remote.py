"""The ssh command-line commands: what each line means, and what each account is answered."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from door.games.registry import build_registry
from door.services.accounts import Accounts, User
from door.services.clock import FakeClock
from door.services.export import Exporter
from door.services.games import GameInfo, GameService, SeatSpec
from door.services.notify import LocalHub
from door.services.remote import (
    FAILED,
    MAX_LINE,
    OK,
    USAGE,
    ExportCommand,
    HelpCommand,
    RemoteCommands,
    UsageError,
    parse_command,
)
from door.services.signups import PENDING_MESSAGE, SignupPolicy
from door.store.db import Database

ME = SeatSpec("me")
NO_CUBE = {"match_length": 1, "cube": False}


@pytest.fixture
def real(db: Database, hub: LocalHub, clock: FakeClock) -> GameService:
    return GameService(db, build_registry(), hub, clock, random.Random(7))


def commands(accounts: Accounts, real: GameService, *, public_finished: bool) -> RemoteCommands:
    return RemoteCommands(accounts, real, Exporter(real, public_finished=public_finished))


async def finished_backgammon(real: GameService, a: User, b: User) -> GameInfo:
    """A 1-point match between ``a`` and ``b``, played to its end with random legal plays."""
    info = await real.begin(a.id, "backgammon", NO_CUBE, [ME, SeatSpec("user", b.name)])
    await real.join(info.id, b.id)
    rules = real.rules_for("backgammon")
    users = {0: a, 1: b}
    rng = random.Random(info.id)
    while True:
        snap = await real.get(info.id)
        if snap.info.status != "active":
            return snap.info
        state = snap.state
        move = rules.format_move(state, rng.choice(list(rules.legal_moves(state))))
        await real.submit(info.id, users[state.turn].id, move, snap.info.version)


async def spectrangle(real: GameService, a: User, b: User) -> GameInfo:
    info = await real.begin(a.id, "spectrangle", {}, [ME, SeatSpec("user", b.name)])
    return await real.join(info.id, b.id)


# --- reading the command line -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("export 12 mat", ExportCommand(12, "mat")),
        ("export 12", ExportCommand(12, None)),
        ("EXPORT #12 SGF", ExportCommand(12, "sgf")),
        ("export 12 --format json", ExportCommand(12, "json")),
        ("export --format=txt 12", ExportCommand(12, "txt")),
        ("export -f .mat 12", ExportCommand(12, "mat")),
        ("  export   '12'  ", ExportCommand(12, None)),
        ("help", HelpCommand()),
        ("--help", HelpCommand()),
    ],
)
def test_a_command_line_is_read_like_a_shells_words(line: str, command: object) -> None:
    assert parse_command(line) == command


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("", "no command given"),
        ("frob 12", "unknown command 'frob'"),
        ("export", "usage: export GAME [FORMAT]"),
        ("export twelve", "GAME is a game number, like 12, not 'twelve'"),
        ("export 0", "game numbers start at 1"),
        ("export 12 doc", "there is no record format 'doc': use mat, sgf, txt, json"),
        ("export 12 mat sgf", "too many arguments"),
        ("export 12 mat --format sgf", "give the format once"),
        ("export 12 --format", "--format needs a format"),
        ("export 12 --verbose", "export has no option '--verbose'"),
        ("export '12", "cannot read the command: No closing quotation"),
        ("help me", "help takes no arguments"),
        ("export 99999999999999999999", "GAME is a game number"),
    ],
)
def test_a_line_door_does_not_understand_says_what_is_wrong(line: str, says: str) -> None:
    with pytest.raises(UsageError) as refused:
        parse_command(line)
    assert says in str(refused.value)


def test_a_line_longer_than_the_limit_is_refused_before_it_is_read() -> None:
    with pytest.raises(UsageError, match="too long"):
        parse_command("export 12 " + "x" * MAX_LINE)


def test_an_unknown_command_is_echoed_without_its_control_characters() -> None:
    with pytest.raises(UsageError) as refused:
        parse_command("fr\x1b[2Job\x07")
    assert "\x1b" not in str(refused.value) and "\x07" not in str(refused.value)
    assert "'fr[2Job'" in str(refused.value)


@given(st.text(max_size=200))
def test_any_line_is_either_a_command_or_a_usage_error(line: str) -> None:
    try:
        command = parse_command(line)
    except UsageError as exc:
        assert all(ch.isprintable() for ch in str(exc))
    else:
        assert isinstance(command, ExportCommand | HelpCommand)


# --- answering an account ---------------------------------------------------------------------


async def test_help_lists_the_commands_with_status_0(
    accounts: Accounts, real: GameService, alice: User
) -> None:
    reply = await commands(accounts, real, public_finished=True).run(alice.id, "help")
    assert reply.status == OK and reply.stderr == ""
    assert b"export GAME [FORMAT]" in reply.stdout


async def test_an_unknown_command_is_status_2_with_a_one_line_message(
    accounts: Accounts, real: GameService, alice: User
) -> None:
    reply = await commands(accounts, real, public_finished=True).run(alice.id, "rm -rf /")
    assert reply.status == USAGE and reply.stdout == b""
    assert reply.stderr == "door: unknown command 'rm'; `help` lists the commands"


async def test_a_missing_game_is_status_1(
    accounts: Accounts, real: GameService, alice: User
) -> None:
    reply = await commands(accounts, real, public_finished=True).run(alice.id, "export 4242")
    assert reply.status == FAILED and reply.stdout == b""
    assert reply.stderr == "door: there is no game 4242 whose record you may read"


async def test_a_strangers_private_game_is_refused_in_the_words_of_a_missing_one(
    accounts: Accounts, real: GameService, alice: User, bob: User, carol: User
) -> None:
    info = await finished_backgammon(real, alice, bob)
    remote = commands(accounts, real, public_finished=False)
    for line in (f"export {info.id}", f"export {info.id} mat", f"export {info.id} txt"):
        private = await remote.run(carol.id, line)
        missing = await remote.run(carol.id, line.replace(str(info.id), str(info.id + 100)))
        assert (private.status, private.stdout) == (FAILED, b"")
        assert private.stderr == missing.stderr.replace(str(info.id + 100), str(info.id))


async def test_a_format_that_does_not_fit_the_game_is_refused_to_its_player(
    accounts: Accounts, real: GameService, alice: User, bob: User
) -> None:
    info = await spectrangle(real, alice, bob)
    reply = await commands(accounts, real, public_finished=True).run(
        alice.id, f"export {info.id} mat"
    )
    assert reply.status == FAILED and reply.stdout == b""
    assert "Spectrangle" in reply.stderr


async def test_a_suspended_account_gets_nothing(
    accounts: Accounts, real: GameService, alice: User
) -> None:
    await accounts.set_banned(alice.name, True)
    reply = await commands(accounts, real, public_finished=True).run(alice.id, "help")
    assert (reply.status, reply.stdout) == (FAILED, b"")
    assert "suspended" in reply.stderr


async def test_an_account_waiting_for_approval_gets_nothing(
    db: Database, clock: FakeClock, real: GameService
) -> None:
    waiting = Accounts(db, clock, signups=SignupPolicy(mode="approval"))
    dave = await waiting.register("Dave", "dave-pw1")
    reply = await commands(waiting, real, public_finished=True).run(dave.id, "help")
    assert (reply.status, reply.stdout) == (FAILED, b"")
    assert reply.stderr == f"door: {PENDING_MESSAGE}"


# --- the records (these wait for door/services/export's writers) ------------------------------


async def test_a_player_exports_their_own_finished_match_as_the_exporters_mat(
    accounts: Accounts, real: GameService, alice: User, bob: User
) -> None:
    info = await finished_backgammon(real, alice, bob)
    exporter = Exporter(real, public_finished=False)
    remote = RemoteCommands(accounts, real, exporter)
    expected = (await exporter.export(info.id, "mat", alice.id)).text.encode("utf-8")
    for line in (f"export {info.id} mat", f"export {info.id}"):
        reply = await remote.run(alice.id, line)
        assert (reply.status, reply.stderr) == (OK, "")
        assert reply.stdout == expected


async def test_a_spectrangle_game_comes_as_text_unless_asked_otherwise(
    accounts: Accounts, real: GameService, alice: User, bob: User
) -> None:
    info = await spectrangle(real, alice, bob)
    exporter = Exporter(real, public_finished=True)
    reply = await RemoteCommands(accounts, real, exporter).run(bob.id, f"export {info.id}")
    assert (reply.status, reply.stderr) == (OK, "")
    assert reply.stdout == (await exporter.export(info.id, "txt", bob.id)).text.encode()


async def test_a_sysop_exports_a_private_game_of_others(
    accounts: Accounts, real: GameService, alice: User, bob: User, carol: User
) -> None:
    info = await finished_backgammon(real, alice, bob)
    carol = await accounts.set_sysop(carol.name, True)
    exporter = Exporter(real, public_finished=False)
    reply = await RemoteCommands(accounts, real, exporter).run(carol.id, f"export {info.id}")
    assert (reply.status, reply.stderr) == (OK, "")
    expected = await exporter.export(info.id, "mat", carol.id, sysop=True)
    assert reply.stdout == expected.text.encode("utf-8")
