"""The fallback evaluator's weights file: shipped as package data, the shape the evaluator
reads, and exactly what ``tools/fit_fallback_net.py`` made (the training takes minutes, so
the test holds the SHA-256 the script printed; ``tools/fit_fallback_net.py --check`` redoes
it)."""

from __future__ import annotations

import hashlib
import json
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from door.games.backgammon import pubeval

FITTED_SHA256 = "79b94c6edd7a7adb84533eeeed1d4c23dc2cf633de4eb3b56fb961b9e5bc9966"
"""Printed by ``PYTHONPATH=$PWD python3 tools/fit_fallback_net.py`` at its defaults."""


def weights_text() -> str:
    return resources.files("door.games.backgammon").joinpath(pubeval.WEIGHTS_FILE).read_text()


def test_the_shipped_weights_are_the_file_the_fitting_script_made() -> None:
    assert hashlib.sha256(weights_text().encode()).hexdigest() == FITTED_SHA256


def test_the_file_records_the_command_that_made_it() -> None:
    doc = json.loads(weights_text())
    assert doc["command"].startswith("PYTHONPATH=$PWD python3 tools/fit_fallback_net.py ")
    assert doc["fit"]["seed"] == 20261202


def test_each_network_has_a_hidden_row_per_input_and_an_output_row_per_head() -> None:
    w = pubeval.shipped_weights()
    for net in (w.contact, w.race):
        assert len(net.hidden) == pubeval.N_FEATURES
        assert len(net.out) == len(net.out_bias) == len(pubeval.HEADS)
        assert all(len(row) == net.size for row in (*net.hidden, *net.out))


def test_a_network_short_of_inputs_is_refused() -> None:
    net = {"hidden": [[0.0, 0.0]], "out": [[0.0, 0.0]] * 5, "out_bias": [0.0] * 5}
    with pytest.raises(ValueError, match="needs 202 hidden rows"):
        pubeval.Weights.from_json(json.dumps({"contact": net, "race": net}))


def test_rows_of_different_lengths_are_refused() -> None:
    net = {"hidden": [[0.0, 0.0]], "out": [[0.0]] * 5, "out_bias": [0.0] * 5}
    with pytest.raises(ValueError, match="the same length"):
        pubeval.Weights.from_json(json.dumps({"contact": net, "race": net}), rows=1)


def test_the_packaging_ships_the_weights_file() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())
    package_data = pyproject["tool"]["setuptools"]["package-data"]
    assert pubeval.WEIGHTS_FILE in package_data["door.games.backgammon"]
