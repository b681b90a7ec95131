"""The status enums of runs, matches and invitations: their wire strings, pinned."""

from __future__ import annotations

from fastapi.testclient import TestClient

from snakewar.arena.tournaments import MatchStatus, TournamentFormat
from snakewar.server import ServerConfig, create_app
from snakewar.server.arena import RunProgress, RunState, StopReason
from snakewar.server.runs import RUN_STATES_SHOWN
from snakewar.storage import ArenaRunState
from snakewar.storage.accounts import InviteStatus
from snakewar.storage.models import RUN_STATES


def test_each_enum_keeps_its_wire_strings() -> None:
    assert [s.value for s in RunState] == [
        "running",
        "stopping",
        "done",
        "stopped",
        "failed",
        "interrupted",
    ]
    assert tuple(RunState) == RUN_STATES_SHOWN
    assert [s.value for s in StopReason] == ["stop", "lost", "closing"]
    assert [s.value for s in ArenaRunState] == ["running", "stopped", "failed", "done"]
    assert RUN_STATES == ("running", "stopped", "failed", "done")
    assert [s.value for s in MatchStatus] == ["waiting", "pending", "done", "bye", "skipped"]
    assert [s.value for s in InviteStatus] == ["open", "used", "expired"]
    # Every stored state but running is shown under its own name.
    assert {s.value for s in ArenaRunState} <= {s.value for s in RunState}


def test_a_runs_progress_says_its_state() -> None:
    progress = RunProgress(games=3)
    seen = [progress.state]
    progress.stopping = StopReason.STOP
    seen.append(progress.state)
    progress.running = False
    seen.append(progress.state)
    progress.stopping = StopReason.LOST
    seen.append(progress.state)
    progress.complete = True
    seen.append(progress.state)
    assert seen == [
        RunState.RUNNING,
        RunState.STOPPING,
        RunState.STOPPED,
        RunState.INTERRUPTED,
        RunState.DONE,
    ]


def test_the_openapi_schema_lists_each_enums_values() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["RunState"]["enum"] == [s.value for s in RunState]
    assert schemas["MatchStatus"]["enum"] == [s.value for s in MatchStatus]
    assert schemas["TournamentFormat"]["enum"] == [f.value for f in TournamentFormat]
    assert schemas["InviteStatus"]["enum"] == [s.value for s in InviteStatus]
    assert schemas["RunOut"]["properties"]["state"]["$ref"].endswith("/RunState")
    assert schemas["TournamentMatchOut"]["properties"]["status"]["$ref"].endswith("/MatchStatus")
