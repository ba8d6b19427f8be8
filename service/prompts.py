"""The one loader of ``prompts/``: Jinja templates, undefined variables are errors, each with a name and version.

A template's first line declares it: ``{#- name: diagnose.system  version: 1 -#}``. The diagnosis
records the name, the version and a hash of the template text, so an answer can be traced to the prompt.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, TemplateError

from service.errors import ConfigError

_HEADER = re.compile(r"\{#-?\s*name:\s*(\S+)\s+version:\s*(\d+)\s*-?#\}")


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    sha256: str
    file: str

    def ref(self) -> dict[str, object]:
        return {"name": self.name, "version": self.version, "hash": self.sha256[:12]}


class PromptLibrary:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.env = Environment(
            loader=FileSystemLoader(str(directory)), undefined=StrictUndefined, autoescape=False,
            keep_trailing_newline=True, trim_blocks=False,
        )

    @lru_cache(maxsize=32)  # noqa: B019 - one library per process
    def get(self, name: str) -> Prompt:
        path = self.directory / f"{name}.j2"
        if not path.exists():
            raise ConfigError(f"Prompt '{name}' is missing ({path}).", hint="Reinstall crashdoc or set CRASHDOC_PROMPTS_DIR.")
        text = path.read_text(encoding="utf-8")
        m = _HEADER.match(text)
        if not m or m.group(1) != name:
            raise ConfigError(f"Prompt {path.name} must start with '{{#- name: {name}  version: N -#}}'.")
        return Prompt(name=name, version=int(m.group(2)), sha256=hashlib.sha256(text.encode()).hexdigest(), file=path.name)

    def render(self, name: str, **variables: Any) -> str:
        self.get(name)
        try:
            return self.env.get_template(f"{name}.j2").render(**variables)
        except TemplateError as exc:
            raise ConfigError(f"Prompt '{name}' failed to render: {exc}") from exc


@lru_cache(maxsize=4)
def library(directory: str) -> PromptLibrary:
    return PromptLibrary(Path(directory))
