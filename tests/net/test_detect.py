"""Encoding and size detection rules."""

from __future__ import annotations

import pytest

from door.net import detect


@pytest.mark.parametrize("term", ["syncterm", "ANSI", "pcansi", "ansi-bbs", "ansi-256color"])
def test_bbs_terminal_types_mean_cp437(term: str) -> None:
    assert detect.encoding_from_term(term) == "cp437"


@pytest.mark.parametrize("term", ["xterm", "XTERM-256COLOR", "linux", "screen", "tmux-256color"])
def test_unix_terminal_types_mean_utf8(term: str) -> None:
    assert detect.encoding_from_term(term) == "utf-8"


@pytest.mark.parametrize("term", ["foo-term", "footerm", "xtermish", "vt100"])
def test_an_unknown_terminal_type_says_nothing(term: str) -> None:
    assert detect.encoding_from_term(term) is None


def test_lang_with_utf8_means_utf8() -> None:
    assert detect.encoding_from_lang("en_US.UTF-8") == "utf-8"
    assert detect.encoding_from_lang("C") is None


def test_probe_column_one_means_utf8_and_four_means_cp437() -> None:
    assert detect.encoding_from_probe(1) == "utf-8"
    assert detect.encoding_from_probe(4) == "cp437"
    assert detect.encoding_from_probe(None) is None


def test_the_players_choice_beats_every_detection() -> None:
    assert detect.decide_encoding(choice="cp437", probe="utf-8", term="xterm") == "cp437"


def test_the_probe_beats_the_terminal_type() -> None:
    assert detect.decide_encoding(probe="utf-8", term="syncterm") == "utf-8"


def test_nothing_known_defaults_to_cp437() -> None:
    assert detect.decide_encoding() == "cp437"


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        ((132, 50), (132, 50)),
        ((0, 0), (80, 24)),
        ((1, 1), (80, 24)),  # NetRunner's CPR answer
        ((999, 999), (80, 24)),
        ((None, None), (80, 24)),
        ((100, 3), (100, 24)),
    ],
)
def test_sizes_are_clamped_with_an_80x24_fallback(
    size: tuple[int | None, int | None], expected: tuple[int, int]
) -> None:
    assert detect.clamp_size(*size) == expected
