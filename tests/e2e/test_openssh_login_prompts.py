"""What OpenSSH asks before a player gets in (issue 16, point 12): the real ``ssh`` client
in a pane of a private tmux server (80×24) against a real ``python3 -m door serve``
(its own temp data dir and config, SSH on a free port of 127.0.0.1).

A password login shows exactly one password prompt until the player types, whatever the
client brings along: no key, an ssh-agent holding a key the server does not know, a key
file (with or without a passphrase), public keys turned off, one password prompt allowed,
the ``password`` method instead of keyboard-interactive. Then the password gets in.

A connection the server has already refused (a blocked address) or a name locked after
failed logins is told why in the banner and asked for no password at all: nothing typed
there could log in. A locked name still logs in with its key.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from door.net.limits import ACCOUNT_LOCKED, ADDRESS_BLOCKED
from tests.e2e.serving import door_serving
from tests.e2e.test_real_clients import Pane, Tmux, flat
from tests.net.served import free_ports

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 30.0  # generous: the machine running the tests may be busy
SETTLE_S = 1.5
"""Seconds to keep looking after the first prompt: long enough for a second to show."""
PASSWORD = "alice-pass-7913"
CAROL_PASSWORD = "carol-pass-5531"
BLOCK_AFTER = 4
LOCK_AFTER = 3

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        any(shutil.which(c) is None for c in ("tmux", "ssh", "ssh-agent", "ssh-keygen")),
        reason="needs tmux and the OpenSSH client (apt-get install tmux openssh-client)",
    ),
]


@dataclass
class Door:
    """A running ``door serve``: its SSH port and where its keys for the clients lie."""

    ssh_port: int
    keys: Path
    carol_key: Path


def door_cli(data: Path, config: Path, *args: str, stdin: str = "") -> None:
    done = subprocess.run(
        [sys.executable, "-m", "door", *args, "--data-dir", str(data), "--config", str(config)],
        input=stdin, capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def keygen(path: Path, passphrase: str = "") -> Path:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", path.name, "-f", str(path)],
        check=True, timeout=30,
    )  # fmt: skip
    return path


@pytest.fixture(scope="module")
def door(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Door]:
    """``door serve`` with alice (a password) and carol (a password and a key)."""
    tmp = tmp_path_factory.mktemp("openssh-prompts")
    (ssh_port,) = free_ports(1)
    config = tmp / "door.toml"
    config.write_text(
        "[server]\n"
        'host = "127.0.0.1"\n'
        f"telnet_port = 0\nssh_port = {ssh_port}\nrlogin_port = 0\n"
        "tune_runtime = false\n"
        "[limits]\n"
        f"login_delay_s = 0.05\nlogin_failures_block = {BLOCK_AFTER}\n"
        f"account_failures_lock = {LOCK_AFTER}\n"
        "negotiation_wait_s = 0.5\nprobe_timeout_s = 0.5\n"
        "[games]\nbots = false\n"
    )
    data = tmp / "data"
    keys = tmp / "keys"
    keys.mkdir()
    carol_key = keygen(keys / "carol")
    door_cli(data, config, "user", "add", "--password-stdin", "alice", stdin=PASSWORD + "\n")
    door_cli(data, config, "user", "add", "--password-stdin", "carol",
             stdin=CAROL_PASSWORD + "\n")  # fmt: skip
    door_cli(data, config, "user", "key-add", "carol", str(carol_key) + ".pub")
    log = tmp / "serve.log"
    with door_serving(data, config, cwd=tmp, env=dict(os.environ, PYTHONPATH=str(REPO)), log=log):
        yield Door(ssh_port, keys, carol_key)


@pytest.fixture(scope="module")
def tmux() -> Iterator[Tmux]:
    server = Tmux()
    try:
        yield server
    finally:
        server.kill_server()


@pytest.fixture(scope="module")
def agent(door: Door) -> Iterator[str]:
    """An ssh-agent (its socket) holding a key that no account has."""
    sock = door.keys / f"agent-{uuid.uuid4().hex[:8]}.sock"
    proc = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        end = time.monotonic() + WAIT_S
        while not sock.exists():
            assert proc.poll() is None and time.monotonic() < end, "ssh-agent did not start"
            time.sleep(0.05)
        stranger = keygen(door.keys / "stranger-in-agent")
        subprocess.run(["ssh-add", "-q", str(stranger)], check=True, timeout=30,
                       env=dict(os.environ, SSH_AUTH_SOCK=str(sock)),
                       capture_output=True)  # fmt: skip
        yield str(sock)
    finally:
        proc.terminate()
        proc.wait(15)


def prompts(screen: str) -> int:
    """Password prompts on the screen: keyboard-interactive's "(alice@127.0.0.1)
    Password:" and the password method's "alice@127.0.0.1's password:" alike."""
    return flat(screen).lower().count("password:")


