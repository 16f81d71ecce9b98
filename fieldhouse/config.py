"""One frozen Settings object, built once from CLI flags and FIELDHOUSE_* variables."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from fieldhouse.egress import allow_entry_text

#: connections the kernel queues on a listening socket before a worker accepts them
LISTEN_BACKLOG = 1024


def default_workers(cgroup_root: Path = Path("/sys/fs/cgroup")) -> int:
    """One worker per core this process may use: the CPUs it may run on, and no more than its
    cgroup's CPU quota rounded up (a container's ``--cpus 2`` on a 64-core host is 2, not 64)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0
    cores = cores or os.cpu_count() or 1
    quota = cgroup_cpu_quota(cgroup_root)
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return cores


def cgroup_cpu_quota(root: Path, own: str | None = None) -> float | None:
    """The CPUs' worth of time this process's cgroup and its parents allow (cgroup v2
    ``cpu.max``, v1 ``cpu.cfs_quota_us``), the smallest of them; None without a quota."""
    if own is None:
        try:
            own = Path("/proc/self/cgroup").read_text()
        except OSError:
            own = ""
    found: list[float] = []
    for line in own.splitlines():
        hierarchy, _, path = line.partition(":")[2].partition(":")
        v2 = hierarchy == ""
        if not v2 and "cpu" not in hierarchy.split(","):
            continue
        base = root if v2 else root / hierarchy
        if not base.is_dir() and not v2:
            base = root / "cpu"
        here = base / path.strip("/")
        while True:
            found.extend(_quota(here, v2))
            if here == base or base not in here.parents:
                break
            here = here.parent
    return min(found) if found else None


def _quota(folder: Path, v2: bool) -> list[float]:
    try:
        if v2:
            limit, _, period = (folder / "cpu.max").read_text().strip().partition(" ")
        else:
            limit = (folder / "cpu.cfs_quota_us").read_text().strip()
            period = (folder / "cpu.cfs_period_us").read_text().strip()
        if limit in ("max", "-1") or int(period) <= 0:
            return []
        return [int(limit) / int(period)]
    except (OSError, ValueError):
        return []


