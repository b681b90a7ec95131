"""The one way a test asks for a system tool: a skip with the reason, a failure under CI."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest

import snakewar.referee.sandbox
from tests import system_tools
from tests.system_tools import need, postgres_url, sandbox, tool

INSTALLS = ".ci/run installs it)"


def outcome(
    call: Callable[[], object], ci: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str]:
    """How ``call()`` ended (``skip``, ``fail`` or ``ran``) and its message, in or out of CI."""
    monkeypatch.setattr(system_tools, "IN_CI", ci)
    try:
        call()
    except pytest.skip.Exception as exc:
        return "skip", str(exc)
    except pytest.fail.Exception as exc:
        return "fail", str(exc)
    return "ran", ""


@pytest.mark.parametrize(("ci", "ending"), [(False, "skip"), (True, "fail")])
def test_a_missing_tool_is_a_skip_outside_ci_and_a_failure_in_it(
    ci: bool, ending: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    how, message = outcome(lambda: need("the frobnicator", False, "frob"), ci, monkeypatch)
    assert how == ending
    assert message == f"the frobnicator is not available (Debian package frob; {INSTALLS}"
    how, message = outcome(lambda: need("the frobnicator", True, "frob"), ci, monkeypatch)
    assert how == "ran"


@pytest.mark.parametrize(("ci", "ending"), [(False, "skip"), (True, "fail")])
def test_a_command_not_on_the_path_names_its_package(
    ci: bool, ending: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    how, message = outcome(lambda: tool("node", "nodejs"), ci, monkeypatch)
    assert how == ending
    assert message == f"the 'node' command is not available (Debian package nodejs; {INSTALLS}"


def test_a_command_on_the_path_is_its_path() -> None:
    found = shutil.which("sh")
    assert found is not None
    assert tool("sh") == found


@pytest.mark.parametrize(("ci", "ending"), [(False, "skip"), (True, "fail")])
def test_no_bubblewrap_is_said_as_for_every_command(
    ci: bool, ending: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        snakewar.referee.sandbox,
        "sandbox_available",
        lambda: "bubblewrap is not installed (Debian package bubblewrap)",
    )
    monkeypatch.setenv("PATH", "/nonexistent")
    how, message = outcome(sandbox, ci, monkeypatch)
    assert how == ending
    assert message == (
        f"the 'bwrap' command is not available (Debian package bubblewrap; {INSTALLS}"
    )


@pytest.mark.parametrize(("ci", "ending"), [(False, "skip"), (True, "fail")])
def test_a_bubblewrap_that_cannot_make_a_sandbox_says_why(
    ci: bool, ending: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bwrap is installed (a stand-in here) but the kernel refuses it user namespaces.
    why = "bubblewrap cannot make a sandbox: No permissions to create new namespace"
    monkeypatch.setattr(snakewar.referee.sandbox, "sandbox_available", lambda: why)
    monkeypatch.setattr(shutil, "which", lambda command: f"/usr/bin/{command}")
    how, message = outcome(sandbox, ci, monkeypatch)
    assert how == ending
    assert message == (
        f"a bubblewrap sandbox is not available: {why} (Debian package bubblewrap; {INSTALLS}"
    )


def test_a_working_sandbox_lets_the_test_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snakewar.referee.sandbox, "sandbox_available", lambda: None)
    assert outcome(sandbox, True, monkeypatch) == ("ran", "")


@pytest.mark.parametrize(("ci", "ending"), [(False, "skip"), (True, "fail")])
def test_postgresql_is_named_by_its_variable(
    ci: bool, ending: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(system_tools.POSTGRES_ENV, raising=False)
    how, message = outcome(postgres_url, ci, monkeypatch)
    assert how == ending
    assert message.startswith("a PostgreSQL database in $SNAKEWAR_TEST_POSTGRES_URL")
    assert message.endswith(f"is not available (Debian package postgresql; {INSTALLS}")
    url = "postgresql+psycopg://postgres@127.0.0.1:1/scratch"
    monkeypatch.setenv(system_tools.POSTGRES_ENV, f" {url} ")
    assert postgres_url() == url
