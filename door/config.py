"""Configuration: a TOML file read with tomllib into frozen dataclasses.

Every setting has a default, so ``door serve`` runs with no file at all. The sections and
keys mirror ``config.example.toml`` (which documents each one). Command-line flags
override the file; the file overrides the defaults.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import tomllib
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar, get_type_hints

from door.games.base import Refusal

T = TypeVar("T")


class ConfigError(Refusal):
    """A config file (or setting) that cannot be used; the message names the setting."""


def _ranged(default: int, low: int, high: int) -> Any:
    """A whole-number setting that must lie in ``low..high`` (checked when it is read)."""
    return field(default=default, metadata={"range": (low, high)})


def _choice(default: str, choices: tuple[str, ...]) -> Any:
    """A text setting that must be one of ``choices`` (checked when it is read)."""
    return field(default=default, metadata={"choices": choices})


def _tables(cls: type[Any]) -> Any:
    """A setting written as an array of tables (``[[section.key]]``), each one a ``cls``."""
    return field(default=(), metadata={"table": cls})


@dataclass(frozen=True)
class ServerConfig:
    """Listeners (a port of 0 turns one off; rlogin and the web are off by default), the
    server's name (the banner, the web page), whether ``door serve`` tunes the collector
    and allocator (:mod:`door.runtime`), the SSH host key's file (relative to the data
    dir), how many worker processes share the ports, and the web listener's TLS
    certificate and key (PEM files, relative to the data dir; both empty: plain HTTP) and
    the origins besides its own whose pages may open its WebSocket."""

    host: str = "0.0.0.0"
    telnet_port: int = _ranged(2323, 0, 65535)
    ssh_port: int = _ranged(2222, 0, 65535)
    rlogin_port: int = _ranged(0, 0, 65535)
    backlog: int = 1024
    name: str = "door"
    tune_runtime: bool = True
    ssh_version: str = "door"
    host_key: str = "ssh_host_ed25519_key"
    workers: int = _ranged(1, 1, 256)
    web_port: int = _ranged(0, 0, 65535)
    web_tls_cert: str = ""
    web_tls_key: str = ""
    web_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Each listener binds with SO_REUSEPORT (the workers share them), so two of them
        # given one port would both bind it and split its callers between two protocols.
        taken: dict[int, str] = {}
        for name in ("telnet_port", "ssh_port", "rlogin_port", "web_port"):
            port = getattr(self, name)
            if port and port in taken:
                raise ConfigError(
                    f"{taken[port]} and {name} are both {port}: each listener needs a "
                    "port of its own"
                )
            taken.setdefault(port, name)


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
    login_block_window_s: int = 1800
    login_delay_s: float = 1.0
    login_concurrency: int = 0
    negotiation_wait_s: float = 1.5
    probe_timeout_s: float = 1.0
    shutdown_grace_s: float = 10.0
    max_auth_tries: int = _ranged(3, 1, 100)
    account_failures_lock: int = 5
    account_window_s: int = 900
    account_lock_s: float = 60.0
    login_deadline_s: float = 60.0
    max_preauth: int = 100
    max_preauth_per_address: int = 5


@dataclass(frozen=True)
class RloginBbs:
    """One BBS allowed to connect over rlogin (``[[rlogin.bbs]]``): its tag, the addresses
    (or CIDR networks) it connects from, and its own secret. A caller ``[TAG]alias`` (or a
    bare ``alias``, which gets this tag) is accepted only from these addresses with this
    secret."""

    tag: str = ""
    addresses: tuple[str, ...] = ()
    secret: str = ""
    # Every caller of a BBS comes from its address (a door network's hub carries many
    # BBSs' callers through one), so its own cap replaces [limits] max_per_address.
    max_callers: int = _ranged(200, 1, 100_000)

    def __post_init__(self) -> None:
        where = f"[[rlogin.bbs]] tag {self.tag!r}" if self.tag else "[[rlogin.bbs]]"
        if not self.tag.strip() or any(ch in "[]" or not ch.isprintable() for ch in self.tag):
            raise ConfigError("[[rlogin.bbs]] tag must be a short name without [ ] (e.g. DOVE)")
        if len(self.tag) > 32:
            raise ConfigError(f"{where}: tag must be at most 32 characters")
        if not self.addresses:
            raise ConfigError(f"{where}: addresses must list at least one address or network")
        for entry in self.addresses:
            try:
                ipaddress.ip_network(str(entry), strict=False)
            except ValueError:
                raise ConfigError(
                    f"{where}: addresses has {entry!r}, which is not an IP address or network"
                ) from None
        if not self.secret:
            raise ConfigError(f"{where}: secret must not be empty (each BBS needs its own)")


# [rlogin] keys of before [[rlogin.bbs]]: what to write instead.
_RLOGIN_MIGRATION = (
    "[rlogin] {key} is no longer used: rlogin trust is now per BBS. Write one table per "
    "BBS instead, e.g.\n"
    '  [[rlogin.bbs]]\n  tag = "DOVE"\n  addresses = ["10.0.0.5"]\n  secret = "..."\n'
    "(a bare alias from that BBS gets its tag; see config.example.toml)"
)
_REMOVED = {("rlogin", "trusted"), ("rlogin", "secret"), ("rlogin", "default_tag")}


@dataclass(frozen=True)
class RloginConfig:
    """rlogin for BBS door networks: the BBSs allowed in, each with its own tag, addresses
    and secret (``[[rlogin.bbs]]``). With none, every rlogin connection is refused."""

    bbs: tuple[RloginBbs, ...] = _tables(RloginBbs)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for entry in self.bbs:
            key = entry.tag.casefold()
            if key in seen:
                raise ConfigError(f"[[rlogin.bbs]] tag {entry.tag!r} appears twice")
            seen.add(key)
        secrets = [hashlib.sha256(b.secret.encode()).digest() for b in self.bbs]
        if len(set(secrets)) != len(secrets):
            raise ConfigError(
                "[[rlogin.bbs]] two BBSs share a secret: give each its own, or one BBS can "
                "pass for the other"
            )


@dataclass(frozen=True)
class DoorModeConfig:
    """``door local``: the BBS tag under which drop-file users are known."""

    bbs_tag: str = "LOCAL"


@dataclass(frozen=True)
class GamesConfig:
    """Games: the turn deadline a new game gets unless its player picks one (hours), how
    often late turns are looked for, whether computer opponents are offered, whether
    finished games' records (archive, export) are public or their players' (and sysops')
    only, each player's vacation days a year and the zone of players without one."""

    default_deadline_hours: int = _ranged(168, 1, 720)
    sweep_interval_s: float = 60.0
    bots: bool = True
    public_finished: bool = True
    vacation_days_per_year: int = _ranged(14, 0, 366)
    """Each player's vacation days per calendar year (their clocks stand still)."""
    time_zone: str = ""
    """The IANA zone of players who have not chosen one ('' for the server's own)."""


@dataclass(frozen=True)
class BotsConfig:
    """Which processes play the computer players' turns. ``run``: whether this process
    does (several processes on one database share the turns, each played by exactly one;
    with ``run = false`` a process never plays one and never loads the engine for them,
    while its players' hints and game reviews still work, loading the engine on first
    use). ``claim_s``: how long a process's claim on a turn lasts unrenewed, so how soon
    another process takes the turn over after a crash (about ``claim_s`` to 1.5 x that).
    ``[games] bots = false`` turns computer players off altogether."""

    run: bool = True
    claim_s: int = _ranged(30, 2, 3600)


@dataclass(frozen=True)
class BansConfig:
    """Bans: how often a server on SQLite looks for bans made by another process (``door
    user ban``) among the users online, in seconds (PostgreSQL servers are told at once)."""

    check_interval_s: float = 1.0


@dataclass(frozen=True)
class AccountsConfig:
    """Sign-ups and names: whether people may sign up (open, closed, or approval: new
    accounts wait for ``door user approve``), how many accounts and attempts one address
    may make per hour (0 = no limit), the names nobody may sign up as, and how many SSH
    public keys one account may hold."""

    signup: str = _choice("open", ("open", "closed", "approval"))
    signups_per_address_per_hour: int = _ranged(3, 0, 1_000_000)
    signup_attempts_per_address_per_hour: int = _ranged(10, 0, 1_000_000)
    reserved_names: tuple[str, ...] = (
        "sysop", "cosysop", "admin", "administrator", "root", "door", "guest", "system",
        "operator", "moderator", "staff", "support", "server", "new", "apply", "nobody",
        "anonymous", "everyone", "all",
    )  # fmt: skip
    max_ssh_keys: int = _ranged(10, 1, 1000)


@dataclass(frozen=True)
class MailConfig:
    """Notices by e-mail (issue 18): the SMTP server door hands them to (``host`` empty:
    no e-mail), how to talk to it (``security``: none, starttls, or tls from the first
    byte), the login if it wants one, and the ``from`` address (the TOML key is
    ``from``)."""

    host: str = ""
    port: int = _ranged(587, 1, 65535)
    security: str = _choice("starttls", ("none", "starttls", "tls"))
    user: str = ""
    password: str = ""
    from_: str = ""
    timeout_s: float = 30.0


@dataclass(frozen=True)
class PushConfig:
    """Notices by push (an HTTP POST of a plain-text body with a ``Title`` header, as
    ntfy takes): whether they are offered, how long one POST may take, which URL schemes
    players may give, and whether URLs that resolve to loopback, private or link-local
    addresses are allowed (off: a player could otherwise make door knock on the sysop's
    own network)."""

    enabled: bool = False
    timeout_s: float = 15.0
    allowed_schemes: tuple[str, ...] = ("https",)
    allow_private: bool = False


@dataclass(frozen=True)
class NoticesConfig:
    """How the outbox is sent: how often it is looked at, the first retry's wait (it
    doubles up to ``retry_max_s``), when a notice is given up (its reason kept), how long
    a sender's claim on a notice lasts, and the web address of the one-step unsubscribe
    link (``https://bbs.example/``; empty: notices only say how to stop them in door)."""

    poll_interval_s: float = 2.0
    retry_first_s: float = 30.0
    retry_max_s: float = 3600.0
    give_up_after_s: float = 86400.0
    lease_s: float = 120.0
    unsubscribe_base_url: str = ""


@dataclass(frozen=True)
class TournamentsConfig:
    """Tournaments (issue 19): whether ordinary players may create them (sysops always
    may), and how often the sweep looks for tournaments due to start, advance or close
    (the next round is made as soon as a round's last game ends; the sweep catches what a
    crash left), in seconds."""

    players_may_create: bool = False
    sweep_interval_s: float = 30.0


@dataclass(frozen=True)
class CommunityConfig:
    """Players' messages (issue 17): how many chat and kibitz lines, mails and pages one
    player may send — ``*_burst`` at once, then ``*_per_minute`` a minute (more gets
    "Slow down"; each process counts its own senders) — and how often a process writes
    who is signed in on it to the database for the other processes' W)ho, in seconds."""

    chat_per_minute: int = _ranged(12, 1, 10_000)
    chat_burst: int = _ranged(5, 1, 1000)
    mail_per_minute: int = _ranged(6, 1, 10_000)
    mail_burst: int = _ranged(3, 1, 1000)
    page_per_minute: int = _ranged(12, 1, 10_000)
    page_burst: int = _ranged(5, 1, 1000)
    presence_interval_s: float = field(default=10.0, metadata={"range": (0.5, 3600.0)})


@dataclass(frozen=True)
class Config:
    data_dir: Path = Path("door-data")
    server: ServerConfig = field(default_factory=ServerConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    rlogin: RloginConfig = field(default_factory=RloginConfig)
    door: DoorModeConfig = field(default_factory=DoorModeConfig)
    games: GamesConfig = field(default_factory=GamesConfig)
    bots: BotsConfig = field(default_factory=BotsConfig)
    bans: BansConfig = field(default_factory=BansConfig)
    accounts: AccountsConfig = field(default_factory=AccountsConfig)
    mail: MailConfig = field(default_factory=MailConfig)
    push: PushConfig = field(default_factory=PushConfig)
    notices: NoticesConfig = field(default_factory=NoticesConfig)
    tournaments: TournamentsConfig = field(default_factory=TournamentsConfig)
    community: CommunityConfig = field(default_factory=CommunityConfig)

    @property
    def host_key_path(self) -> Path:
        """The SSH host key's file: ``[server] host_key``, relative to the data dir."""
        return self.data_dir / self.server.host_key

    @property
    def web_tls(self) -> tuple[Path, Path] | None:
        """The web listener's certificate and key files (relative to the data dir), if set."""
        server = self.server
        if not server.web_tls_cert or not server.web_tls_key:
            return None
        return self.data_dir / server.web_tls_cert, self.data_dir / server.web_tls_key

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL: the configured one, or the SQLite file in the data dir."""
        if self.database.url:
            return self.database.url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'door.sqlite3').resolve()}"


_ALIASES = {("mail", "from"): "from_"}
"""TOML keys that are Python keywords, and the field each fills."""


def _section(cls: type[T], raw: Any, name: str) -> T:
    if raw is None:
        return cls()
    if not isinstance(raw, dict):
        raise ConfigError(f"[{name}] must be a table")
    known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in raw.items():
        key = _ALIASES.get((name, key), key)
        if (name, key) in _REMOVED:
            raise ConfigError(_RLOGIN_MIGRATION.format(key=key))
        if key not in known:
            raise ConfigError(f"[{name}] has no setting {key!r}")
        table = known[key].metadata.get("table")
        if table is not None:
            if not isinstance(value, list):
                raise ConfigError(f"{name}.{key} must be written as [[{name}.{key}]] tables")
            values[key] = tuple(
                _section(table, item, f"{name}.{key} #{i}") for i, item in enumerate(value, 1)
            )
            continue
        default = known[key].default
        if default is MISSING:
            default = known[key].default_factory()  # type: ignore[operator]
        values[key] = _value(default, value, f"[{name}] {key}")
        bounds = known[key].metadata.get("range")
        if bounds is not None and not bounds[0] <= values[key] <= bounds[1]:
            raise ConfigError(f"[{name}] {key} must be {bounds[0]} to {bounds[1]}")
        choices = known[key].metadata.get("choices")
        if choices is not None and values[key] not in choices:
            raise ConfigError(f"[{name}] {key} must be one of: {', '.join(choices)}")
    return cls(**values)


def _value(default: Any, value: Any, setting: str) -> Any:
    """``value`` checked against the type of ``default`` (and converted: list → tuple)."""
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{setting} must be a list of strings")
        return tuple(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{setting} must be true or false")
        return value
    if isinstance(default, (int, float)):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ConfigError(f"{setting} must be a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{setting} must be a finite number")
        if isinstance(default, int) and value != int(value):
            raise ConfigError(f"{setting} must be a whole number")
        try:
            return type(default)(value)
        except OverflowError:
            raise ConfigError(f"{setting} is far too large") from None
    if isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{setting} must be a string")
    return value


def check_ssh_version(version: str) -> None:
    """RFC 4253: the software version is 1 to 64 printable ASCII characters, no space or
    minus sign (a longer or odd one would stop the SSH listener at start-up)."""
    if not 1 <= len(version) <= 64 or any(
        not "!" <= ch <= "~" or ch == "-" for ch in version
    ):
        raise ConfigError(
            "[server] ssh_version must be 1 to 64 printable ASCII characters, "
            "without spaces or '-'"
        )


def check_web(server: ServerConfig) -> None:
    """The web's TLS needs both files; an allowed origin is ``scheme://host[:port]`` or ``*``."""
    if bool(server.web_tls_cert.strip()) != bool(server.web_tls_key.strip()):
        raise ConfigError(
            "[server] web_tls_cert and web_tls_key go together: set both (HTTPS) or neither"
        )
    for origin in server.web_origins:
        if origin == "*":
            continue
        scheme, sep, rest = origin.partition("://")
        if scheme not in ("http", "https") or not sep or not rest or "/" in rest.rstrip("/"):
            raise ConfigError(
                f"[server] web_origins has {origin!r}: write origins as "
                '"https://bbs.example.org" (scheme, host, optional :port), or "*" for any'
            )


def check_bots(raw: dict[str, Any]) -> None:
    """``[bots] run = true`` written out beside ``[games] bots = false`` asks for bots to
    play where there are none: say so rather than pick one."""
    games, bots = raw.get("games"), raw.get("bots")
    if (
        isinstance(games, dict) and games.get("bots") is False
        and isinstance(bots, dict) and bots.get("run") is True
    ):  # fmt: skip
        raise ConfigError(
            "[bots] run = true, but [games] bots = false turns computer players off: "
            "remove one (to keep the bots but not in this process, write [bots] run = false)"
        )


def load_config(path: str | Path | None = None, data_dir: str | Path | None = None) -> Config:
    """Read ``path`` (or nothing) and apply a ``--data-dir`` override.

    Raises :class:`ConfigError` naming the bad setting (or the TOML mistake),
    ``FileNotFoundError`` for a missing file.
    """
    raw: dict[str, Any] = {}
    if path is not None:
        with open(path, "rb") as fh:
            try:
                raw = tomllib.load(fh)
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    sections = {f.name: f for f in fields(Config) if f.name != "data_dir"}
    unknown = set(raw) - set(sections) - {"data_dir"}
    if unknown:
        raise ConfigError(f"unknown section(s) in config: {', '.join(sorted(unknown))}")
    kwargs: dict[str, Any] = {}
    hints = get_type_hints(Config)  # section name -> its dataclass
    for name in sections:
        kwargs[name] = _section(hints[name], raw.get(name), name)
    config = Config(**kwargs)
    check_ssh_version(config.server.ssh_version)
    check_bots(raw)
    if not config.server.host_key.strip():
        raise ConfigError("[server] host_key must name a file (relative to data_dir, or absolute)")
    check_web(config.server)
    if "data_dir" in raw:
        config = replace(config, data_dir=Path(str(raw["data_dir"])))
    if data_dir is not None:
        config = replace(config, data_dir=Path(data_dir))
    return config
