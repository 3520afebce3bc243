"""``door rules backgammon``: moves for Position IDs (single and batch) and the board."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import pytest

from door.cli import main
from door.games.backgammon.ids import decode_position, encode_position
from door.games.backgammon.movegen import legal_plays
from tests.games.backgammon.helpers import opp_holding, random_cases, side

OPENING = "4HPwATDgc/ABMA"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["rules", "backgammon", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_lists_the_16_plays_of_an_opening_3_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(["moves", "--position-id", OPENING, "--dice", "3", "1"], capsys)
    lines = out.splitlines()
    assert status == 0 and len(lines) == 16
    plays = {line.split("\t")[0] for line in lines}
    assert {"8/5 6/5", "24/20", "13/9", "6/2"} <= plays


def test_resulting_id_is_from_the_view_of_the_player_who_moves_next(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _status, out, _ = _run(["moves", "--position-id", OPENING, "--dice", "3", "1"], capsys)
    results = dict(line.split("\t") for line in out.splitlines())
    next_on_roll, just_moved = decode_position(results["8/5 6/5"])
    assert just_moved[4] == 2 and just_moved[5] == 4 and just_moved[7] == 2
    assert sum(next_on_roll) == 15 and next_on_roll[4] == 0


def test_no_legal_play_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    pid = encode_position(side(bar=1, p6=5), opp_holding(19, 20, 21, 22, 23, 24))
    status, out, _ = _run(["moves", "--position-id", pid, "--dice", "6", "5"], capsys)
    assert status == 0 and out == ""


def test_moves_with_a_bad_id_says_why_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(["moves", "--position-id", "xyz", "--dice", "3", "1"], capsys)
    assert status == 2 and out == "" and "14 characters" in err


def test_moves_with_a_bad_die_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = _run(["moves", "--position-id", OPENING, "--dice", "7", "1"], capsys)
    assert status == 2 and "1 to 6" in err


def answers(out: str) -> list[list[str]]:
    """The batch output cut into one list of lines per input line (each ends at a blank)."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in out.split("\n")[:-1]:
        if line == "":
            blocks.append(current)
            current = []
        else:
            current.append(line)
    assert current == [], "output does not end with a blank line"
    return blocks


def _batch(
    text: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    status, out, _err = _run(["moves", "--batch"], capsys)
    return status, out


def test_batch_answers_each_line_followed_by_a_blank_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = encode_position(side(bar=1, p6=5), opp_holding(19, 20, 21, 22, 23, 24))
    status, out = _batch(f"{OPENING} 6 6\n{blocked} 6 5\n{OPENING} 5 5\n", capsys, monkeypatch)
    blocks = answers(out)
    assert status == 0 and len(blocks) == 3
    assert len(blocks[0]) == 11
    assert blocks[1] == []  # no legal play: a lone blank line
    assert len(blocks[2]) == 4


def test_batch_reports_a_bad_line_and_carries_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out = _batch(f"nonsense\n{OPENING} 6 5\n", capsys, monkeypatch)
    first, second = answers(out)
    assert status == 1 and len(first) == 1 and first[0].startswith("error: ")
    assert len(second) == 7


def test_batch_of_1000_positions_matches_the_generator(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = random_cases(4242, 1000)
    text = "".join(f"{encode_position(m, o)} {a} {b}\n" for m, o, a, b in cases)
    t0 = time.perf_counter()
    status, out = _batch(text, capsys, monkeypatch)
    elapsed = time.perf_counter() - t0
    blocks = answers(out)
    assert status == 0 and len(blocks) == 1000
    for (m, o, a, b), block in zip(cases, blocks, strict=True):
        expected = {encode_position(oo, mm) for _p, mm, oo in legal_plays(m, o, a, b)}
        got = {line.split("\t")[1] for line in block}
        assert got == expected
    assert elapsed < 30  # generous: the benchmark and the report give the real figure


def test_show_draws_the_board_with_match_facts(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(["show", "--position-id", OPENING, "--match-id", "QYkqASAAIAAA"], capsys)
    assert status == 0
    assert "+13-14-15-16-17-18------19-20-21-22-23-24-+" in out
    assert "+12-11-10--9--8--7-------6--5--4--3--2--1-+" in out
    assert "9-point match, score 2-4, cube 2" in out and "rolled 52" in out
    assert out.count("X") >= 15 and "O: pips 167" in out


def test_show_counts_tall_points(capsys: pytest.CaptureFixture[str]) -> None:
    pid = encode_position(side(p6=12, p5=3), side(p6=15))
    _status, out, _ = _run(["show", "--position-id", pid], capsys)
    assert "12" in out and "15" in out


def test_show_with_a_bad_match_id_fails_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = _run(["show", "--position-id", OPENING, "--match-id", "bad"], capsys)
    assert status == 2 and "Match ID" in err


def test_the_door_command_runs_it_as_a_program() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "door",
            "rules",
            "backgammon",
            "moves",
            "--position-id",
            OPENING,
            "--dice",
            "6",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 7


def test_selfplay_plays_a_whole_match_and_repeats_with_the_same_seed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from door.games.backgammon.rules import BackgammonRules

    status, out, _ = _run(["selfplay", "--seed", "5", "--match-length", "3"], capsys)
    lines = out.splitlines()
    assert status == 0 and lines[-1].startswith("final scores: ")
    scores = [int(n) for n in lines[-1].split(": ")[1].split(",")]
    assert max(scores) == 3 and min(scores) < 3
    rules = BackgammonRules()
    last = rules.from_id(lines[-2].split("\t")[1])
    assert rules.outcome(last) is not None
    _status, again, _ = _run(["selfplay", "--seed", "5", "--match-length", "3"], capsys)
    assert again == out


def test_gnubgs_combined_id_form_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(
        ["moves", "--position-id", OPENING + ":cAkAAAAAAAAA", "--dice", "2", "1"], capsys
    )
    assert status == 0 and len(out.splitlines()) == 15
    status, out, _ = _run(["show", "--position-id", OPENING + ":QYkqASAAIAAA"], capsys)
    assert status == 0 and "9-point match" in out
