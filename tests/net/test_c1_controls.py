"""No 8-bit control (C1, 0x80–0x9F) reaches a terminal from a user's text: CP437 sends a
look-alike for the letters it keeps there, UTF-8 never sends the C1 code points."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
import telnetlib3
from hypothesis import given, settings
from hypothesis import strategies as st

from door.app import App
from door.net.base import BaseTerminal, ConnectionSettings
from door.services.accounts import AccountError, Accounts
from door.services.clock import SystemClock
from door.services.games import SeatSpec
from door.store.db import Database
from door.ui.canvas import Canvas, Style, diff
from door.ui.charset import encode_text
from door.ui.glyphs import glyphs
from door.ui.terminal import Caps, Encoding
from tests.net.conftest import expect, make_config

C1 = bytes(range(0x80, 0xA0))
PWN = "¥0;PWN£¢2J"


class Wire(BaseTerminal):
    """A terminal whose far end is a byte string: the real write and encode path."""

    def __init__(self, encoding: Encoding) -> None:
        super().__init__(
            caps=Caps(encoding=encoding),
            peer="test",
            settings=ConnectionSettings(900.0, 60.0, 1 << 20, 0.1, 16),
        )
        self.sent = bytearray()

    def _send(self, data: bytes) -> None:
        self.sent += data

    def _disconnect(self) -> None:
        pass


def shown(text: str, encoding: Encoding) -> bytes:
    """What a terminal in ``encoding`` receives for a screen with ``text`` on it, drawn
    the way every screen is (a canvas, the diff, the terminal's write)."""
    canvas = Canvas(80, 24)
    canvas.put(2, 3, text, Style(fg=3, bold=True))
    canvas.box(0, 10, 30, 4, double=True)  # door's own glyphs, on the same screen
    wire = Wire(encoding)
    wire.write(diff(None, canvas, Caps(encoding=encoding)))
    wire._flush()
    return bytes(wire.sent)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_no_user_text_puts_a_c1_byte_on_a_cp437_wire(text: str) -> None:
    sent = shown(text, "cp437")
    assert not set(sent) & set(C1)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_no_user_text_puts_a_c1_code_point_on_a_utf8_wire(text: str) -> None:
    received = shown(text, "utf-8").decode("utf-8")
    assert not any("\x80" <= ch <= "\x9f" for ch in received)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_text_written_straight_to_a_cp437_terminal_has_no_c1_byte_either(text: str) -> None:
    wire = Wire("cp437")
    wire.write(text)
    wire._flush()
    assert not set(wire.sent) & set(C1)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_text_written_straight_to_a_utf8_terminal_has_no_c1_code_point(text: str) -> None:
    wire = Wire("utf-8")
    wire.write(text)
    wire._flush()
    assert not any("\x80" <= ch <= "\x9f" for ch in bytes(wire.sent).decode("utf-8"))


def test_the_letters_cp437_keeps_at_c1_go_out_as_ascii_look_alikes() -> None:
    assert encode_text(PWN, "cp437") == b"Y0;PWNLc2J"
    assert encode_text("Zoë, Émile, façade", "cp437") == b"Zoe, Emile, facade"


def test_doors_own_cp437_glyphs_still_go_out_as_cp437() -> None:
    g = glyphs("cp437")
    own = g.d_top_left + g.dh_line + g.shade_light + g.block + g.half_upper + g.v_line
    assert encode_text(own, "cp437") == own.encode("cp437")
    assert encode_text("é" + own, "cp437") == b"e" + own.encode("cp437")


def test_c1_code_points_go_out_as_question_marks_on_utf8() -> None:
    assert encode_text("a\x9b2Jb\x9d0;x\x07", "utf-8") == b"a?2Jb?0;x\x07"
    assert encode_text("é ¥ ╔", "utf-8") == "é ¥ ╔".encode()


async def test_a_name_with_c1_controls_is_refused_at_sign_up(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'd.sqlite3'}")
    await db.upgrade()
    try:
        accounts = Accounts(db, SystemClock())
        for name in ("ab\x9b2J", "\x9d0;PWN", "x\x85y"):
            with pytest.raises(AccountError):
                await accounts.register(name, "secret1")
    finally:
        await db.dispose()


async def test_a_cp437_player_sees_that_name_in_the_game_list_with_no_c1_byte(
    tmp_path: Path,
) -> None:
    config = make_config(tmp_path)
    app = App(replace(config, server=replace(config.server, ssh_port=0, rlogin_port=0)))
    await app.start(telnet_port=0, ssh_port=None, rlogin_port=None)
    try:
        services = app.services
        attacker = await services.accounts.register(PWN, "secret1")
        await services.games.begin(
            attacker.id, "backgammon", {}, [SeatSpec("me"), SeatSpec("open")]
        )
        viewer = await services.accounts.register("viewer", "secret1")
        await services.accounts.update_settings(viewer.id, charset="cp437")
        reader, writer = await telnetlib3.open_connection(
            "127.0.0.1", app.ports["telnet"], encoding=False, term="xterm", cols=80, rows=24,
            connect_minwait=0.05,
        )  # fmt: skip
        got = await expect(reader, "Name: ")
        writer.write(b"viewer\rsecret1\r")
        got += await expect(reader, "Main Menu", timeout=10)
        writer.write(b"v")
        got += await expect(reader, "Y0;PWNLc2J", timeout=10)
        await asyncio.sleep(0.2)
        writer.write(b"\x1b")  # and back out: nothing more may bring a C1 byte
        got += await asyncio.wait_for(reader.read(65536), 5)
        assert b"\xfa Ctrl-L" in got  # CP437's middle dot: this is a CP437 screen
        assert not set(got) & set(C1)
        writer.close()
    finally:
        await app.shutdown()
