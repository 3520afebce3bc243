"""tournaments, their entries and their rounds' games

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02

Issue 19: tournaments and ladders that run themselves. ``tournament_games`` links each
game to its tournament's round and table; its primary key (tournament, round, table)
is what makes a round's games impossible to create twice.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("min_entrants", sa.Integer(), nullable=False),
        sa.Column("min_rating", sa.Float(), nullable=True),
        sa.Column("bots_allowed", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("rounds_made", sa.Integer(), nullable=False),
        sa.Column("winner_id", sa.Integer(), nullable=True),
        sa.Column("template_id", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("opens_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_tournaments_created_by_users")
        ),
        sa.ForeignKeyConstraint(
            ["template_id"], ["tournaments.id"],
            name=op.f("fk_tournaments_template_id_tournaments"),
        ),
        sa.ForeignKeyConstraint(
            ["winner_id"], ["users.id"], name=op.f("fk_tournaments_winner_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )  # fmt: skip
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index("ix_tournaments_status", ["status", "id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_tournaments_template_id"), ["template_id"], unique=False
        )
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("entered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"],
            name=op.f("fk_tournament_entries_tournament_id_tournaments"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_tournament_entries_user_id_users")
        ),
        sa.PrimaryKeyConstraint("tournament_id", "user_id", name=op.f("pk_tournament_entries")),
    )  # fmt: skip
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_tournament_entries_user_id"), ["user_id"], unique=False
        )
    op.create_table(
        "tournament_games",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round_no", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("table_no", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_tournament_games_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"],
            name=op.f("fk_tournament_games_tournament_id_tournaments"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "round_no", "table_no", name=op.f("pk_tournament_games")
        ),
        sa.UniqueConstraint("game_id", name=op.f("uq_tournament_games_game_id")),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("tournament_games")
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_entries_user_id"))
    op.drop_table("tournament_entries")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournaments_template_id"))
        batch_op.drop_index("ix_tournaments_status")
    op.drop_table("tournaments")
