"""name skeletons, pending sign-ups, BBS identity sources, the sign-up log

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

* ``users.skeleton`` and ``users.skeleton_cased``: what a name looks like (the two
  Unicode TR39 confusable-skeleton keys of ``door/services/names.py`` NameRules.looks),
  each under a unique index, so that the check "does this name look like one we have?"
  is one indexed lookup and two racing sign-ups cannot both win. Existing users are
  backfilled oldest first; where two existing names already look alike, the older
  account keeps that key and the younger gets NULL (a unique index allows any number of
  NULLs): nobody loses an account or a login, and no new name can take either look. The
  upgrade logs each such pair.
* ``users.is_pending``: signed up under ``signup = "approval"``, not yet approved.
* ``bbs_identities.source``: ``rlogin`` or ``dropfile``, part of the unique key, so that
  an rlogin tag can never reach a drop-file (``door local``) identity. Rows written before
  this revision cannot tell the two apart; those tagged ``LOCAL`` (the default
  ``[door] bbs_tag``) become ``dropfile``, every other becomes ``rlogin``.
* ``signups``: one row per sign-up attempt from a network address, made or refused,
  for the per-address limits.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    # Plain ALTER TABLE ADD COLUMN and CREATE UNIQUE INDEX, never a batch rebuild of users:
    # on SQLite a rebuild drops the old table, and with foreign keys on that deletes every
    # SSH key and BBS identity (ON DELETE CASCADE).
    op.add_column("users", sa.Column("skeleton", sa.String(length=200), nullable=True))
    op.add_column("users", sa.Column("skeleton_cased", sa.String(length=200), nullable=True))
    op.add_column(
        "users", sa.Column("is_pending", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    _backfill_skeletons()
    op.create_index("ix_users_skeleton", "users", ["skeleton"], unique=True)
    op.create_index("ix_users_skeleton_cased", "users", ["skeleton_cased"], unique=True)

    op.add_column(
        "bbs_identities",
        sa.Column("source", sa.String(length=16), server_default="rlogin", nullable=False),
    )
    op.execute("UPDATE bbs_identities SET source = 'dropfile' WHERE tag = 'LOCAL'")
    with op.batch_alter_table("bbs_identities", schema=None) as batch_op:
        batch_op.drop_constraint("uq_bbs_identities_tag_alias", type_="unique")
        batch_op.create_unique_constraint(
            "uq_bbs_identities_source_tag_alias", ["source", "tag", "alias_key"]
        )

    op.create_table(
        "signups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_signups_user_id_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signups")),
    )
    with op.batch_alter_table("signups", schema=None) as batch_op:
        batch_op.create_index(
            "ix_signups_address_created_at", ["address", "created_at"], unique=False
        )


def _backfill_skeletons() -> None:
    """Give every existing user its look keys; the older of two look-alikes keeps a key."""
    from door.services.names import NameRules

    rules = NameRules.load()
    conn = op.get_bind()
    users = sa.table(
        "users", sa.column("id", sa.Integer), sa.column("name", sa.String),
        sa.column("skeleton", sa.String), sa.column("skeleton_cased", sa.String),
    )  # fmt: skip
    holders: tuple[dict[str, tuple[int, str]], dict[str, tuple[int, str]]] = ({}, {})
    rows = conn.execute(sa.select(users.c.id, users.c.name).order_by(users.c.id)).all()
    for uid, name in rows:
        values: dict[str, str] = {}
        for column, key, held in zip(("skeleton", "skeleton_cased"), rules.looks(name), holders):
            if key in held:
                log.warning(
                    "users %r (id %d) and %r (id %d) look alike; the older keeps the look "
                    "(%s), both keep their names", held[key][1], held[key][0], name, uid,
                    column,
                )  # fmt: skip
                continue
            held[key] = (uid, name)
            values[column] = key
        if values:
            conn.execute(sa.update(users).where(users.c.id == uid).values(**values))


def downgrade() -> None:
    with op.batch_alter_table("signups", schema=None) as batch_op:
        batch_op.drop_index("ix_signups_address_created_at")
    op.drop_table("signups")

    # Two identities that differ only by source would break the old key: keep the rlogin one.
    op.execute(
        "DELETE FROM bbs_identities WHERE source = 'dropfile' AND EXISTS ("
        "SELECT 1 FROM bbs_identities AS other WHERE other.source = 'rlogin' "
        "AND other.tag = bbs_identities.tag AND other.alias_key = bbs_identities.alias_key)"
    )
    with op.batch_alter_table("bbs_identities", schema=None) as batch_op:
        batch_op.drop_constraint("uq_bbs_identities_source_tag_alias", type_="unique")
        batch_op.create_unique_constraint("uq_bbs_identities_tag_alias", ["tag", "alias_key"])
        batch_op.drop_column("source")

    # native DROP COLUMN (SQLite 3.35+), not a rebuild of users: see upgrade()
    op.drop_index("ix_users_skeleton_cased", table_name="users")
    op.drop_index("ix_users_skeleton", table_name="users")
    op.drop_column("users", "is_pending")
    op.drop_column("users", "skeleton_cased")
    op.drop_column("users", "skeleton")
