"""What a newcomer following the README's quick start sees from OpenSSH (issue 16, point
12): the real ``ssh`` client in a pane of a private tmux server against a real
``python3 -m door serve`` (its own temp data dir and config, SSH on a free port of
127.0.0.1), at 80×24 and 60×20.

``ssh new@host`` is asked for no SSH password at all; door's sign-up then asks for the
new password once, and for it again only after it was typed. The name just made logs in
with one prompt. A name with no account, a name typed in another case, and an empty
password each get one prompt before typing and exactly one more after the answer — never
a second prompt that nothing typed asked for; after an empty answer it says so.

(tests/e2e/test_openssh_login_prompts.py covers an existing account across client
set-ups: keys, agents, prompt counts and methods.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.serving import door_serving
from tests.e2e.test_real_clients import Pane, Tmux, flat
from tests.net.served import free_ports

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 30.0  # generous: the machine running the tests may be busy
SETTLE_S = 1.5
"""Seconds to keep looking after a prompt: long enough for a second one to show."""
PASSWORD = "alice-pass-7913"
SIZES = [(80, 24), (60, 20)]
SIZE_IDS = ["80x24", "60x20"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        any(shutil.which(c) is None for c in ("tmux", "ssh")),
        reason="needs tmux and the OpenSSH client (apt-get install tmux openssh-client)",
    ),
]


@dataclass
class Door:
    """A running ``door serve``: its SSH port and a directory for the clients' files."""

    ssh_port: int
    files: Path


@pytest.fixture(scope="module")
def door(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Door]:
    """``door serve`` with one account, alice (a password); sign-ups open."""
    tmp = tmp_path_factory.mktemp("openssh-new-user")
    (ssh_port,) = free_ports(1)
    config = tmp / "door.toml"
    config.write_text(
        "[server]\n"
        'host = "127.0.0.1"\n'
        f"telnet_port = 0\nssh_port = {ssh_port}\nrlogin_port = 0\n"
        "tune_runtime = false\n"
        "[limits]\n"
        "login_delay_s = 0.05\nnegotiation_wait_s = 0.5\nprobe_timeout_s = 0.5\n"
        "[games]\nbots = false\n"
    )
    data = tmp / "data"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    added = subprocess.run(
        [sys.executable, "-m", "door", "user", "add", "--password-stdin", "alice",
         "--data-dir", str(data), "--config", str(config)],
        input=PASSWORD + "\n", capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    log = tmp / "serve.log"
    with door_serving(data, config, cwd=tmp, env=env, log=log):
        yield Door(ssh_port, tmp)


@pytest.fixture(scope="module")
def tmux() -> Iterator[Tmux]:
    server = Tmux()
    try:
        yield server
    finally:
        server.kill_server()


def ssh_prompts(screen: str) -> int:
    """OpenSSH's password prompts on the screen: keyboard-interactive's "(alice@127.0.0.1)
    Password:" and the password method's "alice@127.0.0.1's password:" alike."""
    text = flat(screen).lower()
    return text.count("@127.0.0.1) password:") + text.count("@127.0.0.1's password:")


def count(screen: str, text: str) -> int:
    return flat(screen).count(flat(text))


def openssh(tmux: Tmux, door: Door, user: str, size: tuple[int, int], source: str) -> Pane:
    """``ssh user@127.0.0.1`` from the address ``source`` in a new pane of ``size``: no
    key, no agent, no config file, no known-hosts file. The pane stays after ssh ends."""
    command = (
        "env -u SSH_AUTH_SOCK ssh -F /dev/null -o StrictHostKeyChecking=no"
        " -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
        f" -o IdentitiesOnly=yes -o IdentityFile={door.files}/no-such-key"
        f" -o BindAddress={source} -p {door.ssh_port} {user}@127.0.0.1;"
        " echo ssh-ended; sleep 60"
    )
    width, height = size
    return tmux.pane(f"ssh-{uuid.uuid4().hex[:8]}", command, width, height)


def settled(pane: Pane) -> str:
    """The screen once it has had time to show a second prompt, if one were coming."""
    time.sleep(SETTLE_S)
    return pane.screen()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_signing_up_as_new_asks_no_ssh_password_and_each_password_line_once(
    door: Door, tmux: Tmux, size: tuple[int, int]
) -> None:
    name = f"dana{size[0]}"
    password = f"{name}-pass-4417"
    pane = openssh(tmux, door, "new", size, "127.0.7.2")
    pane.wait_for("Choose a name:")
    shown = settled(pane)
    assert "password" not in flat(shown).lower(), shown  # not OpenSSH's, not door's yet

    pane.type(name)
    pane.wait_for("Choose a password:")
    shown = settled(pane)
    assert ssh_prompts(shown) == 0, shown
    assert count(shown, "Choose a password:") == 1, shown
    assert "again" not in shown, shown

    pane.type(password)
    pane.wait_for("The password again:")
    shown = settled(pane)
    assert count(shown, "Choose a password:") == 1, shown
    assert count(shown, "The password again:") == 1, shown

    pane.type(password)
    pane.wait_for(f"Welcome, {name}!", "Main Menu")
    pane.keys("g")
    shown = pane.wait_until(lambda s: "Log off?" in s or "ssh-ended" in s, "the goodbye")
    if "Log off?" in shown:
        pane.keys("y")
    pane.wait_for("ssh-ended")

    back = openssh(tmux, door, name, size, "127.0.7.2")
    back.wait_until(lambda s: ssh_prompts(s) >= 1, "a password prompt")
    shown = settled(back)
    assert ssh_prompts(shown) == 1, shown
    back.type(password)
    back.wait_for(f"Welcome, {name}!", "Main Menu")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_name_with_no_account_gets_one_prompt_and_one_more_after_a_wrong_answer(
    door: Door, tmux: Tmux, size: tuple[int, int]
) -> None:
    pane = openssh(tmux, door, f"nobody{size[0]}", size, f"127.0.7.{size[0]}")
    pane.wait_until(lambda s: ssh_prompts(s) >= 1, "a password prompt")
    shown = settled(pane)
    assert ssh_prompts(shown) == 1, shown
    pane.type("a-guess-1234")
    pane.wait_until(lambda s: ssh_prompts(s) >= 2, "a second password prompt")
    shown = settled(pane)
    assert ssh_prompts(shown) == 2, shown


def test_a_name_typed_in_another_case_gets_one_prompt_and_logs_in(door: Door, tmux: Tmux) -> None:
    pane = openssh(tmux, door, "ALICE", (80, 24), "127.0.7.3")
    pane.wait_until(lambda s: ssh_prompts(s) >= 1, "a password prompt")
    shown = settled(pane)
    assert ssh_prompts(shown) == 1, shown
    pane.type(PASSWORD)
    pane.wait_for("Welcome, alice!", "Main Menu")


def test_an_empty_password_is_asked_again_saying_nothing_was_typed_then_the_password_gets_in(
    door: Door, tmux: Tmux
) -> None:
    pane = openssh(tmux, door, "alice", (80, 24), "127.0.7.4")
    pane.wait_until(lambda s: ssh_prompts(s) >= 1, "a password prompt")
    shown = settled(pane)
    assert ssh_prompts(shown) == 1, shown
    pane.type("")
    pane.wait_for("Password (nothing was typed):")
    shown = settled(pane)
    assert ssh_prompts(shown) == 1, shown  # the second prompt is not a bare "Password:"
    pane.type(PASSWORD)
    pane.wait_for("Welcome, alice!", "Main Menu")
