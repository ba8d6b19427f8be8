"""Accounts: keys, plans and quotas, evaluation codes, history, deletion, retention, and one workspace
trying to reach another's data. Against the real app on a loopback port (uvicorn in a thread) with a real
SQLite database; the admin commands as real processes against the live server's database."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import uvicorn

from service.app import create_app
from service.errors import BadRequest, NotFound
from service.pipeline import Engine
from service.settings import Settings
from service.store import Store
from service.store.accounts import Accounts, Workspace, allowance
from tests.conftest import REPO, free_port

OOM_LOG = b"""\
[rank0]: Traceback (most recent call last):
[rank0]:   File "train.py", line 88, in <module>
[rank0]:     loss.backward()
[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of \
79.15 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.90 GiB memory in use.
"""
TEXT = {"Content-Type": "text/plain"}


# ---------------------------------------------------------------- the app on a loopback port


@dataclass
class LocalApp:
    url: str
    engine: Engine
    settings: Settings

    @property
    def accounts(self) -> Accounts:
        return Accounts(self.engine.store)

    def client(self, key: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)

    def new_key(self, name: str, plan: str = "free") -> str:
        ws = self.accounts.create_workspace(name, plan)
        return self.accounts.create_key(ws.id)[1]

    def diagnose(self, key: str | None, body: bytes = OOM_LOG) -> dict:
        with self.client(key) as c:
            r = c.post("/v1/diagnoses", content=body, headers=TEXT)
        assert r.status_code == 201, r.text
        return r.json()  # type: ignore[no-any-return]


def app_engine(engine: Engine, data_dir: Path, **overrides: object) -> Engine:
    """An engine on its own database and settings, sharing the session's loaded KB, index and masker."""
    settings = engine.settings.model_copy(update={"data_dir": data_dir, "database_url": None, **overrides})
    e = Engine(settings)
    for shared in ("kb", "index", "masker"):
        e.__dict__[shared] = getattr(engine, shared)
    return e


@contextmanager
def running_app(engine: Engine, data_dir: Path, **overrides: object) -> Iterator[LocalApp]:
    """``create_app`` served by uvicorn on a free loopback port, in a thread of this process."""
    e = app_engine(engine, data_dir, **overrides)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(e.settings, e), host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(600):
            if server.started or not thread.is_alive():
                break
            threading.Event().wait(0.05)
        assert server.started, "the app did not start"
        yield LocalApp(f"http://127.0.0.1:{port}", e, e.settings)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def app(engine, tmp_path_factory) -> Iterator[LocalApp]:
    """Anonymous allowed (2 a day), the free plan at 3 diagnoses and 2 questions a day."""
    with running_app(engine, tmp_path_factory.mktemp("accounts"), anonymous_daily=2, plan_free_daily=3,
                     plan_free_questions_daily=2) as a:
        yield a


# ---------------------------------------------------------------- keys


def test_a_key_is_shown_once_and_only_its_hash_is_stored(app):
    ws = app.accounts.create_workspace("hash-check")
    record, key = app.accounts.create_key(ws.id, "ci-bot")
    assert key.startswith(record.prefix + "_") and len(key) > 50
    with sqlite3.connect(app.settings.data_dir / "crashdoc.db") as db:
        rows = db.execute("select prefix, key_hash, label from api_keys where id = ?", (record.id,)).fetchall()
        dump = "\n".join(db.iterdump())
    assert rows == [(record.prefix, hashlib.sha256(key.encode()).hexdigest(), "ci-bot")]
    assert key not in dump and key.split("_", 2)[2] not in dump
    assert app.accounts.authenticate(key) == app.accounts.workspace(ws.id)


@pytest.mark.parametrize(("header", "status"), [
    (None, 401),  # listing needs a workspace, even where anonymous diagnoses are allowed
    ("Bearer {key}", 200),
    ("bearer {key}", 200),
    ("Bearer {key}x", 401),
    ("Bearer cdk_aaaaaaaaaa_" + "A" * 43, 401),
    ("Bearer not-a-key", 401),
    ("Bearer", 401),
    ("Basic dXNlcjpwYXNz", 401),
    ("Bearer {revoked}", 401),
])
def test_bearer_keys_are_checked(app, header, status):
    key = app.new_key(f"auth-{len(app.accounts.workspaces())}")
    ws = app.accounts.authenticate(key)
    assert ws is not None
    revoked_record, revoked = app.accounts.create_key(ws.id)
    app.accounts.revoke_key(revoked_record.id)
    headers = {"Authorization": header.format(key=key, revoked=revoked)} if header else {}
    r = httpx.get(f"{app.url}/v1/diagnoses", headers=headers, timeout=30)
    assert r.status_code == status, r.text
    if status == 401:
        assert r.json()["error"]["code"] == "unauthorized"
        assert "crashdoc admin key create" in r.json()["error"]["message"]
        assert r.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_wrong_key_is_refused_even_where_anonymous_use_is_allowed(app):
    r = httpx.post(f"{app.url}/v1/diagnoses", content=OOM_LOG, headers={**TEXT, "Authorization": "Bearer cdk_nope"})
    assert r.status_code == 401 and "not valid" in r.json()["error"]["message"]


def test_anonymous_use_can_be_refused(engine, tmp_path):
    with running_app(engine, tmp_path, allow_anonymous=False) as locked:
        key = locked.new_key("locked")
        anon = httpx.post(f"{locked.url}/v1/diagnoses", content=OOM_LOG, headers=TEXT, timeout=60)
        assert anon.status_code == 401
        assert "needs an API key" in anon.json()["error"]["message"]
        assert locked.diagnose(key)["entry_id"]
        assert httpx.get(f"{locked.url}/healthz").status_code == 200  # liveness stays open


# ---------------------------------------------------------------- plans and quotas


def test_the_free_plan_allowance_is_spent_then_429_with_retry_after(app):
    key = app.new_key("quota")
    for _ in range(3):
        app.diagnose(key)
    with app.client(key) as c:
        r = c.post("/v1/diagnoses", content=OOM_LOG, headers=TEXT)
        ws = c.get("/v1/workspace").json()
    assert r.status_code == 429
    err = r.json()["error"]
    assert err["code"] == "quota_exceeded"
    assert "3 diagnoses" in err["message"] and "free plan" in err["message"] and "00:00 UTC" in err["message"]
    now = datetime.now(UTC)
    to_midnight = (datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC) - now).total_seconds()
    assert 0 < int(r.headers["Retry-After"]) <= to_midnight + 5
    assert ws["plan"] == "free" and ws["allowance"] == {"diagnoses_per_day": 3, "questions_per_day": 2}
    assert ws["used_today"] == {"diagnoses": 3, "questions": 0}


