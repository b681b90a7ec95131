"""Battlesnake's replay files: Snakewar's JSONL format, the official CLI's, verification.

The public names are exported by :mod:`snakewar.replay` (imported on first use).
"""
