"""``door tournament create`` with the clock (time per move, bank, weekends off), ``door
tournament show`` showing it, and ``door tournament edit`` before the start (and its
refusal after)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.tournaments.serverlib import door, write_config


def create(data: Path, config: Path, *extra: str) -> str:
    made = door(
        data, config, "tournament", "create", "--name", "Winter cup", "--game", "backgammon",
        "--format", "knockout", "--size", "8", *extra,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def shown(data: Path, config: Path, tid: str) -> dict[str, object]:
    out = door(data, config, "tournament", "show", tid, "--json")
    assert out.returncode == 0, out.stderr
    data_: dict[str, object] = json.loads(out.stdout)
    return data_


def test_create_keeps_the_bank_and_weekends_off_and_show_tells_them(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    tid = create(tmp_path, config, "--deadline-hours", "48", "--bank-days", "5", "--weekends-off")
    assert shown(tmp_path, config, tid)["clock"] == {
        "move_hours": 48, "bank_days": 5, "weekends_off": True,
    }  # fmt: skip
    text = door(tmp_path, config, "tournament", "show", tid).stdout
    assert "clock: 2d a move, bank 5d, weekends off" in text


def test_create_refuses_a_bank_over_sixty_days_and_makes_nothing(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    out = door(
        tmp_path, config, "tournament", "create", "--name", "Long", "--game", "backgammon",
        "--format", "knockout", "--size", "4", "--bank-days", "61",
    )  # fmt: skip
    assert out.returncode == 1
    assert "the time bank must be from 0 to 60 days" in out.stderr
    assert "Long" not in door(tmp_path, config, "tournament", "list").stdout


def test_edit_changes_name_size_start_time_and_clock_before_the_start(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    tid = create(tmp_path, config, "--bank-days", "3")
    out = door(
        tmp_path, config, "tournament", "edit", tid, "--name", "Spring cup", "--size", "16",
        "--start-at", "2031-03-01T18:00", "--weekends-off", "--match-length", "3",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    after = shown(tmp_path, config, tid)
    assert (after["name"], after["size"], after["status"]) == ("Spring cup", 16, "open")
    # the bank given at creation stays; only weekends off is new
    assert after["clock"] == {"move_hours": 168, "bank_days": 3, "weekends_off": True}
    text = door(tmp_path, config, "tournament", "show", tid).stdout
    assert "starts at 2031-03-01T18:00:00+00:00" in text
    listed = door(tmp_path, config, "tournament", "list").stdout
    assert "Spring cup" in listed and "Winter cup" not in listed


def started_by_a_sweep(data: Path) -> None:
    """What a running ``door serve`` does within a sweep: start the tournaments due."""
    from door.games.registry import build_registry
    from door.services.clock import SystemClock
    from door.services.games import GameService
    from door.services.notify import LocalHub
    from door.services.tournaments.service import Tournaments
    from door.store.db import Database

    async def sweep() -> None:
        db = Database(f"sqlite+aiosqlite:///{(data / 'door.sqlite3').resolve()}")
        try:
            clock = SystemClock()
            tours = Tournaments(db, GameService(db, build_registry(), LocalHub(), clock), clock)
            assert await tours.sweep() >= 1
        finally:
            await db.dispose()

    asyncio.run(sweep())


def test_edit_of_a_started_tournament_is_refused_with_a_non_zero_status(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    tid = create(tmp_path, config, "--fill-with-bots", "bg-beginner")
    started_by_a_sweep(tmp_path)
    assert shown(tmp_path, config, tid)["status"] == "running"
    out = door(tmp_path, config, "tournament", "edit", tid, "--name", "Other", "--size", "4")
    assert out.returncode == 1
    assert "door tournament edit: a tournament can be changed only before it starts" in out.stderr
    after = shown(tmp_path, config, tid)
    assert (after["name"], after["size"]) == ("Winter cup", 8)


def test_edit_of_no_such_tournament_says_so(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    out = door(tmp_path, config, "tournament", "edit", "999", "--size", "4")
    assert out.returncode == 1 and "there is no tournament 999" in out.stderr


def test_edit_refuses_a_start_time_that_is_not_one(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    tid = create(tmp_path, config)
    out = door(tmp_path, config, "tournament", "edit", tid, "--start-at", "next tuesday")
    assert out.returncode == 1 and "--start-at must be an ISO time" in out.stderr


def test_a_clock_edit_of_one_part_keeps_a_change_made_while_it_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another sysop sets the time per move to a day right after this edit (only
    ``--bank-days``) first reads the tournament: both changes stay."""
    from dataclasses import replace

    from door.cli import main
    from door.services.tournaments.service import Tournaments
    from door.store.records import TournamentRecord
    from door.store.repository import Repository

    config = write_config(tmp_path)
    tid = create(tmp_path, config, "--bank-days", "3")
    show = Tournaments.show
    raced: list[int] = []

    def a_day_a_move(repo: Repository) -> None:
        tr = repo.tournaments()
        t = tr.lock(int(tid))
        assert isinstance(t, TournamentRecord)
        clock = dict(t.options["clock"])  # type: ignore[arg-type]
        clock["move_s"] = 86400
        options = {**t.options, "clock": clock, "deadline_hours": 24}
        tr.save(replace(t, options=options, version=t.version + 1), t.version)

    async def racing_show(self: Tournaments, shown_tid: int) -> object:
        view = await show(self, shown_tid)
        if not raced:
            raced.append(shown_tid)
            await self.db.transact(a_day_a_move)
        return view

    monkeypatch.setattr(Tournaments, "show", racing_show)
    status = main(["tournament", "edit", tid, "--bank-days", "5",
                   "--config", str(config), "--data-dir", str(tmp_path)])  # fmt: skip
    assert status == 0 and raced
    assert shown(tmp_path, config, tid)["clock"] == {
        "move_hours": 24, "bank_days": 5, "weekends_off": False,
    }  # fmt: skip


def test_a_clock_edit_of_one_part_refuses_a_bank_over_sixty_days(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    tid = create(tmp_path, config, "--bank-days", "3")
    out = door(tmp_path, config, "tournament", "edit", tid, "--bank-days", "61")
    assert out.returncode == 1
    assert "the time bank must be from 0 to 60 days" in out.stderr
    assert shown(tmp_path, config, tid)["clock"] == {
        "move_hours": 168, "bank_days": 3, "weekends_off": False,
    }  # fmt: skip
