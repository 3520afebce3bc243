"""kill -9 under load: 20 telnet and 4 SSH players play backgammon by turns for a few
seconds, the server is killed mid-typing, restarted on the same data directory, and then:
nothing a player saw acknowledged is missing, ``door check`` is clean, the server takes
connections again promptly, and every player logs back in to the same game and plays on.

The scenario runs once (about 30 s) and each test checks one of its verdicts.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from crash import crash_run

RESTART_LIMIT_S = 5.0
"""The target is 2 s (bench/crash.py reports ``restart_within_2s``); the test allows more
because CI machines run the rest of the suite beside it."""


@pytest.fixture(scope="module")
def crash() -> dict[str, Any]:
    result = asyncio.run(
        crash_run(telnet=20, ssh=4, seconds=4.0, resume_seconds=4.0, gap=(0.15, 0.5))
    )
    print(result)
    return result


def test_players_made_moves_before_the_kill(crash: dict[str, Any]) -> None:
    assert crash["acked_before_kill"] > 0
    assert crash["errors"] == 0, crash["first_errors"]


def test_no_acknowledged_move_is_lost_to_kill_9(crash: dict[str, Any]) -> None:
    assert crash["lost_moves"] == 0


def test_door_check_is_clean_after_the_crash(crash: dict[str, Any]) -> None:
    assert crash["door_check_rc"] == 0, crash["door_check"]


def test_the_restarted_server_accepts_connections_promptly(crash: dict[str, Any]) -> None:
    assert crash["restart_s"] <= RESTART_LIMIT_S


def test_every_player_logs_in_again_and_reaches_their_own_game(crash: dict[str, Any]) -> None:
    assert crash["logged_in_again"] == crash["clients"]
    assert crash["resumed"] == crash["clients"]


def test_play_goes_on_after_the_restart_and_loses_nothing(crash: dict[str, Any]) -> None:
    assert crash["moves_after_restart"] > 0
    assert crash["lost_moves_at_end"] == 0
