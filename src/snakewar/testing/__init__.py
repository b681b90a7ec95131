"""Checkers shipped with Snakewar, for its own tests and for anyone re-implementing the rules."""
