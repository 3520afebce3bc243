"""outbox and notice_prefs: notices outside door (e-mail, push), sent from an outbox

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02

``notice_prefs`` holds how a player wants to hear of their games (a confirmed e-mail
address, a push URL, the kinds, digest or single notices, the unsubscribe token).
``outbox`` holds each notice to send, written in the transaction of the event that
causes it, so a notice is never lost nor sent for a change that was rolled back; the
partial unique index keeps at most one pending notice per (user, game, kind, channel).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "notice_prefs",
        sa.Column("user_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("email_confirmed", sa.Boolean(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=True),
        sa.Column("code_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("push_url", sa.String(length=500), nullable=True),
        sa.Column("kinds", sa.String(length=200), nullable=False),
        sa.Column("digest", sa.Boolean(), nullable=False),
        sa.Column("unsubscribe_token", sa.String(length=64), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_notice_prefs_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_notice_prefs")),
        sa.UniqueConstraint("unsubscribe_token", name=op.f("uq_notice_prefs_unsubscribe_token")),
    )  # fmt: skip
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("channel", sa.String(length=8), nullable=False),
        sa.Column("address", sa.String(length=500), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("ref", sa.String(length=40), nullable=False),
        sa.Column("digest", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_owner", sa.String(length=100), nullable=False),
        sa.Column("lease_until", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_outbox_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
    )
    op.create_index(
        "ux_outbox_pending", "outbox", ["user_id", "game_id", "kind", "channel"], unique=True,
        sqlite_where=sa.text("status = 'pending'"), postgresql_where=sa.text("status = 'pending'"),
    )  # fmt: skip
    op.create_index("ix_outbox_status_due_at", "outbox", ["status", "due_at"])
    op.create_index("ix_outbox_game_id_kind_ref", "outbox", ["game_id", "kind", "ref"])


def downgrade() -> None:
    op.drop_index("ix_outbox_game_id_kind_ref", table_name="outbox")
    op.drop_index("ix_outbox_status_due_at", table_name="outbox")
    op.drop_index("ux_outbox_pending", table_name="outbox")
    op.drop_table("outbox")
    op.drop_table("notice_prefs")
