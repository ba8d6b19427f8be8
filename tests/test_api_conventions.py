"""The API conventions a bot expects, each against the real app on a loopback port with a real SQLite database:
Idempotency-Key (replayed, spent once, 422 on other content, scoped per caller, shared by replicas on one
database, expiring), Location on 201, 415 for a Content-Type a route does not read, the RateLimit-* headers,
Accept: text/markdown with q-values and 406, readable operation ids and typed answers in OpenAPI."""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from service.api.negotiate import choose
from service.errors import InFlight, KeyReused, NotAcceptable
from service.store import Store
from service.store.idempotency import IdempotencyKeys, Saved
from tests.test_accounts import OOM_LOG, TEXT, LocalApp, admin, running_app

NCCL_LOG = b"""\
[rank1]:[E ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4811, \
OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600042 milliseconds before timing out.
"""


@pytest.fixture(scope="module")
def app(engine, tmp_path_factory) -> Iterator[LocalApp]:
    """The free plan at 3 diagnoses and 2 questions a day; anonymous callers 2 diagnoses a day."""
    with running_app(engine, tmp_path_factory.mktemp("conventions"), plan_free_daily=3, plan_free_questions_daily=2,
                     anonymous_daily=2) as a:
        yield a


def post(c: httpx.Client, body: bytes = OOM_LOG, key: str | None = None, **headers: str) -> httpx.Response:
    h = {**TEXT, **headers}
    if key is not None:
        h["Idempotency-Key"] = key
    return c.post("/v1/diagnoses", content=body, headers=h)


def stored_diagnoses(a: LocalApp) -> int:
    with sqlite3.connect(a.settings.data_dir / "crashdoc.db") as db:
        return int(db.execute("select count(*) from diagnoses").fetchone()[0])


# ---------------------------------------------------------------- Idempotency-Key


def test_the_same_key_and_body_answer_the_first_diagnosis_again_and_spend_once(app):
    key = app.new_key("idem-same")
    idem = str(uuid.uuid4())
    with app.client(key) as c:
        first = post(c, key=idem)
        before = stored_diagnoses(app)
        again = post(c, key=idem)
        used = c.get("/v1/workspace").json()["used_today"]
    assert first.status_code == again.status_code == 201, again.text
    assert again.json()["id"] == first.json()["id"] and again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    assert again.headers["Location"] == first.headers["Location"]
    assert stored_diagnoses(app) == before
    assert used == {"diagnoses": 1, "questions": 0}


def test_the_same_key_with_another_body_is_a_422_and_spends_nothing(app):
    key = app.new_key("idem-other")
    idem = str(uuid.uuid4())
    with app.client(key) as c:
        assert post(c, key=idem).status_code == 201
        other = post(c, NCCL_LOG, key=idem)
        used = c.get("/v1/workspace").json()["used_today"]
    assert other.status_code == 422, other.text
    assert other.json()["error"]["code"] == "idempotency_key_reused"
    assert used["diagnoses"] == 1


def test_a_multipart_retry_with_a_new_boundary_is_the_same_request(app):
    idem = str(uuid.uuid4())
    files = [("files", ("rank_0.log", OOM_LOG)), ("files", ("rank_1.log", NCCL_LOG))]
    key = app.new_key("idem-multipart")
    with app.client(key) as c:
        first = c.post("/v1/diagnoses", files=files, headers={"Idempotency-Key": idem})
        again = c.post("/v1/diagnoses", files=files, headers={"Idempotency-Key": idem})  # httpx draws a new boundary
    assert first.status_code == again.status_code == 201
    assert first.request.headers["content-type"] != again.request.headers["content-type"]
    assert again.json()["id"] == first.json()["id"]


