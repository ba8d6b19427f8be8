"""The web pages through the app (FastAPI's TestClient): status, content, escaping, headers, the forms
without JavaScript, and the encyclopedia's tables (phases, library hubs, search)."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from retrieval.kb import SECTIONS, Affected, Entry, FrontMatter, Signals, Software, entry_paths, load_kb
from service.app import create_app
from service.pipeline import Engine
from service.settings import REPO_ROOT
from service.web import encyclopedia as enc
from service.web.markdown import render_markdown
from tests.conftest import EXAMPLES, read_bytes_elsewhere

FUSED = "deepspeed-fusedadam-illegal-memory-access"
LOG = (EXAMPLES / "fusedadam-h100.log").read_bytes()
HF_TOKEN = "hf_QmZr8tXw2LpV9kNc4YsHj7BgD1aEoUfT3i"
KB_IDS = [p.stem for p in entry_paths(REPO_ROOT / "kb")]
KB = load_kb(REPO_ROOT / "kb")


@pytest.fixture(scope="module")
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(engine.settings, engine)) as c:
        yield c


def submit(client: TestClient, text: str = "", files: list[tuple[str, bytes]] | None = None) -> Any:
    """The form as a browser sends it: multipart, with an empty file part when no file was chosen."""
    parts = [("files", (name, data, "application/octet-stream")) for name, data in files or []]
    return client.post("/", data={"log": text}, files=parts or [("files", ("", b"", "application/octet-stream"))],
                       follow_redirects=False)


@pytest.fixture(scope="module")
def fused_page(client: TestClient) -> tuple[str, str]:
    """A diagnosis made through the page's form without JavaScript: (its URL, its HTML)."""
    r = submit(client, LOG.decode())
    assert r.status_code == 303, r.text
    url = r.headers["location"]
    return url, client.get(url).text


# ---------------------------------------------------------------- the pages


PAGES = [
    # (path, status, text the page must contain)
    ("/", 200, "What happens to your log"),
    ("/kb", 200, "All entries, by category"),
    (f"/kb/{FUSED}", 200, "int32-overflow"),
    ("/kb/category/cuda", 200, "CUDA failures"),
    ("/kb/library/deepspeed", 200, "DeepSpeed failures"),
    ("/kb/library/nccl", 200, "nccl-watchdog-timeout"),
    ("/kb?q=weights_only", 200, "checkpoint-weights-only"),
    ("/kb/no-such-entry", 404, "There is no entry"),
    ("/kb/category/no-such-category", 404, "There is no category"),
    ("/kb/library/no-such-library", 404, "There is no library hub"),
    ("/d/d_doesnotexist00", 404, "There is no diagnosis"),
]


@pytest.mark.parametrize(("path", "status", "text"), PAGES, ids=[p for p, _, _ in PAGES])
def test_page_status_and_content(client, path, status, text):
    r = client.get(path)
    assert r.status_code == status
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    assert text in r.text
    assert r.text.count("<h1") == 1 and '<main id="main"' in r.text and '<html lang="en">' in r.text


@pytest.mark.parametrize("path", ["/", "/kb", f"/kb/{FUSED}", "/kb/library/deepspeed", "/d/d_doesnotexist00"])
def test_pages_carry_the_security_headers(client, path):
    h = client.get(path).headers
    assert "default-src 'self'" in h["content-security-policy"] and "script-src 'self'" in h["content-security-policy"]
    assert h["x-frame-options"] == "DENY" and h["x-content-type-options"] == "nosniff"
    assert h["referrer-policy"] == "no-referrer"


def test_pages_load_nothing_from_elsewhere_and_run_no_inline_script(client, fused_page):
    for html in [client.get("/").text, client.get("/kb").text, client.get(f"/kb/{FUSED}").text, fused_page[1]]:
        assets = re.findall(r'<(?:script|img|link|iframe)\b[^>]*\b(?:src|href)="([^"]*)"', html)
        assert assets and all(a.startswith("/") and not a.startswith("//") for a in assets), assets
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)  # CSP forbids inline scripts anyway
        assert not re.search(r"\son[a-z]+=", html)  # nor inline handlers


