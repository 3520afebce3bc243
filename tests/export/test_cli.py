"""``door selfplay`` and ``door export`` as a sysop runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from door.cli import main


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("door-data")
    folder.chmod(0o700)
    return folder


def selfplay(capsys: pytest.CaptureFixture[str], data_dir: Path, *args: str) -> int:
    status = main(["selfplay", "--data-dir", str(data_dir), *args])
    out = capsys.readouterr().out
    assert status == 0, out
    return int(out.strip().splitlines()[-1])


def export(capsys: pytest.CaptureFixture[str], data_dir: Path, *args: str) -> tuple[int, str, str]:
    status = main(["export", "--data-dir", str(data_dir), *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_selfplay_plays_a_backgammon_match_to_its_end_and_prints_its_number_last(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    game_id = selfplay(capsys, data_dir, "--game", "backgammon", "--match-length", "1",
                       "--level", "bg-beginner", "--seed", "3")  # fmt: skip
    status, out, _ = export(capsys, data_dir, str(game_id), "--format", "json")
    record = json.loads(out)
    assert status == 0 and record["status"] == "finished" and record["outcome"]["winners"]
    assert record["players"] == ["bg-beginner", "bg-beginner"]


def test_export_writes_mat_for_backgammon_unless_told_otherwise(
    capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path
) -> None:
    game_id = selfplay(capsys, data_dir, "--game", "backgammon", "--match-length", "1",
                       "--seed", "4", "-q")  # fmt: skip
    status, out, _ = export(capsys, data_dir, str(game_id))
    assert status == 0 and "\n 1 point match\n" in out
    target = tmp_path / "g.sgf"
    status, out, err = export(capsys, data_dir, f"#{game_id}", "-f", "sgf", "-o", str(target))
    assert status == 0 and out == "" and str(target) in err
    assert target.read_text(encoding="utf-8").startswith("(;FF[4]GM[6]")


def test_export_writes_text_for_spectrangle_unless_told_otherwise(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    game_id = selfplay(capsys, data_dir, "--game", "spectrangle", "--players", "3",
                       "--seed", "5")  # fmt: skip
    status, out, _ = export(capsys, data_dir, str(game_id))
    assert status == 0 and out.startswith("; Spectrangle, door game")
    assert "; P3 spectrangle-greedy" in out


def test_a_missing_game_a_bad_number_and_a_format_of_the_other_game_exit_2(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    game_id = selfplay(capsys, data_dir, "--game", "spectrangle", "--seed", "6", "-q")
    assert export(capsys, data_dir, "9999")[::2] == (2, "door export: there is no game 9999\n")
    assert export(capsys, data_dir, "twelve")[0] == 2
    status, _, err = export(capsys, data_dir, str(game_id), "-f", "sgf")
    assert status == 2 and f"sgf is a backgammon format; game {game_id} is Spectrangle" in err
    with pytest.raises(SystemExit) as bad_format:
        main(["export", "--data-dir", str(data_dir), str(game_id), "-f", "pgn"])
    assert bad_format.value.code == 2


def test_selfplay_refuses_a_level_that_is_not_one(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    assert main(["selfplay", "--data-dir", str(data_dir), "--game", "backgammon",
                 "--level", "grandmaster"]) == 2  # fmt: skip
    assert "there is no computer player 'grandmaster'" in capsys.readouterr().err


def test_export_without_a_database_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = export(capsys, tmp_path, "1")
    assert status == 2 and out == "" and err.startswith("door export: ")
