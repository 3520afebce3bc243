"""Drop files: DOOR32.SYS, DOOR.SYS and DORINFOx.DEF as real BBSs write them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from door.net.dropfile import DropFileError, parse_dropfile, read_dropfile

ROOT = Path(__file__).resolve().parents[2]

DOOR32 = [
    "2", "5", "38400", "Mystic 1.12", "17", "Jane Doe", "Zorro", "100", "45", "1", "3",
]  # fmt: skip

DORINFO = [
    "Dark Realms BBS", "SYSOP", "NAME", "COM0", "38400 BAUD,N,8,1", "0", "John", "Smith",
    "Springfield, IL", "2", "30", "546", "-1",
]  # fmt: skip


def doorsys_lines() -> list[str]:
    lines = ["COM0:", "38400", "8", "2", "38400", "Y", "N", "Y", "Y", "Joe Caller",
             "Springfield", "555-1212", "555-1212", "NOPE", "30", "12", "01/01/26",
             "2700", "45", "GR", "25", "N", "1", "1", "12/31/99", "42"]  # fmt: skip
    lines += ["X", "0", "0", "0", "9999", "01/01/80", "C:\\BBS", "C:\\BBS\\GEN", "Sysop",
              "Joey", "00:00", "Y", "N", "Y", "7", "0", "01/01/26", "12:00", "11:00",
              "9999", "0", "0", "0", "None", "0", "0"]  # fmt: skip
    return lines


def write(tmp: Path, name: str, lines: list[str], eol: str = "\r\n") -> Path:
    path = tmp / name
    path.write_bytes((eol.join(lines) + eol).encode("cp437"))
    return path


@pytest.mark.parametrize("eol", ["\r\n", "\n"])
def test_door32_gives_alias_time_and_emulation(tmp_path: Path, eol: str) -> None:
    drop = read_dropfile(write(tmp_path, "door32.sys", DOOR32, eol))
    assert (drop.format, drop.alias, drop.real_name) == ("door32", "Zorro", "Jane Doe")
    assert (drop.minutes_left, drop.ansi, drop.node, drop.user_number) == (45, True, 3, 17)


def test_door32_with_ascii_emulation_is_not_ansi(tmp_path: Path) -> None:
    lines = DOOR32.copy()
    lines[9] = "0"
    assert read_dropfile(write(tmp_path, "DOOR32.SYS", lines)).ansi is False


def test_door32_missing_trailing_lines_is_tolerated(tmp_path: Path) -> None:
    drop = read_dropfile(write(tmp_path, "door32.sys", DOOR32[:7]))
    assert drop.alias == "Zorro"
    assert drop.minutes_left is None
    assert drop.ansi is True


@pytest.mark.parametrize("eol", ["\r\n", "\n"])
def test_door_sys_52_lines_gives_alias_minutes_graphics_rows(tmp_path: Path, eol: str) -> None:
    drop = read_dropfile(write(tmp_path, "DOOR.SYS", doorsys_lines(), eol))
    assert (drop.format, drop.alias, drop.real_name) == ("doorsys", "Joey", "Joe Caller")
    assert (drop.minutes_left, drop.ansi, drop.rows, drop.node) == (45, True, 25, 2)


def test_door_sys_original_31_lines_uses_the_full_name(tmp_path: Path) -> None:
    drop = read_dropfile(write(tmp_path, "door.sys", doorsys_lines()[:31]))
    assert drop.alias == "Joe Caller"


def test_door_sys_ng_means_no_ansi(tmp_path: Path) -> None:
    lines = doorsys_lines()
    lines[19] = "NG"
    assert read_dropfile(write(tmp_path, "DOOR.SYS", lines)).ansi is False


@pytest.mark.parametrize("graphics", ["1", "2"])
def test_dorinfo_ansi_in_both_conventions(tmp_path: Path, graphics: str) -> None:
    lines = DORINFO.copy()
    lines[9] = graphics
    drop = read_dropfile(write(tmp_path, "DORINFO1.DEF", lines))
    assert (drop.format, drop.alias, drop.ansi, drop.minutes_left) == (
        "dorinfo", "John Smith", True, 546
    )
    assert drop.node == 1


def test_dorinfo_single_word_handle_with_blank_last_name(tmp_path: Path) -> None:
    lines = DORINFO.copy()
    lines[7] = ""
    assert read_dropfile(write(tmp_path, "dorinfo3.def", lines, "\n")).alias == "John"


def test_format_is_recognised_by_content_under_another_name(tmp_path: Path) -> None:
    assert read_dropfile(write(tmp_path, "caller.txt", DOOR32)).format == "door32"
    assert read_dropfile(write(tmp_path, "x.dat", doorsys_lines())).format == "doorsys"
    assert read_dropfile(write(tmp_path, "y.dat", DORINFO)).format == "dorinfo"


def test_cp437_names_are_decoded(tmp_path: Path) -> None:
    lines = DOOR32.copy()
    lines[6] = "Zoë"
    assert read_dropfile(write(tmp_path, "door32.sys", lines)).alias == "Zoë"


def test_missing_file_has_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DropFileError, match="does not exist"):
        read_dropfile(tmp_path / "door32.sys")


def test_unreadable_file_has_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, "door32.sys", DOOR32)
    path.chmod(0)
    if os.geteuid() == 0:  # root reads anything: make open() fail the way it would for others

        def denied(*args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr("builtins.open", denied)
    with pytest.raises(DropFileError, match="permission denied"):
        read_dropfile(path)


def test_a_path_through_a_file_has_a_clear_error(tmp_path: Path) -> None:
    path = write(tmp_path, "door32.sys", DOOR32)
    with pytest.raises(DropFileError, match="cannot be read"):
        read_dropfile(path / "door32.sys")


def test_a_directory_has_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DropFileError, match="directory"):
        read_dropfile(tmp_path)


def test_empty_file_has_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "door32.sys").write_bytes(b"\r\n\r\n")
    with pytest.raises(DropFileError, match="empty"):
        read_dropfile(tmp_path / "door32.sys")


def test_unknown_content_is_refused_by_name() -> None:
    with pytest.raises(DropFileError, match=r"not DOOR32\.SYS"):
        parse_dropfile("hello\nworld\n", "notes.txt")


def test_door32_without_any_name_is_refused() -> None:
    with pytest.raises(DropFileError, match="alias"):
        parse_dropfile("2\r\n5\r\n38400\r\nBBS\r\n1\r\n\r\n\r\n", "door32.sys")


HUGE = "1" * 400
BEYOND_INT_PARSING = "9" * 5000  # longer than Python's int() reads from text

NUMBER_FIELDS = [
    # (file name, lines, 1-based line, what the message calls it)
    ("door32.sys", DOOR32, 5, "user number"),
    ("door32.sys", DOOR32, 9, "time left, minutes"),
    ("door32.sys", DOOR32, 10, "emulation"),
    ("door32.sys", DOOR32, 11, "node"),
    ("DOOR.SYS", doorsys_lines(), 4, "node"),
    ("DOOR.SYS", doorsys_lines(), 19, "time left, minutes"),
    ("DOOR.SYS", doorsys_lines(), 21, "screen rows"),
    ("DOOR.SYS", doorsys_lines(), 26, "user number"),
    ("DORINFO1.DEF", DORINFO, 10, "graphics"),
    ("DORINFO1.DEF", DORINFO, 12, "time left, minutes"),
]


@pytest.mark.parametrize(
    "value", [HUGE, BEYOND_INT_PARSING, "-" + HUGE], ids=["400 digits", "5000 digits", "-400"]
)
@pytest.mark.parametrize(
    ("name", "lines", "number", "what"),
    NUMBER_FIELDS,
    ids=[f"{name}:{number}" for name, _, number, _ in NUMBER_FIELDS],
)
def test_a_number_out_of_range_is_refused_naming_its_line(
    tmp_path: Path, name: str, lines: list[str], number: int, what: str, value: str
) -> None:
    bad = lines.copy()
    bad[number - 1] = value
    with pytest.raises(DropFileError, match=rf"line {number} \({what}\) must be -?\d+ to \d+"):
        read_dropfile(write(tmp_path, name, bad))


def test_door_sys_time_left_in_seconds_out_of_range_is_refused(tmp_path: Path) -> None:
    lines = doorsys_lines()
    lines[18] = ""  # no minutes: the seconds on line 18 are used
    lines[17] = HUGE
    with pytest.raises(DropFileError, match=r"line 18 \(time left, seconds\)"):
        read_dropfile(write(tmp_path, "DOOR.SYS", lines))


def test_the_largest_time_left_a_bbs_writes_is_taken(tmp_path: Path) -> None:
    lines = DOOR32.copy()
    lines[8] = "32767"  # a 16-bit BBS's "unlimited"
    assert read_dropfile(write(tmp_path, "door32.sys", lines)).minutes_left == 32767


def test_door_local_with_a_400_digit_time_left_exits_2_with_the_reason(tmp_path: Path) -> None:
    lines = DOOR32.copy()
    lines[8] = HUGE
    drop = write(tmp_path, "door32.sys", lines)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "door", "local", "--data-dir", str(tmp_path / "data"),
         "--dropfile", str(drop)],
        capture_output=True, env=env, cwd=str(ROOT), timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert b"line 9 (time left, minutes)" in done.stderr
    assert b"Traceback" not in done.stderr
