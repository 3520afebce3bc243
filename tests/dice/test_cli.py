"""``door verify FILE``: the verdict on standard output; exit 0 when every roll checks, 1
when one does not, 2 when the file is not a readable JSON record."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from door.cli import main
from tests.dice.records import play_record

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def record() -> dict[str, Any]:
    return play_record(
        "backgammon", b"\x2a" * 32, 12, ["alice", ""], {"match_length": 3}, random.Random(7)
    )


def _verify(
    tmp_path: Path, content: str | bytes, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    path = tmp_path / "game.json"
    if isinstance(content, str):
        path.write_text(content, "utf-8")
    else:
        path.write_bytes(content)
    status = main(["verify", str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_good_record_says_all_rolls_check_and_exits_0(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _verify(tmp_path, json.dumps(record), capsys)
    assert status == 0
    assert out == f"all {len(record['chance'])} rolls check\n"


def test_a_changed_roll_is_named_and_exits_1(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    d = record["chance"][17]["dice"]
    old = list(d)
    record["chance"][17]["dice"] = [old[0] % 6 + 1, old[1]]
    status, out, _ = _verify(tmp_path, json.dumps(record), capsys)
    assert status == 1
    lines = out.splitlines()
    assert lines[1] == (
        f"roll k=17: the record says {old[0] % 6 + 1}-{old[1]}, the seed gives {old[0]}-{old[1]}"
    )


def test_a_removed_roll_is_named_and_exits_1(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    del record["chance"][4]
    status, out, _ = _verify(tmp_path, json.dumps(record), capsys)
    assert status == 1
    assert out.splitlines()[1] == "event k=4 is missing"


def test_a_seed_that_is_not_the_committed_one_exits_1(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    record["seed_hex"] = "00" + record["seed_hex"][2:]
    status, out, _ = _verify(tmp_path, json.dumps(record), capsys)
    assert status == 1
    assert out.splitlines()[0] == "the seed does not match the commitment"


def test_a_game_without_a_commitment_says_so_and_exits_1(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    record["commitment_hex"] = None
    record["seed_hex"] = None
    status, out, _ = _verify(tmp_path, json.dumps(record), capsys)
    assert (status, out) == (1, "dice not provable for this game\n")


@pytest.mark.parametrize(
    "garbage",
    ["", "not json {", "[1, 2, 3]", '{"commitment_hex": "ab", "seed_hex": "zz"}', b"\xff\xfe{"],
    ids=["empty", "not-json", "not-an-object", "bad-hex", "not-utf8"],
)
def test_garbage_exits_2_with_a_reason(
    tmp_path: Path, garbage: str | bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _verify(tmp_path, garbage, capsys)
    assert status == 2
    assert out == ""
    assert err.startswith("door verify: ") and len(err.splitlines()) == 1


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["verify", str(tmp_path / "nothing.json")])
    _, err = capsys.readouterr()
    assert status == 2
    assert "cannot read" in err


def test_a_dash_reads_the_record_from_standard_input(record: dict[str, Any]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "door", "verify", "-"],
        input=json.dumps(record), capture_output=True, text=True, check=False, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"all {len(record['chance'])} rolls check\n"


def test_a_good_spectrangle_record_says_all_draws_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = play_record("spectrangle", b"\x2b" * 32, 13, ["a", "b", "c"], {}, random.Random(8))
    status, out, _ = _verify(tmp_path, json.dumps(record), capsys)
    assert (status, out) == (0, f"all {len(record['chance'])} draws check\n")
