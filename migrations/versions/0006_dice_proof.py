"""provable dice: each game's secret seed and chance count, each seat's dice word

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02

Dice anyone can check (door/games/fairdice.py, docs/fair-dice.md): a game draws a secret
32-byte seed when it is made and shows its SHA-256 from the start; every chance event is
derived from the seed, the game's id, the event's number ``k`` and the seats' dice words,
and the seed is revealed when the game is over. ``games.dice_seed`` is that seed, NULL
for a game made before this revision (its dice were drawn with ``secrets`` and cannot be
proven: it says so rather than pretending); ``games.chance_count`` the number of chance
events logged so far, i.e. the ``k`` of the next one (counted from the log for the games
that already exist, though only seeded games use it); ``seats.dice_word`` the word each
seat's player gave, '' for none.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE … ADD COLUMN, not batch mode: on SQLite a batch that recreates
    # ``games`` drops the old table, and with foreign keys on that deletes every seat and
    # event of every game (ON DELETE CASCADE).
    op.add_column("games", sa.Column("dice_seed", sa.LargeBinary(), nullable=True))
    op.add_column(
        "games",
        sa.Column("chance_count", sa.Integer(), server_default=sa.text("0"), nullable=False),
    )
    op.add_column(
        "seats", sa.Column("dice_word", sa.String(length=64), server_default="", nullable=False)
    )
    # an existing game's count of chance events, so the column tells the truth for
    # every game (its dice stay unprovable: it has no seed)
    op.execute(
        "UPDATE games SET chance_count = (SELECT count(*) FROM game_events"
        " WHERE game_events.game_id = games.id AND game_events.kind = 'chance')"
    )


def downgrade() -> None:
    # ALTER TABLE … DROP COLUMN (SQLite 3.35+), for the same reason as above: recreating
    # the tables would cascade-delete the games' seats and events
    op.drop_column("seats", "dice_word")
    op.drop_column("games", "chance_count")
    op.drop_column("games", "dice_seed")
