# Snakewar's image: the package with PostgreSQL and Ray support, and bubblewrap for the
# sandboxed program bots.  compose.yaml runs it as the web replicas and the Ray nodes.
#
#   docker build -t snakewar:local .
FROM python:3.11-slim

# bubblewrap: uploaded bots run in its sandbox (on the Ray workers that play them).
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/snakewar
COPY . .
# Pure Python where no compiler is at hand (hatch_build.py falls back by itself).
RUN pip install --no-cache-dir ".[postgres,ray]" \
    && rm -rf /opt/snakewar

RUN useradd --create-home --uid 1000 snakewar
USER snakewar
WORKDIR /home/snakewar
EXPOSE 8000
CMD ["snakewar", "serve", "--help"]
