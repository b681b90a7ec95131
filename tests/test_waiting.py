"""The shared wait for a game's end (``tests.waiting.wait_finished``) waits, and fails clearly."""

from __future__ import annotations

import httpx
import pytest

from tests.waiting import wait_finished


def answering(statuses: list[str], code: int = 200) -> tuple[httpx.Client, list[str]]:
    """A client whose game reads each of ``statuses`` in turn (the last one from then on)."""
    asked: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        status = statuses[min(len(asked), len(statuses)) - 1]
        return httpx.Response(code, json={"id": "g", "status": status, "turn": len(asked)})

    return httpx.Client(transport=httpx.MockTransport(handle), base_url="http://x"), asked


def test_it_polls_until_the_game_is_no_longer_running() -> None:
    client, asked = answering(["running", "running", "complete"])
    game = wait_finished(client, "g", every=0)
    assert game == {"id": "g", "status": "complete", "turn": 3}
    assert asked == ["/api/games/g"] * 3


def test_a_game_that_never_ends_fails_with_the_game_as_last_seen() -> None:
    client, _ = answering(["running"])
    with pytest.raises(AssertionError, match=r"game g still running after 0\.2 s: .*'turn': "):
        wait_finished(client, "g", timeout=0.2, every=0.01)


def test_an_error_answer_fails_at_once() -> None:
    client, asked = answering(["running"], code=404)
    with pytest.raises(AssertionError, match="game g: "):
        wait_finished(client, "g")
    assert len(asked) == 1
