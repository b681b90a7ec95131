"""Scenario files: a replay's turn saved as a tester scenario, and ``snakewar test --scenarios``.

A real game is played by ``snakewar play`` (a subprocess), its turns are saved with
``snakewar replay scenario`` (a subprocess), and the saved moves are checked against a
brute-force oracle written here: every move of the tested snake against every
combination of the others' moves, through the rules engine.  The files are then run by
``snakewar test`` against snakes served over real HTTP on loopback.
"""

from __future__ import annotations

import contextlib
import copy
import io
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snakewar.games.battlesnake.rules.rulesets import named_ruleset
from snakewar.games.battlesnake.rules.types import Point
from snakewar.games.battlesnake.rules.wire import MOVES, SnakeRequest
from snakewar.games.battlesnake.tester.files import (
    FORMAT,
    VERSION,
    ScenarioFileError,
    load_scenarios,
)
from snakewar.games.battlesnake.tester.scenarios import (
    SCENARIOS,
    SYMMETRIES,
    YOU,
    rules_acceptable_moves,
)
from tests.cli_process import run
from tests.games.battlesnake.tester.test_tester import AMPLE, Snakes

HUNTER, GREEDY = "hunter-1", "greedy-2"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One finished game: its Snakewar replay and its official CLI JSONL."""
    folder = tmp_path_factory.mktemp("game")
    replay, official = folder / "g.jsonl", folder / "off.jsonl"
    done = run(
        "play",
        "builtin:hunter?depth=1",
        "builtin:greedy",
        "-n",
        HUNTER,
        "-n",
        GREEDY,
        "-r",
        "7",
        "--replay",
        str(replay),
        "-o",
        str(official),
        "--no-live",
    )
    assert done.returncode == 0, done.stderr
    return replay, official


@pytest.fixture(scope="module")
def snakes() -> Iterator[Snakes]:
    with Snakes() as running:
        yield running


def oracle(request: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(moves that survive every reply, moves that die in every reply), by brute force."""
    parsed = SnakeRequest.from_api(request)
    ruleset = named_ruleset(parsed.game.ruleset_name, parsed.game.settings, solo=True)
    me = parsed.you.id
    others = [s.id for s in parsed.board.snakes if s.id != me]
    safe, dead = set(), set()
    for move in MOVES:
        outcomes = []
        for replies in itertools.product(MOVES, repeat=len(others)):
            _, after = ruleset.execute(
                parsed.board, {me: move, **dict(zip(others, replies, strict=True))}
            )
            outcomes.append(bool(after.snake(me).eliminated_cause))
        if not any(outcomes):
            safe.add(move)
        if all(outcomes):
            dead.add(move)
    return safe, dead


def save_turns(replay: Path, out: Path, snake: str = HUNTER) -> list[int]:
    """Append every turn of ``replay`` that tests something; the turns saved."""
    turns = json.loads(replay.read_text().splitlines()[-1])["result"]["turns"]
    saved = []
    for turn in range(0, turns, 3):
        code, stdout, stderr = in_process(
            "replay",
            "scenario",
            str(replay),
            "--turn",
            str(turn),
            "--snake",
            snake,
            "-o",
            str(out),
            "--append",
        )
        if code == 0:
            saved.append(turn)
            assert stdout.startswith("saved scenario 'turn-")
        else:
            # Refused positions (or the snake dead by then) are one error line.
            assert code == 2 and stderr.count("\n") == 1, stderr
            assert stderr.startswith("error: ") and "Traceback" not in stderr
    return saved


def in_process(*args: str) -> tuple[int, str, str]:
    """``snakewar ARGS`` through :func:`snakewar.cli.main` in this process (faster than a
    subprocess for many calls): status, stdout, stderr."""
    from snakewar import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_saved_turns_hold_the_rules_engines_moves(game: tuple[Path, Path], tmp_path: Path) -> None:
    replay, _ = game
    out = tmp_path / "mine.json"
    saved = save_turns(replay, out)
    assert saved, "no turn of the game could be saved"
    document = json.loads(out.read_text())
    assert document["format"] == FORMAT and document["version"] == VERSION
    entries = document["scenarios"]
    assert [e["name"] for e in entries] == [f"turn-{t}-{HUNTER}" for t in saved]
    kinds = set()
    for entry, turn in zip(entries, saved, strict=True):
        request = entry["request"]
        assert request["turn"] == turn and request["you"]["name"] == HUNTER
        assert request["game"]["ruleset"]["name"] == "standard"
        safe, dead = oracle(request)
        assert entry["acceptable"] == [m for m in MOVES if m in safe]
        assert 0 < len(safe) < 4
        expected_kind = "survival" if set(MOVES) - safe <= dead else "strategy"
        assert entry["kind"] == expected_kind and entry["goal"] == "survive"
        kinds.add(entry["kind"])
    assert "survival" in kinds
    # The file reads back, every scenario proven again, the tested snake renamed "you".
    loaded = load_scenarios(out.read_bytes(), "mine.json")
    assert [s.id for s in loaded] == [e["name"] for e in entries]
    for scenario, entry in zip(loaded, entries, strict=True):
        assert scenario.you.body == SnakeRequest.from_api(entry["request"]).you.body
        assert scenario.state.snake(YOU).health == entry["request"]["you"]["health"]
        assert len(scenario.variants()) == len(SYMMETRIES)