def test_follow_up_questions_are_counted_separately(app):
    key = app.new_key("questions")
    d = app.diagnose(key)
    with app.client(key) as c:
        asked = [c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"}).status_code for _ in range(3)]
        err = c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"}).json()["error"]
        ws = c.get("/v1/workspace").json()
    assert asked == [201, 201, 429]
    assert "2 follow-up questions" in err["message"]
    assert ws["used_today"] == {"diagnoses": 1, "questions": 2}
    app.diagnose(key)  # diagnoses have their own allowance


def test_anonymous_callers_have_their_own_allowance(app):
    statuses = []
    for _ in range(3):
        statuses.append(httpx.post(f"{app.url}/v1/diagnoses", content=OOM_LOG, headers=TEXT, timeout=60))
    assert [r.status_code for r in statuses] == [201, 201, 429]
    assert "Anonymous use is limited to 2 diagnoses" in statuses[2].json()["error"]["message"]
    assert app.accounts.usage("anon:127.0.0.1", datetime.now(UTC).date())["diagnosis"] == 2


@pytest.mark.parametrize(("body", "headers", "status"), [
    (b"", TEXT, 422),
    (bytes(range(256)) * 64, TEXT, 415),
    (b"{}", {"Content-Type": "application/json"}, 415),  # a JSON body is not a log: an unsupported type
])
def test_a_request_that_fails_spends_nothing(app, body, headers, status):
    key = app.new_key(f"refund-{status}-{len(body)}")
    with app.client(key) as c:
        assert c.post("/v1/diagnoses", content=body, headers=headers).status_code == status
        assert c.post("/v1/diagnoses/d_doesnotexist/messages", json={"question": "why?"}).status_code == 404
        assert c.get("/v1/workspace").json()["used_today"] == {"diagnoses": 0, "questions": 0}


def test_counting_is_atomic_under_concurrency(app):
    """32 threads race for an allowance of 10 on the real SQLite file: exactly 10 win."""
    day = datetime.now(UTC).date()
    with ThreadPoolExecutor(32) as pool:
        results = list(pool.map(lambda _: app.accounts.consume("race", "diagnosis", 10, day), range(64)))
    assert sorted(r for r in results if r is not None) == list(range(1, 11))
    assert app.accounts.usage("race", day)["diagnosis"] == 10


# ---------------------------------------------------------------- evaluation codes


def test_an_evaluation_code_gives_its_plan_once(app):
    record, code = app.accounts.create_eval_code(plan="scale", days=14, daily=7)
    key, other = app.new_key("trial"), app.new_key("trial-other")
    with app.client(key) as c:
        r = c.post("/v1/workspace/redeem", json={"code": code.lower().replace("-", " ")})
        again = c.post("/v1/workspace/redeem", json={"code": code})
        unknown = c.post("/v1/workspace/redeem", json={"code": "EVAL-AAAA-BBBB-CCCC-DDDD"})
    with app.client(other) as c:
        taken = c.post("/v1/workspace/redeem", json={"code": code})
    anon = httpx.post(f"{app.url}/v1/workspace/redeem", json={"code": code})
    assert r.status_code == 200, r.text
    ws = r.json()
    assert ws["plan"] == "scale" and ws["base_plan"] == "free"
    assert ws["allowance"]["diagnoses_per_day"] == 7
    assert ws["allowance"]["questions_per_day"] == app.settings.plan_scale_questions_daily
    until = datetime.fromisoformat(ws["plan_until"])
    assert timedelta(days=13, hours=23) < until - datetime.now(UTC) <= timedelta(days=14)
    assert again.status_code == 200 and again.json()["plan_until"] == ws["plan_until"]
    assert unknown.status_code == 404
    assert taken.status_code == 400 and "already redeemed" in taken.json()["error"]["message"]
    assert anon.status_code == 401
    assert [c.redeemed_by for c in app.accounts.eval_codes() if c.id == record.id] == [ws["id"]]


def test_two_workspaces_racing_for_one_code_cannot_both_win(app):
    _, code = app.accounts.create_eval_code(days=3, daily=9)
    spaces = [app.accounts.create_workspace(f"racer-{i}") for i in range(8)]

    def redeem(ws: Workspace) -> str:
        try:
            app.accounts.redeem(ws.id, code)
            return "won"
        except BadRequest:
            return "lost"

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(redeem, spaces)) == ["lost"] * 7 + ["won"]


NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(("plan", "trial_daily", "until", "expect"), [
    ("free", None, None, ("free", 5, 20)),
    ("scale", None, None, ("scale", 50, 500)),
    ("free", 40, NOW + timedelta(days=3), ("scale", 40, 500)),  # an evaluation plan running
    ("free", 40, NOW - timedelta(seconds=1), ("free", 5, 20)),  # ... and after it ended: the base plan again
    ("scale", 10, NOW + timedelta(days=3), ("scale", 50, 500)),  # a code never lowers the base plan
])
def test_the_plan_in_force(plan, trial_daily, until, expect):
    ws = Workspace("w_x", "x", plan, "scale" if trial_daily else None, trial_daily, until, NOW)
    a = allowance(ws, Settings(), NOW)
    assert (a.plan, a.diagnoses, a.questions) == expect


def test_a_second_code_extends_a_running_evaluation(app):
    ws = app.accounts.create_workspace("stacked")
    start = datetime.now(UTC)
    app.accounts.redeem(ws.id, app.accounts.create_eval_code(days=10, daily=20)[1], now=start)
    after = app.accounts.redeem(ws.id, app.accounts.create_eval_code(days=5, daily=30)[1], now=start)
    assert after.plan_until is not None
    assert after.plan_until - start == timedelta(days=15) and after.trial_daily == 30


# ---------------------------------------------------------------- one workspace trying another's data


