"""Battlesnake's request and response models: the official board's engine API, the tester.

Its routes' models (:mod:`.engine`, :mod:`.tester`); the server's own are
:mod:`snakewar.server.schemas`, whose request base (:class:`RequestModel`) these use.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from snakewar.server.schemas import RequestModel

__all__ = [
    "CheckOut",
    "EngineDeath",
    "EngineFrame",
    "EngineFrames",
    "EngineGame",
    "EngineGameInfo",
    "EnginePoint",
    "EngineRuleset",
    "EngineSnake",
    "LoadOnlyOut",
    "ScenarioOut",
    "ScoreOut",
    "TestRequest",
    "TesterReportOut",
    "VariantOut",
]


# -- the official board's engine API --------------------------------------------------


class EngineRuleset(BaseModel):
    """The engine API's ruleset settings."""

    name: str
    foodSpawnChance: str
    minimumFood: str
    hazardDamagePerTurn: str
    shrinkEveryNTurns: str


class EngineGameInfo(BaseModel):
    """The engine API's ``Game`` object."""

    ID: str
    Status: str
    Width: int = 0
    Height: int = 0
    Ruleset: EngineRuleset | None = None
    SnakeTimeout: int = 0
    Source: str = ""
    RulesetName: str = ""
    RulesStages: list[str] = Field(default_factory=list)
    Map: str = ""
    Seed: int = 0


class EnginePoint(BaseModel):
    """A board point."""

    X: int
    Y: int


class EngineDeath(BaseModel):
    """Why and when a snake was eliminated."""

    Cause: str
    Turn: int
    EliminatedBy: str


class EngineSnake(BaseModel):
    """A snake in a frame."""

    ID: str
    Name: str
    Body: list[EnginePoint]
    Health: int
    Death: EngineDeath | None
    Color: str
    HeadType: str
    TailType: str
    Latency: str
    Shout: str
    Squad: str
    Author: str
    StatusCode: int
    Error: str
    IsBot: bool
    IsEnvironment: bool
    CallStatus: str = Field(
        "", description="Snakewar's: the move call's status (ok, timeout...); empty at turn 0."
    )
    TimeBank: int | None = Field(
        None, description="Snakewar's: the time bank left (ms) under the unofficial time bank."
    )
    Retried: bool = Field(
        False, description="Snakewar's: the move was asked twice (the unofficial retry rule)."
    )


class EngineFrame(BaseModel):
    """One frame: the board after a turn."""

    Turn: int
    Snakes: list[EngineSnake]
    Food: list[EnginePoint]
    Hazards: list[EnginePoint]


class EngineGame(BaseModel):
    """``GET /games/{id}``: the game and its last frame."""

    Game: EngineGameInfo
    LastFrame: EngineFrame | None


class EngineFrames(BaseModel):
    """``GET /games/{id}/frames``: a page of frames."""

    Count: int
    Frames: list[EngineFrame]


# -- the snake tester ------------------------------------------------------------------


class TestRequest(RequestModel):
    """A snake to test."""

    __test__ = False  # not a pytest test class, despite the name
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        min_length=1, max_length=2048, description="URL, builtin:NAME, v0:URL or legacy:URL"
    )
    timeout: int = Field(500, ge=1, le=10_000)
    rulesets: list[Annotated[str, Field(min_length=1, max_length=32)]] = Field(
        default_factory=lambda: ["standard"],
        max_length=8,
        description="The rulesets the snake plays: the standard scenarios, and those of "
        "these rulesets (royale: hazards, wrapped: edges).",
    )
    parallel: int = Field(
        1,
        ge=1,
        le=4,
        description="Scenario games in flight at once (1: one after the other, as most "
        "snakes play); a failure under load is played again alone before it counts.",
    )
    scenarios: dict[str, Any] | None = Field(
        None,
        description="A scenario file of your own (its JSON object, as 'snakewar replay "
        "scenario' writes it; at most 1 MiB and 20 scenarios): its positions run after the "
        "built-in ones, in their symmetries, checked against the rules engine first.",
    )
    only_scenarios: bool = Field(
        False, description="Run the 'scenarios' file's positions without the built-in ones."
    )


class CheckOut(BaseModel):
    """One health check."""

    name: str
    passed: bool
    status: str
    latency_ms: int
    http_status: int | None
    detail: str
    notes: list[str]


class VariantOut(BaseModel):
    """One symmetric variant of a scenario."""

    variant: str
    passed: bool
    move: str
    acceptable: list[str]
    status: str
    latency_ms: int
    error: str
    failed_under_load: str


class ScenarioOut(BaseModel):
    """One scenario's variants (the first failure with its board)."""

    id: str
    category: str
    kind: str
    ruleset: str
    title: str
    passed: bool
    variants_passed: int
    variants_total: int
    variants_load_only: int
    variants: list[VariantOut]
    first_failure: dict[str, Any] | None


class ScoreOut(BaseModel):
    """Scenarios and positions passed, of one kind of check."""

    passed: int
    total: int
    positions_passed: int
    positions_total: int


class LoadOnlyOut(BaseModel):
    """A position that failed among parallel games and passed alone."""

    id: str
    variant: str
    failed_under_load: str


class TesterReportOut(BaseModel):
    """What the tester found out about one snake."""

    source: str
    timeout_ms: int
    rulesets: list[str]
    parallel: int
    reachable: bool
    unreachable_reason: str
    passed: bool = Field(description="Every health check and survival scenario passed.")
    exit_code: int
    summary: str
    elapsed_s: float
    survival: ScoreOut = Field(description="Survival scenarios: they decide `passed`.")
    strategy: ScoreOut = Field(description="Strategy scenarios: a score, never a failure.")
    load_only: list[LoadOnlyOut]
    notes: list[str]
    checks: list[CheckOut]
    scenarios: list[ScenarioOut]
