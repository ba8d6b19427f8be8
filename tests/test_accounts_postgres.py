"""The accounts on PostgreSQL: the migrations, the atomic counters (INSERT ... ON CONFLICT DO UPDATE ...
WHERE), single-use codes and workspace isolation, on a real server (conftest's pg_url: TEST_POSTGRES_URL's, or
a throwaway one on loopback). Skipped where neither is possible, never in CI."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from service.errors import BadRequest
from service.store import Store
from service.store.accounts import Accounts
from tests.test_accounts import OOM_LOG, TEXT, running_app


@pytest.fixture(scope="module")
def accounts(pg_url: str) -> Accounts:
    return Accounts(Store(pg_url))  # runs the migrations on the empty database


def test_counting_is_atomic_under_concurrency(accounts):
    day = datetime.now(UTC).date()
    with ThreadPoolExecutor(32) as pool:
        results = list(pool.map(lambda _: accounts.consume("pg-race", "diagnosis", 10, day), range(64)))
    assert sorted(r for r in results if r is not None) == list(range(1, 11))
    accounts.refund("pg-race", "diagnosis", day)
    assert accounts.usage("pg-race", day)["diagnosis"] == 9
    assert accounts.consume("pg-race", "question", None, day) == 1  # no limit: always counted
    assert accounts.purge_usage(day + timedelta(days=1)) >= 2


def test_a_code_is_single_use_under_a_race(accounts):
    _, code = accounts.create_eval_code(days=3, daily=9)
    spaces = [accounts.create_workspace(f"pg-racer-{i}") for i in range(8)]

    def redeem(ws_id: str) -> str:
        try:
            accounts.redeem(ws_id, code)
            return "won"
        except BadRequest:
            return "lost"

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(redeem, [w.id for w in spaces])) == ["lost"] * 7 + ["won"]


def test_keys_and_names_on_postgres(accounts):
    ws = accounts.create_workspace("pg-keys", "scale")
    record, key = accounts.create_key("pg-keys", "bot")
    assert accounts.authenticate(key) == ws
    with pytest.raises(BadRequest):
        accounts.create_workspace("pg-keys")
    accounts.revoke_key(record.id)
    assert accounts.authenticate(key) is None


def test_the_api_on_postgres_keeps_workspaces_apart_and_counts(engine, pg_url, tmp_path):
    with running_app(engine, tmp_path, database_url=pg_url, plan_free_daily=2) as a:
        alice, bob = a.new_key("pg-alice"), a.new_key("pg-bob")
        d = a.diagnose(alice)
        with a.client(bob) as c:
            assert c.get(f"/v1/diagnoses/{d['id']}").status_code == 404
            assert c.delete(f"/v1/diagnoses/{d['id']}").status_code == 404
            assert c.get("/v1/diagnoses").json()["total"] == 0
        with a.client(alice) as c:
            assert c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"}).status_code == 201
            assert [i["id"] for i in c.get("/v1/diagnoses").json()["items"]] == [d["id"]]
            assert c.post("/v1/diagnoses", content=OOM_LOG, headers=TEXT).status_code == 201
            spent = c.post("/v1/diagnoses", content=OOM_LOG, headers=TEXT)
            assert spent.status_code == 429 and int(spent.headers["Retry-After"]) > 0
            assert c.delete(f"/v1/diagnoses/{d['id']}").status_code == 204
            assert c.get(f"/v1/diagnoses/{d['id']}/messages").status_code == 404
        assert httpx.get(f"{a.url}/healthz").status_code == 200
