"""The vendored Swagger UI is the release its record says (service/web/swagger-ui/VENDORED.md): each file's
SHA-256 as listed, the version the app names, its license beside it. The page itself: tests/browser/test_docs.py."""

from __future__ import annotations

import hashlib
import re

from service.app import SWAGGER_UI, SWAGGER_UI_VERSION


def test_the_vendored_files_are_the_recorded_release():
    record = (SWAGGER_UI / "VENDORED.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| ([\w.-]+) \| ([0-9a-f]{64}) \|$", record, re.M))
    assert {"swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"} <= set(listed)
    on_disk = {p.name for p in SWAGGER_UI.iterdir()} - {"VENDORED.md"}
    assert on_disk == set(listed)
    for name, digest in listed.items():
        assert hashlib.sha256((SWAGGER_UI / name).read_bytes()).hexdigest() == digest, name
    assert f"swagger-ui-dist {SWAGGER_UI_VERSION}" in record and "Apache License 2.0" in record
    assert "Apache License" in (SWAGGER_UI / "LICENSE").read_text(encoding="utf-8")
    assert re.fullmatch(r"5\.\d+\.\d+", SWAGGER_UI_VERSION)  # 5.x reads OpenAPI 3.1; 4.x cannot
