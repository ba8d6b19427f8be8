"""Answer first, in real headless Chromium: on a varied set of eval runs, this run's sentence, the decisive line
and the first fix step are inside the first screen at 1400x900 and on a 390 px phone, the decisive line wraps
instead of scrolling sideways, and a page with no error line promises no evidence.
Screenshots of each first screen go to ``artifacts/screenshots/answer-*-fold.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from service.evaluation.cases import load_cases
from tests.browser.conftest import SHOTS, needs_chromium
from tests.conftest import REPO

pytestmark = [pytest.mark.browser, needs_chromium]

# Different shapes of run: a 16-rank 2-node OOM, a 32-rank NCCL network failure behind watchdog timeouts, a 2-node
# ECC error, a hang (watchdog timeouts, one rank stuck), a DeepSpeed FusedAdam crash with a long fix, a rank-0-only hang.
CASES = {
    "oom16": "holdout/cuda-oom-holdout-2node-rank5-backward-01",
    "nccl32": "holdout/nccl-network-error-holdout-ib-retry-exceeded-32rank-01",
    "ecc": "holdout/gpu-ecc-error-holdout-moe-2node-rank10-01",
    "hang": "cases/nccl-watchdog-timeout-v100-srun-stuck-rank-03",
    "fusedadam": "cases/deepspeed-fusedadam-illegal-memory-access-zero2-2xh100-01",
    "rank0-hang": "cases/fsdp-error-rank0-only-state-dict-hang-03",
}
VIEWPORTS = {"desktop": (1400, 900, False), "phone": (390, 844, True)}
NO_FAILURE = "epoch 1 step 100 loss 2.31\nepoch 1 step 200 loss 2.05\nsaving checkpoint to /ckpt/epoch1\n"


def _post_case(base: str, folder: str) -> dict[str, Any]:
    split, name = folder.split("/")
    case = next(c for c in load_cases(REPO / "evals" / split) if c.id == name)
    files = []
    for s in case.sources():
        data = s.data or Path(s.path or "").read_bytes()
        files.append(("files", (s.name, data, "text/plain")))
    r = httpx.post(base + "/v1/diagnoses", files=files, timeout=120)
    assert r.status_code == 201, r.text
    return dict(r.json())


@pytest.fixture(scope="module")
def diagnoses(server) -> dict[str, dict[str, Any]]:
    out = {key: _post_case(server.url, folder) for key, folder in CASES.items()}
    r = httpx.post(server.url + "/v1/diagnoses", content=NO_FAILURE, headers={"Content-Type": "text/plain"}, timeout=60)
    assert r.status_code == 201
    out["no-failure"] = r.json()
    return out


def _viewport(driver: Any, width: int, height: int, mobile: bool) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


BOXES = """
const out = {};
for (const id of ['run-sentence', 'decisive', 'first-fix']) {
  const el = document.getElementById(id);
  if (!el) { out[id] = null; continue; }
  const r = el.getBoundingClientRect();
  out[id] = {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, text: el.innerText};
}
const pre = document.querySelector('#decisive pre');
out.preOverflow = pre ? pre.scrollWidth - pre.clientWidth : 0;
out.pageOverflow = document.documentElement.scrollWidth - window.innerWidth;
out.height = window.innerHeight;
return out;
"""


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("key", list(CASES))
def test_the_answer_is_above_the_fold(browser, server, diagnoses, key: str, viewport: str):
    d = diagnoses[key]
    width, height, mobile = VIEWPORTS[viewport]
    _viewport(browser, width, height, mobile)
    try:
        browser.get(f"{server.url}/d/{d['id']}")
        boxes = browser.execute_script(BOXES)
        SHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SHOTS / f"answer-{key}-{viewport}-fold.png"))  # the first screen only
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert boxes["height"] == height
    assert boxes["run-sentence"]["text"] == d["answer"]["sentence"]
    assert d["evidence"] and d["fix"], f"{key}: the case should give a diagnosis with evidence and a fix"
    assert d["evidence"][0]["text"][:60] in boxes["decisive"]["text"].replace("\n", " ")
    for part in ("run-sentence", "decisive", "first-fix"):
        assert boxes[part] is not None, f"{key}: no #{part} on the page"
        assert boxes[part]["bottom"] <= height, f"{key} at {viewport}: #{part} ends at {boxes[part]['bottom']:.0f}px, below the {height}px fold"
    assert boxes["preOverflow"] <= 0, f"{key} at {viewport}: the decisive line scrolls sideways by {boxes['preOverflow']}px"
    assert boxes["pageOverflow"] <= 0


def test_the_sentence_is_about_this_run(diagnoses):
    oom, nccl = diagnoses["oom16"]["answer"]["sentence"], diagnoses["nccl32"]["answer"]["sentence"]
    assert oom.startswith(f"Rank {diagnoses['oom16']['initiating_rank']} of 16")
    assert diagnoses["oom16"]["facts"]["oom_tried_to_allocate"]["value"] in oom and diagnoses["oom16"]["facts"]["oom_free"]["value"] in oom
    assert nccl.startswith("Rank 17 of 32") and "step 19112" in nccl


def test_the_no_failure_page_promises_no_evidence(browser, server, diagnoses, screenshot):
    d = diagnoses["no-failure"]
    assert d["entry_id"] is None and not d["evidence"]
    browser.get(f"{server.url}/d/{d['id']}")
    screenshot(browser, "answer-no-failure")
    head = browser.find_element("css selector", ".dx-head").text.lower()
    assert browser.find_elements("css selector", "#evidence, #decisive, #first-fix") == []
    assert "no error" in browser.find_element("css selector", "#run-sentence").text.lower()
    assert "evidence" not in head.replace("no evidence", "")  # nothing promises lines that are not there
    if "below" in head:  # what it says is below, is
        assert "facts" in head and browser.find_elements("css selector", "#facts")


def test_the_encyclopedia_folds_on_a_phone_and_a_filter_opens_it(browser, server):
    _viewport(browser, 390, 844, True)
    try:
        browser.get(f"{server.url}/kb")
        folded = browser.execute_script("return document.documentElement.scrollHeight")
        closed = browser.execute_script("return [...document.querySelectorAll('details.kb-group')].filter(d => !d.open).length")
        box = browser.find_element("css selector", "input[data-filter]")
        box.send_keys("nccl")
        opened = browser.execute_script(
            "return [...document.querySelectorAll('details.kb-group')].filter(d => d.open && !d.hidden).length")
        visible = browser.execute_script(
            "return [...document.querySelectorAll('[data-search]')].filter(e => e.offsetParent !== null).length")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert closed >= 5 and folded < 8_000, f"/kb is {folded}px tall on a phone"
    assert opened >= 1 and visible >= 1
