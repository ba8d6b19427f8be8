"""Idempotency keys and share links on PostgreSQL, as replicas use them: two stores (two replicas' pools) on one
real server race for one key, and a link signed by one opens on the other (conftest's pg_url)."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from service.errors import Gone, InFlight, NotFound
from service.store import Store
from service.store.idempotency import IdempotencyKeys, Saved
from service.store.shares import ShareLinks
from tests.test_accounts import OOM_LOG, TEXT, running_app


@pytest.fixture(scope="module")
def replicas(pg_url: str) -> tuple[Store, Store]:
    return Store(pg_url), Store(pg_url)


def test_one_key_is_claimed_once_across_replicas(replicas):
    a, b = (IdempotencyKeys(s) for s in replicas)
    key = str(uuid.uuid4())

    def claim(keys: IdempotencyKeys) -> str:
        try:
            return "mine" if keys.claim("ws_pg", key, "print") is None else "replayed"
        except InFlight:
            return "in flight"

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(claim, [a, b] * 16))
    assert results.count("mine") == 1 and set(results) == {"mine", "in flight"}
    a.finish("ws_pg", key, Saved(201, '{"id": "d_pg"}'), None)
    assert b.claim("ws_pg", key, "print") == Saved(201, '{"id": "d_pg"}')


def test_share_links_agree_across_replicas_with_the_databases_secret(engine, pg_url, tmp_path):
    with running_app(engine, tmp_path / "one", database_url=pg_url) as one:
        d = one.diagnose(one.new_key("pg-share"))
        with running_app(engine, tmp_path / "two", database_url=pg_url) as two:
            assert httpx.get(d["url"].replace(one.url, two.url), timeout=60).status_code == 200
            again = httpx.post(f"{two.url}/v1/diagnoses", content=OOM_LOG, timeout=60,
                               headers={**TEXT, "Idempotency-Key": "k-pg"})
            replay = httpx.post(f"{one.url}/v1/diagnoses", content=OOM_LOG, timeout=60,
                                headers={**TEXT, "Idempotency-Key": "k-pg"})
    assert again.status_code == replay.status_code == 201 and replay.json()["id"] == again.json()["id"]
    links = ShareLinks(Store(pg_url))
    links.revoke(d["id"])
    with pytest.raises(Gone):
        links.open(d["url"].rsplit("/", 1)[1])
    with pytest.raises(NotFound):
        links.open(d["id"] + ".forged")
