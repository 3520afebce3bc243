"""games(status, updated_at) index for the game lists

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01

The lists of running and finished games show the newest first within a status
(``ORDER BY updated_at DESC … LIMIT``); without this index every call sorted every game
of that status.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index("ix_games_status_updated_at", ["status", "updated_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_status_updated_at")
