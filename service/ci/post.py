"""Post a diagnosis as a PR/MR comment, or update the one posted before (found by its hidden marker).

    post(forge, body) -> Posted      list the comments (every page), edit the one starting with the marker, else create

GitHub: ``GET/POST /repos/{repo}/issues/{number}/comments``, ``PATCH /repos/{repo}/issues/comments/{id}``, pages by
the ``Link: <...>; rel="next"`` header. GitLab: ``GET/POST /projects/{id}/merge_requests/{iid}/notes``,
``PUT .../notes/{id}``, pages by ``X-Next-Page``. Only a comment whose body *starts* with the marker is ours: a
marker quoted inside someone else's comment (or a log line) is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from service.render import MARKER_PREFIX, comment_marker

_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
_MAX_PAGES = 50  # 5,000 comments at 100 a page: a PR with more is not worth a longer search
GITHUB_MAX_BODY = 65536  # GitHub refuses a longer comment body


@dataclass(frozen=True)
class Forge:
    """Where to post: ``kind`` github or gitlab, the API root, the repository/project, the PR/MR number, a token."""

    kind: str
    api_url: str
    repo: str
    number: int
    token: str


@dataclass(frozen=True)
class Posted:
    action: str  # "created" or "updated"
    comment_id: int
    url: str | None


def with_marker(body: str, key: str) -> str:
    """The body starting with the marker for ``key`` (the renderer's own, or one put first)."""
    marker = comment_marker(key)
    if body.startswith(MARKER_PREFIX):
        first, _, rest = body.partition("\n")
        return marker + "\n" + rest if first != marker else body
    return marker + "\n" + body


def _fit(body: str, limit: int = GITHUB_MAX_BODY) -> str:
    if len(body) <= limit:
        return body
    note = "\n\n… (cut: the full diagnosis is in the job summary)\n"
    return body[: limit - len(note)].rsplit("\n", 1)[0] + note


def _client(forge: Forge) -> httpx.Client:
    if forge.kind == "github":
        headers = {"Authorization": f"Bearer {forge.token}", "Accept": "application/vnd.github+json",
                   "X-GitHub-Api-Version": "2022-11-28"}
    else:
        headers = {"PRIVATE-TOKEN": forge.token}
    return httpx.Client(headers={**headers, "User-Agent": "crashdoc-ci"}, timeout=30.0)


def _pages(client: httpx.Client, url: str, kind: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    next_url: str | None = url
    params: dict[str, str] | None = {"per_page": "100"}
    for _ in range(_MAX_PAGES):
        if next_url is None:
            break
        r = client.get(next_url, params=params)
        r.raise_for_status()
        out += r.json()
        if kind == "github":
            m = _NEXT.search(r.headers.get("link", ""))
            next_url, params = (m.group(1), None) if m else (None, None)
        else:
            page = r.headers.get("x-next-page", "")
            next_url, params = (url, {"per_page": "100", "page": page}) if page else (None, None)
    return out


def post(forge: Forge, body: str, *, key: str = "crashdoc") -> Posted:
    """Create the comment, or edit ours in place on a rerun (the marker for ``key`` opens its body)."""
    body = _fit(with_marker(body, key))
    marker = comment_marker(key)
    api = forge.api_url.rstrip("/")
    with _client(forge) as client:
        if forge.kind == "github":
            listing = f"{api}/repos/{forge.repo}/issues/{forge.number}/comments"
            edit = f"{api}/repos/{forge.repo}/issues/comments/{{id}}"
        elif forge.kind == "gitlab":
            listing = f"{api}/projects/{quote(forge.repo, safe='')}/merge_requests/{forge.number}/notes"
            edit = listing + "/{id}"
        else:
            raise ValueError(f"unknown forge {forge.kind!r}: github or gitlab")
        ours = [c for c in _pages(client, listing, forge.kind) if str(c.get("body", "")).startswith(marker)]
        if ours:
            target = ours[0]
            url = edit.format(id=target["id"])
            r = client.patch(url, json={"body": body}) if forge.kind == "github" else client.put(url, json={"body": body})
            action = "updated"
        else:
            r = client.post(listing, json={"body": body})
            action = "created"
        r.raise_for_status()
        data = r.json()
        return Posted(action=action, comment_id=int(data["id"]), url=data.get("html_url") or data.get("web_url"))