def openssh(
    tmux: Tmux,
    door: Door,
    user: str,
    options: str,
    *,
    agent: str | None = None,
    source: str = "127.0.0.1",
) -> Pane:
    """``ssh user@127.0.0.1`` in a new 80×24 pane, with no config file but ``options``,
    the agent ``agent`` (none by default), from the address ``source``. The pane stays
    after ssh ends, so what it said last can be read."""
    env = f"SSH_AUTH_SOCK={agent}" if agent else "-u SSH_AUTH_SOCK"
    command = (
        f"env {env} ssh -F /dev/null -o StrictHostKeyChecking=no"
        f" -o UserKnownHostsFile=/dev/null -o BindAddress={source} {options}"
        f" -p {door.ssh_port} {user}@127.0.0.1; echo ssh-ended; sleep 60"
    )
    return tmux.pane(f"ssh-{uuid.uuid4().hex[:8]}", command, 80, 24)


def no_key(door: Door) -> str:
    return f"-o IdentitiesOnly=yes -o IdentityFile={door.keys}/no-such-key"


# (the combination's name, its ssh options given the server, whether it uses the agent)
COMBINATIONS = {
    "no-key": (no_key, False),
    "agent-with-an-unknown-key": (lambda d: "", True),
    "unknown-key-file": (lambda d: f"-i {keygen(d.keys / uuid.uuid4().hex)}", False),
    "unknown-key-file-with-passphrase": (
        lambda d: f"-i {keygen(d.keys / uuid.uuid4().hex, 'a passphrase')}",
        False,
    ),
    "agent-and-key-file": (lambda d: f"-i {keygen(d.keys / uuid.uuid4().hex)}", True),
    "pubkey-off": (lambda d: "-o PubkeyAuthentication=no", False),
    "gssapi-on-as-debian-ships-it": (
        lambda d: f"{no_key(d)} -o GSSAPIAuthentication=yes",
        False,
    ),
    "one-password-prompt-allowed": (lambda d: f"{no_key(d)} -o NumberOfPasswordPrompts=1", False),
    "password-method-only": (
        lambda d: f"{no_key(d)} -o PreferredAuthentications=password",
        False,
    ),
    "keyboard-interactive-off": (
        lambda d: f"{no_key(d)} -o KbdInteractiveAuthentication=no",
        False,
    ),
}


@pytest.mark.parametrize("combination", list(COMBINATIONS))
def test_openssh_shows_one_password_prompt_before_typing_and_the_password_gets_in(
    door: Door, tmux: Tmux, agent: str, combination: str
) -> None:
    options, uses_agent = COMBINATIONS[combination]
    pane = openssh(tmux, door, "alice", options(door), agent=agent if uses_agent else None)
    pane.wait_until(lambda s: prompts(s) >= 1, "a password prompt")
    time.sleep(SETTLE_S)
    shown = pane.screen()
    assert prompts(shown) == 1, shown
    pane.type(PASSWORD)
    pane.wait_for("Welcome, alice!", "Main Menu")


def guess(door: Door, user: str, source: str) -> None:
    """One wrong password for ``user`` from the address ``source`` (asyncssh's client)."""

    async def attempt() -> None:
        with contextlib.suppress(asyncssh.Error, OSError):
            async with asyncssh.connect(
                "127.0.0.1", door.ssh_port, username=user, password="wrong-guess",
                known_hosts=None, client_keys=None, preferred_auth="password",
                local_addr=(source, 0),
            ):  # fmt: skip
                raise AssertionError("a wrong password logged in")

    asyncio.run(attempt())


def test_a_blocked_address_is_told_why_and_asked_for_no_password(door: Door, tmux: Tmux) -> None:
    source = f"127.0.3.{random.randint(2, 250)}"
    for i in range(BLOCK_AFTER):
        guess(door, f"nobody{i}", source)
    pane = openssh(tmux, door, "alice", no_key(door), source=source)
    shown = pane.wait_for("ssh-ended")
    assert ADDRESS_BLOCKED in flat(shown), shown
    assert "Permission denied" in shown, shown
    assert prompts(shown) == 0, shown


def test_a_locked_name_is_told_why_and_asked_for_no_password(door: Door, tmux: Tmux) -> None:
    for i in range(LOCK_AFTER):
        guess(door, "carol", f"127.0.4.{i + 2}")
    pane = openssh(tmux, door, "carol", no_key(door), source="127.0.4.200")
    shown = pane.wait_for("ssh-ended")
    assert ACCOUNT_LOCKED in flat(shown), shown
    assert prompts(shown) == 0, shown


def test_a_locked_name_still_logs_in_with_its_key(door: Door, tmux: Tmux) -> None:
    for i in range(LOCK_AFTER):
        guess(door, "carol", f"127.0.5.{i + 2}")
    pane = openssh(tmux, door, "carol", f"-o IdentitiesOnly=yes -i {door.carol_key}",
                   source="127.0.5.200")  # fmt: skip
    pane.wait_for("Welcome, carol!", "Main Menu")
