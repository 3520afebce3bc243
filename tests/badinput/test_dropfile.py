"""Drop files as broken BBSs (or people) write them: truncated, empty, huge, binary, with
escapes in the name. The reader answers with a :class:`DropFileError` that says what is
wrong, or with a caller whose name is safe to show; ``door local`` says so and exits 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from door.net.dropfile import MAX_BYTES, DropFileError, parse_dropfile, read_dropfile

ROOT = Path(__file__).resolve().parents[2]

DOOR32 = ["2", "5", "38400", "Mystic 1.12", "17", "Jane Doe", "Zorro", "100", "45", "1", "3"]


def write(path: Path, lines: list[str], eol: str = "\r\n") -> Path:
    path.write_bytes((eol.join(lines) + eol).encode("cp437"))
    return path


def test_door32_cut_off_before_the_names_says_which_line_is_missing(tmp_path: Path) -> None:
    with pytest.raises(DropFileError, match=r"DOOR32\.SYS has no user alias \(line 7\)"):
        read_dropfile(write(tmp_path / "door32.sys", DOOR32[:3]))


def test_door_sys_cut_off_before_the_name_says_so(tmp_path: Path) -> None:
    lines = ["COM0:", "38400", "8", "1", "38400"]
    with pytest.raises(DropFileError, match=r"DOOR\.SYS has no user name \(line 10\)"):
        read_dropfile(write(tmp_path / "DOOR.SYS", lines))


def test_dorinfo_cut_off_before_the_caller_says_so(tmp_path: Path) -> None:
    lines = ["Dark Realms BBS", "SYSOP", "", "COM0", "38400 BAUD,N,8,1"]
    with pytest.raises(DropFileError, match="DORINFO has no caller name"):
        read_dropfile(write(tmp_path / "DORINFO1.DEF", lines))


def test_a_drop_file_cut_mid_line_keeps_what_is_there(tmp_path: Path) -> None:
    path = tmp_path / "door32.sys"
    path.write_bytes(("\r\n".join(DOOR32[:6]) + "\r\nZor").encode("cp437"))
    drop = read_dropfile(path)
    assert drop.alias == "Zor" and drop.minutes_left is None


def test_an_empty_drop_file_is_refused(tmp_path: Path) -> None:
    for content in (b"", b"\r\n\r\n   \r\n"):
        path = tmp_path / "door32.sys"
        path.write_bytes(content)
        with pytest.raises(DropFileError, match="empty"):
            read_dropfile(path)


def test_a_huge_drop_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "door32.sys"
    path.write_bytes(b"2\r\n" * (MAX_BYTES // 3 + 10))
    with pytest.raises(DropFileError, match="too large"):
        read_dropfile(path)


def test_a_directory_given_as_the_drop_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DropFileError, match="directory"):
        read_dropfile(tmp_path)


def test_escapes_and_control_characters_in_the_alias_are_removed(tmp_path: Path) -> None:
    lines = DOOR32.copy()
    lines[6] = "\x1b[2J\x1b[31mZo\x00rro\x07\x08"
    drop = read_dropfile(write(tmp_path / "door32.sys", lines))
    assert drop.alias.isprintable() and "\x1b" not in drop.alias
    assert "Zorro" in drop.alias


def test_a_number_field_with_garbage_is_taken_as_unknown(tmp_path: Path) -> None:
    lines = DOOR32.copy()
    lines[8] = "forty-five"  # minutes left
    lines[10] = "\x00\x00"  # node
    drop = read_dropfile(write(tmp_path / "door32.sys", lines))
    assert drop.minutes_left is None and drop.node is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=4000), name=st.sampled_from(["door32.sys", "DOOR.SYS",
                                                            "DORINFO1.DEF", "drop.txt"]))
def test_any_bytes_give_a_clear_error_or_a_printable_caller(data: bytes, name: str) -> None:
    try:
        drop = parse_dropfile(data.decode("cp437"), name)
    except DropFileError as exc:
        assert str(exc).isprintable() and str(exc)
        return
    assert drop.alias and drop.alias.isprintable()


@settings(max_examples=100, deadline=None)
@given(cut=st.integers(min_value=0, max_value=60), eol=st.sampled_from(["\r\n", "\n", "\r"]))
def test_every_truncation_of_a_real_door32_is_handled(cut: int, eol: str) -> None:
    text = eol.join(DOOR32) + eol
    try:
        drop = parse_dropfile(text[:cut], "door32.sys")
    except DropFileError as exc:
        assert str(exc).isprintable()
        return
    assert drop.alias.isprintable() and drop.alias


def test_door_local_with_a_truncated_drop_file_exits_2_with_the_reason(tmp_path: Path) -> None:
    drop = write(tmp_path / "door32.sys", DOOR32[:2])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "door", "local", "--data-dir", str(tmp_path / "data"),
         "--dropfile", str(drop)],
        capture_output=True, env=env, cwd=str(ROOT), timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert b"DOOR32.SYS has no user alias" in done.stderr
    assert b"Traceback" not in done.stderr
    assert not (tmp_path / "data" / "door.sqlite3").exists()  # refused before any set-up
