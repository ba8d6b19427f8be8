"""The one settings object: every knob comes from a ``CRASHDOC_*`` environment variable."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
# In a wheel, kb/ and prompts/ are copied into the package (setup.py); in a checkout they are read in place.
PACKAGED_CONTENT = Path(__file__).resolve().parent / "_content"


def content_dir(name: str) -> Path:
    """Where ``kb`` or ``prompts`` is: inside the installed package when it was built as a wheel, else the repository's."""
    packaged = PACKAGED_CONTENT / name
    return packaged if packaged.is_dir() else REPO_ROOT / name


def _default_data_dir() -> Path:
    return Path.home() / ".crashdoc"


class Settings(BaseSettings):
    """Built once per process (``get_settings``) and passed to whatever needs it."""

    model_config = SettingsConfigDict(env_prefix="CRASHDOC_", extra="ignore")

    data_dir: Path = Field(default_factory=_default_data_dir)
    database_url: str | None = None  # default: sqlite in data_dir
    kb_dir: Path = Field(default_factory=lambda: content_dir("kb"))
    prompts_dir: Path = Field(default_factory=lambda: content_dir("prompts"))
    catalog_path: Path | None = None  # default: ../shared/failure-catalog.yaml when present

    # Retrieval.
    embedding_model: str = "packaged:all-MiniLM-L6-v2"
    embedding_backend: str = "onnx-int8"  # onnx-int8 | onnx | torch (retrieval/embed.py)
    unknown_threshold: float = 0.5  # a calibrated probability: below it the top entry is more likely wrong than right

    # Ingest limits.
    max_upload_bytes: int = 160 * 1024 * 1024  # compressed: a 1 GB log is ~90-120 MB as gzip
    max_decompressed_bytes: int = 4 * 1024**3  # streamed: memory follows the selected lines, not this
    max_files: int = 64
    max_line_chars: int = 16_384
    max_lines: int = 20_000_000
    max_json_bytes: int = 256 * 1024  # every other request body (questions, codes, Slack forms)
    big_request_bytes: int = 8 * 1024 * 1024  # a log upload over this runs in the bounded pool below
    big_request_workers: int = 2
    max_question_chars: int = 2_000

    # LLM composer (off unless a model is named).
    llm_model: str | None = None
    llm_api_base: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = 30.0
    llm_max_tokens: int = 1_500
    llm_temperature: float = 0.0
    llm_budget_s: float = 60.0
    llm_max_retries: int = 2
    llm_concurrency: int = Field(default=4, ge=1, le=256)  # LLM calls in flight at once; more are answered deterministically
    llm_excerpt_lines: int = 160

    # Service.
    log_level: str = "INFO"
    allow_anonymous: bool = True
    cors_origins: list[str] = []
    public_url: str | None = None
    slack_signing_secret: SecretStr | None = None
    # Slack's response_url must be https://hooks.slack.com/...; loopback http is for tests only (SSRF guard).
    slack_allow_insecure_response_url: bool = False
    # The app's bot token (xoxb-...): with it, "Share to channel", the follow-up modal and the message shortcut on a
    # file or snippet work (scopes chat:write, files:read; README, section Slack). Without it: slash commands only.
    slack_bot_token: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"  # Slack's Web API; a loopback fake in tests
    retention_days: int = 0  # 0 keeps diagnoses forever
    idempotency_ttl_s: int = Field(default=24 * 3600, ge=60)  # how long a POST's Idempotency-Key and its answer are kept
    # Signs the share links (a diagnosis's ``url``). Set the same value on every replica; unset, a secret is made
    # once and kept in the database (every replica on that database reads it).
    share_secret: SecretStr | None = None

    # The client side (``crashdoc diagnose --server``): the service's URL and the workspace's API key.
    server_url: str | None = None
    api_key: SecretStr | None = None
    # Jobs (service/jobs): None runs them in the serving process on SQLite, and on `crashdoc worker` on PostgreSQL.
    jobs_in_process: bool | None = None
    jobs_workers: int = Field(default=2, ge=1, le=64)  # threads running jobs in one process
    # A node named by hardware-class failures of this many distinct runs is flagged (GET /v1/nodes/flagged).
    bad_node_min_jobs: int = Field(default=3, ge=2)
    # Alert URLs must be https (Slack: hooks.slack.com); loopback http only when this says so (tests).
    alerts_allow_insecure_urls: bool = False
    # Client addresses: X-Forwarded-For is believed only from these proxies (addresses or CIDR networks).
    trusted_proxies: list[str] = []

    # Plans: daily diagnosis allowance per workspace.
    plan_free_daily: int = 5
    plan_scale_daily: int = 50
    plan_free_questions_daily: int = 20
    plan_scale_questions_daily: int = 500
    # Slack: per Slack workspace (team) and UTC day; 0 means no limit.
    slack_team_daily: int = 0
    slack_team_questions_daily: int = 0
    # Anonymous callers (when allow_anonymous), per client address and UTC day; 0 means no limit.
    anonymous_daily: int = 0
    anonymous_questions_daily: int = 0

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'crashdoc.db'}"

    @property
    def resolved_catalog_path(self) -> Path:
        if self.catalog_path:
            return self.catalog_path
        return REPO_ROOT.parent / "shared" / "failure-catalog.yaml"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
