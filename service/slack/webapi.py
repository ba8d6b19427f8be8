"""Slack's Web API, for what a ``response_url`` cannot do: share a diagnosis to the channel (``chat.postMessage``,
then its details in the thread), open the follow-up modal (``views.open``), answer privately
(``chat.postEphemeral``) and read the file or snippet a message shortcut points at (``files.info`` and its
``url_private_download``).

Scopes, the least these need: ``commands`` (the slash command and the message shortcut), ``chat:write``
(sharing and private answers), ``files:read`` (the shortcut on a file or a snippet). slack_sdk's ``WebClient``
speaks the API; crashdoc downloads files only from Slack's file host (``files.slack.com``), with the bot token.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from service.errors import BadRequest, ConfigError, TooLarge
from service.models import Source
from service.settings import Settings

log = logging.getLogger("crashdoc.slack")

SLACK_FILES_HOST = "files.slack.com"
DOWNLOAD_TIMEOUT_S = 30.0


class SlackApiFailed(ConfigError):
    """Slack's Web API refused a call (a missing scope, a revoked token): said to the user, logged by its code."""

    code = "slack_api_failed"
    status = 502


@dataclass(frozen=True)
class SlackApi:
    token: str
    base_url: str
    allow_insecure: bool  # tests: the fake Web API and its files are on loopback http

    @classmethod
    def from_settings(cls, settings: Settings) -> SlackApi | None:
        token = settings.slack_bot_token.get_secret_value().strip() if settings.slack_bot_token else ""
        if not token:
            return None
        base = settings.slack_api_url if settings.slack_api_url.endswith("/") else settings.slack_api_url + "/"
        return cls(token, base, settings.slack_allow_insecure_response_url)

    def _client(self) -> WebClient:
        return WebClient(token=self.token, base_url=self.base_url, timeout=10)

    def call(self, method: str, **args: Any) -> dict[str, Any]:
        """One Web API call; Slack's refusal becomes ``SlackApiFailed`` with its error code (never the token)."""
        try:
            response = self._client().api_call(method, json=args)
        except SlackApiError as exc:
            code = str(exc.response.get("error", "unknown")) if exc.response is not None else "unknown"
            log.warning("slack %s refused: %s", method, code)
            raise SlackApiFailed(f"Slack refused {method} ({code}).",
                                 hint="Check the app's bot token and its scopes: chat:write, files:read (README, section Slack).") from exc
        return dict(response.data) if isinstance(response.data, dict) else {}

    def _download_allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        if "@" in parts.netloc:
            return False
        if parts.scheme == "https" and (parts.hostname or "") == SLACK_FILES_HOST:
            return True
        api = urlsplit(self.base_url)
        return self.allow_insecure and parts.hostname in ("127.0.0.1", "localhost", "::1") and parts.netloc == api.netloc

    def file_source(self, file_id: str, max_bytes: int) -> Source:
        """A shared file or snippet as one input file of the run (read with the bot token, files:read)."""
        info = self.call("files.info", file=file_id).get("file") or {}
        name = str(info.get("name") or info.get("title") or f"{file_id}.log")
        size = int(info.get("size") or 0)
        if size > max_bytes:
            raise TooLarge(f"{name} is {size:,} bytes, over the {max_bytes:,}-byte limit.",
                           hint="Compress it with gzip, or share only the failing run's files.")
        url = str(info.get("url_private_download") or info.get("url_private") or "")
        if not self._download_allowed(url):
            raise BadRequest(f"{name}: Slack gave no download address on its file host.",
                             hint="Share the file in Slack again; crashdoc reads files only from files.slack.com.")
        with httpx.stream("GET", url, headers={"Authorization": f"Bearer {self.token}"}, timeout=DOWNLOAD_TIMEOUT_S,
                          follow_redirects=False) as r:
            if r.status_code != 200:
                raise SlackApiFailed(f"Slack answered {r.status_code} for {name}.", hint="Check the app has files:read.")
            data = bytearray()
            for chunk in r.iter_bytes():
                data += chunk
                if len(data) > max_bytes:
                    raise TooLarge(f"{name} is over the {max_bytes:,}-byte limit.", hint="Compress it with gzip.")
        return Source(name=name, data=bytes(data))
