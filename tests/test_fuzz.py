"""Fuzzing: schemathesis generates requests from the service's own OpenAPI schema and sends them to the
real app on a loopback port, with a workspace's key. No response may be a 5xx, and every response must
match the schema (status documented, content type, body schema, headers). Bounded examples per operation."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from pydantic import SecretStr
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.app import create_app
from service.settings import Settings
from tests.test_accounts import OOM_LOG, TEXT, LocalApp, running_app

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]
EXAMPLES = 25  # per operation, positive and negative: the whole run stays under a minute


@pytest.fixture(scope="module")
def fuzzed(engine, tmp_path_factory) -> Iterator[tuple[LocalApp, dict[str, str]]]:
    # Slack set up, so its endpoints are fuzzed past the signature check (unset, they answer 503 by design).
    with running_app(engine, tmp_path_factory.mktemp("fuzz"), plan_scale_daily=100_000, plan_scale_questions_daily=100_000,
                     slack_signing_secret=SecretStr("fuzz-signing-secret")) as a:
        key = a.new_key("fuzz", "scale")
        headers = {"Authorization": f"Bearer {key}"}
        with a.client(key) as c:  # something real to find, besides the generated ids
            d = c.post("/v1/diagnoses", content=OOM_LOG, headers=TEXT).json()
            c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"})
        yield a, headers


# The schema the service publishes, read from the app without starting it (building the app loads nothing);
# the running app in ``fuzzed`` serves the same one.
OPENAPI = create_app(Settings(data_dir=Path(tempfile.gettempdir()) / "crashdoc-fuzz-unused")).openapi()
schema = schemathesis.openapi.from_dict(OPENAPI)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
def test_no_5xx_and_every_response_matches_the_schema(case, fuzzed):  # type: ignore[no-untyped-def]
    app, headers = fuzzed
    if case.headers and any(k.lower() == "authorization" for k in case.headers):
        headers = {}  # the generated Authorization header is the input being fuzzed
    case.call_and_validate(base_url=app.url, headers=headers, checks=CHECKS, timeout=120)


def test_the_running_app_serves_the_schema_that_was_fuzzed(fuzzed):  # type: ignore[no-untyped-def]
    app, _ = fuzzed
    assert httpx.get(f"{app.url}/openapi.json", timeout=30).json() == OPENAPI


def test_the_schema_documents_every_error_the_api_answers():
    raw = OPENAPI
    for path, ops in raw["paths"].items():
        for method, op in ops.items():
            codes = set(op["responses"])
            assert {"401", "404", "413", "422", "429", "503"} <= codes, f"{method.upper()} {path}"
            assert op["responses"]["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut")