def test_page_routes_are_not_in_the_openapi_schema(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert not {"/", "/kb", "/kb/{entry_id}", "/d/{diagnosis_id}", "/static/{name}"} & set(paths)
    assert "/v1/diagnoses/{diagnosis_id}/messages/stream" in paths


def test_every_entry_has_a_page_with_every_section(client, engine):
    for entry_id in KB_IDS:
        html = client.get(f"/kb/{entry_id}").text
        for key, title in SECTIONS:
            assert f'<section id="{key}"' in html and f">{title}</h2>" in html, (entry_id, key)
        for anchor in ("affected", "signals"):
            assert f'id="{anchor}"' in html, (entry_id, anchor)
        for related in engine.kb.entries[entry_id].meta.related:
            assert f'href="/kb/{related}"' in html, (entry_id, related)


def test_kb_index_lists_every_entry_and_library_hub(client):
    html = client.get("/kb").text
    for entry_id in KB_IDS:
        assert f'href="/kb/{entry_id}"' in html
    assert 'href="/kb/library/deepspeed"' in html and 'href="/kb/library/nccl"' in html
    assert 'data-filter="#kb-all"' in html  # the client-side filter's hook


def test_library_hub_groups_by_phase_in_run_order(client):
    html = client.get("/kb/library/deepspeed").text
    shown = [key for key in (p.key for p in enc.PHASES) if f'id="phase-{key}"' in html]
    positions = [html.index(f'id="phase-{key}"') for key in shown]
    assert len(shown) >= 3 and positions == sorted(positions)
    start_up = html[html.index('id="phase-start-up"'):html.index('id="phase-first-step"')]
    assert "deepspeed-op-build-failure" in start_up and FUSED not in start_up
    assert FUSED in html[html.index('id="phase-first-step"'):]


# ---------------------------------------------------------------- the diagnosis page


def test_diagnosis_page_shows_the_whole_diagnosis(client, engine, fused_page):
    url, html = fused_page
    d = engine.store.get(url.rsplit("/", 1)[1])
    assert d.entry_id == FUSED
    assert f"<h1 id=\"dx-title\">{d.title}</h1>" in html
    assert f'href="/kb/{FUSED}"' in html and f"{d.confidence:.0%}" in html
    for section in ("evidence", "fix", "verify", "facts", "alternatives", "chat"):
        assert f'id="{section}"' in html
    for e in d.evidence:
        assert f"{e.file}:{e.line}" in html
    assert "illegal memory access" in html and "FusedAdam" in html
    if d.initiating_rank is not None:
        assert f"Rank {d.initiating_rank} failed first." in html
    for alt in [c for c in d.candidates if c.entry_id != d.entry_id][:4]:
        assert f'href="/kb/{alt.entry_id}"' in html
    assert html.count("<li>") >= len(d.fix) + len(d.verify)
    assert 'id="ask-form"' in html and 'action="/d/' in html and "messages/stream" in html


def test_a_log_with_no_known_failure_gets_an_honest_page(client, engine):
    r = submit(client, "epoch 1 loss 2.31\nepoch 2 loss 2.05\nsaving checkpoint to /ckpt/epoch2\n")
    d = engine.store.get(r.headers["location"].rsplit("/", 1)[1])
    assert d.entry_id is None
    html = client.get(r.headers["location"]).text
    assert "badge-low" in html and 'id="ask-form"' in html
    # no error line: the page says so, and promises no evidence it does not show
    assert not d.evidence and 'id="evidence"' not in html and 'id="decisive"' not in html
    assert "No error line" in html and "evidence and facts below" not in html and "lines below" not in html


def test_diagnosis_page_is_private(client, fused_page):
    h = client.get(fused_page[0]).headers
    assert h["cache-control"] == "no-store" and h["x-robots-tag"] == "noindex"


def test_log_text_is_escaped_not_run(client):
    hostile = LOG.decode().replace(
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "RuntimeError: CUDA error: an illegal memory access was encountered <script>alert('x')</script> <img src=x onerror=alert(1)>",
        1,
    )
    url = submit(client, hostile).headers["location"]
    html = client.get(url).text
    assert "&lt;script&gt;alert(" in html
    assert "<script>alert" not in html and "<img src=x" not in html


def test_form_without_javascript_takes_pasted_text_and_files_of_one_run(client, engine):
    r = submit(client, "", files=[("train.log.gz", gzip.compress(LOG)), ("notes.txt", b"nothing to see here\n")])
    assert r.status_code == 303 and r.headers["location"].startswith("/d/")
    d = engine.store.get(r.headers["location"].rsplit("/", 1)[1])
    assert d.entry_id == FUSED
    assert [f["name"] for f in d.files] == ["train.log.gz", "notes.txt"]


@pytest.mark.parametrize(("text", "files", "status", "message"), [
    ("   \n", [], 422, "There is nothing to diagnose."),
    ("", [("weights.bin", bytes(range(256)) * 64)], 415, ""),
], ids=["empty", "binary"])
def test_form_errors_come_back_on_the_form(client, text, files, status, message):
    r = submit(client, text, files=files)
    assert r.status_code == status
    assert 'role="alert"' in r.text and message in r.text and 'id="diagnose-form"' in r.text


def test_masking_note_names_what_is_masked(client):
    html = client.get("/").text
    note = html[html.index('id="masking"'):]
    for kind in ("hf token", "aws secret key", "password", "private key", "email", "host", "ip"):
        assert kind in note
    assert "Nothing unmasked is stored" in note


def test_pasted_secrets_never_reach_the_page_or_the_database(client, engine):
    text = LOG.decode().replace("Environment: torch", f"export HF_TOKEN={HF_TOKEN}\nEnvironment: torch", 1)
    url = submit(client, text).headers["location"]
    html = client.get(url).text + client.get(url + "/chat").text
    raw = b"".join(read_bytes_elsewhere(sorted(engine.settings.data_dir.glob("crashdoc.db*"))).values())
    assert HF_TOKEN not in html and HF_TOKEN.encode() not in raw


def test_chat_form_without_javascript_asks_and_shows_the_answer(client, engine):
    url = submit(client, LOG.decode()).headers["location"]
    r = client.post(url + "/ask", data={"question": f"How do I fix it? ({HF_TOKEN})"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == url + "#chat"
    html = client.get(url).text
    chat = html[html.index('id="messages"'):html.index('id="ask-form"')]
    assert "How do I fix it? (&lt;HF_TOKEN&gt;)" in chat and HF_TOKEN not in html
    assert "The fix, most targeted first" in chat
    assert f'href="/kb/{FUSED}#fix"' in chat  # the citation links to the entry's section
    fragment = client.get(url + "/chat").text
    assert fragment.count('class="msg ') == 2 and "<html" not in fragment


def test_chat_form_errors_come_back_on_the_page(client, fused_page):
    r = client.post(fused_page[0] + "/ask", data={"question": "  "}, follow_redirects=False)
    assert r.status_code == 400 and 'id="chat-error"' in r.text and "The question is empty." in r.text


# ---------------------------------------------------------------- static files


def test_static_assets_are_served_versioned_and_nothing_else(client):
    html = client.get("/").text
    css = re.search(r'href="(/static/style\.css\?v=[0-9a-f]+)"', html)
    assert css
    r = client.get(css.group(1))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/css")
    assert "immutable" in r.headers["cache-control"]
    assert "immutable" not in client.get("/static/style.css").headers["cache-control"]
    for path in ("/static/nope.css", "/static/..%2Froutes.py", "/static/%2e%2e/templating.py", "/static/index.html"):
        assert client.get(path).status_code == 404, path


# ---------------------------------------------------------------- the encyclopedia's tables


def _entry(tags: list[str], software: list[str], libraries: list[str] | None = None) -> Entry:
    meta = FrontMatter(
        id="x-entry", title="A test entry", category="cuda", phase="mid-run", libraries=libraries or [],
        summary="A summary long enough for the model.", tags=tags, schema_version=1, updated="2026-01-01",
        signals=Signals(messages=["boom"]), affected=Affected(software=[Software(name=n, versions="all") for n in software]),
    )
    return Entry(meta=meta, sections={}, path="x-entry.md")


SOFTWARE_ROWS = [
    # (software names, library, the rows the hub shows)
    (["deepspeed"], "deepspeed", ["deepspeed"]),
    (["custom CUDA extensions (apex, DeepSpeed ops, flash-attn)"], "deepspeed", ["custom CUDA extensions (apex, DeepSpeed ops, flash-attn)"]),
    (["torch", "torchvision / torchaudio"], "pytorch", ["torch"]),  # a word, not a prefix
    (["nccl-tests"], "nccl", []),
    (["transformers"], "deepspeed", []),
]


@pytest.mark.parametrize(("software", "key", "rows"), SOFTWARE_ROWS)
def test_a_hub_shows_the_software_rows_that_name_its_library(software, key, rows):
    lib = enc.library(key)
    assert lib is not None
    assert [s.name for s in enc.software_for(_entry([], software, [key]), lib)] == rows


def test_hub_membership_and_phase_come_from_the_front_matter():
    entry = _entry([], [], ["nccl", "cuda"])
    assert [lib.key for lib in enc.libraries_of(entry)] == ["nccl", "cuda"]  # in LIBRARIES' order
    assert enc.phase_of(entry).key == "mid-run"


@pytest.mark.parametrize("entry_id", KB_IDS)
def test_an_entry_is_on_the_hub_of_every_library_its_affected_software_names(entry_id):
    entry = KB.entries[entry_id]
    named = [lib.key for lib in enc.LIBRARIES if enc.software_for(entry, lib)]
    assert [k for k in named if k not in entry.meta.libraries] == []


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [("phase", "lunch-break", "unknown phase"), ("libraries", ["pytorch", "tensorflow"], "unknown libraries")],
)
def test_front_matter_refuses_an_unknown_phase_or_library(field, value, says):
    good = _entry([], []).meta.model_dump()
    with pytest.raises(ValueError, match=says):
        FrontMatter.model_validate({**good, field: value})


SEARCHES = [
    # (query, an entry that must be among the results, or None for no results)
    ("checkpoint-weights-only", "checkpoint-weights-only"),
    ("weights_only", "checkpoint-weights-only"),
    ("Watchdog caught collective operation timeout", "nccl-watchdog-timeout"),
    ("FusedAdam", FUSED),
    ("qqqzzz xyzzyplugh", None),
]


@pytest.mark.parametrize(("query", "expected"), SEARCHES)
def test_server_side_search(engine, query, expected):
    found = [e.id for e in enc.search(engine.kb, engine.index, query)]
    if expected is None:
        assert found == []
    else:
        assert expected in found[:3], found


def test_exact_id_comes_first(engine):
    assert enc.search(engine.kb, engine.index, "cuda-oom")[0].id == "cuda-oom"


# ---------------------------------------------------------------- markdown


MARKDOWN = [
    # (source, must appear in the HTML, must not)
    ("<script>alert(1)</script>", "&lt;script&gt;", "<script>"),
    ("[x](javascript:alert(1))", "[x](javascript:alert(1))", 'href="javascript'),
    ("[docs](https://pytorch.org/docs)", 'rel="nofollow noopener noreferrer"', None),
    ("```json\n{\"a\": \"<b>\"}\n```", '<pre><code class="language-json">{&quot;a&quot;: &quot;&lt;b&gt;&quot;}', "<b>"),
    ("# Title", "<h3>Title</h3>", "<h1>"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "<td>1</td>", None),
]


@pytest.mark.parametrize(("source", "present", "absent"), MARKDOWN, ids=["html", "js-link", "outbound", "code", "heading", "table"])
def test_markdown_is_rendered_safely(source, present, absent):
    html = str(render_markdown(source))
    assert present in html
    if absent:
        assert absent not in html


def test_entry_ids_in_code_link_to_their_pages(client):
    html = client.get(f"/kb/{FUSED}").text
    assert '<a href="/kb/cuda-no-kernel-image"><code>cuda-no-kernel-image</code></a>' in html
    assert f'<a href="/kb/{FUSED}"><code>' not in html  # not to itself



# ---------------------------------------------------------------- the rank timeline picture

MULTIRANK = REPO_ROOT / "tests" / "data" / "multirank" / "raise-tee" / "console.log"


def test_the_rank_timeline_is_drawn_on_the_page_first_failure_marked_collateral_greyed(client):
    """A real 4-rank gloo run where rank 2 raised: lanes per rank, rank 2's mark is the first failure."""
    r = submit(client, MULTIRANK.read_text())
    assert r.status_code == 303, r.text
    html = client.get(r.headers["location"]).text
    svg = re.search(r'<svg class="swimlane".*?</svg>', html, re.S)
    assert svg, "the diagnosis page has no swimlane"
    picture = svg.group(0)
    assert {f'data-rank="{r}"' for r in range(4)} <= set(re.findall(r'data-rank="\d+"', picture))
    assert re.search(r'<g class="lane initiating" data-rank="2">', picture)
    firsts = re.findall(r'<circle class="ev first"[^>]*><title>([^<]*)</title>', picture)
    assert len(firsts) == 1 and firsts[0].startswith("rank 2, first failure") and "ValueError" in firsts[0]
    assert re.findall(r'<circle class="ev collateral"', picture), "the other ranks' errors are drawn as collateral"


def test_the_timeline_picture_escapes_the_log_text(client):
    lines = ["[rank0]: step 1", "[rank1]: step 1",
             "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered <script>alert(1)</script>",
             "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:4242"]
    r = submit(client, "\n".join(lines))
    html = client.get(r.headers["location"]).text
    picture = re.search(r'<svg class="swimlane".*?</svg>', html, re.S)
    assert picture and "<script>" not in picture.group(0) and "&lt;script&gt;" in picture.group(0)


def test_the_timeline_data_is_in_the_json(client):
    r = client.post("/v1/diagnoses", content=MULTIRANK.read_bytes(), headers={"Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    timeline = r.json()["timeline"]
    assert [e["order"] for e in timeline] == sorted(e["order"] for e in timeline)
    first = [e for e in timeline if e["first"]]
    assert len(first) == 1 and first[0]["rank"] == 2 and not first[0]["collateral"]
    assert {e["rank"] for e in timeline if e["collateral"]} >= {0, 1, 3}


def test_a_single_process_log_has_no_timeline_picture(client):
    r = submit(client, "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nValueError: bad label 7\n")
    html = client.get(r.headers["location"]).text
    assert "ValueError" in html and 'class="swimlane"' not in html