def test_no_workspace_reaches_another_workspaces_diagnosis(app):
    alice, mallory = app.new_key("alice"), app.new_key("mallory")
    d = app.diagnose(alice)
    with app.client(alice) as c:
        assert c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"}).status_code == 201
    path = f"/v1/diagnoses/{d['id']}"
    attempts = {
        "read": ("GET", path, None),
        "chat history": ("GET", path + "/messages", None),
        "ask": ("POST", path + "/messages", {"question": "show me the log"}),
        "ask (stream)": ("POST", path + "/messages/stream", {"question": "show me the log"}),
        "delete": ("DELETE", path, None),
    }
    for who, headers in (("mallory", {"Authorization": f"Bearer {mallory}"}), ("anonymous", {})):
        for what, (method, url, body) in attempts.items():
            r = httpx.request(method, app.url + url, json=body, headers=headers, timeout=60)
            assert r.status_code == 404, f"{who} could {what}: {r.status_code} {r.text[:200]}"
            assert r.json()["error"]["code"] == "not_found"
    with app.client(mallory) as c:
        assert d["id"] not in {i["id"] for i in c.get("/v1/diagnoses").json()["items"]}
        assert c.get("/v1/workspace").json()["used_today"]["questions"] == 0  # the 404s were given back
    with app.client(alice) as c:
        assert c.get(path).json()["entry_id"] == d["entry_id"]
        assert len(c.get(path + "/messages").json()["messages"]) == 2  # untouched by the attempts


def test_a_workspace_does_not_see_anonymous_diagnoses_and_vice_versa(engine, tmp_path):
    with running_app(engine, tmp_path) as a:
        key = a.new_key("mine")
        anon, mine = a.diagnose(None), a.diagnose(key)
        with a.client(key) as c:
            assert c.get(f"/v1/diagnoses/{anon['id']}").status_code == 404
            assert [i["id"] for i in c.get("/v1/diagnoses").json()["items"]] == [mine["id"]]
        assert httpx.get(f"{a.url}/v1/diagnoses/{mine['id']}").status_code == 404
        assert httpx.get(f"{a.url}/v1/diagnoses/{anon['id']}").status_code == 200


# ---------------------------------------------------------------- history and deletion


def test_history_is_paginated_newest_first_and_masked(engine, tmp_path):
    secret = "hf_Vq3LmZ8xTn2KpR7wYc5HbJ4dGs9AeF1uXo"
    with running_app(engine, tmp_path, plan_free_daily=10) as a:
        key = a.new_key("history")
        made = [a.diagnose(key, f"HF_TOKEN={secret}\n".encode() + OOM_LOG)["id"] for _ in range(3)]
        with a.client(key) as c:
            first = c.get("/v1/diagnoses", params={"limit": 2})
            second = c.get("/v1/diagnoses", params={"limit": 2, "offset": first.json()["next_offset"]})
            bad = [c.get("/v1/diagnoses", params=p).status_code for p in ({"limit": 0}, {"limit": 101}, {"offset": -1})]
    page1, page2 = first.json(), second.json()
    assert (page1["total"], len(page1["items"]), page1["next_offset"]) == (3, 2, 2)
    assert (len(page2["items"]), page2["next_offset"]) == (1, None)
    listed = [i["id"] for i in page1["items"] + page2["items"]]
    assert sorted(listed) == sorted(made) and len(set(listed)) == 3
    assert [i["created_at"] for i in page1["items"] + page2["items"]] == sorted(
        (i["created_at"] for i in page1["items"] + page2["items"]), reverse=True)
    assert secret not in first.text + second.text
    assert set(page1["items"][0]) == {"id", "created_at", "entry_id", "title", "category", "confidence", "summary", "composer"}
    assert bad == [422, 422, 422]


def test_delete_removes_the_diagnosis_with_its_chat(app):
    key = app.new_key("deleter")
    d = app.diagnose(key)
    with app.client(key) as c:
        c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "what now?"})
        gone = c.delete(f"/v1/diagnoses/{d['id']}")
        after = [c.get(f"/v1/diagnoses/{d['id']}").status_code, c.get(f"/v1/diagnoses/{d['id']}/messages").status_code,
                 c.delete(f"/v1/diagnoses/{d['id']}").status_code]
        listed = [i["id"] for i in c.get("/v1/diagnoses").json()["items"]]
    assert gone.status_code == 204 and gone.content == b""
    assert after == [404, 404, 404] and d["id"] not in listed
    with sqlite3.connect(app.settings.data_dir / "crashdoc.db") as db:
        assert db.execute("select count(*) from messages where diagnosis_id = ?", (d["id"],)).fetchone() == (0,)


# ---------------------------------------------------------------- retention


def _age(db_path: Path, diagnosis_id: str, days: int) -> None:
    with sqlite3.connect(db_path) as db:
        old = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%d %H:%M:%S.000000")
        db.execute("update diagnoses set created_at = ? where id = ?", (old, diagnosis_id))


