"""Fuzzing: schemathesis generates requests from the service's own OpenAPI schema and sends them to the
real app on a loopback port, with a workspace's key. No response may be a 5xx, and every response must
match the schema (status documented, content type, body schema, headers). Bounded examples per operation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.test_accounts import OOM_LOG, TEXT, LocalApp, running_app

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]
EXAMPLES = 12  # per operation: the whole run stays well under a minute


@pytest.fixture(scope="module")
def fuzzed(engine, tmp_path_factory) -> Iterator[tuple[LocalApp, dict[str, str]]]:
    with running_app(engine, tmp_path_factory.mktemp("fuzz"), plan_scale_daily=100_000,
                     plan_scale_questions_daily=100_000) as a:
        key = a.new_key("fuzz", "scale")
        headers = {"Authorization": f"Bearer {key}"}
        with a.client(key) as c:  # something real to find, besides the generated ids
            d = c.post("/v1/diagnoses", content=OOM_LOG, headers=TEXT).json()
            c.post(f"/v1/diagnoses/{d['id']}/messages", json={"question": "why?"})
        yield a, headers


@pytest.fixture(scope="module")
def api_schema(fuzzed):  # type: ignore[no-untyped-def]
    app, _ = fuzzed
    return schemathesis.openapi.from_url(f"{app.url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_5xx_and_every_response_matches_the_schema(case, fuzzed):  # type: ignore[no-untyped-def]
    _, headers = fuzzed
    if case.headers and any(k.lower() == "authorization" for k in case.headers):
        headers = {}  # the generated Authorization header is the input being fuzzed
    case.call_and_validate(headers=headers, checks=CHECKS, timeout=120)


def test_the_schema_documents_every_error_the_api_answers(api_schema):  # type: ignore[no-untyped-def]
    raw = api_schema.raw_schema
    for path, ops in raw["paths"].items():
        for method, op in ops.items():
            codes = set(op["responses"])
            assert {"401", "404", "413", "422", "429", "503"} <= codes, f"{method.upper()} {path}"
            assert op["responses"]["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut")
