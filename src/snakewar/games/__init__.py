"""The games Snakewar hosts, each a pure rules package."""
