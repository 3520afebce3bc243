"""The examples in the docstrings of ``door/games`` run, and say what the code does."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import door.games

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(door.games.__path__, prefix="door.games.")
)


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_of_each_module_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_public_rules_modules_have_examples() -> None:
    with_examples = {
        name
        for name in MODULES
        if doctest.DocTestFinder().find(importlib.import_module(name))
        and any(t.examples for t in doctest.DocTestFinder().find(importlib.import_module(name)))
    }
    for name in (
        "door.games.backgammon.rules",
        "door.games.backgammon.matchid",
        "door.games.backgammon.phases",
        "door.games.backgammon.pubeval",
        "door.games.spectrangle.rules",
        "door.games.spectrangle.spn",
    ):
        assert name in with_examples
