"""Hatch build hook: compile the Battlesnake rules engine with mypyc, when it can.

The modules named in ``snakewar.COMPILED_MODULES`` (src/snakewar/__init__.py) are
compiled from their own typed source into extension modules placed next to the
sources (``build_ext --inplace``).  An editable install keeps ``src`` on the path,
so it imports them from there; a wheel ships them as artifacts (they are
git-ignored, which would otherwise keep them out).  Python prefers an extension
module to a ``.py`` of the same name, so the ``.py`` files stay as the fallback.

The package must install without a C compiler, so any failure here is reported and
the build goes on pure Python, unless ``SNAKEWAR_REQUIRE_COMPILED=1`` (a build that
must be compiled, e.g. a release or CI, fails instead).  ``SNAKEWAR_NO_COMPILE=1``
skips compilation (and removes extension modules left by an earlier build).

Why our own hook and not the ``hatch-mypyc`` plugin: that plugin fails the whole
install when mypyc or the compiler fails (no pure fallback), and it renames
pyproject.toml while it runs; here the fallback is the point.

A manifest of the compiled sources' hashes (``_compiled_sources.txt``) lets the
package notice extension modules that no longer match an edited source; it then
imports the sources instead (see snakewar/__init__.py).
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MANIFEST = "_compiled_sources.txt"
GROUP = "snakewar._rules"
"""mypyc's shared library for the group lands in the package: ``snakewar/_rules__mypyc*``."""

# Runs in a fresh interpreter: mypyc and setuptools stay out of the build process, and
# a crash in either one is only a failed compilation.  Distribution() is built by hand
# so that setuptools does not read pyproject.toml (which is hatchling's, not its own).
_COMPILE = """
import sys
from setuptools import Distribution
from mypyc.build import mypycify

target, temp, group, *paths = sys.argv[1:]
extensions = mypycify(
    ["--ignore-missing-imports", "--cache-dir", temp + "/mypy-cache", *paths],
    opt_level="3",
    group_name=group,
    target_dir=target,
)
dist = Distribution({"ext_modules": extensions, "script_name": "setup.py"})
command = dist.get_command_obj("build_ext")
command.inplace = True
command.build_temp = temp + "/obj"
command.build_lib = temp + "/lib"
command.ensure_finalized()
command.run()
"""


def compiled_modules(src: Path) -> tuple[str, ...]:
    """The module names in ``COMPILED_MODULES`` of ``src/snakewar/__init__.py``."""
    tree = ast.parse((src / "snakewar" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        targets: list[ast.expr]
        if isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if names == ["COMPILED_MODULES"] and value is not None:
            return tuple(str(name) for name in ast.literal_eval(value))
    raise RuntimeError("COMPILED_MODULES not found in src/snakewar/__init__.py")


def source_path(src: Path, module: str) -> Path:
    """The ``.py`` file of ``module`` under ``src``."""
    return src.joinpath(*module.split(".")).with_suffix(".py")


def built_files(src: Path) -> list[Path]:
    """The extension modules and manifest that a compilation leaves under ``src``."""
    package = src / "snakewar"
    found = [p for p in package.rglob("*.so") if p.is_file()]
    found += [p for p in package.rglob("*.pyd") if p.is_file()]
    manifest = package / MANIFEST
    if manifest.exists():
        found.append(manifest)
    return found


def remove_built(src: Path) -> None:
    """Remove what an earlier compilation left (a stale one must never be imported)."""
    for path in built_files(src):
        path.unlink()


def write_manifest(src: Path, modules: tuple[str, ...]) -> None:
    """Record the hash of every compiled source, in the form snakewar/__init__.py reads."""
    lines = []
    for module in modules:
        digest = hashlib.sha256(source_path(src, module).read_bytes()).hexdigest()
        lines.append(f"{module} {digest}\n")
    (src / "snakewar" / MANIFEST).write_text("".join(lines), encoding="utf-8")


def compile_in_place(src: Path, modules: tuple[str, ...]) -> None:
    """Compile ``modules`` next to their sources; raises on any failure."""
    # setuptools compiles with $CC when it is set, else the compiler Python was built with.
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        raise RuntimeError(f"no C compiler ({compiler!r} not found)")
    paths = [str(source_path(src, m).relative_to(src)) for m in modules]
    with tempfile.TemporaryDirectory(prefix="snakewar-mypyc-") as temp:
        done = subprocess.run(
            [sys.executable, "-c", _COMPILE, temp + "/c", temp, GROUP, *paths],
            cwd=src,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
    if done.returncode:
        raise RuntimeError(f"mypyc failed:\n{done.stdout[-4000:]}")
    # The group's shared library goes to the top of the build folder (``src``); the
    # group name puts it in the package, where a wheel ships it.
    missing = [m for m in modules if not _extension_of(src, m)]
    if missing:
        raise RuntimeError(f"mypyc built no extension module for {missing}")
    write_manifest(src, modules)


def _extension_of(src: Path, module: str) -> list[Path]:
    base = source_path(src, module)
    return list(base.parent.glob(base.stem + ".*.so")) + list(
        base.parent.glob(base.stem + ".*.pyd")
    )


class MypycBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Compile the rules engine for wheels and editable installs; fall back to pure."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Compile in place, then ship the extension modules (or build pure)."""
        if self.target_name != "wheel":
            return
        src = Path(self.root) / "src"
        remove_built(src)
        if os.environ.get("SNAKEWAR_NO_COMPILE") == "1":
            self.app.display_info("snakewar: SNAKEWAR_NO_COMPILE=1, building pure Python")
            return
        modules = compiled_modules(src)
        start = time.monotonic()
        try:
            compile_in_place(src, modules)
        except Exception as exc:
            remove_built(src)
            if os.environ.get("SNAKEWAR_REQUIRE_COMPILED") == "1":
                raise
            self.app.display_warning(
                f"snakewar: the rules engine stays pure Python (compilation failed): {exc}"
            )
            return
        self.app.display_info(
            f"snakewar: compiled {len(modules)} modules with mypyc "
            f"in {time.monotonic() - start:.0f} s"
        )
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            root = Path(self.root)
            build_data["artifacts"].extend(
                "/" + p.relative_to(root).as_posix() for p in built_files(src)
            )
