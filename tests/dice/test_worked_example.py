"""The worked example of docs/fair-dice.md is what door computes, and what a few lines of
hashlib/hmac written from the page's text compute too: the numbers are read from the page,
so the page cannot drift from the code."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from door.games import fairdice
from door.games.registry import build_registry
from door.games.spectrangle.pieces import PIECE_COUNT, piece

DOC = Path(__file__).resolve().parents[2] / "docs" / "fair-dice.md"


@dataclass(frozen=True)
class Example:
    """One ``text`` block of the page that starts with ``game id``."""

    game_id: int
    k: int
    message: str
    digest: str
    bytes_read: list[str]
    dice: str | None
    draw: str | None


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", DOC.read_text("utf-8"), re.S | re.M)


def _fields(block: str) -> list[tuple[str, str]]:
    out = []
    for line in block.splitlines():
        m = re.match(r"(game id|[a-zA-Z]+)\s+(.*)$", line)
        assert m, f"a line of the worked example that is not 'label value': {line!r}"
        out.append((m.group(1), m.group(2).strip()))
    return out


def _header() -> tuple[bytes, str, list[str]]:
    (block,) = [b for b in _blocks("text") if b.startswith("seed")]
    f = dict(_fields(block))
    return bytes.fromhex(f["seed"]), f["commitment"], json.loads(f["words"])


def _examples() -> list[Example]:
    found = []
    for block in _blocks("text"):
        if not block.startswith("game id"):
            continue
        fields = _fields(block)
        one = {label: value for label, value in fields if label != "byte"}
        found.append(
            Example(
                game_id=int(one["game id"]),
                k=int(one["k"]),
                message=one["message"],
                digest=one["D"],
                bytes_read=[value for label, value in fields if label == "byte"],
                dice=one.get("dice"),
                draw=one.get("draw"),
            )
        )
    return found


def _piece_table() -> list[str]:
    text = DOC.read_text("utf-8")
    start = text.index("The piece table's order is:")
    block = text[start:].split("\n\n")[1]
    return block.split()


# --- an independent implementation, from the page's words alone ----------------------


def _indep_message(game_id: int, k: int, words: list[str]) -> bytes:
    parts = ["door-dice-v1", str(game_id), str(k), *words]
    return b"\x00".join(unicodedata.normalize("NFC", p).encode("utf-8") for p in parts)


def _indep_stream(seed: bytes, message: bytes) -> Iterator[int]:
    block = hmac.new(seed, message, hashlib.sha256).digest()
    while True:
        yield from block
        block = hashlib.sha256(block).digest()


def _indep_choices(stream: Iterator[int], sizes: list[int]) -> tuple[list[int], list[str]]:
    """The choices and the page's ``byte`` lines for choices among each of ``sizes``."""
    chosen, lines = [], []
    for m in sizes:
        limit = 256 - 256 % m
        for b in stream:
            if b >= limit:
                lines.append(f"{b:02x} ({b}, dropped: ≥ {limit})")
                continue
            lines.append(f"{b:02x} ({b}, kept: {b} mod {m} = {b % m})")
            chosen.append(b % m)
            break
    return chosen, lines


# --- the tests -----------------------------------------------------------------------


def test_the_page_has_the_worked_example() -> None:
    examples = _examples()
    assert [(e.game_id, e.k) for e in examples if e.dice] == [(12, 0), (12, 1), (12, 2), (12, 18)]
    assert [(e.game_id, e.k) for e in examples if e.draw] == [(13, 0)]


def test_the_commitment_is_the_sha256_of_the_seed() -> None:
    seed, commitment, _ = _header()
    assert fairdice.commitment(seed) == commitment == hashlib.sha256(seed).hexdigest()


def test_the_piece_order_on_the_page_is_the_piece_table() -> None:
    assert _piece_table() == [piece(i).name for i in range(PIECE_COUNT)]


@pytest.mark.parametrize("example", _examples(), ids=lambda e: f"game{e.game_id}-k{e.k}")
def test_the_message_and_D_are_what_door_and_hmac_compute(example: Example) -> None:
    seed, _, words = _header()
    message = bytes.fromhex(example.message.replace(" ", ""))
    assert example.message.split(" 00 ") == [
        p.hex() for p in fairdice.event_message(example.game_id, example.k, words).split(b"\0")
    ]
    assert message == fairdice.event_message(example.game_id, example.k, words)
    assert message == _indep_message(example.game_id, example.k, words)
    digest = fairdice.event_digest(seed, example.game_id, example.k, words)
    assert example.digest == digest.hex()
    assert example.digest == hmac.new(seed, message, hashlib.sha256).hexdigest()