def test_keys_are_scoped_to_the_caller(app):
    idem = str(uuid.uuid4())
    with app.client(app.new_key("scope-a")) as a, app.client(app.new_key("scope-b")) as b:
        da, db_ = post(a, key=idem), post(b, key=idem)
        other_body = post(b, NCCL_LOG, key=str(uuid.uuid4()))
        assert a.get(f"/v1/diagnoses/{db_.json()['id']}").status_code == 404
    assert da.status_code == db_.status_code == other_body.status_code == 201
    assert da.json()["id"] != db_.json()["id"]
    assert "Idempotent-Replayed" not in db_.headers


def test_a_question_with_a_key_is_answered_and_counted_once(app):
    key = app.new_key("idem-question")
    idem = str(uuid.uuid4())
    with app.client(key) as c:
        d = post(c).json()
        first = c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"}, headers={"Idempotency-Key": idem})
        again = c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"}, headers={"Idempotency-Key": idem})
        other = c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "how?"}, headers={"Idempotency-Key": idem})
        conversation = c.get(f"/v1/diagnoses/{d['id']}/messages").json()["messages"]
        used = c.get("/v1/workspace").json()["used_today"]
    assert first.status_code == again.status_code == 201 and other.status_code == 422
    assert again.json() == first.json() and again.headers["Idempotent-Replayed"] == "true"
    assert len(conversation) == 2 and used["questions"] == 1


def test_concurrent_requests_with_one_key_make_one_diagnosis(app):
    key = app.new_key("idem-race")
    idem = str(uuid.uuid4())
    before = stored_diagnoses(app)
    with app.client(key) as c, ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: post(c, key=idem), range(4)))
        used = c.get("/v1/workspace").json()["used_today"]
    made = [r for r in answers if r.status_code == 201]
    assert {r.status_code for r in answers} <= {201, 409}, [r.text for r in answers]
    assert made and len({r.json()["id"] for r in made}) == 1
    for r in answers:
        if r.status_code == 409:
            assert r.json()["error"]["code"] == "idempotency_in_flight" and int(r.headers["Retry-After"]) >= 1
    assert stored_diagnoses(app) == before + 1 and used["diagnoses"] == 1


def test_a_failed_request_frees_its_key(app):
    key = app.new_key("idem-fail")
    idem = str(uuid.uuid4())
    with app.client(key) as c:
        for _ in range(3):
            assert post(c).status_code == 201
        spent = post(c, NCCL_LOG, key=idem)  # the allowance is spent: 429, the key is not kept
        assert spent.status_code == 429
        app.accounts.set_plan(app.accounts.workspace("idem-fail").id, "scale")
        retried = post(c, NCCL_LOG, key=idem)
    assert retried.status_code == 201 and "Idempotent-Replayed" not in retried.headers


def test_replicas_on_one_database_share_the_keys(engine, app):
    """A second app process on the same database (another replica) answers the retry with the first's answer."""
    key = app.new_key("idem-replica")
    idem = str(uuid.uuid4())
    with running_app(engine, app.settings.data_dir, plan_free_daily=3) as replica:
        with app.client(key) as c:
            first = post(c, key=idem)
        with replica.client(key) as c:
            again = post(c, key=idem)
            other = post(c, NCCL_LOG, key=idem)
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"] and again.headers["Idempotent-Replayed"] == "true"
    assert other.status_code == 422


def test_keys_live_in_the_database_and_expire(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'k.db'}")
    keys = IdempotencyKeys(store, ttl=timedelta(hours=24), pending_ttl=timedelta(minutes=15))
    t0 = datetime(2026, 12, 1, 12, tzinfo=UTC)
    assert keys.claim("ws_a", "k1", "print-1", t0) is None
    with pytest.raises(InFlight):
        keys.claim("ws_a", "k1", "print-1", t0 + timedelta(minutes=1))
    assert keys.claim("ws_b", "k1", "print-1", t0) is None  # another caller's key of the same name
    keys.finish("ws_a", "k1", Saved(201, '{"id": "d_1"}'), "d_1", t0)
    assert keys.claim("ws_a", "k1", "print-1", t0 + timedelta(hours=23)) == Saved(201, '{"id": "d_1"}')
    with pytest.raises(KeyReused):
        keys.claim("ws_a", "k1", "print-2", t0 + timedelta(hours=23))
    assert keys.claim("ws_a", "k1", "print-2", t0 + timedelta(hours=25)) is None  # expired: a new request
    # a pending key whose request died (its replica was killed) can be taken over after pending_ttl
    assert keys.claim("ws_c", "k2", "p", t0) is None
    assert keys.claim("ws_c", "k2", "p", t0 + timedelta(minutes=16)) is None
    with sqlite3.connect(tmp_path / "k.db") as db:
        rows = db.execute("select scope, key_hash from idempotency_keys").fetchall()
    assert ("ws_a", "k1") not in rows and all(len(h) == 64 for _, h in rows)  # the key itself is not stored
    assert keys.purge(t0 + timedelta(days=3)) == len(rows)


