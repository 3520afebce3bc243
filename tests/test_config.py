"""The configuration file: defaults, the example file, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from door.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent


def config_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "door.toml"
    path.write_text(text)
    return path


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
    bad = config_file(tmp_path, "[server]\ntelnet_prot = 23\n")
    with pytest.raises(ValueError, match="telnet_prot"):
        load_config(bad)


def test_wrong_type_is_named(tmp_path: Path) -> None:
    bad = config_file(tmp_path, '[server]\ntelnet_port = "23"\n')
    with pytest.raises(ValueError, match="telnet_port must be a number"):
        load_config(bad)


def test_runtime_tuning_is_on_unless_the_file_turns_it_off(tmp_path: Path) -> None:
    assert load_config().server.tune_runtime is True
    off = config_file(tmp_path, "[server]\ntune_runtime = false\n")
    assert load_config(off).server.tune_runtime is False


def test_the_default_deadline_is_read_from_the_games_section(tmp_path: Path) -> None:
    assert load_config().games.default_deadline_hours == 168
    toml = config_file(tmp_path, "[games]\ndefault_deadline_hours = 48\n")
    assert load_config(toml).games.default_deadline_hours == 48


@pytest.mark.parametrize("hours", ["0", "721", "-24", "1" + "0" * 400])
def test_a_default_deadline_outside_1_to_720_hours_is_refused(tmp_path: Path, hours: str) -> None:
    bad = config_file(tmp_path, f"[games]\ndefault_deadline_hours = {hours}\n")
    with pytest.raises(ConfigError, match=r"\[games\] default_deadline_hours must be 1 to 720"):
        load_config(bad)


def test_a_fraction_of_an_hour_is_refused(tmp_path: Path) -> None:
    bad = config_file(tmp_path, "[games]\ndefault_deadline_hours = 1.5\n")
    with pytest.raises(ConfigError, match="default_deadline_hours must be a whole number"):
        load_config(bad)


@pytest.mark.parametrize("value", ["inf", "nan", "1" + "0" * 400])
def test_a_number_no_setting_can_hold_is_refused(tmp_path: Path, value: str) -> None:
    bad = config_file(tmp_path, f"[limits]\nprobe_timeout_s = {value}\n")
    with pytest.raises(ConfigError, match="probe_timeout_s"):
        load_config(bad)


def test_a_port_past_65535_is_refused(tmp_path: Path) -> None:
    bad = config_file(tmp_path, "[server]\ntelnet_port = 70000\n")
    with pytest.raises(ConfigError, match="telnet_port must be 0 to 65535"):
        load_config(bad)


def test_two_listeners_on_one_port_are_refused(tmp_path: Path) -> None:
    # both would bind it (the listeners share ports with SO_REUSEPORT) and split callers
    bad = config_file(tmp_path, "[server]\ntelnet_port = 4000\nssh_port = 4000\n")
    with pytest.raises(ConfigError, match="telnet_port and ssh_port are both 4000"):
        load_config(bad)


def test_listeners_that_are_off_may_share_port_zero(tmp_path: Path) -> None:
    ok = config_file(tmp_path, "[server]\nrlogin_port = 0\nweb_port = 0\n")
    assert load_config(ok).server.web_port == 0


def test_a_file_that_is_not_toml_is_a_config_error(tmp_path: Path) -> None:
    bad = config_file(tmp_path, "[server\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)


@pytest.mark.parametrize("version", ['""', '"door 1"', '"door-1"', '"dÖr"'])
def test_an_ssh_version_ssh_would_not_accept_is_refused(tmp_path: Path, version: str) -> None:
    path = tmp_path / "door.toml"
    path.write_text(f"[server]\nssh_version = {version}\n")
    with pytest.raises(ConfigError, match="ssh_version"):
        load_config(path)


def test_bots_run_in_every_process_unless_told_not_to(tmp_path: Path) -> None:
    assert load_config().bots.run is True
    path = config_file(tmp_path, "[bots]\nrun = false\nclaim_s = 10\n")
    assert (load_config(path).bots.run, load_config(path).bots.claim_s) == (False, 10)


def test_running_bots_that_are_turned_off_is_refused(tmp_path: Path) -> None:
    bad = config_file(tmp_path, "[games]\nbots = false\n\n[bots]\nrun = true\n")
    with pytest.raises(ConfigError, match=r"\[bots\] run = true, but \[games\] bots = false"):
        load_config(bad)