@pytest.mark.parametrize(
    "example", [e for e in _examples() if e.dice], ids=lambda e: f"k{e.k}"
)
def test_the_bytes_read_and_the_dice_are_what_door_and_hmac_compute(example: Example) -> None:
    seed, _, words = _header()
    chosen, lines = _indep_choices(
        _indep_stream(seed, _indep_message(example.game_id, example.k, words)), [6, 6]
    )
    assert example.bytes_read == lines
    assert example.dice == f"{chosen[0] + 1}-{chosen[1] + 1}"
    door_dice = fairdice.dice(seed, example.game_id, example.k, words)
    assert example.dice == f"{door_dice[0]}-{door_dice[1]}"
    rules = build_registry()["backgammon"]
    if example.k == 0:  # the opening roll, through the rules' own draw
        opening = rules.chance_from_bytes(
            rules.new_game(2, {}), fairdice.event_stream(seed, example.game_id, 0, words)
        )
        assert example.dice == f"{opening[0]}-{opening[1]}"


def test_the_example_shows_a_dropped_byte() -> None:
    assert any("dropped" in line for e in _examples() for line in e.bytes_read)


def test_the_spectrangle_draw_is_what_the_rules_and_hmac_compute() -> None:
    seed, _, words = _header()
    (example,) = [e for e in _examples() if e.draw]
    rules = build_registry()["spectrangle"]
    state = rules.new_game(2, {})
    event = rules.chance_from_bytes(
        state, fairdice.event_stream(seed, example.game_id, example.k, words)
    )
    data = rules.chance_to_json(event)
    shown = ", ".join(f"{n} (seat {s})" for n, s in zip(data["draw"], data["seats"], strict=True))
    assert example.draw == shown
    # independently: choices among the bag in the page's table order, one piece after another
    bag = _piece_table()
    chosen, lines = _indep_choices(
        _indep_stream(seed, _indep_message(example.game_id, example.k, words)), [36, 35]
    )
    assert example.bytes_read == lines
    drawn = [bag.pop(c) for c in chosen]
    assert example.draw == f"{drawn[0]} (seat 0), {drawn[1]} (seat 1)"


def _standalone_checker(tmp_path: Path) -> Path:
    (code,) = _blocks("python")
    script = tmp_path / "check_dice.py"
    script.write_text(code, "utf-8")
    return script


def test_the_pages_standalone_checker_is_short_and_stdlib_only() -> None:
    (code,) = _blocks("python")
    assert len(code.splitlines()) <= 20
    imported = re.findall(r"^import (.*)$", code, re.M)
    assert imported and all(
        name.strip() in sys.stdlib_module_names for line in imported for name in line.split(",")
    )


def test_the_pages_standalone_checker_accepts_a_played_match(tmp_path: Path) -> None:
    import random

    from tests.dice.records import play_record

    record = play_record(
        "backgammon", bytes(range(32)), 12, ["alice", "bob"], {"match_length": 3},
        random.Random(5),
    )  # fmt: skip
    path = tmp_path / "game12.json"
    path.write_text(json.dumps(record), "utf-8")
    done = subprocess.run(
        [sys.executable, str(_standalone_checker(tmp_path)), str(path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"all {len(record['chance'])} rolls check"


def test_the_pages_standalone_checker_names_a_changed_roll(tmp_path: Path) -> None:
    import random

    from tests.dice.records import play_record

    record = play_record(
        "backgammon", bytes(range(32)), 12, ["alice", "bob"], {"match_length": 1},
        random.Random(6),
    )  # fmt: skip
    record["chance"][3]["dice"][1] = record["chance"][3]["dice"][1] % 6 + 1
    path = tmp_path / "game12.json"
    path.write_text(json.dumps(record), "utf-8")
    done = subprocess.run(
        [sys.executable, str(_standalone_checker(tmp_path)), str(path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    assert "roll k=3: the record says" in done.stderr
