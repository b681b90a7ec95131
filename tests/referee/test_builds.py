"""Uploaded bots' languages and builds: detection, and the build sandbox's limits.

Detection needs no sandbox; the builds do (the ``bubblewrap`` fixture), and each limit
is shown by a bot that passes it: the wall clock, the memory, the size of what comes
back, the log's size.  Every bot here is a Python one (``install.sh`` does the abuse),
so only the sandbox and ``python3`` are needed.
"""

from __future__ import annotations

import io
import re
import tarfile
import time
import uuid
from pathlib import Path

import pytest

from snakewar.referee.builds import BuildLimits, build_bot
from snakewar.referee.languages import (
    CUSTOM,
    LANGUAGES,
    LanguageError,
    detect_language,
    language_named,
)
from tests.system_tools import need

MiB = 1024 * 1024


def bot(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "bot"
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


@pytest.mark.parametrize(
    ("files", "language"),
    [
        (["MyBot.py"], "python3"),
        (["MyBot.cpp", "hlt/game.hpp"], "cpp"),
        (["CMakeLists.txt", "MyBot.cpp", "MyBot.c"], "cmake"),  # CMake builds the others
        (["MyBot.java"], "java"),
        (["MyBot.jar"], "jar"),
        (["MyBot.go", "src/hlt/game.go"], "go"),
        (["Cargo.toml", "src/main.rs"], "rust"),
        (["MyBot.js"], "javascript"),
        (["MyBot.c"], "c"),
        (["run.sh", "MyBot.py", "MyBot.js"], "custom"),  # run.sh first, as the site did
        (["install.sh", "MyBot.go"], "go"),
    ],
)
def test_the_language_is_told_from_the_files(
    tmp_path: Path, files: list[str], language: str
) -> None:
    assert detect_language(bot(tmp_path, dict.fromkeys(files, ""))).name == language


@pytest.mark.parametrize(
    ("files", "words"),
    [
        ([], "no main file at the archive's top: expected one of CMakeLists.txt (C++ (CMake))"),
        (["hlt/MyBot.py"], "no main file at the archive's top"),  # only the top counts
        (["MyBot.py", "MyBot.java"], "the main files of 2 languages (MyBot.java, MyBot.py)"),
        (["MyBot.hs", "MyBot.rb"], "Haskell and Ruby bots cannot be built on this server"),
    ],
)
def test_a_language_that_cannot_be_told_is_refused_naming_why(
    tmp_path: Path, files: list[str], words: str
) -> None:
    folder = bot(tmp_path, dict.fromkeys(files, ""))
    folder.mkdir(exist_ok=True)
    with pytest.raises(LanguageError, match=re.escape(words)):
        detect_language(folder)


def test_languages_by_name() -> None:
    assert language_named("custom") is CUSTOM
    assert language_named("rust") is LANGUAGES["rust"]
    with pytest.raises(LanguageError, match="language 'cobol': expected one of cmake, cpp"):
        language_named("cobol")


def members(archive: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as opened:
        return {
            m.name: (opened.extractfile(m) or io.BytesIO()).read()
            for m in opened.getmembers()
            if m.isfile()
        }


@pytest.mark.usefixtures("bubblewrap")
def test_a_build_sends_back_its_folder_and_its_log(tmp_path: Path) -> None:
    folder = bot(
        tmp_path,
        {
            "MyBot.py": "print('bot')\n",
            "install.sh": "echo to stdout\necho to stderr >&2\necho made > made.txt\n",
        },
    )
    result = build_bot(folder, LANGUAGES["python3"])
    assert result.status == "ready" and result.error == "", result.log
    assert result.log.startswith("$ /bin/bash ./install.sh\nto stdout\nto stderr\n")
    files = members(result.archive)
    assert files["made.txt"] == b"made\n" and files["MyBot.py"] == b"print('bot')\n"


@pytest.mark.usefixtures("bubblewrap")
def test_a_syntax_error_fails_the_check_with_the_log(tmp_path: Path) -> None:
    result = build_bot(bot(tmp_path, {"MyBot.py": "def broken(:\n"}), LANGUAGES["python3"])
    assert result.status == "failed" and result.archive == b""
    assert result.error == "python3 failed; the log says why"
    assert "SyntaxError" in result.log


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.parametrize(
    ("script", "limits", "error"),
    [
        (
            "while :; do :; done\n",
            BuildLimits(seconds=2.0),
            "the build ran past its time limit of 2 s and was stopped",
        ),
        (
            "python3 -c 'x = bytearray(400 * 1024 * 1024); x[::4096] = b\"y\" * len(x[::4096])'\n",
            BuildLimits(memory_bytes=128 * MiB),
            "the build was stopped: the sandbox ran out of memory (128 MiB for all its "
            "processes and files)",
        ),
        (
            "head -c 3000000 /dev/urandom > noise.bin\n",
            BuildLimits(output_bytes=1 * MiB),
            "the built bot is larger than 1 MiB compressed (remove what it does not need to run)",
        ),
        (
            "head -c 3000000 /dev/zero > big.bin\n",
            BuildLimits(folder_bytes=2 * MiB),
            "install.sh failed; the log says why",
        ),
    ],
    ids=["time", "memory", "output", "folder"],
)
def test_a_build_past_a_limit_is_stopped_and_explained(
    tmp_path: Path, script: str, limits: BuildLimits, error: str
) -> None:
    folder = bot(tmp_path, {"MyBot.py": "print('bot')\n", "install.sh": script})
    result = build_bot(folder, LANGUAGES["python3"], limits)
    assert (result.status, result.error) == ("failed", error), result.log
    assert result.archive == b""


@pytest.mark.usefixtures("bubblewrap")
def test_a_long_log_keeps_its_start_and_its_end(tmp_path: Path) -> None:
    script = "echo FIRST; for i in $(seq 1 20000); do echo line $i; done; echo LAST\n"
    folder = bot(tmp_path, {"MyBot.py": "print('bot')\n", "install.sh": script})
    result = build_bot(folder, LANGUAGES["python3"], BuildLimits(log_bytes=4096))
    assert result.status == "ready"
    assert "FIRST" in result.log and "LAST" in result.log
    assert "bytes of the log left out" in result.log
    assert len(result.log) < 4096 + 100


@pytest.mark.usefixtures("bubblewrap")
def test_a_build_has_no_network(tmp_path: Path) -> None:
    script = "python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 80), timeout=3)'\n"
    folder = bot(tmp_path, {"MyBot.py": "print('bot')\n", "install.sh": script})
    result = build_bot(folder, LANGUAGES["python3"])
    assert result.error == "install.sh failed; the log says why"
    assert "Network is unreachable" in result.log or "OSError" in result.log, result.log


def _running(word: str) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if word.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    return True
            except OSError:
                continue
    return False


@pytest.mark.usefixtures("bubblewrap")
def test_a_stopped_build_leaves_no_process_behind(tmp_path: Path) -> None:
    # The sleep is the build's grandchild (install.sh's): stopping the build ends it too.
    mark = str(900_000 + uuid.uuid4().int % 99_999)
    script = f"sleep {mark} &\nwhile :; do :; done\n"
    folder = bot(tmp_path, {"MyBot.py": "print('bot')\n", "install.sh": script})
    result = build_bot(folder, LANGUAGES["python3"], BuildLimits(seconds=2.0))
    assert result.error == "the build ran past its time limit of 2 s and was stopped"
    deadline = time.monotonic() + 60.0
    while _running(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(mark)


@pytest.mark.usefixtures("bubblewrap")
def test_a_crate_with_dependencies_is_told_that_builds_have_no_network(tmp_path: Path) -> None:
    need("cargo", Path("/usr/bin/cargo").exists(), "cargo")
    folder = bot(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "my_bot"\nversion = "0.1.0"\n\n'
            '[dependencies]\nrand = "0.8"\n',
            "src/main.rs": "fn main() {}\n",
        },
    )
    result = build_bot(folder, LANGUAGES["rust"])
    assert result.error == (
        "cargo failed (builds have no network: a crate's dependencies cannot be fetched); "
        "the log says why"
    )
    assert "no matching package named `rand`" in result.log
    # A plain compile error of Rust gets no such hint.
    (folder / "Cargo.toml").write_text('[package]\nname = "my_bot"\nversion = "0.1.0"\n')
    (folder / "src" / "main.rs").write_text("fn main() { undefined_name(); }\n")
    result = build_bot(folder, LANGUAGES["rust"])
    assert result.error == "cargo failed; the log says why"
    assert "undefined_name" in result.log
