"""The encyclopedia's cards render their markdown and keep a fix whole; the home page offers an example and
says which files to bring."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.pipeline import Engine
from service.web import encyclopedia as enc
from tests.conftest import EXAMPLES, REPO


@pytest.fixture(scope="module")
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(engine.settings, engine)) as c:
        yield c


def _text(html: str) -> str:
    """The page's text outside code elements, as a reader sees it."""
    html = re.sub(r"<code>.*?</code>|<pre>.*?</pre>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize("path", ["/kb", "/kb/library/pytorch", "/kb/library/cuda", "/kb/category/environment",
                                  "/kb/category/cuda", "/kb/category/distributed"])
def test_cards_render_their_markdown(client: TestClient, path: str):
    html = client.get(path).text
    assert "`" not in _text(html), "raw markdown backticks on a card"
    assert not re.search(r"\*\*[^*\s][^*]*\*\*", _text(html)), "raw markdown bold on a card"  # ("*** JOB" is a log's own text)


def test_no_first_fix_on_a_card_ends_at_a_colon(engine: Engine):
    cut = [e.id for e in engine.kb.entries.values() if enc.first_fix(e).rstrip().endswith(":")]
    assert cut == []
    fix = enc.first_fix(engine.kb.get("cuda-not-available"))
    assert fix.startswith("**CPU-only build**") and "```" in fix and "--index-url https://download.pytorch.org/whl/" in fix


def test_the_kb_groups_are_collapsible(client: TestClient):
    html = client.get("/kb").text
    assert html.count('<details class="kb-group" data-group open>') >= 5


def test_home_offers_an_example_and_says_which_files_to_bring(client: TestClient):
    home = client.get("/").text
    assert 'href="/example"' in home and 'id="bring"' in home and "--log-dir DIR --tee 3" in unescape(home)
    page = client.get("/example")
    assert page.status_code == 200
    assert "FusedAdam" in unescape(page.text) and "Traceback (most recent call last)" in page.text


def test_the_packaged_example_is_the_repository_example():
    assert (REPO / "service" / "web" / "examples" / "fusedadam-h100.log").read_bytes() == (EXAMPLES / "fusedadam-h100.log").read_bytes()
