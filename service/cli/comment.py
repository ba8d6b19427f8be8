"""``crashdoc comment FILE``: post the PR-comment markdown on the pull/merge request of this CI job, or update ours."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

EPILOG = """\
In GitHub Actions the PR, repository and API come from GITHUB_EVENT_PATH, GITHUB_REPOSITORY and GITHUB_API_URL and
the token from GITHUB_TOKEN; in GitLab CI from CI_MERGE_REQUEST_IID, CI_PROJECT_ID, CI_API_V4_URL and the token
from CRASHDOC_GITLAB_TOKEN (a project access token that may write notes). A rerun edits the comment it posted
before (found by the hidden marker of --key) instead of adding one. Not a PR/MR: nothing is posted, exit 0.

  crashdoc diagnose train.log --format markdown --comment-key train -o crashdoc.md
  crashdoc comment crashdoc.md --key train
"""


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("comment", help="post a diagnosis as a PR/MR comment (CI), updating it on reruns",
                       description="Post FILE (markdown from `crashdoc diagnose --format markdown`) on this job's PR/MR.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="the markdown to post ('-' for stdin)")
    p.add_argument("--key", default="crashdoc", help="which comment this is (one per key on a PR; default crashdoc)")
    p.add_argument("--forge", choices=("auto", "github", "gitlab"), default="auto")
    p.add_argument("--repo", help="owner/name (GitHub) or project id or path (GitLab); default from the CI env")
    p.add_argument("--number", type=int, help="the PR or MR number; default from the CI env")
    p.add_argument("--api-url", help="the API root; default from the CI env")
    p.add_argument("--token-env", metavar="NAME", help="the env variable holding the token (GITHUB_TOKEN / CRASHDOC_GITLAB_TOKEN)")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(run=run)


def _github_number(env: dict[str, str]) -> int | None:
    path = env.get("GITHUB_EVENT_PATH")
    if not path or not Path(path).is_file():
        return None
    event = json.loads(Path(path).read_text())
    for holder in ("pull_request", "issue"):
        if isinstance(event.get(holder), dict) and event[holder].get("number"):
            return int(event[holder]["number"])
    return int(event["number"]) if isinstance(event.get("number"), int) else None


def run(args: argparse.Namespace) -> int:
    from service.ci.post import Forge, post
    from service.errors import BadRequest

    env = dict(os.environ)
    kind = args.forge
    if kind == "auto":
        kind = "github" if env.get("GITHUB_ACTIONS") == "true" else "gitlab" if env.get("GITLAB_CI") == "true" else ""
        if not kind:
            raise BadRequest("Not in GitHub Actions or GitLab CI.", hint="Give --forge, --repo, --number and --api-url.")
    if kind == "github":
        repo = args.repo or env.get("GITHUB_REPOSITORY", "")
        number = args.number or _github_number(env)
        api = args.api_url or env.get("GITHUB_API_URL") or "https://api.github.com"
        token = env.get(args.token_env or "GITHUB_TOKEN", "")
    else:
        repo = args.repo or env.get("CI_PROJECT_ID", "")
        number = args.number or (int(env["CI_MERGE_REQUEST_IID"]) if env.get("CI_MERGE_REQUEST_IID", "").isdigit() else None)
        api = args.api_url or env.get("CI_API_V4_URL", "")
        token = env.get(args.token_env or "CRASHDOC_GITLAB_TOKEN", "")
    if number is None:
        if not args.quiet:
            print("crashdoc: not a pull/merge request: no comment posted.", file=sys.stderr)
        return 0
    if not (repo and api and token):
        raise BadRequest(f"Missing the {kind} repository, API URL or token.",
                         hint=f"Set {args.token_env or ('GITHUB_TOKEN' if kind == 'github' else 'CRASHDOC_GITLAB_TOKEN')}, or give --repo/--api-url.")
    body = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    done = post(Forge(kind=kind, api_url=api, repo=repo, number=number, token=token), body, key=args.key)
    if not args.quiet:
        print(f"crashdoc: comment {done.comment_id} {done.action}" + (f": {done.url}" if done.url else ""), file=sys.stderr)
    return 0
