"""rating_changes: the history of every rating change

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02

One row per player per rated game, written in the transaction that finishes the game
(``door/services/ratings.py`` record_result): the rating before and after, experience,
wins and losses after. ``door check`` replays the finished games in the order of these
rows and compares the result with ``ratings``; games finished before this revision have
no rows and are replayed first, in the order they finished. Nothing is backfilled: the
stored ratings of those games are what they are, and a difference is for ``door check``
to report.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=False),
        sa.Column("rating_after", sa.Float(), nullable=False),
        sa.Column("experience_after", sa.Integer(), nullable=False),
        sa.Column("wins_after", sa.Integer(), nullable=False),
        sa.Column("losses_after", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rating_changes_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_rating_changes_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_changes")),
    )  # fmt: skip
    with op.batch_alter_table("rating_changes", schema=None) as batch_op:
        batch_op.create_index("ix_rating_changes_game_id", ["game_id"], unique=False)
        batch_op.create_index(
            "ix_rating_changes_user_id_kind", ["user_id", "kind", "id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("rating_changes", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_changes_user_id_kind")
        batch_op.drop_index("ix_rating_changes_game_id")
    op.drop_table("rating_changes")
