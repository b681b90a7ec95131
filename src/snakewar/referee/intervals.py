"""Confidence intervals for win rates, shared by every game's batches and evaluations."""

from __future__ import annotations

import math

__all__ = ["wilson_interval"]


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and behaves at 0 or n
    successes, which small batches hit often.

    >>> lo, hi = wilson_interval(7, 10)
    >>> round(lo, 3), round(hi, 3)
    (0.397, 0.892)
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Exactly, the interval reaches 1 at n successes and 0 at none; in floating point
    # it can miss by an ulp, and the interval must always contain ``p``.
    low = 0.0 if successes <= 0 else max(0.0, min(p, centre - half))
    high = 1.0 if successes >= n else min(1.0, max(p, centre + half))
    return (low, high)
