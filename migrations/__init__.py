"""Alembic migrations (a package only so that door installs them as door/migrations)."""
