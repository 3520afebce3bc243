"""mail, presence, reports, audit log, mutes (issue 17)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02

One row per message, kept until its recipient deletes it. ``ix_mail_recipient_id_id``
serves the inbox (newest first) and its unread count without reading anyone else's mail.
The sender's account may go (SET NULL: the message stays); the recipient's takes its
mail with it (CASCADE). ``presence`` holds each process's signed-in sessions, rewritten
by that process every few seconds (W)ho on every process sharing the database).

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mail",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sender_id", sa.Integer(), nullable=True),
        sa.Column("recipient_id", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(length=80), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["recipient_id"], ["users.id"], name=op.f("fk_mail_recipient_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["sender_id"], ["users.id"], name=op.f("fk_mail_sender_id_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail")),
    )
    with op.batch_alter_table("mail", schema=None) as batch_op:
        batch_op.create_index("ix_mail_recipient_id_id", ["recipient_id", "id"], unique=False)
    op.create_table(
        "presence",
        sa.Column("origin", sa.String(length=100), nullable=False),
        sa.Column("session", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("transport", sa.String(length=16), nullable=False),
        sa.Column("where_text", sa.String(length=80), nullable=False),
        sa.Column("last_key_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_presence_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("origin", "session", name=op.f("pk_presence")),
    )
    with op.batch_alter_table("presence", schema=None) as batch_op:
        batch_op.create_index("ix_presence_heartbeat_at", ["heartbeat_at"], unique=False)
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sysop_id", sa.Integer(), nullable=True),
        sa.Column("sysop_name", sa.String(length=40), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("target", sa.String(length=80), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["sysop_id"], ["users.id"], name=op.f("fk_audit_log_sysop_id_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=True),
        sa.Column("about_id", sa.Integer(), nullable=True),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("item", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["about_id"], ["users.id"], name=op.f("fk_reports_about_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["reporter_id"], ["users.id"], name=op.f("fk_reports_reporter_id_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
    )
    with op.batch_alter_table("reports", schema=None) as batch_op:
        batch_op.create_index("ix_reports_resolved_at_id", ["resolved_at", "id"], unique=False)
    op.create_table(
        "mutes",
        sa.Column("user_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_mutes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_mutes")),
    )


def downgrade() -> None:
    op.drop_table("mutes")
    with op.batch_alter_table("reports", schema=None) as batch_op:
        batch_op.drop_index("ix_reports_resolved_at_id")
    op.drop_table("reports")
    op.drop_table("audit_log")
    with op.batch_alter_table("presence", schema=None) as batch_op:
        batch_op.drop_index("ix_presence_heartbeat_at")
    op.drop_table("presence")
    with op.batch_alter_table("mail", schema=None) as batch_op:
        batch_op.drop_index("ix_mail_recipient_id_id")
    op.drop_table("mail")
