"""The configuration file: defaults, the example file, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from door.config import load_config

ROOT = Path(__file__).resolve().parent.parent


def test_no_file_gives_the_documented_defaults() -> None:
    config = load_config()
    assert config.server.telnet_port == 2323
    assert config.server.ssh_port == 2222
    assert config.server.rlogin_port == 0
    assert config.data_dir == Path("door-data")


def test_example_file_equals_the_defaults() -> None:
    assert load_config(ROOT / "config.example.toml") == load_config()


def test_data_dir_flag_overrides_the_file(tmp_path: Path) -> None:
    config = load_config(ROOT / "config.example.toml", data_dir=tmp_path)
    assert config.data_dir == tmp_path
    assert str(tmp_path.resolve()) in config.database_url


def test_unknown_setting_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\ntelnet_prot = 23\n")
    with pytest.raises(ValueError, match="telnet_prot"):
        load_config(bad)


def test_wrong_type_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[server]\ntelnet_port = "23"\n')
    with pytest.raises(ValueError, match="telnet_port must be a number"):
        load_config(bad)


def test_runtime_tuning_is_on_unless_the_file_turns_it_off(tmp_path: Path) -> None:
    assert load_config().server.tune_runtime is True
    off = tmp_path / "off.toml"
    off.write_text("[server]\ntune_runtime = false\n")
    assert load_config(off).server.tune_runtime is False
