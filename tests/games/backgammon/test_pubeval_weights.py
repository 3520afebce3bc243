"""The fallback evaluator's weights file: shipped as package data, the shape the evaluator
reads, and exactly what ``tools/fit_pubeval.py`` made (the fit takes minutes, so the test
holds the SHA-256 the script printed; ``tools/fit_pubeval.py --check`` redoes the fit)."""

from __future__ import annotations

import hashlib
import json
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from door.games.backgammon import pubeval

FITTED_SHA256 = "cc0bf429c06dacd33ca398e36504f5b87174ddb40822f24a321588eaeca9cd5e"
"""Printed by ``PYTHONPATH=$PWD python3 tools/fit_pubeval.py`` at its defaults."""


def weights_text() -> str:
    return resources.files("door.games.backgammon").joinpath(pubeval.WEIGHTS_FILE).read_text()


def test_the_shipped_weights_are_the_file_the_fitting_script_made() -> None:
    assert hashlib.sha256(weights_text().encode()).hexdigest() == FITTED_SHA256


def test_the_file_records_the_command_that_made_it() -> None:
    doc = json.loads(weights_text())
    assert doc["command"].startswith("PYTHONPATH=$PWD python3 tools/fit_pubeval.py ")
    assert doc["fit"]["seed"] == 20261201


def test_each_weight_set_has_a_row_of_five_heads_per_feature() -> None:
    w = pubeval.shipped_weights()
    for table in (w.contact, w.race):
        assert len(table) == pubeval.N_FEATURES
        assert all(len(row) == len(pubeval.HEADS) for row in table)


def test_a_misshapen_weights_file_is_refused() -> None:
    with pytest.raises(ValueError, match="needs 201 rows"):
        pubeval.Weights.from_json('{"contact": [[0, 0, 0, 0, 0]], "race": []}')


def test_the_packaging_ships_the_weights_file() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())
    package_data = pyproject["tool"]["setuptools"]["package-data"]
    assert pubeval.WEIGHTS_FILE in package_data["door.games.backgammon"]
