"""blocks, game_chat and game_talk: blocks between players, chat and kibitz in games

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02

Issue 17. ``blocks`` (a player blocks another: nothing the blocked writes reaches the
blocker), ``game_chat`` (each line said in a game, kept for those who come later) and
``game_talk`` (a game whose players opened kibitz to themselves). A note with a move is
stored in the move event's own payload (``note``), so it needs no table of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from door.store.models import UTCDateTime

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "blocks",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("blocked_id", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_blocks_user_id_users"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["blocked_id"], ["users.id"],
                                name=op.f("fk_blocks_blocked_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "blocked_id", name=op.f("pk_blocks")),
    )  # fmt: skip
    op.create_table(
        "game_chat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("channel", sa.String(length=8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"],
                                name=op.f("fk_game_chat_game_id_games"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"],
                                name=op.f("fk_game_chat_user_id_users"), ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_chat")),
    )  # fmt: skip
    with op.batch_alter_table("game_chat", schema=None) as batch_op:
        batch_op.create_index("ix_game_chat_game_id_id", ["game_id", "id"], unique=False)
    op.create_table(
        "game_talk",
        sa.Column("game_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kibitz_open", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"],
                                name=op.f("fk_game_talk_game_id_games"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_talk")),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("game_talk")
    with op.batch_alter_table("game_chat", schema=None) as batch_op:
        batch_op.drop_index("ix_game_chat_game_id_id")
    op.drop_table("game_chat")
    op.drop_table("blocks")
