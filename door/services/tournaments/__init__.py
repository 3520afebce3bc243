"""Pure tournament logic: pairings, standings and the ladder (stdlib only, deterministic).

Callers record every table `pair` returns as a GameResult once played, including a bye
(a 1-seat table) as a 1-seat result, so that standings and later rounds can be
recomputed from the games alone.
"""

from door.services.tournaments.formats import make_format
from door.services.tournaments.knockout import Knockout, bracket_order
from door.services.tournaments.ladder import Ladder
from door.services.tournaments.model import Entrant, Format, GameResult, Standing, Table
from door.services.tournaments.roundrobin import RoundRobin
from door.services.tournaments.swiss import Swiss

__all__ = [
    "Entrant",
    "Format",
    "GameResult",
    "Knockout",
    "Ladder",
    "RoundRobin",
    "Standing",
    "Swiss",
    "Table",
    "bracket_order",
    "make_format",
]
