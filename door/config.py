"""Configuration: a TOML file read with tomllib into frozen dataclasses.

Every setting has a default, so ``door serve`` runs with no file at all. The sections and
keys mirror ``config.example.toml`` (which documents each one). Command-line flags
override the file; the file overrides the defaults.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar, get_type_hints

T = TypeVar("T")


@dataclass(frozen=True)
class ServerConfig:
    """Listeners (a port of 0 turns one off; rlogin is off by default), the banner's name,
    and whether ``door serve`` tunes the collector and allocator (:mod:`door.runtime`)."""

    host: str = "0.0.0.0"
    telnet_port: int = 2323
    ssh_port: int = 2222
    rlogin_port: int = 0
    backlog: int = 1024
    name: str = "door"
    tune_runtime: bool = True


@dataclass(frozen=True)
class DatabaseConfig:
    """``url`` empty means the embedded SQLite file ``door.sqlite3`` in the data dir."""

    url: str = ""
    auto_upgrade: bool = True
    busy_timeout_ms: int = 5000


@dataclass(frozen=True)
class LimitsConfig:
    """Per-connection and per-address limits, login throttling, timing of the front door."""

    idle_timeout_s: int = 900
    idle_warning_s: int = 60
    max_connections: int = 1000
    max_per_address: int = 20
    max_line: int = 512
    max_buffer: int = 65536
    login_failures_block: int = 10
    login_block_window_s: int = 600
    login_delay_s: float = 1.0
    login_concurrency: int = 0
    negotiation_wait_s: float = 1.5
    probe_timeout_s: float = 1.0
    shutdown_grace_s: float = 10.0


@dataclass(frozen=True)
class RloginConfig:
    """rlogin for BBS door networks: trusted addresses and the shared secret."""

    trusted: tuple[str, ...] = ("127.0.0.1",)
    secret: str = ""
    default_tag: str = ""


@dataclass(frozen=True)
class DoorModeConfig:
    """``door local``: the BBS tag under which drop-file users are known."""

    bbs_tag: str = "LOCAL"


@dataclass(frozen=True)
class GamesConfig:
    default_deadline_hours: int = 168
    sweep_interval_s: float = 60.0
    bots: bool = True


@dataclass(frozen=True)
class Config:
    data_dir: Path = Path("door-data")
    server: ServerConfig = field(default_factory=ServerConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    rlogin: RloginConfig = field(default_factory=RloginConfig)
    door: DoorModeConfig = field(default_factory=DoorModeConfig)
    games: GamesConfig = field(default_factory=GamesConfig)

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL: the configured one, or the SQLite file in the data dir."""
        if self.database.url:
            return self.database.url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'door.sqlite3').resolve()}"


def _section(cls: type[T], raw: Any, name: str) -> T:
    if raw is None:
        return cls()
    if not isinstance(raw, dict):
        raise ValueError(f"[{name}] must be a table")
    known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ValueError(f"[{name}] has no setting {key!r}")
        default = getattr(cls(), key)
        if isinstance(default, tuple):
            if not isinstance(value, list):
                raise ValueError(f"[{name}] {key} must be a list")
            value = tuple(value)
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"[{name}] {key} must be true or false")
        elif isinstance(default, (int, float)) and not isinstance(default, bool):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ValueError(f"[{name}] {key} must be a number")
            value = type(default)(value)
        elif isinstance(default, str) and not isinstance(value, str):
            raise ValueError(f"[{name}] {key} must be a string")
        values[key] = value
    return cls(**values)


def load_config(path: str | Path | None = None, data_dir: str | Path | None = None) -> Config:
    """Read ``path`` (or nothing) and apply a ``--data-dir`` override.

    Raises ``ValueError`` naming the bad setting, ``FileNotFoundError`` for a missing file.
    """
    raw: dict[str, Any] = {}
    if path is not None:
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
    sections = {f.name: f for f in fields(Config) if f.name != "data_dir"}
    unknown = set(raw) - set(sections) - {"data_dir"}
    if unknown:
        raise ValueError(f"unknown section(s) in config: {', '.join(sorted(unknown))}")
    kwargs: dict[str, Any] = {}
    hints = get_type_hints(Config)  # section name -> its dataclass
    for name in sections:
        kwargs[name] = _section(hints[name], raw.get(name), name)
    config = Config(**kwargs)
    if "data_dir" in raw:
        config = replace(config, data_dir=Path(str(raw["data_dir"])))
    if data_dir is not None:
        config = replace(config, data_dir=Path(data_dir))
    return config
