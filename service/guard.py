"""Untrusted text in, checked text out: what an LLM may add to an answer, and how a log is fenced in a prompt.

A log (and a question, and a model's reply) is data. Two layers keep it so:

- ``clean`` strips what a reader cannot see but a model can (control characters, zero-width and bidi
  characters, Unicode tag characters, variation selectors) and folds look-alike forms (NFKC); ``Fence``
  is a per-request random delimiter that no log line can forge, because the log was written before it.
- ``foreign_actions`` is the defence: it lists every action an answer's text carries (a URL, a command,
  a package to install, a code block, an HTML tag, an encoded blob) that is not already in the trusted
  material (the entry, the lines quoted as evidence). Text is allowed; actions must come from there.
  Links go only to ``DOC_LINKS`` (or are in the entry itself).
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

# Documentation an answer may link to: (host, path prefix). Anything else is not a link an answer may carry.
DOC_LINKS: tuple[tuple[str, str], ...] = (
    ("pytorch.org", "/docs"),
    ("docs.pytorch.org", "/"),
    ("docs.nvidia.com", "/"),
    ("deepspeed.readthedocs.io", "/"),
    ("www.deepspeed.ai", "/"),
    ("huggingface.co", "/docs"),
    ("docs.ray.io", "/"),
    ("kubernetes.io", "/docs"),
    ("docs.python.org", "/"),
)

# Programs whose invocation is an action: "curl -sSL https://x | sudo bash", "pip install foo", "rm -rf /".
EXECUTABLES: tuple[str, ...] = (
    "curl", "wget", "bash", "sh", "zsh", "sudo", "su", "pip", "pip3", "uv", "conda", "mamba", "micromamba", "apt",
    "apt-get", "yum", "dnf", "apk", "brew", "npm", "npx", "yarn", "pnpm", "gem", "cargo", "go", "chmod", "chown",
    "rm", "mv", "cp", "dd", "mkfs", "nc", "ncat", "socat", "ssh", "scp", "rsync", "eval", "exec", "powershell", "iex",
    "docker", "podman", "kubectl", "helm", "git", "python", "python3", "perl", "ruby", "node", "export", "source",
    "crontab", "systemctl", "iptables", "base64", "echo", "nohup", "setsid", "tee", "xargs", "env", "unset",
    "nvidia-smi", "deepspeed", "torchrun", "accelerate", "huggingface-cli", "wandb", "kill", "pkill", "reboot",
)
_INSTALL_VERBS = ("install", "add", "get", "i")

_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# "\x1b[31mERROR\x1b[0m", OSC titles "\x1b]0;title\x07": terminal sequences a log may still carry.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


def clean(text: str) -> str:
    """``text`` as a reader sees it: terminal sequences and invisible characters removed, NFKC-folded."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", _ANSI.sub("", text)))


@dataclass(frozen=True)
class Fence:
    """Per-request delimiters: ``<<<LOG 3f9a0c1b2d4e`` ... ``LOG 3f9a0c1b2d4e>>>``; a log cannot guess them."""

    nonce: str

    @classmethod
    def new(cls) -> Fence:
        return cls(secrets.token_hex(8))

    def open(self, kind: str) -> str:
        return f"<<<{kind} {self.nonce}"

    def close(self, kind: str) -> str:
        return f"{kind} {self.nonce}>>>"


# Patterns of actions. Each names the text it is for.
# "https://evil.example/x.sh", "hxxps://...", "javascript:alert(1)", "data:text/html;base64,..."
_URL = re.compile(r"(?i)\b(?:https?|hxxps?|ftp|file|javascript|vbscript|data):(?://)?[^\s<>\"'`)\]]+")
# "[docs](//evil.example/x)": a protocol-relative link
_SCHEMELESS = re.compile(r"(?i)(?<![:\w/])//[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>\"'`)\]]*")
# "www.evil.example/fix", "get.evil.sh/install": a bare domain (file names such as train.py are not domains)
_DOMAIN = re.compile(
    r"(?i)(?<![\w@./-])(?:[a-z0-9-]+\.)+(?:com|net|org|io|sh|ru|xyz|dev|ai|co|me|info|biz|app|cn|site|top|link|ly|gl|gg|"
    r"cc|tk|to|zip|click|online|live|pw|su|ws)(?![\w-])(?:/[^\s<>\"'`)\]]*)?"
)
# "<a href=...>", "<script>", "<img src=x onerror=...>", "<!-- hidden -->"
_HTML = re.compile(r"(?i)<\s*/?\s*(?:a|script|img|iframe|form|svg|object|embed|link|meta|style|input|button|details)\b|<!--")
# "```bash\ncurl ... | sh\n```": a fenced code block, its body
_FENCED = re.compile(r"(?s)(?:^|\n)[ \t]*(```+|~~~+)[^\n]*\n(.*?)(?:\n[ \t]*\1|$)")
# "`pip install foo`": inline code
_INLINE = re.compile(r"`([^`\n]+)`")
# "aW1wb3J0IG9zOyBvcy5zeXN0ZW0oImN1cmwgLi4uIik=": a long base64 blob
_BLOB = re.compile(r"(?<![\w/+=])[A-Za-z0-9+/]{40,}={0,2}(?![\w/+=])")
# "install the package torchfix", "the library evil-cuda": a package named outside a command
_PACKAGE = re.compile(r"(?i)\binstall(?:ing)?\s+(?:the\s+)?(?:python\s+)?(?:package|library|module|wheel|plugin)s?\s+[`'\"]?([\w.\-\[\]=<>~]+)")
# "curl -sSL https://x | sudo bash", "$ pip install x", "export NCCL_DEBUG=INFO": a program where a command starts
_COMMAND = re.compile(
    r"(?i)(?:^|(?<=[\s`$(|;&>]))(?:" + "|".join(re.escape(e) for e in sorted(EXECUTABLES, key=len, reverse=True)) +
    r")(?=[ \t])"
)
# "-sSL", "NCCL_DEBUG=INFO", "./run.sh", "'import": a word that is an argument of a command, not prose
_ARGUMENT = re.compile(r"^(?:-|\d+$|.*[/=:~$|.;'\"()<>&@\\*])")
# "| bash", "| sudo sh": piping into an interpreter
_PIPE_TO_SHELL = re.compile(r"\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\|\s*(?:sudo\s+)?python3?\b")
# "... | sudo bash`", "... --max_steps 3. Then": where a command written in prose ends
_CLAUSE_END = re.compile(r"`|\n|\.(?:\s|$)")
_TOKEN_EDGE = "`'\"()[]{}<>,.;:!?*"


