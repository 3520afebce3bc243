"""clean_message: what a player writes reaches another player as plain printable text."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from door.services.safety import clean_message

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"

# text that leans on the dangerous characters: escapes, C1, DEL, bidi, and plain letters
hostile = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("\x1b\x9b\x9d\x90\x9c\x07\x7f\t\r\n[]P\\;0123456789mHc") + list(BIDI)),
        st.characters(),
    ),
    max_size=300,
)


def is_unsafe(ch: str) -> bool:
    cp = ord(ch)
    return cp < 0x20 or 0x7F <= cp <= 0x9F or ch in BIDI or unicodedata.category(ch) == "Cs"


# no time limit per example: long hostile strings on a busy machine can take over 200 ms
@settings(deadline=None)
@given(hostile, st.integers(min_value=0, max_value=400))
def test_no_control_escape_or_bidi_character_survives_any_input(text: str, limit: int) -> None:
    out = clean_message(text, limit)
    assert not any(is_unsafe(ch) for ch in out)


@given(hostile)
def test_multiline_keeps_only_newlines_of_the_controls(text: str) -> None:
    out = clean_message(text, 500, multiline=True)
    assert not any(is_unsafe(ch) for ch in out if ch != "\n")


@given(hostile, st.integers(min_value=0, max_value=400))
def test_cleaning_twice_changes_nothing(text: str, limit: int) -> None:
    once = clean_message(text, limit)
    assert clean_message(once, limit) == once


@given(hostile, st.integers(min_value=-5, max_value=400))
def test_the_result_is_never_longer_than_the_limit(text: str, limit: int) -> None:
    assert len(clean_message(text, limit)) <= max(limit, 0)


def test_a_csi_sequence_is_removed_whole() -> None:
    assert clean_message("a\x1b[2J\x1b[31;1mred\x1b[0m b", 100) == "ared b"


def test_an_8bit_csi_is_removed_whole() -> None:
    assert clean_message("x\x9b2Jy", 100) == "xy"


def test_osc_52_clipboard_write_is_removed_with_its_payload() -> None:
    assert clean_message("hi\x1b]52;c;ZXZpbA==\x07 there", 100) == "hi there"
    assert clean_message("hi\x9d52;c;ZXZpbA==\x9c there", 100) == "hi there"
    assert clean_message("hi\x1b]0;title\x1b\\ there", 100) == "hi there"


def test_dcs_and_apc_strings_are_removed() -> None:
    assert clean_message("a\x1bP1$r\x1b\\b\x1b_apc\x1b\\c", 100) == "abc"


def test_bidi_overrides_are_removed() -> None:
    assert clean_message("abc\u202edef\u2066g\u200fh", 100) == "abcdefgh"


def test_tabs_and_newlines_become_spaces_on_one_line() -> None:
    assert clean_message("a\tb\r\nc\nd", 100) == "a b c d"
    assert clean_message("a\tb\r\nc", 100, multiline=True) == "a b\nc"


def test_ordinary_text_and_accents_pass_unchanged() -> None:
    assert clean_message("Nice roll — très bien! 6-6 ♥", 100) == "Nice roll — très bien! 6-6 ♥"


def test_anything_but_a_string_gives_an_empty_message() -> None:
    assert clean_message(None, 10) == ""  # type: ignore[arg-type]
