"""The languages an uploaded bot may be written in, and how its language is told.

Detection follows the compiler of the official competition site whose starter kits these
languages are (its worker's ``compiler.py``), in its order:

1. a ``run.sh`` at the archive's top makes the bot a **custom** one: its own
   ``install.sh`` (if any) builds it and ``run.sh`` runs it (both with ``bash``, inside
   the sandbox);
2. otherwise the bot's *main file* says its language: ``CMakeLists.txt`` (C++ built with
   CMake; it wins over the C and C++ files beside it, as on the official site),
   ``MyBot.cpp``, ``MyBot.c``, ``MyBot.java``, ``MyBot.jar``, ``MyBot.go``,
   ``Cargo.toml`` (Rust), ``MyBot.js``, ``MyBot.py``.  Two main files of different
   languages are refused (the site did the same), and so is none, with the list of
   the main files this server knows;
3. an ``install.sh`` beside a main file runs first, before the language's own build.

A main file of a language the official site ran and this server has no toolchain for
(``MyBot.rb``, ``MyBot.hs``...) is refused naming that language.  Every language's
toolchain is a Debian package in ``/usr`` (``g++``, ``cmake``, ``default-jdk-headless``,
``golang-go``, ``rustc`` and ``cargo``, ``nodejs``, ``python3``): the sandbox sees only
``/usr``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from snakewar.errors import EntrantError
from snakewar.referee.sandbox import SANDBOX_PYTHON

__all__ = [
    "CUSTOM",
    "LANGUAGES",
    "BuildStep",
    "Language",
    "LanguageError",
    "detect_language",
    "language_named",
]


class LanguageError(EntrantError):
    """Raised for an upload whose language cannot be told, or is not one of this server's."""


@dataclass(frozen=True, slots=True)
class BuildStep:
    """One command of a build, run inside the build sandbox (never by a shell).

    Attributes:
        argv: the command and its arguments.
        sources: file name patterns (``*.cpp``) whose matches anywhere in the bot's
            folder are appended to ``argv``, sorted; a step whose patterns match
            nothing is skipped.
        optional: the step runs only when this file exists (``install.sh``).
    """

    argv: tuple[str, ...]
    sources: tuple[str, ...] = ()
    optional: str | None = None


@dataclass(frozen=True, slots=True)
class Language:
    """How bots of a language are built and run.

    Attributes:
        name: its id (what the API and the database say: ``cpp``, ``java``...).
        label: its name for people (``C++``).
        main: the file that marks a bot of this language (at the archive's top).
        argv: the command that runs the built bot, in its folder inside the sandbox.
        steps: the build, in order (``install.sh`` first when the bot has one).
        produces: the file the build must leave (checked; the bot runs it).
        cargo_binary: after the build, copy Cargo's one release binary to ``produces``.
        discard: folders the build leaves that the bot does not need to run (not kept).
        environment: variables the build sees (a cache in ``/tmp``, no network).
    """

    name: str
    label: str
    main: str
    argv: tuple[str, ...]
    steps: tuple[BuildStep, ...] = ()
    produces: str | None = None
    cargo_binary: bool = False
    discard: tuple[str, ...] = ()
    environment: tuple[tuple[str, str], ...] = field(default=())

    @property
    def compiled(self) -> bool:
        """Whether its bots are compiled (else the build only checks them)."""
        return self.produces is not None


_INSTALL: Final = BuildStep(("/bin/bash", "./install.sh"), optional="install.sh")
# The JVM sizes its reservations and threads from the machine, past a game sandbox's
# 1 GiB address space: the heap, the class space and the code cache get sizes that fit,
# and its threads are few (a serial collector, two JIT compilers).
_JVM: Final = (
    "-Xmx384m",
    "-XX:+UseSerialGC",
    "-XX:CICompilerCount=2",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=128m",
)
_CXX_SOURCES: Final = ("*.cpp", "*.cc", "*.cxx")

