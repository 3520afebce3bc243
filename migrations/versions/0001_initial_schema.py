"""initial schema: users, keys, BBS identities, games, seats, events, ratings

Revision ID: 0001
Revises:
Create Date: 2026-12-01

The tables of door/store/models.py as first released.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=80), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=True),
        sa.Column("is_sysop", sa.Boolean(), nullable=False),
        sa.Column("is_banned", sa.Boolean(), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name_key", name=op.f("uq_users_name_key")),
    )
    op.create_table(
        "bbs_identities",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tag", sa.String(length=60), nullable=False),
        sa.Column("alias", sa.String(length=100), nullable=False),
        sa.Column("alias_key", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_bbs_identities_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bbs_identities")),
        sa.UniqueConstraint("tag", "alias_key", name="uq_bbs_identities_tag_alias"),
    )
    with op.batch_alter_table("bbs_identities", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bbs_identities_user_id"), ["user_id"], unique=False)

    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("snapshot", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("to_act", sa.Integer(), nullable=True),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline_hours", sa.Integer(), nullable=False),
        sa.Column("hints_allowed", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("outcome", sa.JSON(), nullable=True),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_games_created_by_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_games_created_by"), ["created_by"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_kind"), ["kind"], unique=False)
        batch_op.create_index("ix_games_status_deadline", ["status", "deadline"], unique=False)

    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("experience", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_ratings_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "kind", name=op.f("pk_ratings")),
    )
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.create_index("ix_ratings_kind_rating", ["kind", "rating"], unique=False)

    op.create_table(
        "ssh_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("fingerprint", sa.String(length=100), nullable=False),
        sa.Column("key_type", sa.String(length=60), nullable=False),
        sa.Column("key_data", sa.Text(), nullable=False),
        sa.Column("comment", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_ssh_keys_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ssh_keys")),
        sa.UniqueConstraint("fingerprint", name=op.f("uq_ssh_keys_fingerprint")),
    )
    with op.batch_alter_table("ssh_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ssh_keys_user_id"), ["user_id"], unique=False)

    op.create_table(
        "game_events",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_events_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_game_events")),
    )
    op.create_table(
        "seats",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("bot_level", sa.String(length=40), nullable=True),
        sa.Column("timeouts", sa.Integer(), nullable=False),
        sa.Column("last_seen_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_seats_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_seats_user_id_users")),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_seats")),
    )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seats_user_id"), ["user_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seats_user_id"))

    op.drop_table("seats")
    op.drop_table("game_events")
    with op.batch_alter_table("ssh_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ssh_keys_user_id"))

    op.drop_table("ssh_keys")
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_ratings_kind_rating")

    op.drop_table("ratings")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_status_deadline")
        batch_op.drop_index(batch_op.f("ix_games_kind"))
        batch_op.drop_index(batch_op.f("ix_games_created_by"))

    op.drop_table("games")
    with op.batch_alter_table("bbs_identities", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bbs_identities_user_id"))

    op.drop_table("bbs_identities")
    op.drop_table("users")