def test_official_jsonl_gives_the_same_position(game: tuple[Path, Path], tmp_path: Path) -> None:
    replay, official = game
    a = run("replay", "scenario", str(replay), "--turn", "4", "--snake", GREEDY, "--keep")
    b = run("replay", "scenario", str(official), "--turn", "4", "--snake", GREEDY, "--keep")
    assert a.returncode == b.returncode == 0, a.stderr + b.stderr
    left, right = json.loads(a.stdout)["scenarios"][0], json.loads(b.stdout)["scenarios"][0]
    # The same position; only what the official file adds (latencies, shouts) may differ.
    for side in (left, right):
        for snake in [*side["request"]["board"]["snakes"], side["request"]["you"]]:
            del snake["latency"], snake["shout"]
    assert left["request"]["board"] == right["request"]["board"]
    assert left["request"]["you"] == right["request"]["you"]
    assert left["acceptable"] == right["acceptable"] and left["kind"] == right["kind"]


def test_positions_that_test_nothing_are_refused_unless_kept(
    game: tuple[Path, Path], tmp_path: Path
) -> None:
    replay, _ = game
    # Turn 0: the snakes stand on their start squares, every move is safe.
    done = run("replay", "scenario", str(replay), "--turn", "0", "--snake", HUNTER)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "error: every move meets the goal (survive) here: the position tests nothing "
        "(--keep saves it anyway)\n"
    )
    kept = run("replay", "scenario", str(replay), "--turn", "0", "--snake", HUNTER, "--keep")
    assert kept.returncode == 0, kept.stderr
    entry = json.loads(kept.stdout)["scenarios"][0]
    assert entry["acceptable"] == list(MOVES) and entry["kind"] == "survival"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--turn", "9999", "--snake", HUNTER],
            "error: turn 9999 is not in g.jsonl (it has turns 0..",
        ),
        (
            ["--turn", "3", "--snake", "nobody"],
            "error: no snake 'nobody' alive at turn 3 of g.jsonl",
        ),
        (
            ["--turn", "3", "--snake", HUNTER, "--name", "bad name!"],
            "error: scenario name 'bad name!'",
        ),
        (["--turn", "3", "--snake", HUNTER, "--append"], "error: --append adds to the file -o"),
    ],
)
def test_bad_requests_are_one_error_line(
    game: tuple[Path, Path], args: list[str], message: str
) -> None:
    replay, _ = game
    done = run("replay", "scenario", str(replay), *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr


def test_output_file_is_not_overwritten_and_names_stay_unique(
    game: tuple[Path, Path], tmp_path: Path
) -> None:
    replay, _ = game
    out = tmp_path / "s.json"
    saved = save_turns(replay, out)
    before = out.read_bytes()
    turn = str(saved[0])
    again = run(
        "replay", "scenario", str(replay), "--turn", turn, "--snake", HUNTER, "-o", str(out)
    )
    assert again.returncode == 2 and "exists (--append adds to it)" in again.stderr
    twice = run(
        "replay",
        "scenario",
        str(replay),
        "--turn",
        turn,
        "--snake",
        HUNTER,
        "-o",
        str(out),
        "--append",
    )
    assert twice.returncode == 2
    assert f"scenario 'turn-{turn}-{HUNTER}' is already in the file" in twice.stderr
    renamed = run(
        "replay",
        "scenario",
        str(replay),
        "--turn",
        turn,
        "--snake",
        HUNTER,
        "-o",
        str(out),
        "--append",
        "--name",
        "again",
    )
    assert renamed.returncode == 0, renamed.stderr
    assert out.read_bytes() != before
    assert json.loads(out.read_text())["scenarios"][-1]["name"] == "again"


def kill_oracle(request: dict[str, Any], target: str) -> set[str]:
    """The moves after which the tested snake lives and ``target`` dies, in every reply."""
    parsed = SnakeRequest.from_api(request)
    ruleset = named_ruleset(parsed.game.ruleset_name, parsed.game.settings, solo=True)
    me = parsed.you.id
    others = [s.id for s in parsed.board.snakes if s.id != me]
    kills = set()
    for move in MOVES:
        outcomes = [
            ruleset.execute(parsed.board, {me: move, **dict(zip(others, replies, strict=True))})[1]
            for replies in itertools.product(MOVES, repeat=len(others))
        ]
        if all(
            not after.snake(me).eliminated_cause and after.snake(target).eliminated_cause
            for after in outcomes
        ):
            kills.add(move)
    return kills


def test_a_kill_goal_is_saved_from_a_real_turn_and_run_by_the_tester(
    game: tuple[Path, Path], tmp_path: Path, snakes: Snakes, capsys: pytest.CaptureFixture[str]
) -> None:
    replay, _ = game
    last = json.loads(replay.read_text().splitlines()[-1])["result"]["turns"]
    out = tmp_path / "kills.json"
    # Kills are late in a game: the turns before the last, newest first, up to one that
    # has a sure kill; the others are refused, one line each.
    saved = refused = None
    for turn in range(last - 1, max(last - 40, 0), -1):
        for me, other in ((HUNTER, GREEDY), (GREEDY, HUNTER)):
            scratch = tmp_path / f"scan-{turn}-{me}.json"
            args = ["--turn", str(turn), "--snake", me, "--kill", other, "-o", str(scratch)]
            code, _, stderr = in_process("replay", "scenario", str(replay), *args)
            if code == 0:
                saved = saved or (turn, me, other)
            elif "for certain" in stderr and refused is None:
                refused = (turn, me, other, stderr)
        if saved is not None and refused is not None:
            break
    assert saved is not None, "no turn of the game has a sure kill"
    turn, me, other = saved
    args = ["--turn", str(turn), "--snake", me, "--kill", other, "-o", str(out)]
    code, stdout, stderr = in_process("replay", "scenario", str(replay), *args)
    assert code == 0, stderr
    assert stdout.startswith(f"saved scenario 'turn-{turn}-{me}-kills-{other}' (")
    assert f"; kill {other}; right moves: " in stdout
    (entry,) = json.loads(out.read_text())["scenarios"]
    assert entry["goal"] == "kill" and entry["title"].endswith(f", {me} to kill {other}")
    request = entry["request"]
    target = next(s["id"] for s in request["board"]["snakes"] if s["name"] == other)
    assert entry["target"] == target and request["you"]["name"] == me
    assert entry["acceptable"] == [m for m in MOVES if m in kill_oracle(request, target)]
    assert entry["acceptable"]
    # A turn without a sure kill: one clear line, nothing written.
    assert refused is not None
    assert refused[3] == (
        f"error: no move kills {refused[2]} here for certain (whatever the other snakes do, "
        "and surviving): the position tests nothing (--keep saves it anyway)\n"
    )
    # The file reads back, proven again with its kill goal, and the tester runs it.
    (scenario,) = load_scenarios(out.read_bytes(), out.name)
    assert scenario.goal == "kill" and scenario.target == target
    assert scenario.acceptable == frozenset(entry["acceptable"])
    code, text, err = _cli(
        ["test", snakes.url("up"), "--scenarios", str(out), "--only-scenarios", "--json", *AMPLE],
        capsys,
    )
    (ran,) = json.loads(text)["scenarios"]
    assert ran["id"] == entry["name"] and ran["kind"] == entry["kind"], err
    for variant in ran["variants"]:
        assert variant["passed"] == ("up" in variant["acceptable"])


@pytest.mark.parametrize(
    ("kill", "message"),
    [
        ("nobody", "error: no snake 'nobody' to kill alive at turn 3 of g.jsonl (alive: "),
        (HUNTER, "error: no snake 'hunter-1' to kill alive at turn 3 of g.jsonl (alive: "),
    ],
)
def test_a_kill_target_that_is_no_other_snake_is_one_error_line(
    game: tuple[Path, Path], kill: str, message: str
) -> None:
    done = run("replay", "scenario", str(game[0]), "--turn", "3", "--snake", HUNTER, "--kill", kill)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr
    assert GREEDY in done.stderr and f"({HUNTER})" not in done.stderr


# -- reading files: every bad field one line ----------------------------------------------------


def _file(entries: list[Any], **top: Any) -> bytes:
    return json.dumps({"format": FORMAT, "version": VERSION, "scenarios": entries, **top}).encode()


@pytest.fixture(scope="module")
def good_entry(game: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("good") / "good.json"
    save_turns(game[0], out)
    entry: dict[str, Any] = json.loads(out.read_text())["scenarios"][0]
    return entry


def test_bad_fields_are_named_one_line_each(good_entry: dict[str, Any]) -> None:
    bad_kind = dict(good_entry, name="k1", kind="sometimes")
    bad_moves = dict(good_entry, name="m1", acceptable=["up", "up"])
    bad_goal = dict(good_entry, name="g1", goal="win")
    bad_request = copy.deepcopy(dict(good_entry, name="r1"))
    bad_request["request"]["board"]["width"] = "eleven"
    bad_target = dict(good_entry, name="t1", target="someone")
    data = _file([bad_kind, bad_moves, bad_goal, bad_request, bad_target, 7])
    with pytest.raises(ScenarioFileError) as caught:
        load_scenarios(data, "f.json")
    problems = caught.value.problems
    assert len(problems) == 6
    assert problems[0] == (
        "f.json: scenario 'k1': field 'kind': expected one of 'survival', 'strategy', "
        "got 'sometimes'"
    )
    assert problems[1] == (
        "f.json: scenario 'm1': field 'acceptable': expected a list of distinct moves "
        "('up', 'down', 'left', 'right'), got ['up', 'up']"
    )
    assert problems[2] == "f.json: scenario 'g1': field 'goal': expected one of 'survive', 'kill'"
    assert problems[3].startswith("f.json: scenario 'r1': field 'request': board")
    assert "'eleven'" in problems[3]
    assert problems[4] == "f.json: scenario 't1': field 'target': only a 'kill' goal has a target"
    assert problems[5] == "f.json: scenarios[5]: expected an object, got 7"


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b"{", "f.json: not JSON"),
        (b"[]", "f.json: expected a JSON object, got []"),
        (
            json.dumps({"format": "x"}).encode(),
            "f.json: field 'format': expected 'snakewar-scenarios'",
        ),
        (
            json.dumps({"format": FORMAT, "version": 2}).encode(),
            "f.json: field 'version': expected 1, got 2",
        ),
        (
            json.dumps({"format": FORMAT, "version": 1, "scenarios": {}}).encode(),
            "f.json: field 'scenarios'",
        ),
    ],
)
def test_a_file_that_is_no_scenario_file_is_one_line(data: bytes, line: str) -> None:
    with pytest.raises(ScenarioFileError) as caught:
        load_scenarios(data, "f.json")
    assert len(caught.value.problems) == 1 and caught.value.problems[0].startswith(line)