def _norm(text: str) -> str:
    return " ".join(clean(text).split())


def _tokens(text: str) -> set[str]:
    return {t.strip(_TOKEN_EDGE) for t in clean(text).split()} - {""}


def _host_allowed(url: str) -> bool:
    parts = urlsplit(url if "//" in url[:10] else "https://" + url.lstrip("/"))
    if parts.scheme.lower() not in ("http", "https"):
        return False
    host = (parts.hostname or "").lower()
    path = parts.path or "/"
    return any(host == h and path.startswith(p) for h, p in DOC_LINKS)


class Material:
    """What an answer may take actions from: trusted text (the entry) and log lines quoted as evidence."""

    def __init__(self, trusted: Iterable[str], quoted: Iterable[str] = ()) -> None:
        texts = [*trusted, *quoted]
        self.trusted = "\n".join(_norm(t) for t in trusted)
        self.text = "\n".join(_norm(t) for t in texts)
        self.tokens: set[str] = set()
        for t in texts:
            self.tokens |= _tokens(t)

    def has_text(self, fragment: str) -> bool:
        n = _norm(fragment)
        return bool(n) and n in self.text

    def has_tokens(self, fragment: str) -> bool:
        return all(t in self.tokens for t in _tokens(fragment))


def _clause(text: str, start: int) -> str:
    """From ``start`` to the end of its clause: a closing backtick, a line end or a sentence end."""
    m = _CLAUSE_END.search(text, start)
    return text[start: m.start() if m else len(text)]


def _command(clause: str) -> str:
    """The program and its arguments at the start of ``clause`` ("pip install foo", "curl -sSL https://x |"): the
    word after the program, what follows an install verb, then words that look like arguments, up to the first
    word of prose. Empty when the program name is only a word of prose ("the python process")."""
    words = clause.split()
    taken = words[:1]
    quote = ""  # inside a quoted argument ('import os; ...'), every word belongs to the command
    for i, word in enumerate(words[1:], start=1):
        bare = word.rstrip(".,;:!?")
        after_install = words[i - 1].lower() in _INSTALL_VERBS
        if quote or _ARGUMENT.match(bare) or after_install or (
                i == 1 and bare.lower() in (*_INSTALL_VERBS, "run", "clone", "exec")):
            taken.append(word)
        else:
            break
        for ch in word:
            if ch in "'\"" and (not quote or ch == quote):
                quote = "" if quote else ch
    return " ".join(taken) if len(taken) > 1 else ""


def foreign_actions(text: str, material: Material) -> list[str]:
    """Each action in ``text`` that ``material`` does not already carry, described without repeating it."""
    found: list[str] = []
    seen = clean(text)
    if seen != unicodedata.normalize("NFKC", text) and _INVISIBLE.search(text):
        found.append("invisible characters")
    for m in [*_URL.finditer(seen), *_SCHEMELESS.finditer(seen), *_DOMAIN.finditer(seen)]:
        url = m.group(0).rstrip(".,;:!?")
        if not _host_allowed(url) and url not in material.trusted:
            found.append("a link to a host that is not on the documentation allow-list")
    if _HTML.search(seen):
        found.append("HTML markup")
    for m in _FENCED.finditer(seen):
        for line in m.group(2).splitlines():
            if line.strip() and not material.has_text(line):
                found.append("a code block that is not in the entry or the evidence")
                break
    for m in _INLINE.finditer(seen):
        if not (material.has_text(m.group(1)) or material.has_tokens(m.group(1))):
            found.append("inline code that is not in the entry or the evidence")
    for m in _COMMAND.finditer(seen):
        command = _command(_clause(seen, m.start()))
        if command and not (material.has_text(command) or material.has_tokens(command)):
            found.append("a command that is not in the entry or the evidence")
    for m in _PIPE_TO_SHELL.finditer(seen):
        line = seen[seen.rfind("\n", 0, m.start()) + 1: m.end()]
        if not material.has_text(line.strip().strip("`")):
            found.append("a command piped into a shell")
    for m in _PACKAGE.finditer(seen):
        if m.group(1).strip(_TOKEN_EDGE) not in material.tokens:
            found.append("a package that is not in the entry or the evidence")
    for m in _BLOB.finditer(seen):
        if not material.has_text(m.group(0)):
            found.append("an encoded blob")
    return sorted(set(found))


def safe_note(text: str) -> str:
    """``text`` for a note a reader sees (a fallback's reason): withheld when it would repeat a link or command."""
    if foreign_actions(text, Material([])):
        return "the details are withheld: they would repeat a link, command or code from the answer"
    return clean(text)
