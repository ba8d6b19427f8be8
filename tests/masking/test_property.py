"""Property: a generated secret of any kind, planted in any real log line of the eval cases, never survives,
and no diagnostic token of that line (addresses, shapes, versions, GPU UUIDs, PCI ids, hashes) changes.

The lines come from the eval logs as they are; the secrets are generated per kind and rendered in the
syntaxes logs use. Hypothesis is derandomized so CI sees the same examples every run.
"""

from __future__ import annotations

import random
import re
import string
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.masking import Masker, mask_text

from .kinds import KINDS, SYNTAXES

REPO = Path(__file__).resolve().parents[2]

# Diagnostic tokens that must come through unchanged wherever they stand.
_DIAGNOSTIC = re.compile(
    r"\b0x[0-9a-f]{6,16}\b"  # CUDA / frame addresses
    r"|\[\d+(?:, \d+)+\]|torch\.Size\(\[[\d, ]+\]\)"  # tensor shapes
    r"|(?<![\d.])\d+\.\d+\.\d+(?:\+cu\d+|\.post\d+)?(?!\.?\d)"  # versions (not the first three parts of an IP)
    r"|\bGPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"  # GPU UUIDs
    r"|\b[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.\d\b"  # PCI bus ids
    r"|\b[0-9a-f]{40}\b"  # git SHAs of builds
)


@cache
def _log_lines() -> tuple[str, ...]:
    lines: list[str] = []
    for log in sorted((REPO / "evals" / "cases").glob("*/train.log"))[::4]:
        for line in log.read_text(errors="replace").splitlines():
            if 20 <= len(line) <= 240 and " " in line.strip():
                lines.append(line)
    return tuple(lines)


def _chars(alphabet: str, size: int) -> st.SearchStrategy[str]:
    """Random characters, as a secret's generator makes them: drawn from a seed, so shrinking cannot turn
    a key into ``aaaa...`` (which is no secret's shape) while keeping every example reproducible."""
    return st.integers(0, 2**32).map(lambda seed: "".join(random.Random(seed).choices(alphabet, k=size)))


_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"
_HEX = "0123456789abcdef"
_SHELLY = _ALNUM + "$&;#!%^*@~"  # what passwords are made of, shell-special characters included


def _with_digit(s: str) -> str:
    return s[:-1] + "7"  # vendor formats and the entropy check both expect a digit somewhere


# Forms particular to one tool (a value strategy, how the tool prints it); {v} is the secret. Every kind of
# the matrix (kinds.py) is also planted in every generic syntax, below.
_TOOL_FORMS: list[tuple[st.SearchStrategy[str], tuple[str, ...]]] = [
    (_chars(_ALNUM, 34).map(lambda s: "hf_" + s), ("huggingface-cli login --token {v}", "token: '{v}'")),
    (_chars(string.ascii_uppercase + string.digits, 16).map(lambda s: "AKIA" + s), ("'AccessKeyId': '{v}'",)),
    (_chars(_B64, 40).map(_with_digit), ("aws_secret_access_key = {v}", "'SecretAccessKey': '{v}'")),
    (_chars(_ALNUM, 36).map(lambda s: "ghp_" + s), ("https://x-access-token:{v}@github.com/org/repo",)),
    (_chars(_ALNUM + "_-", 40).map(lambda s: "sk-proj-" + _with_digit(s)), ("Incorrect API key provided: {v}",)),
    (_chars(_HEX, 40), ("wandb login {v}", "wandb api key: {v}")),
    (_chars(_ALNUM + "_-", 48).map(lambda s: "nvapi-" + s), ("docker login nvcr.io -u '$oauthtoken' -p {v}",)),
    (_chars(_SHELLY, 14).map(lambda s: "Q" + s + "9"),
     ("sshpass -p '{v}' ssh node-17", "--password {v}", "postgresql://ml:{v}@db.corp.internal:5432/runs")),
    (_chars(_ALNUM, 24).map(_with_digit), ("> Cookie: sessionid={v}; theme=dark", "'SessionToken': '{v}'")),
    (_chars(_B64, 40).map(lambda s: "Zq" + _with_digit(s)), ("curl https://hooks.corp.internal/v1/{v}/notify",)),
]
_ONE_LINE = [s for s in SYNTAXES if "\n" not in s.render(KINDS[0], "v")]


@st.composite
def _secret(draw: st.DrawFn) -> tuple[str, str]:
    """(the secret, the text that carries it): a matrix kind in a generic syntax, or a tool's own form."""
    if draw(st.booleans()):
        kind = draw(st.sampled_from(KINDS))
        value = kind.make(random.Random(draw(st.integers(0, 2**32))))
        return value, draw(st.sampled_from(_ONE_LINE)).render(kind, value)
    values, forms = _TOOL_FORMS[draw(st.integers(0, len(_TOOL_FORMS) - 1))]
    value = draw(values)
    return value, draw(st.sampled_from(forms)).format(v=value)


@st.composite
def _planted(draw: st.DrawFn) -> tuple[str, str, str]:
    lines = _log_lines()
    line = lines[draw(st.integers(0, len(lines) - 1))]
    secret, rendered = draw(_secret())
    tokens = [m.span() for m in _DIAGNOSTIC.finditer(line)]
    spaces = [i for i, c in enumerate(line) if c == " " and not any(s < i < e for s, e in tokens)]
    at = spaces[draw(st.integers(0, len(spaces) - 1))]
    return line, line[:at] + " " + rendered + line[at:], secret


@settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_planted())
def test_a_planted_secret_never_survives_and_no_diagnostic_token_changes(masker: Masker, case: tuple[str, str, str]) -> None:
    original, planted, secret = case
    masked, _ = mask_text(planted, masker)
    assert secret not in masked, (planted, masked)
    assert secret[: len(secret) // 2] not in masked, (planted, masked)  # nor a half of it
    for token in _DIAGNOSTIC.findall(original):
        assert token in masked, (token, original, masked)