def test_declared_moves_and_kind_are_checked_against_the_rules(
    good_entry: dict[str, Any],
) -> None:
    right = good_entry["acceptable"]
    wrong = [m for m in MOVES if m not in right][:1] + right
    lying = dict(good_entry, name="liar", acceptable=wrong)
    other_kind = "strategy" if good_entry["kind"] == "survival" else "survival"
    mislabelled = dict(good_entry, name="label", kind=other_kind)
    with pytest.raises(ScenarioFileError) as caught:
        load_scenarios(_file([good_entry, lying, mislabelled]), "f.json")
    first, second = caught.value.problems
    assert first.startswith("f.json: scenario 'liar': field 'acceptable': the rules engine says [")
    assert second.startswith(
        f"f.json: scenario 'label': field 'kind': the rules engine says {good_entry['kind']!r}"
    )


def test_kill_goal_and_another_snake_named_you() -> None:
    # A built-in free kill, written as a file whose rival's id is "you" while the
    # tested snake is "me": the tested snake takes "you", the rival another name.
    builtin = next(s for s in SCENARIOS if s.goal == "kill")
    request = builtin.request().to_api()
    for snake in [*request["board"]["snakes"], request["you"]]:
        if snake["id"] == builtin.target:
            snake["id"] = "you"
        elif snake["id"] == YOU:
            snake["id"] = "me"
    entry = {
        "name": "kill",
        "goal": "kill",
        "target": "you",
        "kind": builtin.kind,
        "acceptable": sorted(builtin.acceptable),
        "request": request,
    }
    (loaded,) = load_scenarios(_file([entry]), "f.json")
    assert loaded.state.snake(YOU).body == builtin.you.body
    assert loaded.target == "you-2" and loaded.state.snake("you-2").body == (
        builtin.state.snake(builtin.target).body
    )
    assert loaded.acceptable == builtin.acceptable and loaded.kind == builtin.kind
    itself = dict(entry, target="me")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenarios(_file([itself]), "f.json")
    assert caught.value.problems[0].startswith(
        "f.json: scenario 'kill': field 'target': expected another snake of the board ('you')"
    )


