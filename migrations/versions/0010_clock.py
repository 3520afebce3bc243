"""the correspondence clock: time banks, weekends off, vacations, players' time zones

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02

The clock of issue 18 (door/services/timecontrol.py). Its options are columns of
``games``, not keys of ``games.options``: that JSON is the rules' own options (each
game's ``validate_options`` owns it, and the log replays from it), while the clock is
the server's, read by the sweeper and the lobby with real types and a server default
that keeps every existing game exactly as it was (no bank, weekends on).

- ``games.bank_s``: each seat's bank to begin with, seconds (0: none);
  ``games.weekends_off``; ``games.turn_started_at``: when the current turn began (the
  deadline is worked out again from it when the mover's vacation or zone changes;
  filled for running games from their deadline less their time per move);
  ``games.move_deadline``: when the move's own time runs out and the bank begins.
- ``seats.bank_s``: the seat's bank left, seconds.
- ``users.time_zone``: the player's IANA zone, NULL for the server's.
- ``vacations``: (user, starts_at, ends_at), indexed by (user_id, ends_at): the clock
  reads a player's vacations that end after a turn began.

``games.deadline`` keeps its meaning, the instant the timeout applies, so the sweeper's
query and its index ``ix_games_status_deadline`` are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import sqlalchemy as sa
from alembic import op

from door.store.models import UTCDateTime

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMN, not batch mode: recreating ``games`` on SQLite would cascade-delete
    # every seat and event (see 0006)
    op.add_column("users", sa.Column("time_zone", sa.String(length=64), nullable=True))
    op.add_column(
        "games", sa.Column("bank_s", sa.Integer(), server_default=sa.text("0"), nullable=False)
    )
    op.add_column(
        "games",
        sa.Column("weekends_off", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.add_column(
        "games", sa.Column("turn_started_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column(
        "games", sa.Column("move_deadline", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column(
        "seats", sa.Column("bank_s", sa.Integer(), server_default=sa.text("0"), nullable=False)
    )
    op.create_table(
        "vacations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_vacations_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vacations")),
    )  # fmt: skip
    op.create_index("ix_vacations_user_id_ends_at", "vacations", ["user_id", "ends_at"])
    # a running game's turn began one time-per-move before its deadline, which is its
    # move deadline too (no bank) (read and written
    # through the model's column type, which stores times as each backend does) one time-per-move before its deadline
    games = sa.table(
        "games",
        sa.column("status", sa.String()),
        sa.column("deadline", UTCDateTime()),
        sa.column("deadline_hours", sa.Integer()),
        sa.column("turn_started_at", UTCDateTime()),
        sa.column("move_deadline", UTCDateTime()),
        sa.column("id", sa.Integer()),
    )
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(games.c.id, games.c.deadline, games.c.deadline_hours).where(
            sa.and_(games.c.status == "active", games.c.deadline.is_not(None))
        )
    ).all()
    for game_id, deadline, hours in rows:
        bind.execute(
            games.update()
            .where(games.c.id == game_id)
            .values(turn_started_at=deadline - timedelta(hours=hours), move_deadline=deadline)
        )


def downgrade() -> None:
    op.drop_index("ix_vacations_user_id_ends_at", table_name="vacations")
    op.drop_table("vacations")
    op.drop_column("seats", "bank_s")
    op.drop_column("games", "move_deadline")
    op.drop_column("games", "turn_started_at")
    op.drop_column("games", "weekends_off")
    op.drop_column("games", "bank_s")
    op.drop_column("users", "time_zone")
