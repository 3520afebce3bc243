"""The community tests run real sessions on the UI tests' fixtures (a fresh SQLite copy
with Alice and Bob, a fake clock, ``start_session`` on a pyte terminal)."""

from tests.ui.conftest import (  # noqa: F401  (fixtures, found by name)
    alice,
    bob,
    clock,
    services,
    start_session,
    ui_sqlite_template,
)
