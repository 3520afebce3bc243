"""The tournament screen tests run real sessions on the UI tests' fixtures (a fresh SQLite
copy with Alice and Bob, a fake clock, ``start_session`` on a pyte terminal), and Keeper,
a sysop."""

import pytest

from door.services import Services
from door.services.accounts import User
from tests.ui.conftest import (  # noqa: F401  (fixtures, found by name)
    alice,
    bob,
    clock,
    services,
    start_session,
    ui_sqlite_template,
)


@pytest.fixture
async def keeper(services: Services) -> User:  # noqa: F811
    """A sysop who plays in nothing."""
    await services.accounts.register("Keeper", "keeper-pw")
    return await services.accounts.set_sysop("Keeper", True)
