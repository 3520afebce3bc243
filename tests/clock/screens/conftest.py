"""The clock's screens through a real session: the UI tests' fixtures (real services on
SQLite, a fake terminal read with pyte)."""

from __future__ import annotations

from tests.ui.conftest import (  # noqa: F401 (fixtures, found by name)
    alice,
    bob,
    clock,
    services,
    start_session,
    ui_sqlite_template,
)
