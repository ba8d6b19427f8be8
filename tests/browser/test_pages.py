"""The pages end to end in real headless Chromium against a real server: paste a log, read the diagnosis,
ask a question and see the streamed answer, open the encyclopedia; the same without JavaScript; on a
phone-sized screen; and the accessibility basics (names, landmarks, keyboard, contrast in both themes).
Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn

from service.app import create_app
from service.pipeline import Engine
from tests.browser.conftest import needs_chromium
from tests.conftest import EXAMPLES, REPO, free_port
from tests.fake_llm import FakeLLMServer, Script

pytestmark = [pytest.mark.browser, needs_chromium]

FUSED = "deepspeed-fusedadam-illegal-memory-access"
FUSED_TITLE = "Fused Adam (DeepSpeed/apex/torch fused) illegal memory access"
LOG_PATH = EXAMPLES / "fusedadam-h100.log"
LOG = LOG_PATH.read_text(encoding="utf-8")
WAIT = 60


def by(css: str) -> tuple[str, str]:
    return ("css selector", css)


def wait(driver: Any, condition: Any, timeout: float = WAIT) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def paste_and_diagnose(driver: Any, base: str, text: str = LOG) -> str:
    """Paste (the way a clipboard does: the whole text at once) and submit; returns the diagnosis id."""
    driver.get(base + "/")
    box = driver.find_element(*by("#log"))
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", box, text)
    driver.find_element(*by("#submit")).click()
    wait(driver, lambda d: "/d/" in d.current_url)
    wait(driver, lambda d: d.find_elements(*by("#dx-title")))
    return str(driver.current_url.rsplit("/", 1)[1].split("#")[0])


def ask(driver: Any, question: str, answers_before: int) -> Any:
    from selenium.webdriver.common.keys import Keys

    field = driver.find_element(*by("#question"))
    field.clear()
    field.send_keys(question)
    field.send_keys(Keys.ENTER)  # Enter sends
    wait(driver, lambda d: len(d.find_elements(*by(".msg-assistant:not([aria-busy])"))) > answers_before)
    return driver.find_elements(*by(".msg-assistant"))[-1]


# ---------------------------------------------------------------- the main path


@pytest.fixture(scope="module")
def diagnosis_id(browser, server, screenshot) -> str:
    browser.get(server.url + "/")
    screenshot(browser, "home")
    return paste_and_diagnose(browser, server.url)


def test_paste_a_log_and_read_the_diagnosis(browser, server, diagnosis_id, screenshot):
    assert browser.find_element(*by("#dx-title")).text == FUSED_TITLE
    evidence = browser.find_element(*by("#evidence")).text
    assert "illegal memory access" in evidence
    assert browser.find_element(*by(".confidence-value")).text.endswith("%")
    fix_steps = browser.find_elements(*by("#fix ol.steps > li"))
    assert len(fix_steps) >= 3 and "FusedAdam" in browser.find_element(*by("#fix")).text
    assert browser.find_elements(*by("#verify li")) and browser.find_elements(*by("#facts tbody tr"))
    alternatives = browser.find_elements(*by("#alternatives li a"))
    assert alternatives and all("/kb/" in a.get_attribute("href") for a in alternatives)
    stored = httpx.get(f"{server.url}/v1/diagnoses/{diagnosis_id}", timeout=10).json()
    assert stored["entry_id"] == FUSED
    screenshot(browser, "diagnosis")


def test_ask_a_question_and_see_the_answer(browser, server, diagnosis_id, screenshot):
    browser.get(f"{server.url}/d/{diagnosis_id}")
    answer = ask(browser, "How do I fix it?", answers_before=0)
    assert "The fix, most targeted first" in answer.text
    cites = [a.get_attribute("href") for a in answer.find_elements(*by(".cites a"))]
    assert any(h.endswith(f"/kb/{FUSED}#fix") for h in cites)
    assert browser.find_elements(*by(".msg-user"))[-1].text.endswith("How do I fix it?")
    second = ask(browser, "Could it be something else?", answers_before=1)
    assert "candidates" in second.text.lower() or "no other entry" in second.text.lower()
    browser.execute_script("document.getElementById('chat').scrollIntoView()")
    screenshot(browser, "diagnosis-chat")
    browser.refresh()  # the conversation is stored, and rendered by the server
    wait(browser, lambda d: len(d.find_elements(*by(".msg"))) == 4)
    history = httpx.get(f"{server.url}/v1/diagnoses/{diagnosis_id}/messages", timeout=10).json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]


def test_a_suggested_question_is_one_click(browser, server, diagnosis_id):
    browser.get(f"{server.url}/d/{diagnosis_id}")
    before = len(browser.find_elements(*by(".msg-assistant")))
    browser.find_element(*by(".suggestions button[value='How do I check the fix worked?']")).click()
    wait(browser, lambda d: len(d.find_elements(*by(".msg-assistant:not([aria-busy])"))) > before)
    assert "How to check that the fix worked" in browser.find_elements(*by(".msg-assistant"))[-1].text


def test_open_the_encyclopedia_entry_from_the_diagnosis(browser, server, diagnosis_id, screenshot):
    browser.get(f"{server.url}/d/{diagnosis_id}")
    browser.find_element(*by(".dx-entry a")).click()
    wait(browser, lambda d: d.current_url.endswith(f"/kb/{FUSED}"))
    assert browser.find_element(*by("h1")).text == FUSED_TITLE
    toc = [a.text for a in browser.find_elements(*by(".toc a"))]
    assert toc[:7] == ["What it is", "Mechanism", "What you will observe", "How to confirm", "Fix", "Prevention", "Verify"]
    assert "2,147,483,647" in browser.find_element(*by("#mechanism")).text
    related = browser.find_elements(*by("#related a[href*='/kb/']"))
    assert related
    screenshot(browser, "kb-entry")
    browser.find_element(*by(".toc a[href='#fix']")).click()
    wait(browser, lambda d: d.current_url.endswith("#fix"))


def test_encyclopedia_filters_as_you_type_and_searches_on_enter(browser, server, screenshot):
    from selenium.webdriver.common.keys import Keys

    browser.get(server.url + "/kb")
    items = browser.find_elements(*by("#kb-all [data-search]"))
    box = browser.find_element(*by("#q"))
    box.send_keys("nccl")
    wait(browser, lambda d: "entries match" in d.find_element(*by("#filter-status")).text)
    shown = [i for i in items if i.is_displayed()]
    assert 0 < len(shown) < len(items)
    assert all("nccl" in (i.get_attribute("data-search") or "") for i in shown)
    assert browser.find_element(*by("#filter-status")).text.startswith(f"{len(shown)} of {len(items)}")
    screenshot(browser, "kb-filter")
    box.send_keys(Keys.ENTER)
    wait(browser, lambda d: "/kb?q=nccl" in d.current_url)
    assert "result" in browser.find_element(*by("#h-results")).text
    assert browser.find_elements(*by(".kb-results a[href='/kb/nccl-watchdog-timeout']"))


def test_library_hub_puts_failures_side_by_side(browser, server, screenshot):
    browser.get(server.url + "/kb/library/deepspeed")
    phases = [h.text for h in browser.find_elements(*by(".phase-group h2"))]
    assert phases[:2] == ["Start-up", "First step"]
    cards = browser.find_elements(*by(".phase-group .card"))
    assert len(cards) >= 8
    tops = {c.location["y"] for c in browser.find_elements(*by("#phase-start-up .card"))[:3]}
    assert len(tops) == 1  # side by side on a wide screen
    screenshot(browser, "kb-hub-deepspeed")


def test_upload_the_files_of_a_run_with_the_file_picker(browser, server, tmp_path, screenshot):
    gz = tmp_path / "rank0.log.gz"
    gz.write_bytes(gzip.compress(LOG.encode()))
    other = tmp_path / "launcher.log"
    other.write_text("[launcher] starting 2 processes\n")
    browser.get(server.url + "/")
    browser.find_element(*by("#files")).send_keys(f"{gz}\n{other}")
    listed = [li.text for li in browser.find_elements(*by("#file-list li"))]
    assert any("rank0.log.gz" in t for t in listed) and any("launcher.log" in t for t in listed)
    screenshot(browser, "home-files")
    browser.find_element(*by("#submit")).click()
    wait(browser, lambda d: "/d/" in d.current_url)
    did = browser.current_url.rsplit("/", 1)[1]
    files = httpx.get(f"{server.url}/v1/diagnoses/{did}", timeout=10).json()["files"]
    assert [f["name"] for f in files] == ["rank0.log.gz", "launcher.log"]


def test_the_rank_timeline_picture_marks_the_first_failure(browser, server, screenshot):
    """A real 4-rank gloo run (rank 2 raised, the others saw their peer hang up) drawn as a swimlane by Chromium."""
    run = REPO / "tests" / "data" / "multirank" / "raise-tee" / "console.log"
    browser.get(server.url + "/")
    browser.find_element(*by("#files")).send_keys(str(run))
    browser.find_element(*by("#submit")).click()
    wait(browser, lambda d: "/d/" in d.current_url)
    picture = wait(browser, lambda d: d.find_elements(*by("#timeline svg.swimlane")))[0]
    assert picture.is_displayed() and picture.size["width"] > 300 and picture.size["height"] > 100
    lanes = [g.get_attribute("data-rank") for g in picture.find_elements(*by("g.lane"))]
    assert lanes[:4] == ["0", "1", "2", "3"]
    assert picture.find_element(*by("g.lane.initiating")).get_attribute("data-rank") == "2"
    first = picture.find_element(*by("circle.ev.first"))
    assert first.is_displayed() and first.size["width"] > 0
    assert browser.execute_script("return arguments[0].querySelector('title').textContent", first).startswith("rank 2, first failure")
    greyed = picture.find_elements(*by("circle.ev.collateral"))
    assert greyed and all(float(c.value_of_css_property("fill-opacity")) < 1 for c in greyed)
    browser.execute_script("document.getElementById('timeline').scrollIntoView()")
    screenshot(browser, "diagnosis-rank-timeline")


def test_an_empty_submit_says_what_to_do(browser, server):
    browser.get(server.url + "/")
    browser.find_element(*by("#submit")).click()
    alert = wait(browser, lambda d: d.find_elements(*by("#form-error")))[0]
    assert "nothing to diagnose" in alert.text.lower()
    assert browser.current_url.rstrip("/") == server.url


# ---------------------------------------------------------------- without JavaScript


def test_everything_works_without_javascript(browser_without_js, server, screenshot):
    b = browser_without_js
    b.get(server.url + "/")
    b.find_element(*by("#files")).send_keys(str(LOG_PATH))
    b.find_element(*by("#submit")).click()
    wait(b, lambda d: "/d/" in d.current_url)
    assert b.find_element(*by("#dx-title")).text == FUSED_TITLE
    b.find_element(*by("#question")).send_keys("Which rank failed first?")
    b.find_element(*by("#ask-button")).click()
    wait(b, lambda d: d.current_url.endswith("#chat"))
    messages = b.find_elements(*by(".msg"))
    assert len(messages) == 2 and "Which rank failed first?" in messages[0].text
    assert "rank" in messages[1].text.lower()
    screenshot(b, "diagnosis-no-javascript")


# ---------------------------------------------------------------- a phone


@pytest.mark.parametrize("page", ["/", "/kb", f"/kb/{FUSED}", "/kb/library/deepspeed", "diagnosis"])
def test_pages_fit_a_phone_screen(browser, server, diagnosis_id, screenshot, page):
    browser.set_window_size(390, 844)
    try:
        path = f"/d/{diagnosis_id}" if page == "diagnosis" else page
        browser.get(server.url + path)
        overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} scrolls sideways by {overflow}px on a 390px screen"
        font = browser.execute_script("return parseFloat(getComputedStyle(document.body).fontSize)")
        assert font >= 16
        name = "phone-" + ("home" if page == "/" else page.strip("/").replace("/", "-"))
        screenshot(browser, name)
    finally:
        browser.set_window_size(1280, 1000)


# ---------------------------------------------------------------- accessibility


A11Y = """
const problems = [];
document.querySelectorAll('input:not([type=hidden]), textarea, select').forEach(el => {
  if (!(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
    problems.push('no label: ' + el.outerHTML.slice(0, 80));
});
document.querySelectorAll('button, a[href]').forEach(el => {
  if (!el.textContent.trim() && !el.getAttribute('aria-label')) problems.push('no name: ' + el.outerHTML.slice(0, 80));
});
document.querySelectorAll('[aria-labelledby], [aria-describedby]').forEach(el => {
  ['aria-labelledby', 'aria-describedby'].forEach(attr => (el.getAttribute(attr) || '').split(/\\s+/).filter(Boolean)
    .forEach(id => { if (!document.getElementById(id)) problems.push(attr + ' points at missing #' + id); }));
});
const seen = {};
document.querySelectorAll('[id]').forEach(el => { seen[el.id] = (seen[el.id] || 0) + 1; });
Object.keys(seen).filter(id => seen[id] > 1).forEach(id => problems.push('duplicate id ' + id));
['header', 'nav', 'main', 'footer'].forEach(t => { if (!document.querySelector(t)) problems.push('no <' + t + '>'); });
if (document.querySelectorAll('h1').length !== 1) problems.push('not exactly one h1');
if (!document.documentElement.lang) problems.push('no lang');
return problems;
"""

CONTRAST = """
function rgb(s) { const m = s.match(/rgba?\\(([^)]+)\\)/); return m ? m[1].split(',').map(parseFloat) : [0, 0, 0, 1]; }
function lum(c) { return c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
  .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0); }