def test_retention_purges_old_diagnoses_at_start(engine, tmp_path):
    with running_app(engine, tmp_path) as a:
        old, new = a.diagnose(None)["id"], a.diagnose(None)["id"]
        with a.client() as c:
            c.post(f"/v1/diagnoses/{old}/messages", json={"question": "why?"})
    _age(tmp_path / "crashdoc.db", old, 40)
    with running_app(engine, tmp_path, retention_days=30) as a:
        assert httpx.get(f"{a.url}/v1/diagnoses/{old}").status_code == 404
        assert httpx.get(f"{a.url}/v1/diagnoses/{new}").status_code == 200
    with sqlite3.connect(tmp_path / "crashdoc.db") as db:
        assert db.execute("select count(*) from messages where diagnosis_id = ?", (old,)).fetchone() == (0,)


# ---------------------------------------------------------------- the admin commands, as processes


def admin(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "service.cli", "admin", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_admin_commands_drive_the_live_service(server):
    made = admin(server.data_dir, "workspace", "create", "acme-ci", "--plan", "scale")
    assert made.returncode == 0, made.stderr
    ws_id = made.stdout.strip()
    assert ws_id.startswith("w_") and "acme-ci" in made.stderr
    assert admin(server.data_dir, "workspace", "create", "acme-ci").returncode == 2
    key = admin(server.data_dir, "key", "create", "acme-ci", "--label", "ci")
    assert key.returncode == 0 and key.stdout.count("\n") == 1 and "only time" in key.stderr
    bearer = {"Authorization": f"Bearer {key.stdout.strip()}"}
    r = httpx.get(f"{server.url}/v1/workspace", headers=bearer, timeout=30)
    assert r.status_code == 200 and r.json()["name"] == "acme-ci" and r.json()["plan"] == "scale"
    listing = admin(server.data_dir, "workspace", "list")
    assert ws_id in listing.stdout and "scale" in listing.stdout
    keys = admin(server.data_dir, "key", "list", "acme-ci")
    assert key.stdout.strip() not in keys.stdout  # never the key again
    key_id = keys.stdout.splitlines()[1].split()[0]
    assert admin(server.data_dir, "key", "revoke", key_id).returncode == 0
    assert httpx.get(f"{server.url}/v1/workspace", headers=bearer, timeout=30).status_code == 401
    code = admin(server.data_dir, "eval-code", "create", "--days", "14", "--daily", "50")
    assert code.returncode == 0 and code.stdout.startswith("EVAL-")
    assert admin(server.data_dir, "eval-code", "create", "--days", "0").returncode == 2
    assert admin(server.data_dir, "key", "revoke", "k_nope").returncode == 2


def test_admin_purge_removes_what_is_older_than_the_retention(engine, tmp_path):
    with running_app(engine, tmp_path) as a:
        old, new = a.diagnose(None)["id"], a.diagnose(None)["id"]
    _age(tmp_path / "crashdoc.db", old, 10)
    off = admin(tmp_path, "purge")
    assert off.returncode == 2 and "--days" in off.stderr
    done = admin(tmp_path, "purge", "--days", "7")
    assert done.returncode == 0 and "purged 1 diagnoses" in done.stderr
    store = Store(f"sqlite:///{tmp_path / 'crashdoc.db'}")
    with pytest.raises(NotFound):
        store.get(old)
    assert store.get(new).id == new


# ---------------------------------------------------------------- the migration


def test_the_accounts_migration_goes_down_and_up(tmp_path):
    from alembic import command
    from alembic.config import Config

    from service.store import _MIGRATIONS

    store = Store(f"sqlite:///{tmp_path / 'm.db'}")
    cfg = Config(str(_MIGRATIONS / "alembic.ini"))
    cfg.set_main_option("script_location", str(_MIGRATIONS))

    def tables() -> set[str]:
        with sqlite3.connect(tmp_path / "m.db") as db:
            return {r[0] for r in db.execute("select name from sqlite_master where type = 'table'")}

    assert {"workspaces", "api_keys", "usage_daily", "eval_codes"} <= tables()
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0001")
    assert not {"workspaces", "api_keys", "usage_daily", "eval_codes"} & tables() and "diagnoses" in tables()
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    assert Accounts(store).create_workspace("after-migration").plan == "free"