@dataclass(frozen=True)
class Settings:
    database_url: str = ""
    data_dir: Path = Path("fieldhouse-data")
    host: str = "127.0.0.1"
    port: int = 8080
    #: server processes sharing the listening socket (``fieldhouse serve --workers``)
    workers: int = field(default_factory=lambda: default_workers())
    #: which of them this process is (0 in a single-process server); set by the supervisor
    worker_index: int = 0
    rate_limit: int = 600
    max_body_bytes: int = 1024 * 1024
    #: seconds a request's head (request line and headers) may take once its first byte has
    #: come: then 408 and the connection is closed (a client trickling its headers)
    header_timeout: float = 10.0
    jwt_secret: str | None = None
    jwt_ttl_seconds: int = 3600
    #: writes a workspace actor takes from its mailbox into one transaction
    actor_batch_size: int = 64
    #: bounded mailbox: a full one makes senders wait (back-pressure)
    actor_mailbox_size: int = 256
    #: how long a caller waits for room in a full mailbox before a 503
    actor_send_timeout: float = 5.0
    log_level: str = "INFO"
    #: ``json`` (one JSON object a line, for log shippers) or ``text`` (for people)
    log_format: str = "text"
    #: origins a browser may call the API from (``*`` for any); empty: no cross-origin calls
    cors_origins: tuple[str, ...] = ()
    #: prometheus-client's multiprocess directory, made by the supervisor for its workers
    metrics_dir: str | None = None
    #: the file in which the supervisor's workers count their connections, so that each
    #: accepts its share (``fieldhouse.http.wire.balance``); set by the supervisor
    connection_shares: str | None = None
    #: hybrid search (keyword + vectors); off: POST /v1/search answers with the fallback
    #: SQLite's synchronous mode: ``normal`` (an acknowledged write survives a crash or SIGKILL
    #: of the server; an OS crash or power cut may lose the commits since the last checkpoint)
    #: or ``full`` (those too, for an fsync of the WAL at every commit: 2-5 ms on a plain disk)
    sqlite_synchronous: str = "normal"
    search_enabled: bool = True
    #: sentence embedder: ``minilm-int8`` (all-MiniLM-L6-v2 with its dense layers but the FFN
    #: down projections in int8: 1.5-2.2x less CPU a record, cosine >= 0.999 to fp32 on record
    #: texts, the same nDCG@10 within noise), ``minilm`` (fp32), ``wordllama-256`` (wordllama's
    #: static token embeddings: a mean of token vectors, far less CPU, coarser meaning) or
    #: ``none`` (keyword only)
    embedder: str = "minilm-int8"
    #: records are embedded by one process of the server (``fieldhouse.search.embed_process``,
    #: started by the supervisor), which also embeds the workers' queries; off: in a
    #: lower-priority thread of the (one) server process
    embedding_process: bool = True
    #: the embedding process's Unix socket, set by the supervisor for its workers
    embed_socket: str | None = None
    #: where queued agent e-mails are delivered (smtp://[user:pass@]host:port[?from=addr],
    #: smtps:// for TLS); None keeps them queued in the outbox
    smtp_url: str | None = None
    #: seconds between scheduler ticks (reminders, scheduled posts, e-mail delivery); 0: off
    scheduler_interval: float = 1.0
    #: agent model provider: ``offline`` (deterministic planner), ``openai`` or ``anthropic``
    agent_provider: str = "offline"
    agent_model: str = ""
    #: an OpenAI-compatible or Anthropic base URL (empty: the vendor's public one)
    agent_base_url: str = ""
    agent_api_key: str | None = field(default=None, repr=False)
    #: model calls per run, and the whole run's deadline in seconds
    agent_max_steps: int = 8
    agent_run_timeout: float = 120.0
    #: seconds an upstream model call may stay silent before it counts as timed out
    agent_provider_timeout: float = 60.0
    #: seconds of silence after which an event stream sends a keepalive comment
    agent_keepalive_seconds: float = 15.0
    #: webhook targets allowed although they are not public addresses (``host`` or
    #: ``host:port``, exact matches; ``fieldhouse.egress``): for development and tests only
    webhook_allow_hosts: tuple[str, ...] = ()

    @property
    def resolved_database_url(self) -> str:
        """The database URL; the embedded SQLite file under data_dir when none was given."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'fieldhouse.sqlite3').resolve()}"

    def to_json(self) -> dict[str, object]:
        """Every setting as JSON values (how the supervisor hands them to its workers)."""
        out = asdict(self)
        out["data_dir"] = str(self.data_dir)
        out["cors_origins"] = list(self.cors_origins)
        out["webhook_allow_hosts"] = list(self.webhook_allow_hosts)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Settings:
        origins = tuple(str(o) for o in data.get("cors_origins") or ())  # type: ignore[attr-defined]
        allowed = tuple(str(h) for h in data.get("webhook_allow_hosts") or ())  # type: ignore[attr-defined]
        fixed = {
            "data_dir": Path(str(data["data_dir"])),
            "cors_origins": origins,
            "webhook_allow_hosts": allowed,
        }
        return replace(cls(), **{**data, **fixed})  # type: ignore[arg-type]

    def with_overrides(self, **changes: object) -> Settings:
        clean = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **clean)  # type: ignore[arg-type]


#: how a switch reads on and off in the environment
_ON = ("1", "true", "on", "yes")
_OFF = ("0", "false", "off", "no")


def settings_from_env(env: Mapping[str, str] | None = None) -> Settings:
    """Settings from FIELDHOUSE_* variables; flags override these in the CLI. A value that
    cannot be used is a SettingsError naming the variable, the value and what it takes."""
    env = os.environ if env is None else env
    base = Settings()
    level = _choice(env, "FIELDHOUSE_LOG_LEVEL", LOG_LEVELS)
    return base.with_overrides(
        database_url=env.get("FIELDHOUSE_DATABASE_URL") or None,
        data_dir=Path(env["FIELDHOUSE_DATA_DIR"]) if env.get("FIELDHOUSE_DATA_DIR") else None,
        host=env.get("FIELDHOUSE_HOST") or None,
        port=_int(env, "FIELDHOUSE_PORT", 0, 65535),
        workers=_int(env, "FIELDHOUSE_WORKERS", 1, MAX_WORKERS),
        rate_limit=_int(env, "FIELDHOUSE_RATE_LIMIT", 1),
        max_body_bytes=_int(env, "FIELDHOUSE_MAX_BODY_BYTES", 1),
        header_timeout=_float(env, "FIELDHOUSE_HEADER_TIMEOUT"),
        jwt_secret=env.get("FIELDHOUSE_JWT_SECRET") or None,
        log_level=level.upper() if level else None,
        log_format=_choice(env, "FIELDHOUSE_LOG_FORMAT", ("json", "text")),
        cors_origins=_origins(env, "FIELDHOUSE_CORS_ORIGINS"),
        sqlite_synchronous=_choice(env, "FIELDHOUSE_SQLITE_SYNCHRONOUS", ("normal", "full")),
        search_enabled=_flag(env, "FIELDHOUSE_SEARCH"),
        embedder=_choice(env, "FIELDHOUSE_EMBEDDER", EMBEDDERS),
        embedding_process=_flag(env, "FIELDHOUSE_EMBEDDING_PROCESS"),
        smtp_url=_url(env, "FIELDHOUSE_SMTP_URL", ("smtp", "smtps")),
        agent_provider=_choice(env, "FIELDHOUSE_AGENT_PROVIDER", AGENT_PROVIDERS),
        agent_model=env.get("FIELDHOUSE_AGENT_MODEL") or None,
        agent_base_url=_url(env, "FIELDHOUSE_AGENT_BASE_URL", ("http", "https")),
        agent_api_key=env.get("FIELDHOUSE_AGENT_API_KEY") or None,
        actor_mailbox_size=_int(env, "FIELDHOUSE_ACTOR_MAILBOX_SIZE", 1),
        actor_send_timeout=_float(env, "FIELDHOUSE_ACTOR_SEND_TIMEOUT"),
        webhook_allow_hosts=_hosts(env, "FIELDHOUSE_WEBHOOK_ALLOW_HOSTS"),
    )


#: what FIELDHOUSE_LOG_LEVEL takes (Python's logging levels, in any case)
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
#: fieldhouse.search.embedder.CHOICES and fieldhouse.agents.providers.PROVIDERS (this module
#: imports neither; tests/test_config.py checks that the lists agree)
EMBEDDERS = ("minilm", "minilm-int8", "wordllama-256", "none")
AGENT_PROVIDERS = ("offline", "openai", "anthropic")
#: more worker processes than any machine this serves would use (a typo such as 80 for 8)
MAX_WORKERS = 256


class SettingsError(ValueError):
    """A FIELDHOUSE_* variable that cannot be read; the message names it and its value."""


def _int(env: Mapping[str, str], name: str, low: int, high: int | None = None) -> int | None:
    if not env.get(name):
        return None
    try:
        value = int(env[name])
    except ValueError:
        raise SettingsError(f"{name} must be an integer, not {env[name]!r}") from None
    if value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise SettingsError(f"{name} must be an integer {bounds}, not {env[name]!r}")
    return value


def _float(env: Mapping[str, str], name: str) -> float | None:
    """A number of seconds: finite and above zero."""
    if not env.get(name):
        return None
    try:
        value = float(env[name])
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {env[name]!r}") from None
    if not 0 < value < float("inf"):
        raise SettingsError(f"{name} must be a number above 0, not {env[name]!r}")
    return value


def _origins(env: Mapping[str, str], name: str) -> tuple[str, ...] | None:
    """Comma-separated browser origins (``scheme://host[:port]``), or ``*``."""
    if not env.get(name, "").strip():
        return None
    out = []
    for item in env[name].split(","):
        origin = item.strip().rstrip("/")
        if not origin:
            continue
        parts = urlsplit(origin)
        if origin != "*" and not (
            parts.scheme in ("http", "https") and parts.netloc and not parts.path
        ):
            raise SettingsError(
                f"{name}: {origin!r} is not an origin; expected scheme://host[:port] "
                "(https://app.example.com) or *"
            )
        out.append(origin)
    return tuple(out)


def _url(env: Mapping[str, str], name: str, schemes: tuple[str, ...]) -> str | None:
    """A URL with one of ``schemes`` and a host."""
    value = env.get(name, "").strip()
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme.lower() not in schemes or not parts.hostname:
        expected = " or ".join(f"{scheme}://host[:port]" for scheme in schemes)
        # the value is not quoted: it may carry a password
        raise SettingsError(f"{name} must be a URL of the form {expected}")
    return value


def _hosts(env: Mapping[str, str], name: str) -> tuple[str, ...] | None:
    """Comma-separated ``host`` or ``host:port`` entries, each checked and written one way."""
    if not env.get(name, "").strip():
        return None
    out = []
    for item in env[name].split(","):
        if not item.strip():
            continue
        try:
            out.append(allow_entry_text(item))
        except ValueError as exc:
            raise SettingsError(f"{name}: {exc}") from None
    return tuple(out)


def _flag(env: Mapping[str, str], name: str) -> bool | None:
    value = _choice(env, name, _ON + _OFF)
    return None if value is None else value in _ON


def _choice(env: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str | None:
    value = env.get(name, "").strip().lower()
    if not value:
        return None
    if value not in allowed:
        raise SettingsError(f"{name}={env[name]!r}: expected one of {', '.join(allowed)}")
    return value
