"""claims: leases on work that exactly one process may do at a time

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02

Several ``door serve`` processes (or ``door local`` callers on one SQLite file) share a
database, and each runs a bot runner. A bot's turn is thought about outside any
transaction, for up to seconds, so a row lock cannot cover it: the process that plays a
turn first takes a lease row here (one atomic ``INSERT … ON CONFLICT DO UPDATE … WHERE``
the old lease has expired), renews it while it thinks and deletes it when done. A process
killed meanwhile stops renewing; once ``expires_at`` passes another takes the turn over.
``expires_at`` is in seconds since the epoch on the database's clock.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "claims",
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("item", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("owner", sa.String(length=100), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("kind", "item", name=op.f("pk_claims")),
    )


def downgrade() -> None:
    op.drop_table("claims")
