"""Real headless Chromium driven by Selenium, and screenshots saved to ``artifacts/screenshots/``.

The browser tests are marked ``browser`` and skipped, saying why, only when Chromium or its driver is not
installed (``apt-get install -y chromium chromium-driver``; ``.ci/run`` installs them).
"""

from __future__ import annotations

import base64
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
SHOTS = REPO / "artifacts" / "screenshots"

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="headless Chromium is not installed: apt-get install -y chromium chromium-driver (.ci/run does)",
)


def make_driver(profile: Path, *, javascript: bool = True):  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                 f"--user-data-dir={profile}", "--window-size=1280,1000", "--lang=en-US"):
        opts.add_argument(flag)
    if not javascript:
        opts.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(options=opts, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    driver = make_driver(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def browser_without_js(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    driver = make_driver(tmp_path_factory.mktemp("chromium-profile-nojs"), javascript=False)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def screenshot() -> Callable[[object, str], Path]:
    """Save the whole page (not just the viewport) as ``artifacts/screenshots/<name>.png``."""
    SHOTS.mkdir(parents=True, exist_ok=True)

    def save(driver, name: str) -> Path:  # type: ignore[no-untyped-def]
        size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 12000), "scale": 1},
        })
        path = SHOTS / f"{name}.png"
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    return save
