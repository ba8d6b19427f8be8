"""/docs in real headless Chromium against the real app on a loopback port: Swagger UI 5 (vendored, served by the
service itself) reads the OpenAPI 3.1 document and shows every operation in it, with no rendering error, and the
page loads nothing from outside."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.browser.conftest import needs_chromium
from tests.test_accounts import LocalApp, running_app

pytestmark = [pytest.mark.browser, needs_chromium]

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def operations(doc: dict[str, Any]) -> set[tuple[str, str]]:
    return {(m.upper(), path) for path, item in doc["paths"].items() for m in item if m in METHODS}


@pytest.fixture(scope="module")
def server(engine, tmp_path_factory) -> Iterator[LocalApp]:
    """The app on a loopback port (uvicorn in a thread) with the session's loaded engine."""
    with running_app(engine, tmp_path_factory.mktemp("docs")) as a:
        yield a


def test_docs_shows_every_operation_of_the_openapi_document(server, browser, screenshot):
    from selenium.webdriver.support.ui import WebDriverWait

    doc = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    assert doc["openapi"].startswith("3.1")
    expected = operations(doc)
    assert len(expected) >= 15

    browser.get(f"{server.url}/docs")
    shown_js = """return Array.from(document.querySelectorAll('.opblock .opblock-summary')).map(s => [
        s.querySelector('.opblock-summary-method').textContent.trim(),
        (s.querySelector('.opblock-summary-path') || {}).getAttribute('data-path')])"""
    WebDriverWait(browser, 60).until(lambda d: len(d.execute_script(shown_js)) >= len(expected)
                                     or d.find_elements("css selector", ".errors-wrapper, .loading-container .errors"))
    shown = [tuple(x) for x in browser.execute_script(shown_js)]
    screenshot(browser, "docs")
    text = browser.find_element("css selector", "body").text
    assert "Unable to render this definition" not in text and not browser.find_elements("css selector", ".errors-wrapper")
    assert len(shown) == len(expected) and set(shown) == expected, set(shown) ^ expected
    assert "OAS 3.1" in text and "crashdoc" in text
    # everything came from the service: no request left for another host
    hosts = browser.execute_script("return performance.getEntriesByType('resource').map(e => new URL(e.name).host)")
    assert set(hosts) <= {server.url.removeprefix("http://")}, hosts