function background(el) {
  for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor); if (c.length < 4 || c[3] > 0) return c; }
  return [255, 255, 255];
}
return arguments[0].map(sel => {
  const el = document.querySelector(sel);
  if (!el) return [sel, null];
  const a = lum(rgb(getComputedStyle(el).color)), b = lum(background(el));
  return [sel, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
});
"""

TEXT_STYLES = ["body", "h1", ".eyebrow", ".dx-entry", ".section-lead", ".loc", ".keyfacts dt", ".badge", ".chip",
               ".button.primary", ".site-nav a", "#evidence pre code", "#facts td code", ".alternatives p", ".score",
               ".msg-meta", ".cites a", ".help", ".muted", ".dx-foot", "a"]


@pytest.mark.parametrize("page", ["/", "/kb", f"/kb/{FUSED}", "/kb/library/deepspeed", "diagnosis"])
def test_accessibility_basics(browser, server, diagnosis_id, page):
    path = f"/d/{diagnosis_id}" if page == "diagnosis" else page
    browser.get(server.url + path)
    assert browser.execute_script(A11Y) == []


def test_keyboard_reaches_the_skip_link_first_and_it_moves_focus_to_the_content(browser, server):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    browser.get(server.url + "/kb")
    ActionChains(browser).send_keys(Keys.TAB).perform()
    active = browser.switch_to.active_element
    assert active.get_attribute("class") == "skip-link" and active.is_displayed()
    active.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.switch_to.active_element.get_attribute("id") == "main")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_contrast_meets_wcag_aa(browser, server, diagnosis_id, screenshot, scheme):
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    try:
        browser.get(f"{server.url}/d/{diagnosis_id}")
        ratios = dict(browser.execute_script(CONTRAST, TEXT_STYLES))
        low = {sel: round(r, 2) for sel, r in ratios.items() if r is not None and r < 4.5}
        assert not low, f"below 4.5:1 in the {scheme} theme: {low}"
        assert sum(r is not None for r in ratios.values()) >= len(TEXT_STYLES) - 3
        if scheme == "dark":
            screenshot(browser, "diagnosis-dark")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


# ---------------------------------------------------------------- the streamed answer of an LLM


@dataclass
class LLMSite:
    url: str
    fake: FakeLLMServer


@pytest.fixture(scope="module")
def llm_site(engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LLMSite]:
    """The app with an LLM (the fake OpenAI-compatible server), served by uvicorn in a thread."""
    with FakeLLMServer() as fake:
        settings = engine.settings.model_copy(update={
            "data_dir": tmp_path_factory.mktemp("llm-site"), "llm_model": "openai/fake-model",
            "llm_api_base": fake.url, "llm_timeout_s": 5.0, "llm_budget_s": 10.0, "llm_max_retries": 0,
        })
        e = Engine(settings)
        for shared in ("kb", "index", "masker"):
            e.__dict__[shared] = getattr(engine, shared)
        server = uvicorn.Server(uvicorn.Config(create_app(settings, e), host="127.0.0.1", port=free_port(),
                                               log_level="warning", access_log=False))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            for _ in range(2400):
                if server.started or not thread.is_alive():
                    break
                threading.Event().wait(0.05)
            assert server.started, "the app did not start"
            yield LLMSite(f"http://127.0.0.1:{server.config.port}", fake)
        finally:
            server.should_exit = True
            thread.join(timeout=30)


def _llm_text(evidence: dict[str, Any], section_ref: str) -> str:
    cites = [{"kind": "section", "ref": section_ref}, {"kind": "line", "ref": f"{evidence['file']}:{evidence['line']}"}]
    return ("Rank 1's FusedAdam step overflowed a **32-bit** offset.\n\n"
            "- Set `\"torch_adam\": true` in the optimizer params\n- or train on more GPUs\n"
            f"CITATIONS: {json.dumps(cites)}")


def test_llm_answer_streams_in_and_settles_with_its_citations(browser, llm_site, screenshot):
    # The diagnosis itself falls back to the deterministic composer (the fake has nothing queued yet).
    llm_site.fake.state.default = Script(status=500)
    did = paste_and_diagnose(browser, llm_site.url)
    d = httpx.get(f"{llm_site.url}/v1/diagnoses/{did}", timeout=10).json()
    llm_site.fake.state.default = None
    llm_site.fake.state.queue(Script(content=_llm_text(d["evidence"][0], f"{FUSED}#fix")))
    answer = ask(browser, "What should I change?", answers_before=0)
    assert "openai/fake-model" in answer.find_element(*by(".msg-meta")).text
    assert answer.find_element(*by("strong")).text == "32-bit"  # markdown, rendered by the server
    assert len(answer.find_elements(*by(".msg-body li"))) == 2
    hrefs = [a.get_attribute("href") for a in answer.find_elements(*by(".cites a"))]
    assert any(h.endswith(f"/kb/{FUSED}#fix") for h in hrefs) and any("#L-" in h for h in hrefs)
    screenshot(browser, "diagnosis-chat-llm")

    llm_site.fake.state.queue(Script(content=_llm_text(d["evidence"][0], "no-such-entry#fix")))
    replaced = ask(browser, "How do I fix it?", answers_before=1)
    assert "deterministic" in replaced.find_element(*by(".msg-meta")).text
    assert "The fix, most targeted first" in replaced.text and "32-bit" not in replaced.text
    assert "LLM answer not used" in replaced.find_element(*by(".msg-note")).text