@pytest.mark.parametrize("bad", [b"", "ключ".encode(), b"a\tb"])
def test_a_malformed_key_is_a_400(app, bad):
    with app.client(app.new_key(f"idem-bad-{bad.hex()}")) as c:
        r = c.post("/v1/diagnoses", content=OOM_LOG, headers={"Content-Type": "text/plain", "Idempotency-Key": bad})
    assert r.status_code == 400, r.text


# ---------------------------------------------------------------- Location, 415


def test_201_carries_the_location_of_what_it_made(app):
    with app.client(app.new_key("location")) as c:
        r = post(c)
        got = c.get(r.headers["Location"])
        asked = c.post(f"{r.headers['Location']}/messages", json={"question": "why?"})
        conversation = c.get(asked.headers["Location"])
    assert r.status_code == 201 and r.headers["Location"] == f"/v1/diagnoses/{r.json()['id']}"
    assert got.status_code == 200 and got.json()["id"] == r.json()["id"]
    assert asked.status_code == 201 and conversation.json()["messages"][-1] == asked.json()["answer"]


@pytest.mark.parametrize(("path", "ctype", "body"), [
    ("/v1/diagnoses", "application/pdf", b"%PDF-1.7"),
    ("/v1/diagnoses", "application/json", b'{"log": "x"}'),
    ("/v1/diagnoses", "image/png", b"\x89PNG"),
    ("/v1/diagnoses/{id}/messages", "text/plain", b"why?"),
    ("/v1/diagnoses/{id}/messages", "application/x-www-form-urlencoded", b"question=why"),
    ("/v1/diagnoses/{id}/messages/stream", "text/plain", b"why?"),
    ("/v1/workspace/redeem", "text/plain", b"EVAL-AAAA-BBBB-CCCC-DDDD"),
])
def test_an_unsupported_content_type_is_a_415_not_a_400(app, path, ctype, body):
    key = app.new_key(f"ctype-{abs(hash((path, ctype)))}", plan="scale")
    with app.client(key) as c:
        d = post(c).json()
        r = c.post(path.format(id=d["id"]), content=body, headers={"Content-Type": ctype})
        used = c.get("/v1/workspace").json()["used_today"]
    assert r.status_code == 415, r.text
    message = r.json()["error"]["message"].lower()
    assert r.json()["error"]["code"] == "unsupported_media_type" and ("content-type" in message or "content type" in message)
    assert used == {"diagnoses": 1, "questions": 0}


def test_json_with_a_charset_or_a_json_suffix_is_read(app):
    with app.client(app.new_key("json-suffix")) as c:
        d = post(c).json()
        for ctype in ("application/json; charset=utf-8", "application/merge-patch+json"):
            r = c.post(f"/v1/diagnoses/{d['id']}/messages", content=b'{"question": "why?"}', headers={"Content-Type": ctype})
            assert r.status_code == 201, (ctype, r.text)


# ---------------------------------------------------------------- RateLimit-*


def _midnight_in() -> float:
    now = datetime.now(UTC)
    return (datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC) - now).total_seconds()


