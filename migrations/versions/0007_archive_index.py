"""games(status, finished_at, id) index for the archive of finished games

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02

The archive lists finished games newest first by when they finished (``ORDER BY
finished_at DESC, id DESC … LIMIT … OFFSET``) and searches them by a day or a range of
days (``finished_at >= … AND finished_at < …``). ``ix_games_status_updated_at`` orders by
the last change, not by the end; without this index every page sorted every finished game.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(
            "ix_games_status_finished_at", ["status", "finished_at", "id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_status_finished_at")
