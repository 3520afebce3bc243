"""The key decoder: both terminal families, the Enter variants, ESC, and never raising."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.ui.keys import KeyDecoder, Report
from door.ui.terminal import Key, Text


def decode(data: bytes, encoding: str = "utf-8") -> list[object]:
    decoder = KeyDecoder(encoding)  # type: ignore[arg-type]
    return [*decoder.feed(data), *decoder.flush()]


@pytest.mark.parametrize("enter", [b"\r", b"\r\n", b"\r\x00", b"\n"])
def test_each_enter_variant_is_one_enter(enter: bytes) -> None:
    assert decode(b"a" + enter + b"b") == [Text("a"), Key("enter"), Text("b")]


def test_cr_lf_split_across_reads_is_still_one_enter() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"\r") == [Key("enter")]
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"x") == [Text("x")]


def test_two_crs_are_two_enters() -> None:
    assert decode(b"\r\r") == [Key("enter"), Key("enter")]


@pytest.mark.parametrize(
    ("seq", "name"),
    [
        (b"\x1b[A", "up"),
        (b"\x1b[B", "down"),
        (b"\x1b[C", "right"),
        (b"\x1b[D", "left"),
        (b"\x1bOA", "up"),
        (b"\x1b[1;5D", "left"),
        (b"\x1b[H", "home"),
        (b"\x1b[1~", "home"),
        (b"\x1bOH", "home"),
        (b"\x1b[K", "end"),
        (b"\x1b[F", "end"),
        (b"\x1b[4~", "end"),
        (b"\x1b[V", "pgup"),
        (b"\x1b[5~", "pgup"),
        (b"\x1b[U", "pgdn"),
        (b"\x1b[6~", "pgdn"),
        (b"\x1b[@", "insert"),
        (b"\x1b[2~", "insert"),
        (b"\x1b[3~", "delete"),
        (b"\x1b[11~", "f1"),
        (b"\x1bOP", "f1"),
        (b"\x1b[[A", "f1"),
        (b"\x1b[24~", "f12"),
        (b"\x1b[Z", "shift-tab"),
    ],
)
def test_cterm_and_xterm_sequences_name_the_key(seq: bytes, name: str) -> None:
    assert decode(seq) == [Key(name)]


@pytest.mark.parametrize("byte", [b"\x08", b"\x7f"])
def test_both_backspace_bytes_are_backspace(byte: bytes) -> None:
    assert decode(byte) == [Key("backspace")]


def test_syncterm_del_byte_is_delete_and_bs_is_backspace() -> None:
    decoder = KeyDecoder(del_is_delete=True)
    assert decoder.feed(b"\x7f\x08") == [Key("delete"), Key("backspace")]


def test_tab_and_control_keys() -> None:
    assert decode(b"\t\x03\x15") == [Key("tab"), Key("ctrl-c"), Key("ctrl-u")]


def test_lone_escape_is_held_until_flush() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b") == []
    assert decoder.pending
    assert decoder.flush() == [Key("escape")]
    assert not decoder.pending


def test_escape_sequence_split_across_reads_is_one_key() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b") == []
    assert decoder.feed(b"[") == []
    assert decoder.feed(b"A") == [Key("up")]


def test_escape_then_a_letter_is_escape_and_the_letter() -> None:
    assert decode(b"\x1bq") == [Key("escape"), Text("q")]


def test_double_escape_is_two_escapes() -> None:
    assert decode(b"\x1b\x1b") == [Key("escape"), Key("escape")]


def test_cursor_position_report_is_a_report_not_a_key() -> None:
    assert decode(b"\x1b[30;100R") == [Report("cpr", (30, 100))]


def test_device_attributes_reply_is_a_report() -> None:
    assert decode(b"\x1b[=67;84;101;114;109;1c") == [Report("da", raw="=67;84;101;114;109;1")]


def test_unknown_sequence_is_dropped_and_typing_continues() -> None:
    assert decode(b"\x1b[99xab") == [Text("ab")]


def test_cp437_bytes_decode_as_cp437() -> None:
    assert decode(b"\xb0\xdb", "cp437") == [Text("░█")]


def test_utf8_split_across_reads_decodes_whole() -> None:
    decoder = KeyDecoder("utf-8")
    assert decoder.feed("é".encode()[:1]) == []
    assert decoder.feed("é".encode()[1:]) == [Text("é")]


def test_invalid_utf8_becomes_replacement_character() -> None:
    assert decode(b"\xff") == [Text("\ufffd")]


def test_nul_bytes_are_ignored() -> None:
    assert decode(b"\x00\x00a\x00") == [Text("a")]


def test_runaway_sequence_is_dropped() -> None:
    events = decode(b"\x1b[" + b"1;" * 40 + b"A" + b"z")
    assert events[-1] == Text("z")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(["utf-8", "cp437"]))
def test_random_bytes_never_raise(data: bytes, encoding: str) -> None:
    decoder = KeyDecoder(encoding)  # type: ignore[arg-type]
    decoder.feed(data)
    decoder.flush()
    assert not decoder.pending


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120), st.lists(st.integers(0, 120), max_size=6))
def test_chunking_does_not_change_the_events(data: bytes, cuts: list[int]) -> None:
    whole = KeyDecoder()
    expected = [*whole.feed(data), *whole.flush()]
    pieces = KeyDecoder()
    got: list[object] = []
    last = 0
    for cut in sorted({min(c, len(data)) for c in cuts}):
        got += pieces.feed(data[last:cut])
        last = cut
    got += pieces.feed(data[last:])
    got += pieces.flush()

    def merged(events: list[object]) -> list[object]:
        out: list[object] = []
        for e in events:
            if isinstance(e, Text) and out and isinstance(out[-1], Text):
                out[-1] = Text(out[-1].text + e.text)
            else:
                out.append(e)
        return out

    assert merged(got) == merged(expected)
