"""The CI kit's poster against local fakes of the GitHub and GitLab REST APIs (real HTTP servers on loopback).

A fake keeps comments per PR, pages them (GitHub: the ``Link`` header; GitLab: ``X-Next-Page``), checks the token,
and records every request, so the tests see what a rerun does: one comment, edited, not a second one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from service.ci.post import Forge, post, with_marker
from service.render import comment_marker

REPO = Path(__file__).resolve().parents[1]
TOKEN = "ghs_test_token_0123456789"


class FakeForge:
    """Comments of one PR (GitHub issue comments or GitLab MR notes) and the requests seen."""

    def __init__(self) -> None:
        self.comments: list[dict[str, object]] = []
        self.requests: list[tuple[str, str]] = []
        self.next_id = 1000

    def add(self, body: str, user: str = "someone") -> dict[str, object]:
        self.next_id += 1
        c: dict[str, object] = {"id": self.next_id, "body": body, "user": {"login": user},
                                "html_url": f"https://github.example/o/r/pull/7#issuecomment-{self.next_id}"}
        self.comments.append(c)
        return c


def handler_for(fake: FakeForge) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _reply(self, status: int, data: object, headers: dict[str, str] | None = None) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)

        def _authorized(self) -> bool:
            return self.headers.get("Authorization") == f"Bearer {TOKEN}" or self.headers.get("PRIVATE-TOKEN") == TOKEN

        def _body(self) -> dict[str, object]:
            return json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")

        def _route(self, method: str) -> None:
            url = urlparse(self.path)
            fake.requests.append((method, url.path))
            if not self._authorized():
                return self._reply(401, {"message": "Bad credentials"})
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            gh_list = re.fullmatch(r"/repos/o/r/issues/7/comments", url.path)
            gh_one = re.fullmatch(r"/repos/o/r/issues/comments/(\d+)", url.path)
            gl_list = re.fullmatch(r"/api/v4/projects/group%2Fproj/merge_requests/7/notes", url.path)
            gl_one = re.fullmatch(r"/api/v4/projects/group%2Fproj/merge_requests/7/notes/(\d+)", url.path)
            if (gh_list or gl_list) and method == "GET":
                per = min(int(q.get("per_page", "30")), 100)
                page = int(q.get("page", "1"))
                chunk = fake.comments[(page - 1) * per: page * per]
                more = page * per < len(fake.comments)
                headers = {}
                if more and gh_list:
                    headers["Link"] = f'<http://{self.headers["Host"]}{url.path}?per_page={per}&page={page + 1}>; rel="next"'
                if more and gl_list:
                    headers["X-Next-Page"] = str(page + 1)
                return self._reply(200, chunk, headers)
            if (gh_list or gl_list) and method == "POST":
                return self._reply(201, fake.add(str(self._body()["body"]), user="crashdoc-bot"))
            one = gh_one or gl_one
            if one and method == ("PATCH" if gh_one else "PUT"):
                for c in fake.comments:
                    if c["id"] == int(one.group(1)):
                        c["body"] = self._body()["body"]
                        return self._reply(200, c)
                return self._reply(404, {"message": "Not Found"})
            return self._reply(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_PATCH(self) -> None:
            self._route("PATCH")

        def do_PUT(self) -> None:
            self._route("PUT")

    return Handler


@pytest.fixture
def forge() -> Iterator[tuple[FakeForge, str]]:
    fake = FakeForge()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(fake))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield fake, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def ours(fake: FakeForge, key: str = "crashdoc") -> list[dict[str, object]]:
    return [c for c in fake.comments if str(c["body"]).startswith(comment_marker(key))]


def test_post_then_rerun_updates_the_same_comment(forge: tuple[FakeForge, str]):
    fake, url = forge
    fake.add("LGTM")
    gh = Forge(kind="github", api_url=url, repo="o/r", number=7, token=TOKEN)
    first = post(gh, comment_marker("train") + "\n**Rank 1 failed first**", key="train")
    second = post(gh, comment_marker("train") + "\n**Rank 3 failed first**", key="train")
    assert (first.action, second.action) == ("created", "updated")
    assert first.comment_id == second.comment_id
    assert len(fake.comments) == 2 and len(ours(fake, "train")) == 1
    assert "Rank 3 failed first" in str(ours(fake, "train")[0]["body"])
    assert [m for m, _ in fake.requests] == ["GET", "POST", "GET", "PATCH"]


def test_our_comment_is_found_past_the_first_pages(forge: tuple[FakeForge, str]):
    fake, url = forge
    gh = Forge(kind="github", api_url=url, repo="o/r", number=7, token=TOKEN)
    for i in range(120):
        fake.add(f"review comment {i}")
    post(gh, "first diagnosis")
    for i in range(130):
        fake.add(f"later comment {i}")
    again = post(gh, "second diagnosis")
    assert again.action == "updated" and len(ours(fake)) == 1
    assert sum(1 for m, p in fake.requests if m == "GET") == 2 + 3  # two pages, then three (251 comments)


def test_a_marker_quoted_inside_another_comment_is_not_ours(forge: tuple[FakeForge, str]):
    fake, url = forge
    quoted = fake.add("> " + comment_marker() + "\nwhy did the bot say this?")
    gh = Forge(kind="github", api_url=url, repo="o/r", number=7, token=TOKEN)
    assert post(gh, "diagnosis").action == "created"
    assert quoted["body"] == "> " + comment_marker() + "\nwhy did the bot say this?"


def test_comments_of_other_keys_stay(forge: tuple[FakeForge, str]):
    fake, url = forge
    gh = Forge(kind="github", api_url=url, repo="o/r", number=7, token=TOKEN)
    post(gh, "train job", key="train")
    post(gh, "eval job", key="eval")
    post(gh, "train job again", key="train")
    assert len(fake.comments) == 2 and "again" in str(ours(fake, "train")[0]["body"])


def test_gitlab_notes_are_posted_then_updated(forge: tuple[FakeForge, str]):
    fake, url = forge
    for i in range(150):
        fake.add(f"note {i}")
    gl = Forge(kind="gitlab", api_url=url + "/api/v4", repo="group/proj", number=7, token=TOKEN)
    assert post(gl, "one").action == "created"
    assert post(gl, "two").action == "updated"
    assert len(ours(fake)) == 1 and [m for m, _ in fake.requests if m in ("POST", "PUT")] == ["POST", "PUT"]


def test_a_bad_token_is_an_error_not_a_silent_success(forge: tuple[FakeForge, str]):
    import httpx

    _, url = forge
    with pytest.raises(httpx.HTTPStatusError):
        post(Forge(kind="github", api_url=url, repo="o/r", number=7, token="wrong"), "x")


@pytest.mark.parametrize(("body", "key", "first_line"), [
    ("plain", "k", comment_marker("k")),
    (comment_marker("crashdoc") + "\nbody", "k", comment_marker("k")),  # the job's key wins
    (comment_marker("k") + "\nbody", "k", comment_marker("k")),
])
def test_the_body_always_opens_with_the_jobs_marker(body: str, key: str, first_line: str):
    out = with_marker(body, key)
    assert out.splitlines()[0] == first_line and out.count("<!-- crashdoc:comment") == 1


def test_the_cli_in_github_actions_posts_then_updates(forge: tuple[FakeForge, str], tmp_path: Path):
    """What action.yml runs: `crashdoc comment` with the Actions env (event file, repository, API URL, token)."""
    fake, url = forge
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}))
    md = tmp_path / "crashdoc.md"
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "o/r",
           "GITHUB_API_URL": url, "GITHUB_TOKEN": TOKEN, "PYTHONPATH": str(REPO)}
    results = []
    for text in ("**Rank 1 failed first**", "**Rank 2 failed first**"):
        md.write_text(comment_marker("train") + "\n" + text + "\n")
        results.append(subprocess.run([sys.executable, "-m", "service.cli", "comment", str(md), "--key", "train"],
                                      env=env, capture_output=True, text=True, timeout=120, check=False))
    assert [r.returncode for r in results] == [0, 0], results[-1].stderr
    assert "created" in results[0].stderr and "updated" in results[1].stderr
    assert len(fake.comments) == 1 and "Rank 2 failed first" in str(fake.comments[0]["body"])
    event.write_text(json.dumps({"push": {}}))
    push = subprocess.run([sys.executable, "-m", "service.cli", "comment", str(md)], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert push.returncode == 0 and "not a pull/merge request" in push.stderr and len(fake.comments) == 1


# ---------------------------------------------------------------- action.yml, run as the Actions runner would

EXAMPLE = REPO / "examples" / "fusedadam-h100.log"
_EXPR = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def action() -> dict:  # type: ignore[type-arg]
    import yaml

    return yaml.safe_load((REPO / "action.yml").read_text())


def test_the_action_uses_only_inputs_it_declares():
    a = action()
    used = {m for step in a["runs"]["steps"] for v in [step.get("run", ""), *step.get("env", {}).values()]
            for m in _EXPR.findall(str(v))}
    assert {u.split(".", 1)[1] for u in used if u.startswith("inputs.")} <= set(a["inputs"])
    assert a["runs"]["using"] == "composite"
    assert all(o["value"].startswith("${{ steps.diagnose.outputs.") for o in a["outputs"].values())


def run_action_step(inputs: dict[str, str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The action's "Diagnose and post" step: its env's ${{ }} evaluated from the inputs, its script run by bash."""
    a = action()
    given = {name: inputs.get(name, str(spec.get("default", ""))) for name, spec in a["inputs"].items()}
    given = {k: v.replace("${{ github.job }}", "train") for k, v in given.items()}
    step = next(s for s in a["runs"]["steps"] if s.get("id") == "diagnose")
    step_env = {k: _EXPR.sub(lambda m: given[m.group(1).split(".", 1)[1]], str(v)) for k, v in step["env"].items()}
    return subprocess.run(["bash", "-e", "-c", step["run"]], env={**env, **step_env}, capture_output=True, text=True,
                          timeout=400, check=False)


