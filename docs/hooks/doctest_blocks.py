"""MkDocs hook: docstring examples (``>>>`` blocks) are shown as Python console code.

A doctest block in a docstring is plain text to Markdown: its ``>>>`` lines would read
as nested quotes and ``[1, 2][0]`` as a link.  This hook adds a Markdown preprocessor
(to the pages and, through ``markdown_extensions``, to the docstrings mkdocstrings
renders) that fences each block, from its first ``>>>`` line to the next blank line,
as ``pycon`` code, the way doctest itself delimits an example's output.
"""

from __future__ import annotations

import re
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

PROMPT = re.compile(r"^(\s*)>>> ")
FENCE = re.compile(r"^\s*(```|~~~)")


class DoctestFences(Preprocessor):
    """Wraps every doctest block outside a fenced code block in a ``pycon`` fence."""

    def run(self, lines: list[str]) -> list[str]:
        """The lines with every doctest block fenced."""
        out: list[str] = []
        fenced = False
        block: list[str] = []
        indent = ""
        for line in [*lines, ""]:
            if block:
                if line.strip():
                    block.append(line)
                    continue
                out += [f"{indent}```pycon", *block, f"{indent}```"]
                block = []
            if FENCE.match(line):
                fenced = not fenced
            prompt = None if fenced else PROMPT.match(line)
            if prompt:
                indent = prompt.group(1)
                block = [line]
            else:
                out.append(line)
        out.pop()  # the blank line added to close a block that ends the text
        return out


class DoctestFencesExtension(Extension):
    """The Markdown extension that registers :class:`DoctestFences`."""

    def extendMarkdown(self, md: Markdown) -> None:
        """Run before the fenced-code preprocessor, which then reads the new fences."""
        md.preprocessors.register(DoctestFences(md), "doctest_fences", 40)


def on_config(config: Any) -> Any:
    """Add the extension to every Markdown conversion of the build."""
    config.markdown_extensions.append(DoctestFencesExtension())
    return config
