"""Share links: the ``url`` of a diagnosis made with a workspace's key opens, read-only, for a teammate without
the key; a tampered token, a revoked link and a deleted diagnosis do not; replicas on one database agree.
Against the real app on a loopback port with a real SQLite database."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import httpx
import pytest
from pydantic import SecretStr

from tests.test_accounts import LocalApp, running_app


@pytest.fixture(scope="module")
def app(engine, tmp_path_factory) -> Iterator[LocalApp]:
    with running_app(engine, tmp_path_factory.mktemp("shares"), plan_free_daily=50, allow_anonymous=False) as a:
        yield a


def made(app: LocalApp, name: str) -> tuple[str, dict]:
    key = app.new_key(name)
    return key, app.diagnose(key)


def teammate(url: str) -> httpx.Response:
    """A browser without the API key."""
    return httpx.get(url, timeout=60, follow_redirects=False)


def test_a_teammate_opens_the_url_without_the_key(app):
    key, d = made(app, "share-open")
    assert d["url"].startswith(f"{app.url}/s/{d['id']}.")
    page = teammate(d["url"])
    assert page.status_code == 200, page.text[:500]
    assert d["title"] in page.text and d["id"] in page.text
    assert page.headers["Cache-Control"] == "no-store" and page.headers["X-Robots-Tag"] == "noindex"
    assert 'id="ask-form"' not in page.text and 'id="shared-note"' in page.text  # read-only
    assert teammate(f"{app.url}/d/{d['id']}").status_code == 404  # the plain page still needs the workspace
    assert httpx.get(f"{app.url}/v1/diagnoses/{d['id']}").status_code == 401  # and so does the API
    with app.client(key) as c:
        assert c.get(f"/v1/diagnoses/{d['id']}").json()["url"] == d["url"]  # the same link every time


def test_the_token_is_unguessable_and_names_nothing_but_the_id(app):
    _, d = made(app, "share-shape")
    token = d["url"].rsplit("/", 1)[1]
    diagnosis_id, signature = token.split(".")
    assert diagnosis_id == d["id"] and len(signature) >= 43  # 256 bits, base64url


@pytest.mark.parametrize("tamper", [
    lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),  # one character of the signature
    lambda t: t.split(".")[0] + "." + "A" * 43,  # a made-up signature
    lambda t: t.split(".")[0],  # no signature
    lambda t: t.split(".")[0] + ".",
    lambda t: "d_doesnotexist." + t.split(".")[1],  # the signature of another diagnosis
    lambda t: t + "x" * 300,
])
def test_a_tampered_token_is_a_404(app, tamper):
    _, d = made(app, f"share-tamper-{id(tamper)}")
    base, token = d["url"].rsplit("/", 1)
    r = teammate(f"{base}/{tamper(token)}")
    assert r.status_code == 404 and d["title"] not in r.text


def test_one_diagnosis_signature_does_not_open_another(app):
    _, a = made(app, "share-swap-a")
    _, b = made(app, "share-swap-b")
    sig_a = a["url"].rsplit(".", 1)[1]
    r = teammate(f"{app.url}/s/{b['id']}.{sig_a}")
    assert r.status_code == 404 and b["title"] not in r.text


def test_a_revoked_link_is_a_410_until_a_new_one_is_made(app):
    key, d = made(app, "share-revoke")
    with app.client(key) as c:
        assert c.delete(f"/v1/diagnoses/{d['id']}/share").status_code == 204
        after = c.get(f"/v1/diagnoses/{d['id']}").json()
        gone = teammate(d["url"])
        renewed = c.post(f"/v1/diagnoses/{d['id']}/share")
    assert gone.status_code == 410 and d["title"] not in gone.text and "revoked" in gone.text
    assert after["url"] is None  # no link to hand out while revoked
    assert renewed.status_code == 200 and renewed.json()["url"] != d["url"]
    assert teammate(renewed.json()["url"]).status_code == 200
    assert teammate(d["url"]).status_code == 404  # the earlier link stays dead


def test_a_new_link_retires_the_old_one(app):
    key, d = made(app, "share-rotate")
    with app.client(key) as c:
        new = c.post(f"/v1/diagnoses/{d['id']}/share").json()["url"]
    assert teammate(d["url"]).status_code == 404 and teammate(new).status_code == 200


def test_deleting_the_diagnosis_kills_its_link(app):
    key, d = made(app, "share-delete")
    assert teammate(d["url"]).status_code == 200
    with app.client(key) as c:
        assert c.delete(f"/v1/diagnoses/{d['id']}").status_code == 204
    assert teammate(d["url"]).status_code == 404
    with sqlite3.connect(app.settings.data_dir / "crashdoc.db") as db:
        assert db.execute("select count(*) from share_links where diagnosis_id = ?", (d["id"],)).fetchone() == (0,)


def test_only_the_owner_can_revoke_or_renew(app):
    _, d = made(app, "share-owner")
    other = app.new_key("share-intruder")
    with app.client(other) as c:
        assert c.delete(f"/v1/diagnoses/{d['id']}/share").status_code == 404
        assert c.post(f"/v1/diagnoses/{d['id']}/share").status_code == 404
    assert teammate(d["url"]).status_code == 200


def test_replicas_on_one_database_open_each_others_links(engine, app):
    _, d = made(app, "share-replica")
    with running_app(engine, app.settings.data_dir, allow_anonymous=False) as replica:
        r = teammate(d["url"].replace(app.url, replica.url))
    assert r.status_code == 200 and d["title"] in r.text


def test_links_are_signed_with_the_configured_secret(engine, tmp_path):
    with running_app(engine, tmp_path, share_secret=SecretStr("s3cret-one")) as one:
        d = one.diagnose(one.new_key("secret"))
        assert teammate(d["url"]).status_code == 200
    with running_app(engine, tmp_path, share_secret=SecretStr("s3cret-one")) as same:
        assert teammate(d["url"].replace(one.url, same.url)).status_code == 200
    with running_app(engine, tmp_path, share_secret=SecretStr("another")) as other:
        assert teammate(d["url"].replace(one.url, other.url)).status_code == 404


def test_public_url_is_the_links_base(engine, tmp_path):
    with running_app(engine, tmp_path, public_url="https://crashdoc.example.com/") as a:
        d = a.diagnose(a.new_key("public"))
    assert d["url"].startswith(f"https://crashdoc.example.com/s/{d['id']}.")
