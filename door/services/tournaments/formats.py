"""`make_format`: the one way to get a tournament format by name."""

from __future__ import annotations

from door.services.tournaments.knockout import Knockout
from door.services.tournaments.model import Format
from door.services.tournaments.roundrobin import DRAW_LATEST, RoundRobin
from door.services.tournaments.swiss import Swiss


def make_format(
    name: str, *, table_size: int = 2, rounds: int | None = None, draw: int = DRAW_LATEST
) -> Format:
    """knockout (table_size 2 only), roundrobin (2, 3 or 4; ``draw`` picks the table draw
    of 3/4 seats, see :data:`DRAW_LATEST`), swiss (rounds required; 2, or 3/4 for
    Spectrangle, points by placing). Raises ValueError on anything else."""
    if name == "knockout":
        if table_size != 2:
            raise ValueError("a knock-out is played at tables of 2")
        return Knockout()
    if name == "roundrobin":
        return RoundRobin(table_size, draw)
    if name == "swiss":
        if rounds is None:
            raise ValueError("a Swiss needs a number of rounds")
        return Swiss(rounds, table_size)
    raise ValueError(f"unknown tournament format {name!r}")