# -- snakewar test --scenarios -------------------------------------------------------------


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from snakewar import cli

    capsys.readouterr()
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_own_scenarios_run_in_the_tester(
    game: tuple[Path, Path],
    tmp_path: Path,
    snakes: Snakes,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "mine.json"
    save_turns(game[0], out)
    entries = json.loads(out.read_text())["scenarios"]
    names = [e["name"] for e in entries]
    code, text, err = _cli(
        ["test", snakes.url("up"), "--scenarios", str(out), "--only-scenarios", "--json", *AMPLE],
        capsys,
    )
    report = json.loads(text)
    assert [s["id"] for s in report["scenarios"]] == names
    for scenario, entry in zip(report["scenarios"], entries, strict=True):
        assert scenario["category"] == "custom" and scenario["kind"] == entry["kind"]
        assert scenario["variants_total"] == 8
        for variant in scenario["variants"]:
            assert variant["move"] == "up"
            assert variant["passed"] == ("up" in variant["acceptable"])
    # Always up dies somewhere in a survival scenario's symmetries: the verdict fails.
    survival = [s for s in report["scenarios"] if s["kind"] == "survival"]
    assert survival and not all(s["passed"] for s in survival)
    assert code == 1 and report["passed"] is False, err
    # Beside the built-in suite: the built-in scenarios first, then the file's.
    code, text, err = _cli(
        ["test", snakes.url("up"), "--scenarios", str(out), "--only", "walls", "--json", *AMPLE],
        capsys,
    )
    ids = [s["id"] for s in json.loads(text)["scenarios"]]
    assert ids[-len(names) :] == names and ids[0].startswith("walls-")


def test_bad_scenario_files_are_error_lines_before_any_call(
    tmp_path: Path, good_entry: dict[str, Any]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(_file([dict(good_entry, name="k1", kind="maybe"), dict(good_entry, name="k1")]))
    # No snake listens at this URL: the files are refused before any call is made.
    done = run(
        "test",
        "http://127.0.0.1:9/",
        "--scenarios",
        str(bad),
        "--scenarios",
        str(tmp_path / "missing.json"),
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines == [
        f"error: {bad}: scenario 'k1': field 'kind': expected one of 'survival', 'strategy', "
        "got 'maybe'",
        f"error: {bad}: scenario 'k1': field 'name': used twice in the file",
        f"error: scenario file '{tmp_path / 'missing.json'}' does not exist",
    ]
    only = run("test", "http://127.0.0.1:9/", "--only-scenarios")
    assert only.returncode == 2 and "--only-scenarios" in only.stderr
    assert "Traceback" not in only.stderr


def test_a_board_that_is_not_square_runs_in_its_four_symmetries() -> None:
    # A 7x11 board: the tested snake in the bottom-left corner going down its left edge,
    # a rival far away; down and left are walls.  Quarter turns do not fit such a board.
    request = {
        "game": {"id": "g", "ruleset": {"name": "standard", "settings": {}}, "map": "standard"},
        "turn": 10,
        "board": {
            "width": 7,
            "height": 11,
            "food": [],
            "hazards": [],
            "snakes": [
                {"id": "me", "health": 90, "body": [{"x": 0, "y": 0}, {"x": 0, "y": 1},
                                                    {"x": 0, "y": 2}]},
                {"id": "rival", "health": 90, "body": [{"x": 6, "y": 10}, {"x": 5, "y": 10},
                                                       {"x": 4, "y": 10}]},
            ],
        },
        "you": {"id": "me", "health": 90, "body": [{"x": 0, "y": 0}, {"x": 0, "y": 1},
                                                   {"x": 0, "y": 2}]},
    }  # fmt: skip
    entry = {
        "name": "narrow",
        "goal": "survive",
        "kind": "survival",
        "acceptable": ["right"],
        "request": request,
    }
    (scenario,) = load_scenarios(_file([entry]), "f.json")
    variants = scenario.variants()
    assert [v.variant for v in variants] == ["identity", "rot180", "mirror", "mirror-rot180"]
    for variant in variants:
        assert (variant.state.width, variant.state.height) == (7, 11)
        assert rules_acceptable_moves(variant) == variant.acceptable
    assert {v.you.head for v in variants} == {
        Point(0, 0),
        Point(6, 10),
        Point(6, 0),
        Point(0, 10),
    }