LANGUAGES: Final = {
    lang.name: lang
    for lang in (
        Language(
            "cmake",
            "C++ (CMake)",
            "CMakeLists.txt",
            ("./MyBot",),
            (
                _INSTALL,
                BuildStep(("/usr/bin/cmake", "-DCMAKE_BUILD_TYPE=Release", ".")),
                BuildStep(("/usr/bin/make", "-j2")),
            ),
            produces="MyBot",
        ),
        Language(
            "cpp",
            "C++",
            "MyBot.cpp",
            ("./MyBot",),
            (
                _INSTALL,
                BuildStep(("/usr/bin/g++", "-std=c++17", "-O2", "-o", "MyBot"), _CXX_SOURCES),
            ),
            produces="MyBot",
        ),
        Language(
            "c",
            "C",
            "MyBot.c",
            ("./MyBot",),
            (
                _INSTALL,
                BuildStep(("/usr/bin/gcc", "-O2", "-o", "MyBot"), ("*.c",)),
            ),
            produces="MyBot",
        ),
        Language(
            "java",
            "Java",
            "MyBot.java",
            ("/usr/bin/java", *_JVM, "-cp", ".", "MyBot"),
            (
                _INSTALL,
                BuildStep(
                    ("/usr/bin/javac", "-encoding", "UTF-8", *(f"-J{flag}" for flag in _JVM)),
                    ("*.java",),
                ),
            ),
            produces="MyBot.class",
        ),
        Language(
            "jar",
            "Java (JAR)",
            "MyBot.jar",
            ("/usr/bin/java", *_JVM, "-jar", "MyBot.jar"),
            (_INSTALL,),
        ),
        Language(
            "go",
            "Go",
            "MyBot.go",
            ("./MyBot",),
            (
                _INSTALL,
                # The official kit is a GOPATH tree (src/hlt) with no go.mod: the bot's
                # folder is its GOPATH, and a go.mod, if any, puts it in module mode.
                BuildStep(("/usr/bin/go", "build", "-o", "MyBot", "MyBot.go")),
            ),
            produces="MyBot",
            environment=(
                ("GOPATH", "/bot"),
                ("GO111MODULE", "auto"),
                ("GOCACHE", "/tmp/go-cache"),
                ("GOPROXY", "off"),
                ("GOTOOLCHAIN", "local"),
            ),
        ),
        Language(
            "rust",
            "Rust",
            "Cargo.toml",
            ("./MyBot",),
            (
                _INSTALL,
                BuildStep(("/usr/bin/cargo", "build", "--release", "--offline", "--quiet")),
            ),
            produces="MyBot",
            cargo_binary=True,
            discard=("target",),
            environment=(("CARGO_HOME", "/tmp/cargo"), ("CARGO_NET_OFFLINE", "true")),
        ),
        Language(
            "javascript",
            "JavaScript",
            "MyBot.js",
            ("/usr/bin/node", "MyBot.js"),
            (_INSTALL, BuildStep(("/usr/bin/node", "--check", "MyBot.js"))),
        ),
        Language(
            "python3",
            "Python 3",
            "MyBot.py",
            (SANDBOX_PYTHON, "MyBot.py"),
            (
                _INSTALL,
                # A syntax check that writes nothing (no __pycache__ is kept).
                BuildStep(
                    (
                        SANDBOX_PYTHON,
                        "-I",
                        "-c",
                        "import sys; compile(open('MyBot.py', 'rb').read(), 'MyBot.py', 'exec')",
                    )
                ),
            ),
        ),
    )
}
"""The languages of uploaded bots, by id, in the order their main files are looked for."""

CUSTOM: Final = Language(
    "custom",
    "custom (run.sh)",
    "run.sh",
    ("/bin/bash", "./run.sh"),
    (_INSTALL,),
)
"""A bot that says how it runs: its ``run.sh`` (built by its ``install.sh``, if any)."""

# Main files of the official site's other languages: refused by name, not as "unknown".
_ELSEWHERE: Final = {
    "MyBot.rb": "Ruby",
    "MyBot.hs": "Haskell",
    "stack.yaml": "Haskell (Stack)",
    "MyBot.cs": "C# (Mono)",
    "MyBot.csproj": "C# (.NET Core)",
    "MyBot.fsproj": "F# (.NET Core)",
    "MyBot.scala": "Scala",
    "MyBot.php": "PHP",
    "MyBot.pl": "Perl",
    "MyBot.lua": "Lua",
    "MyBot.ml": "OCaml",
    "MyBot.d": "D",
    "MyBot.dart": "Dart",
    "MyBot.jl": "Julia",
    "MyBot.kt": "Kotlin",
    "MyBot.swift": "Swift",
    "Package.swift": "Swift",
    "MyBot.clj": "Clojure",
    "project.clj": "Clojure",
    "mix.exs": "Elixir",
    "MyBot.ts": "TypeScript",
}

_ALL: Final = (*LANGUAGES.values(), CUSTOM)


def language_named(name: str) -> Language:
    """The language whose id is ``name``.

    Raises:
        LanguageError: naming the ids this server knows.
    """
    found = next((lang for lang in _ALL if lang.name == name), None)
    if found is None:
        raise LanguageError(
            f"language {name[:20]!r}: expected one of {', '.join(lang.name for lang in _ALL)}"
        )
    return found


def detect_language(folder: Path) -> Language:
    """The language of the unpacked bot in ``folder``, told as the official site did.

    Raises:
        LanguageError: no main file, main files of two languages, or one of a language
            this server does not run.
    """
    if (folder / "run.sh").is_file():
        return CUSTOM
    found = [lang for lang in LANGUAGES.values() if (folder / lang.main).is_file()]
    if any(lang.name == "cmake" for lang in found):
        # CMake builds the C and C++ files beside it (the official C++ kit has both).
        found = [lang for lang in found if lang.name not in ("cpp", "c")]
    if len(found) > 1:
        names = ", ".join(lang.main for lang in found)
        raise LanguageError(
            f"the archive holds the main files of {len(found)} languages ({names}); "
            "keep one, or say which with the language field"
        )
    if found:
        return found[0]
    elsewhere = sorted({label for main, label in _ELSEWHERE.items() if (folder / main).is_file()})
    if elsewhere:
        raise LanguageError(
            f"{' and '.join(elsewhere)} bots cannot be built on this server; it builds "
            f"{', '.join(lang.label for lang in LANGUAGES.values())} bots, and custom ones "
            "with a run.sh"
        )
    mains = ", ".join(f"{lang.main} ({lang.label})" for lang in LANGUAGES.values())
    raise LanguageError(
        f"no main file at the archive's top: expected one of {mains}, or a run.sh that runs the bot"
    )