def test_the_action_posts_then_updates_one_comment_and_writes_the_summary(
        forge: tuple[FakeForge, str], tmp_path: Path, session_data_dir: Path):
    fake, url = forge
    fake.add("please fix the flaky test")
    data = tmp_path / "data"
    data.mkdir()
    if (session_data_dir / "index").exists():
        os.symlink(session_data_dir / "index", data / "index")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}))
    out, summary = tmp_path / "output", tmp_path / "summary.md"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "CRASHDOC_DATA_DIR": str(data),
           "GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "o/r", "GITHUB_API_URL": url,
           "GITHUB_OUTPUT": str(out), "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(tmp_path)}
    inputs = {"log": str(EXAMPLE), "token": TOKEN, "fail-on-found": "true"}
    first = run_action_step(inputs, env)
    rerun = run_action_step(inputs, env)
    assert (first.returncode, rerun.returncode) == (1, 1), first.stderr[-2000:]  # a known failure, --fail-on-found
    assert "comment" in first.stderr and "created" in first.stderr and "updated" in rerun.stderr
    assert len(fake.comments) == 2 and len(ours(fake, "train")) == 1
    body = str(ours(fake, "train")[0]["body"])
    assert "FusedAdam" in body or "fused" in body.lower()
    assert "<details><summary>Evidence" in body
    assert summary.read_text().count(comment_marker("train")) == 2  # one summary per run of the step
    assert "exit-code=1" in out.read_text()
    quiet = run_action_step({**inputs, "fail-on-found": "false", "comment": "false"}, env)
    assert quiet.returncode == 0 and len(fake.comments) == 2
