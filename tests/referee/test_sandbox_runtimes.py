"""What a sandboxed bot can use: Debian's Python with its packaged libraries (numpy), and
all the CPU time the game's rules give it.

Many Python Halite bots use numpy.  Debian's ``python3-numpy`` loads BLAS and LAPACK
through links in ``/etc/alternatives``, which the sandbox binds read-only; without them
the bot died at ``import numpy`` (``libblas.so.3: cannot open shared object file``).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from snakewar.adapters import get_game
from snakewar.engine.protocol import Entrant, MatchSpec, PlayedGame, PlaySession
from snakewar.games.halite3.adapter import cpu_budget
from snakewar.games.halite3.referee.runner import play_halite_sync
from snakewar.referee.process import Program
from snakewar.referee.sandbox import SANDBOX_PYTHON, SandboxPolicy
from tests.system_tools import need

KIT = Path(__file__).resolve().parents[1] / "games" / "halite3" / "starter_kit"

# Each turn the bot solves a small linear system with numpy (LAPACK through BLAS) and
# moves its ships by the answer's signs: a bot whose numpy does not work dies at once.
NUMPY_BOT = """\
import numpy as np

import hlt
from hlt.positionals import Direction

game = hlt.Game()
game.ready("NumpyBot")
DIRECTIONS = [Direction.North, Direction.South, Direction.East, Direction.West]
while True:
    game.update_frame()
    me = game.me
    a = np.array([[4.0, 1.0], [1.0, 3.0 + game.turn_number % 5]])
    x = np.linalg.solve(a, np.array([1.0, 2.0]))
    pick = int(np.argmax(np.abs(x))) * 2 + int(x[0] < 0)
    commands = [ship.move(DIRECTIONS[pick]) for ship in me.get_ships()]
    if game.turn_number == 1:
        commands.append(me.shipyard.spawn())
    game.end_turn(commands)
"""


@pytest.fixture
def numpy_bot(tmp_path: Path, bubblewrap: None) -> Path:
    has_numpy = subprocess.run([SANDBOX_PYTHON, "-c", "import numpy"], check=False).returncode
    need("Debian's numpy for the sandbox's Python", has_numpy == 0, "python3-numpy")
    tmp_path.chmod(0o755)  # the sandbox's own user must reach the bot's folder
    folder = tmp_path / "numpybot"
    shutil.copytree(KIT / "hlt", folder / "hlt")
    (folder / "MyBot.py").write_text(NUMPY_BOT)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def test_a_python_bot_using_numpy_plays_a_whole_game_in_the_sandbox(numpy_bot: Path) -> None:
    program = Program(
        ("python3", "MyBot.py"), sandbox=SandboxPolicy(cpu_seconds=60), files=str(numpy_bot)
    )
    match = play_halite_sync(
        [program, "builtin:greedy"], seed=5, width=32, height=32, turn_limit=40
    )
    assert match.game.over and not match.failures, (match.failures, match.stderr)
    assert match.names == ["NumpyBot", "greedy"]


# The bot answers the CPU seconds its sandbox allows as its name.
CPU_BOT = """\
import resource

import hlt

game = hlt.Game()
game.ready(f"cpu{resource.getrlimit(resource.RLIMIT_CPU)[0]}")
while True:
    game.update_frame()
    game.end_turn([])
"""


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.parametrize(("given", "expected"), [(5, 65), (500, 500)])
def test_a_sandboxed_bot_gets_the_cpu_time_the_rules_give_it(
    tmp_path: Path, given: int, expected: int
) -> None:
    tmp_path.chmod(0o755)
    folder = tmp_path / "cpubot"
    shutil.copytree(KIT / "hlt", folder / "hlt")
    (folder / "MyBot.py").write_text(CPU_BOT)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    program = Program(
        ("python3", "MyBot.py"), sandbox=SandboxPolicy(cpu_seconds=given), files=str(folder)
    )
    adapter = get_game("halite3")
    spec = MatchSpec(
        game="halite3",
        entrants=(Entrant("@me/cpubot", "cpubot", program), Entrant("builtin:random", "r")),
        params=adapter.parse_params({"width": 32, "height": 32}),
        timeout_ms=2000,
        max_turns=10,
    )

    async def play() -> PlayedGame:
        async with PlaySession() as session:
            return await adapter.play(spec, 3, session)

    played = asyncio.run(play())
    # 30 s to initialize and 10 turns of 2 s, a tenth more and 10 s: 65 s; a policy that
    # already allows more keeps it.
    assert cpu_budget(10, 2.0) == 65
    assert played.results[0].declared_name == f"cpu{expected}"
    assert not played.results[0].failure