def test_rate_limit_headers_count_down_the_daily_allowance(app):
    key = app.new_key("ratelimit")
    with app.client(key) as c:
        answers = [post(c) for _ in range(4)]
        d = answers[0].json()
        questions = [c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"}) for _ in range(3)]
        plain = c.get(f"/v1/diagnoses/{d['id']}")
    assert [r.status_code for r in answers] == [201, 201, 201, 429]
    assert [r.headers["RateLimit-Limit"] for r in answers] == ["3"] * 4
    assert [r.headers["RateLimit-Remaining"] for r in answers] == ["2", "1", "0", "0"]
    for r in answers:
        assert 0 < int(r.headers["RateLimit-Reset"]) <= _midnight_in() + 5
        assert r.headers["RateLimit-Policy"] == "3;w=86400"
    assert abs(int(answers[3].headers["Retry-After"]) - int(answers[3].headers["RateLimit-Reset"])) <= 2
    assert [r.headers["RateLimit-Remaining"] for r in questions] == ["1", "0", "0"]
    assert [r.headers["RateLimit-Limit"] for r in questions] == ["2"] * 3
    assert "RateLimit-Limit" not in plain.headers  # reading counts nothing


def test_a_failed_request_gives_its_use_back_in_the_headers(app):
    key = app.new_key("ratelimit-refund")
    with app.client(key) as c:
        assert post(c).headers["RateLimit-Remaining"] == "2"
        empty = post(c, b"   \n\n")
        after = post(c)
    assert empty.status_code == 422 and empty.headers["RateLimit-Remaining"] == "2"
    assert after.headers["RateLimit-Remaining"] == "1"


def test_anonymous_callers_see_their_own_limit(app):
    r = httpx.post(f"{app.url}/v1/diagnoses", content=OOM_LOG, headers=TEXT, timeout=120)
    assert r.headers["RateLimit-Limit"] == "2"


# ---------------------------------------------------------------- Accept: text/markdown


@pytest.mark.parametrize(("accept", "chosen"), [
    (None, "application/json"),
    ("", "application/json"),
    ("application/json", "application/json"),
    ("text/markdown", "text/markdown"),
    ("*/*", "application/json"),
    ("text/*", "text/markdown"),
    ("text/markdown;q=0.9, application/json;q=0.5", "text/markdown"),
    ("application/json;q=0.5, text/markdown;q=0.9", "text/markdown"),
    ("text/markdown, application/json", "application/json"),  # a tie: the route's own order
    ("application/json;q=0, */*", "text/markdown"),  # q=0 refuses JSON, */* allows the rest
    ("text/*;q=0.2, text/markdown;q=0.8, */*;q=0.1", "text/markdown"),
    ("text/markdown;q=0.1, */*;q=0.5", "application/json"),  # the specific range decides markdown's quality
    ("TEXT/Markdown", "text/markdown"),
    ("text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8", "application/json"),  # a browser
    ("text/markdown; charset=utf-8; q=0.7", "text/markdown"),
    ("nonsense, text/markdown", "text/markdown"),  # a malformed range is skipped
    ("application/json;q=abc, text/markdown;q=0.1", "text/markdown"),  # a malformed q: that range is skipped
])
def test_content_negotiation_follows_the_q_values(accept, chosen):
    assert choose(accept) == chosen


@pytest.mark.parametrize("accept", ["text/html", "image/png", "*/*;q=0", "application/json;q=0, text/markdown;q=0",
                                    "text/*, application/json;q=0, text/markdown;q=0"])
def test_nothing_acceptable_is_refused(accept):
    with pytest.raises(NotAcceptable):
        choose(accept)


def test_accept_text_markdown_answers_the_pr_comment(app):
    key = app.new_key("markdown", plan="scale")
    with app.client(key) as c:
        made = post(c, Accept="text/markdown")
        d_id = made.headers["Location"].rsplit("/", 1)[1]
        as_json = c.get(f"/v1/diagnoses/{d_id}").json()
        md = c.get(f"/v1/diagnoses/{d_id}", headers={"Accept": "text/markdown;q=1, application/json;q=0.5"})
        refused = c.get(f"/v1/diagnoses/{d_id}", headers={"Accept": "text/html"})
        refused_post = post(c, Accept="image/png")
        used = c.get("/v1/workspace").json()["used_today"]
    assert made.status_code == 201 and made.headers["content-type"].startswith("text/markdown")
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert "Accept" in md.headers["Vary"]
    assert made.text == md.text and as_json["id"] in md.text and as_json["entry_id"] in md.text
    assert as_json["url"] and f"]({as_json['url']})" in md.text  # the link a teammate can open
    assert not md.text.lstrip().startswith("{")
    assert refused.status_code == refused_post.status_code == 406
    assert refused.json()["error"]["code"] == "not_acceptable" and "text/markdown" in refused.json()["error"]["message"]
    assert used["diagnoses"] == 1  # the refused POST was turned away before any work


# ---------------------------------------------------------------- OpenAPI


@pytest.fixture(scope="module")
def openapi(app) -> dict:
    return httpx.get(f"{app.url}/openapi.json", timeout=30).json()  # type: ignore[no-any-return]


def _operations(doc: dict) -> list[tuple[str, str, dict]]:
    return [(method, path, op) for path, item in doc["paths"].items() for method, op in item.items()
            if method in ("get", "post", "put", "patch", "delete")]


def test_operation_ids_are_readable_and_unique(openapi):
    ops = _operations(openapi)
    ids = [op["operationId"] for _, _, op in ops]
    assert len(ids) == len(set(ids))
    for method, path, op in ops:
        assert re.fullmatch(r"[a-z]+(?:[A-Z][a-z0-9]*)*", op["operationId"]), (method, path, op["operationId"])
        assert "v1" not in op["operationId"] and method not in op["operationId"].lower()[-6:], op["operationId"]
    named = {(m, p): op["operationId"] for m, p, op in ops}
    assert named[("post", "/v1/diagnoses")] == "createDiagnosis"
    assert named[("get", "/v1/diagnoses/{diagnosis_id}")] == "getDiagnosis"


def test_every_json_answer_has_a_typed_schema(openapi):
    for method, path, op in _operations(openapi):
        if path.startswith("/slack/"):  # Slack's webhooks answer Slack's own message format, documented by Slack
            continue
        for status, response in op["responses"].items():
            if not status.startswith("2"):
                continue
            schema = response.get("content", {}).get("application/json", {}).get("schema")
            if schema is None:  # 204, server-sent events, Slack's answers
                continue
            assert "$ref" in schema, f"{method.upper()} {path} {status} answers an untyped {schema}"


def test_the_conventions_are_in_the_document(openapi):
    create = openapi["paths"]["/v1/diagnoses"]["post"]
    assert "Location" in create["responses"]["201"]["headers"]
    assert "text/markdown" in create["responses"]["201"]["content"]
    assert {"406", "409", "415", "422", "429"} <= set(create["responses"])
    assert any(p["name"] == "Idempotency-Key" and p["in"] == "header" for p in create["parameters"])
    get = openapi["paths"]["/v1/diagnoses/{diagnosis_id}"]["get"]
    assert "text/markdown" in get["responses"]["200"]["content"]


def test_admin_purge_removes_the_expired_keys(tmp_path):
    keys = IdempotencyKeys(Store(f"sqlite:///{tmp_path / 'crashdoc.db'}"))
    long_ago = datetime.now(UTC) - timedelta(days=3)
    keys.claim("ws_old", "expired", "p", long_ago)
    keys.claim("ws_new", "fresh", "p")
    done = admin(tmp_path, "purge", "--days", "7")
    assert done.returncode == 0 and "and 1 expired idempotency keys" in done.stderr
    with sqlite3.connect(tmp_path / "crashdoc.db") as db:
        assert db.execute("select scope from idempotency_keys").fetchall() == [("ws_new",)]
