"""``door user email`` and ``door notify test`` / ``status`` against a real SMTP server:
the exit status is 0 only when every channel of the player accepted the test."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from door.cli import main
from tests.notices.conftest import Inbox


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp_thread() -> tuple[Inbox, int]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port  # type: ignore[misc]
    controller.stop()


def setup(tmp_path: Path, smtp_port: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    config = tmp_path / "door.toml"
    config.write_text(
        f'[mail]\nhost = "127.0.0.1"\nport = {smtp_port}\nsecurity = "none"\n'
        'from = "door@door.test"\n'
    )
    place = ["--data-dir", str(tmp_path / "data"), "--config", str(config)]
    monkeypatch.setattr("sys.stdin", io.StringIO("bob-password\n"))
    monkeypatch.setattr("door.services.accounts.SCRYPT_N", 2**8)
    assert main(["user", "add", "Bob", "--password-stdin", *place]) == 0
    return place


def test_notify_test_succeeds_when_the_mail_server_accepts(
    tmp_path: Path, smtp_thread: tuple[Inbox, int], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    inbox, port = smtp_thread
    place = setup(tmp_path, port, monkeypatch)
    assert main(["user", "email", "Bob", "bob@door.test", *place]) == 0
    assert main(["notify", "test", "Bob", "--wait", "10", *place]) == 0
    assert "email bob@door.test: accepted" in capsys.readouterr().out
    assert [m["To"] for m in inbox.messages] == ["bob@door.test"]
    assert main(["notify", "status", *place]) == 0
    assert "pending 0  sent 1  failed 0" in capsys.readouterr().out


def test_notify_test_fails_when_the_mail_server_is_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    place = setup(tmp_path, free_port(), monkeypatch)  # nothing listens there
    assert main(["user", "email", "Bob", "bob@door.test", *place]) == 0
    assert main(["notify", "test", "Bob", "--wait", "10", *place]) == 1
    assert "NOT accepted" in capsys.readouterr().err
    assert main(["notify", "status", *place]) == 0
    out = capsys.readouterr().out
    assert "failed 1" in out and "test email" in out


def test_notify_test_fails_for_a_player_with_no_channel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    place = setup(tmp_path, free_port(), monkeypatch)
    assert main(["notify", "test", "Bob", *place]) == 1
    assert "no confirmed e-mail address" in capsys.readouterr().err


def test_user_email_refuses_a_non_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    place = setup(tmp_path, free_port(), monkeypatch)
    assert main(["user", "email", "Bob", "not an address", *place]) == 1
    assert "not an e-mail address" in capsys.readouterr().err
