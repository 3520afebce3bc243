"""The clock tests use the service tests' fixtures (each test on SQLite and PostgreSQL)."""

from __future__ import annotations

from tests.services.conftest import (  # noqa: F401 (fixtures, found by name)
    accounts,
    alice,
    bob,
    carol,
    cheap_password_hashing,
    clock,
    db,
    games,
    hub,
    pg_clone_template,
    pg_template,
    sqlite_template,
)
