"""A password login with a real OpenSSH client (in a private tmux server, 80×24): one
"Password:" prompt until the player answers, one more only after a wrong password; an
Enter with nothing typed is asked again by a prompt that says so, and costs no try.

OpenSSH asks by keyboard-interactive (door answers it with a single "Password:" prompt,
checked by ``validate_password``) before it would fall back to the ``password`` method.
A second prompt with no password typed comes from an empty answer: an Enter that reached
the client just after its prompt (pressed twice at the shell, or typed ahead while the
connection was made). It used to count as a wrong password and bring back a bare
"Password:" after the guard's delay.
"""

from __future__ import annotations

import asyncio
import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from door.app import App

pytestmark = pytest.mark.skipif(
    shutil.which("ssh") is None or shutil.which("tmux") is None,
    reason="needs the OpenSSH client and tmux",
)
SOCKET = "door-test-setup"


async def tmux(*args: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        "tmux", "-L", SOCKET, *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    out, _ = await proc.communicate()
    return out.decode("utf-8", "replace")


class Pane:
    """One tmux window running ``ssh`` against the test's server."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def screen(self) -> str:
        return await tmux("capture-pane", "-p", "-t", self.name)

    async def wait_for(self, text: str, timeout: float = 15.0) -> str:
        for _ in range(int(timeout / 0.1)):
            shown = await self.screen()
            if text in shown:
                return shown
            await asyncio.sleep(0.1)
        raise AssertionError(f"{text!r} not shown; pane:\n{await self.screen()}")

    async def type(self, text: str) -> None:
        await tmux("send-keys", "-t", self.name, "-l", text)
        await tmux("send-keys", "-t", self.name, "Enter")


@pytest.fixture
async def openssh(app: App, tmp_path: Path) -> AsyncIterator[Pane]:
    await app.services.accounts.register("alice", "secret1")
    name = f"pw-{uuid.uuid4().hex[:8]}"
    command = (
        f"ssh -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
        f"-o IdentitiesOnly=yes -o IdentityFile={tmp_path}/none -o LogLevel=ERROR "
        f"-p {app.ports['ssh']} alice@127.0.0.1; sleep 30"
    )
    await tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command)
    try:
        yield Pane(name)
    finally:
        await tmux("kill-session", "-t", name)


async def test_openssh_asks_for_the_password_once_before_anything_is_typed(
    openssh: Pane,
) -> None:
    await openssh.wait_for("Password:")
    await asyncio.sleep(2.0)  # long enough for a second prompt to show, if one came
    assert (await openssh.screen()).count("Password:") == 1


async def test_the_right_password_reaches_the_session_with_no_second_prompt(
    openssh: Pane,
) -> None:
    await openssh.wait_for("Password:")
    await openssh.type("secret1")
    shown = await openssh.wait_for("SESSION user=alice")
    assert shown.count("Password:") == 1


async def test_a_wrong_password_asks_once_more(openssh: Pane) -> None:
    await openssh.wait_for("Password:")
    await openssh.type("wrong")
    for _ in range(100):
        if (await openssh.screen()).count("Password:") >= 2:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)
    assert (await openssh.screen()).count("Password:") == 2


async def test_an_enter_with_nothing_typed_is_asked_again_saying_so(openssh: Pane) -> None:
    await openssh.wait_for("Password:")
    await tmux("send-keys", "-t", openssh.name, "Enter")
    shown = await openssh.wait_for("Password (nothing was typed):", timeout=5.0)
    assert shown.count("Password:") == 1
    await openssh.type("secret1")
    await openssh.wait_for("SESSION user=alice")


async def test_enters_with_nothing_typed_leave_every_try_for_the_password(
    openssh: Pane,
) -> None:
    await openssh.wait_for("Password:")
    await tmux("send-keys", "-t", openssh.name, "Enter")
    await openssh.wait_for("Password (nothing was typed):", timeout=5.0)
    for i in range(2):  # two wrong ones: the third and last try is still the player's
        await openssh.type(f"wrong{i}")
        for _ in range(100):
            if (await openssh.screen()).count("Password:") >= 2 + i:
                break
            await asyncio.sleep(0.1)
    await openssh.type("secret1")
    await openssh.wait_for("SESSION user=alice")
