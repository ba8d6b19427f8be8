"""deploy/ validated offline. What is checked, and only that:

- deploy/compose.yaml against the Compose Specification's JSON schema (tests/data/compose_spec.json, copied unchanged
  from the docker-compose 1.29.2 release on PyPI, compose/config/compose_spec.json), then by hand: services named in
  depends_on exist, the API has 2 replicas and a health check on /healthz, the nginx upstream is the API's service
  and port, every command is a real `crashdoc` sub-command, every CRASHDOC_* variable is a setting.
- deploy/k8s/*.yaml against Kubernetes 1.37's OpenAPI schemas, strict (unknown fields refused), with the
  kubernetes-validate package (its schemas ship in the wheel: no cluster, no network); then by hand: each Service and
  PodDisruptionBudget selects pods that a workload labels, named ports exist, the API runs 2 replicas, commands and
  CRASHDOC_* names as above.

Not checked: that the images build or pull, that a cluster or Docker accepts the files, that anything runs there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from service.cli import build_parser
from service.settings import Settings
from tests.conftest import REPO

DEPLOY = REPO / "deploy"
K8S_VERSION = "1.37.0"


def crashdoc_command(cmd: list[str]) -> None:
    assert cmd[0] == "crashdoc", cmd
    args = build_parser().parse_args(cmd[1:])  # exits (SystemExit) on an unknown sub-command or option
    assert getattr(args, "run", None) is not None, cmd


def crashdoc_variables(names: list[str]) -> None:
    fields = set(Settings.model_fields)
    for name in names:
        if name.startswith("CRASHDOC_"):
            assert name.removeprefix("CRASHDOC_").lower() in fields, f"{name} is not a crashdoc setting"


# ---------------------------------------------------------------- compose


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_compose_file_is_valid_against_the_compose_specification(compose):
    schema = json.loads((REPO / "tests" / "data" / "compose_spec.json").read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(compose), key=lambda e: list(e.path))
    assert [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors] == []


def test_a_schema_violation_is_caught():
    """The schema check can fail: a misspelt key and a wrong type are refused."""
    schema = json.loads((REPO / "tests" / "data" / "compose_spec.json").read_text(encoding="utf-8"))
    bad = {"services": {"api": {"image": "x", "comand": ["crashdoc"], "deploy": {"replicas": "two"}}}}
    assert len(list(jsonschema.validators.validator_for(schema)(schema).iter_errors(bad))) >= 2


def test_the_compose_services_fit_together(compose):
    services = compose["services"]
    assert {"postgres", "api", "worker", "proxy"} <= set(services)
    for name, svc in services.items():
        for dep in svc.get("depends_on") or {}:
            assert dep in services, f"{name} depends on {dep}"
        if svc.get("image") == "crashdoc:latest":
            crashdoc_command(svc["command"])
            crashdoc_variables(list(svc.get("environment") or {}))
            assert "postgres:5432/crashdoc" in svc["environment"]["CRASHDOC_DATABASE_URL"]
    assert services["api"]["deploy"]["replicas"] == 2
    assert "/healthz" in " ".join(services["api"]["healthcheck"]["test"])
    assert services["worker"]["command"] == ["crashdoc", "worker"]
    nginx = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    assert re.search(r"server api:8000;", nginx) and "8000" in services["api"]["expose"]
    assert (DEPLOY / "Dockerfile").is_file()


# ---------------------------------------------------------------- kubernetes


def manifests() -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        out += [(path, doc) for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]
    return out


@pytest.mark.parametrize(("path", "doc"), manifests(), ids=lambda v: v.name if isinstance(v, Path) else v["kind"] + "/" + v["metadata"]["name"])
def test_each_manifest_is_valid_against_the_kubernetes_schema(path, doc):
    import kubernetes_validate

    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)  # raises ValidationError


def test_a_kubernetes_schema_violation_is_caught():
    import kubernetes_validate
    from kubernetes_validate.utils import ValidationError

    doc = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
           "spec": {"replicas": "two", "selector": {"matchLabels": {"a": "b"}},
                    "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containerz": []}}}}
    with pytest.raises(ValidationError):
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_the_manifests_fit_together():
    docs = [doc for _, doc in manifests()]
    workloads = [d for d in docs if d["kind"] in ("Deployment", "StatefulSet")]
    labelled = [w["spec"]["template"]["metadata"]["labels"] for w in workloads]
    for w in workloads:
        assert w["spec"]["selector"]["matchLabels"].items() <= w["spec"]["template"]["metadata"]["labels"].items()
        for c in w["spec"]["template"]["spec"]["containers"]:
            ports = {p.get("name") for p in c.get("ports") or []}
            for probe in ("readinessProbe", "livenessProbe"):
                port = ((c.get(probe) or {}).get("httpGet") or {}).get("port")
                assert port is None or port in ports, (w["metadata"]["name"], probe)
            if c["image"] == "crashdoc:latest":
                crashdoc_command(c["command"])
                crashdoc_variables([e["name"] for e in c.get("env") or []])
    for d in docs:
        if d["kind"] == "Service":
            assert any(d["spec"]["selector"].items() <= labels.items() for labels in labelled), d["metadata"]["name"]
        if d["kind"] == "PodDisruptionBudget":
            assert any(d["spec"]["selector"]["matchLabels"].items() <= labels.items() for labels in labelled)
        if d["kind"] == "ConfigMap":
            crashdoc_variables(list(d["data"]))
    api = next(w for w in workloads if w["metadata"]["name"] == "crashdoc-api")
    assert api["spec"]["replicas"] == 2
    worker = next(w for w in workloads if w["metadata"]["name"] == "crashdoc-worker")
    assert worker["spec"]["template"]["spec"]["containers"][0]["command"] == ["crashdoc", "worker"]
