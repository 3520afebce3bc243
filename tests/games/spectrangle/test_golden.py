"""Golden legal-move counts (data/move_counts.txt, each worked out by hand) and the
reference §5.5 orientation table in full."""

from __future__ import annotations

from pathlib import Path

import pytest

from door.games.spectrangle.pieces import entry_for
from door.games.spectrangle.rules import SpectrangleRules

R = SpectrangleRules()
DATA = Path(__file__).parent / "data"


def _golden() -> list[tuple[bool, int, str, str]]:
    rows = []
    for line in (DATA / "move_counts.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            mirror, count, spn, why = line.split("\t")
            rows.append((mirror == "yes", int(count), spn, why))
    return rows


@pytest.mark.parametrize(("mirror", "count", "spn", "why"), _golden(), ids=lambda v: str(v)[:24])
def test_golden_move_counts(mirror: bool, count: int, spn: str, why: str) -> None:
    moves = R.legal_moves(R.from_id(spn, {"mirror": mirror}))
    assert len(moves) == count, why


@pytest.mark.parametrize(
    ("up", "mirror", "by_rotation"),
    [
        (True, False, ("acb", "bac", "cba")),
        (True, True, ("cab", "bca", "abc")),
        (False, False, ("cab", "abc", "bca")),
        (False, True, ("acb", "cba", "bac")),
    ],
)
def test_board_entries_follow_the_reference_rotation_and_mirror_table(
    up: bool, mirror: bool, by_rotation: tuple[str, str, str]
) -> None:
    for rotation, expected in enumerate(by_rotation):
        assert entry_for("abc", up, rotation, mirror) == expected
