"""Layout checks for the browser tests: the window sizes, sideways scrolling, columns.

A page must never scroll sideways (``document.documentElement.scrollWidth <=
window.innerWidth``), and a table's key column must be on screen inside the table's
box, or reachable by scrolling that box alone (not the page).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

VIEWPORTS: Final = pytest.mark.parametrize(
    ("width", "height"),
    [(1366, 768), (1920, 1080), (390, 844)],
    ids=["laptop", "desktop", "phone"],
)
"""The three window sizes every layout test runs at."""


def assert_no_sideways_scroll(page: Page) -> None:
    """The page is no wider than the window."""
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: {widths[0]} > {widths[1]}"


_REACH = """
(cell) => {
  // The box the cell's table scrolls in: the nearest ancestor that scrolls sideways
  // (a narrow screen's table is its own box), else the table itself.
  const table = cell.closest("table");
  let box = cell.parentElement;
  while (box && box !== document.body) {
    const style = getComputedStyle(box);
    if (["auto", "scroll"].includes(style.overflowX)) break;
    box = box.parentElement;
  }
  if (!box || box === document.body) box = table;
  // On screen: as much of the cell as the box can show is in the box and the window
  // (all of it, unless the cell is wider than the box).
  const inside = () => {
    const c = cell.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    const left = Math.max(c.left, b.left, 0);
    const right = Math.min(c.right, b.right, window.innerWidth);
    return c.width > 0 && right - left >= Math.min(c.width, b.width) - 1;
  };
  if (inside()) return "visible";
  // Scroll the box (only the box) to the cell, as a reader's finger would: its end
  // into view, or its start for a cell wider than the box.
  const c = cell.getBoundingClientRect();
  const b = box.getBoundingClientRect();
  box.scrollLeft += c.width > b.width ? c.left - b.left : c.right - b.right;
  const reached = inside() && window.scrollX === 0
    && document.documentElement.scrollWidth <= window.innerWidth;
  box.scrollLeft = 0;
  return reached ? "scrolled" : "hidden";
}
"""


def column_reach(cell: Locator) -> Literal["visible", "scrolled", "hidden"]:
    """Whether ``cell`` is on screen in its table's box, reached by scrolling the box, or not."""
    reach: Literal["visible", "scrolled", "hidden"] = cell.evaluate(_REACH)
    return reach
