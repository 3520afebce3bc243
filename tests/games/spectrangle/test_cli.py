"""``door rules spectrangle``: moves for SPN positions and random self-play."""

from __future__ import annotations

import io
import itertools
import subprocess
import sys

import pytest

from door.cli import main
from door.games.spectrangle.rules import SpectrangleRules
from tests.games.spectrangle.util import EMPTY_BOARD

R = SpectrangleRules()
AFTER_TWO = (
    "-/-/-/-/-/-/-/-/-/-/-/YBY5/BGG5/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/- "
    "RRR6,BBY4,YBP3,BRP2|PPY5,RGY3,GRP1,WWW1 5,20 0 26"
)
STUCK = "/".join(["-"] * 12 + ["BGG5"] + ["-"] * 23) + " RRR6,YYY6|BBB6 0,0 0 32"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["rules", "spectrangle", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_prints_every_legal_move_with_its_score_best_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = _run(["moves", "--spn", AFTER_TWO], capsys)
    assert status == 0
    assert out.splitlines() == [
        "BBY4@10:2\t8",
        "YBP3@10:0\t6",
        "YBP3@10:2m\t6",
        "BBY4@19:1\t4",
        "YBP3@19:2\t3",
        "YBP3@19:1m\t3",
    ]


def test_moves_without_mirroring_leaves_out_turned_over_pieces(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _run(["moves", "--no-mirror", "--spn", AFTER_TWO], capsys)
    assert [ln.split("\t")[0] for ln in out.splitlines()] == [
        "BBY4@10:2",
        "YBP3@10:0",
        "BBY4@19:1",
        "YBP3@19:2",
    ]


def test_moves_for_a_stuck_player_prints_pass_and_one_swap_per_piece(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _run(["moves", "--spn", STUCK], capsys)
    assert out.splitlines() == ["pass\t0", "swap RRR6\t0", "swap YYY6\t0"]


def test_moves_count_on_the_opening_position_is_16_ways_on_27_fields(
    capsys: pytest.CaptureFixture[str],
) -> None:
    opening = f"{EMPTY_BOARD} RRR6,GGB5,YBP3,BRP2|YYB5,PPY5,RGY3,WWW1 0,0 0 28"
    _, out, _ = _run(["moves", "--spn", opening], capsys)
    assert len(out.splitlines()) == 16 * 27


def test_a_bad_spn_gets_a_message_and_a_nonzero_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = _run(["moves", "--spn", "nonsense"], capsys)
    assert status == 2 and out == "" and "5 fields" in err


def test_batch_answers_each_line_followed_by_a_blank_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{STUCK}\nbroken\n{STUCK}\n"))
    status, out, _ = _run(["moves", "--batch"], capsys)
    block = "pass\t0\nswap RRR6\t0\nswap YYY6\t0\n\n"
    assert out.startswith(block) and out.endswith(block)
    assert "error: an SPN has 5 fields" in out
    assert status == 1


def test_selfplay_prints_a_valid_spn_per_step_and_the_final_scores(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = _run(["selfplay", "--players", "3", "--seed", "7"], capsys)
    lines = out.splitlines()
    assert status == 0 and lines[-1].startswith("final scores: ")
    states = [R.from_id(ln) for ln in lines[:-1]]
    assert all(len(h) == 4 for h in states[0].hands) and states[0].board_empty
    assert states[-1].is_over
    assert lines[-1] == "final scores: " + ",".join(map(str, states[-1].scores))
    for before, after in itertools.pairwise(states):
        placed = sum(x is not None for x in after.board) - sum(x is not None for x in before.board)
        assert placed in (0, 1)


def test_selfplay_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    _, first, _ = _run(["selfplay", "--players", "2", "--seed", "3"], capsys)
    _, second, _ = _run(["selfplay", "--players", "2", "--seed", "3"], capsys)
    assert first == second


def test_the_door_command_runs_selfplay_as_a_real_process() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "door",
            "rules",
            "spectrangle",
            "selfplay",
            "--players",
            "4",
            "--seed",
            "1",
            "--teams",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("final scores: ")
