"""Line-wise masking with bounded memory: the same output whether a log comes whole, in chunks or in files.

Per line: (1) multi-line state (PEM private-key blocks, netrc entries); (2) the prefilter, cached per
line *shape* (ASCII digits folded to 0, so ``step 1234 loss 2.31`` and ``step 1235 loss 2.30`` share
one verdict: triggers treat all digits alike); (3) prefixes that can hold nothing (``[rank3]:``,
timestamps) and launcher host prefixes (``gpu-node-017: ``, NCCL's ``host:pid:tid [dev]``) are split
off, so the rest of a repeated template hits the cache; (4) the recognizers on what is left, cached per
segment text. Caches belong to one run and hold spans and rendered text; they are cleared when full.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from service import linear_regex
from service.masking.engine import Masker, Span
from service.masking.kinds import KINDS
from service.masking.learned import LearnedNames
from service.masking.learned import shape as line_shape
from service.masking.pseudonyms import Pseudonyms
from service.masking.recognizers import SECRET_WORD

_MAX_SHAPES = 100_000
_MAX_SEGMENTS = 50_000

# [rank3]: | [default3]: | 3: (srun --label) | [2024-05-01 12:00:03,123] | 2024-05-01T12:00:03Z | [INFO]
_SAFE_PREFIX = linear_regex.compile(
    r"(?:\s*(?:\[(?:rank|default)?\d+\]:?|\d+:\s"
    r"|\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?"
    r"|\[(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]))+\s?"
)
# gpu-node-017: [rank3]: ... (pdsh / deepspeed launcher) | gpu-node-017:2345:2345 [3] NCCL INFO ...
_LAUNCHER_PREFIX = linear_regex.compile(r"(?P<host>[A-Za-z0-9][\w.-]*)(?::\d+:\d+ \[\d+\] |: )")
_HOST_ENTITIES = frozenset({"HOSTNAME", "IP_ADDRESS"})

# The tags that say which process printed a line; a private-key block is tracked per tag, so other
# ranks' output interleaved with rank 0's block neither ends it nor gets swallowed by it.
_STREAM_TAG = linear_regex.compile(r"(?:\s*(?:\[(?:rank|default)?\d+\]:?|\d+:\s|[A-Za-z0-9][\w.-]*:\s))*")
_MAX_OPEN_BLOCKS = 1024
_PEM_BEGIN = linear_regex.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = linear_regex.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = linear_regex.compile(r"(?:[A-Za-z0-9+/=]{8,}|(?:Proc-Type|DEK-Info|Comment):.*)\s*$")
# a whole line of key material with no prefix (the block's last line is short: 4ytDqrJ72a6crgzp07PNHVrczIiI4g==)
_PEM_BARE_BODY = linear_regex.compile(r"\s*[A-Za-z0-9+/=]*[0-9+/=][A-Za-z0-9+/=]*\s*")
_PEM_MAX_PREFIX = 64
# a pod spec's env, one entry on two lines:   - name: REDIS_PASSWORD
#                                               value: "RA5K3G6t\"9EwNsRwL!TtyVA1"
_K8S_SECRET_NAME = linear_regex.compile(
    r"^.*?-\s+name:\s*[\"']?[A-Za-z0-9_.-]*(?:(?i:password|passwd|pwd)|" + SECRET_WORD + r")[\"']?\s*$"
)
_K8S_VALUE = linear_regex.compile(
    r"^(?P<pre>.*?\bvalue:\s*)(?:\"(?:[^\"\\]|\\.)+\"|'[^']+'|[^\s\"'][^\n]*?)(?P<post>\s*)$"
)
_NETRC_WANDB_MACHINE = linear_regex.compile(r"^\s*machine\s+api\.wandb\.ai\s*$")
_NETRC_PASSWORD = linear_regex.compile(r"^(?P<pre>.*?\bpassword\s+)(?P<v>[A-Za-z0-9_-]{40,})\s*$")


def replace_spans(text: str, spans: tuple[Span, ...], placeholder: Callable[[str, str], str]) -> str:
    """Each span replaced by its placeholder, pseudonyms numbered left to right. The spans are resolved
    (sorted, never overlapping), so neighbours are not merged: "a@x.com b@x.com" is two emails."""
    out: list[str] = []
    at = 0
    for s in spans:
        out += (text[at : s.start], placeholder(s.entity, text[s.start : s.end]))
        at = s.end
    out.append(text[at:])
    return "".join(out)


class MaskState:
    """Everything one run's masking remembers: pseudonyms, counts, caches, open multi-line blocks."""

    def __init__(self) -> None:
        self.pseudonyms = Pseudonyms()
        self.counts: Counter[str] = Counter()
        self.pem_open: set[str] = set()  # stream tags with an unterminated private-key block
        self.netrc_wandb_lines = 0
        self.named_secret_lines = 0  # a Kubernetes env entry named like a secret: its value: line follows
        self.learned = LearnedNames()
        self._shapes: dict[bytes, bool] = {}
        self._segments: dict[str, tuple[str, tuple[str, ...], tuple[Span, ...]]] = {}

    def clean(self, text: str, masker: Masker, shape: bytes | None = None) -> bool:
        """True when no recognizer can fire on ``text`` (verdict cached by the line's digit-folded shape)."""
        if shape is None:
            shape = line_shape(text)
        verdict = self._shapes.get(shape)
        if verdict is None:
            verdict = not masker.may_hold(text)
            if len(self._shapes) >= _MAX_SHAPES:
                self._shapes.clear()
            self._shapes[shape] = verdict
        return verdict

    def analyse(self, text: str, masker: Masker) -> tuple[str, tuple[str, ...], tuple[Span, ...]]:
        """Masked text, the counts keys it adds and its spans: the recognizers once per distinct segment per run."""
        hit = self._segments.get(text)
        if hit is None:
            spans = masker.find(text)
            masked = replace_spans(text, spans, self.pseudonyms.placeholder) if spans else text
            for s in spans:
                self.learned.learn(s.entity, text[s.start : s.end], s.pattern)
            hit = (masked, tuple(KINDS[s.entity].key for s in spans), spans)
            if len(self._segments) >= _MAX_SEGMENTS:
                self._segments.clear()
            self._segments[text] = hit
        return hit

    def mask_learned(self, text: str) -> str:
        """Mask later mentions of learned names: /data/mchen/ckpt -> /data/<USER_1>/ckpt."""

        def replace(entity: str, value: str) -> str:
            self.counts[KINDS[entity].key] += 1
            return self.pseudonyms.placeholder(entity, value)

        return self.learned.mask(text, replace)

    def sweep(self, lines: list[str]) -> list[str]:
        """Second pass over a whole run held in memory: mentions of a name before the line that taught it.

        Streaming output (``crashdoc mask``) cannot look back; the pipeline, which holds the run, can.
        """
        if not self.learned:
            return lines
        return [self.mask_learned(line) if self.learned.may_occur(line_shape(line)) else line for line in lines]

    def segment(self, text: str, masker: Masker) -> str:
        masked, keys, _ = self.analyse(text, masker)
        if keys:
            self.counts.update(keys)
        return masked


def mask_segment(text: str, masker: Masker, state: MaskState, shape: bytes | None = None) -> str:
    """Mask one line (or part of one) with no multi-line state."""
    if not text or state.clean(text, masker, shape):
        return text
    m = _SAFE_PREFIX.match(text)
    if m and 0 < m.end() < len(text):
        return text[: m.end()] + mask_segment(text[m.end() :], masker, state)
    m = _LAUNCHER_PREFIX.match(text)
    if m and m.end() < len(text):
        head = text[: m.end()]
        spans = state.analyse(head, masker)[2]
        host = m.span("host")
        if len(spans) == 1 and spans[0].entity in _HOST_ENTITIES and (spans[0].start, spans[0].end) == host:
            return state.segment(head, masker) + mask_segment(text[m.end() :], masker, state)
    return state.segment(text, masker)


def _pem_owner(line: str, tag: str, state: MaskState) -> str | None:
    """The open block a line continues: its own tag's, or, for a bare key line, the block it must belong to.

    ``[rank3]: -----BEGIN RSA PRIVATE KEY-----`` is often followed by body lines printed without the
    rank prefix (a multi-line string logged once): a line that is nothing but key material, or the END
    marker, continues the block opened without a prefix, or the one open block when there is just one.
    """
    if tag in state.pem_open:
        return tag
    if not (_PEM_BARE_BODY.fullmatch(line, len(tag)) or _PEM_END.search(line)):
        return None
    if "" in state.pem_open:
        return ""
    return next(iter(state.pem_open)) if len(state.pem_open) == 1 else None


def _pem_continuation(line: str, tag: str, masker: Masker, state: MaskState, owner: str | None = None) -> str | None:
    """Mask a line inside an open private-key block (``owner``'s), or return None when the block has ended."""
    owner = tag if owner is None else owner
    end = _PEM_END.search(line)
    core = line[: end.start()] if end else line
    body = _PEM_BODY.search(core)
    if body is None and end is None:
        if not core[len(tag) :].strip():
            return line
        state.pem_open.discard(owner)  # a truncated block: this line is ordinary text
        return None
    start = body.start() if body else len(core)
    if start > _PEM_MAX_PREFIX:
        state.pem_open.discard(owner)
        return None
    out = mask_segment(line[:start], masker, state) + "<PRIVATE_KEY>"
    if end:
        state.pem_open.discard(owner)
        out += mask_segment(line[end.end() :], masker, state)
    return out


def mask_line(line: str, masker: Masker, state: MaskState) -> str:
    """Mask one line of a log, carrying multi-line state (PEM blocks, netrc entries, learned names)."""
    shape = line_shape(line)
    out = _mask_line(line, shape, masker, state)
    if state.learned and state.learned.may_occur(shape if out is line else line_shape(out)):
        return state.mask_learned(out)
    return out


def _mask_line(line: str, shape: bytes, masker: Masker, state: MaskState) -> str:
    tag = ""
    if state.pem_open:
        tag = _STREAM_TAG.match(line).group()  # type: ignore[union-attr]  # matches the empty string at least
        owner = _pem_owner(line, tag, state)
        if owner is not None:
            out = _pem_continuation(line, tag, masker, state, owner)
            if out is not None:
                return out
    if state.netrc_wandb_lines:
        state.netrc_wandb_lines -= 1
        m = _NETRC_PASSWORD.match(line)
        if m:
            state.counts[KINDS["WANDB_API_KEY"].key] += 1
            return mask_segment(m.group("pre"), masker, state) + "<WANDB_API_KEY>"
    if state.named_secret_lines:
        state.named_secret_lines -= 1
        m = _K8S_VALUE.match(line)
        if m:
            state.named_secret_lines = 0
            state.counts[KINDS["SECRET"].key] += 1
            return mask_segment(m.group("pre"), masker, state) + "<SECRET>" + m.group("post")
    out = mask_segment(line, masker, state, shape)
    if "name:" in line and _K8S_SECRET_NAME.match(line):
        state.named_secret_lines = 2
    if "-----BEGIN" in line:
        begin = _PEM_BEGIN.search(line)
        if begin and not _PEM_END.search(line, begin.end()) and len(state.pem_open) < _MAX_OPEN_BLOCKS:
            state.pem_open.add(_STREAM_TAG.match(line).group())  # type: ignore[union-attr]
    if "machine" in line and _NETRC_WANDB_MACHINE.match(line):
        state.netrc_wandb_lines = 3
    return out


def mask_lines_stream(lines: Iterable[str], masker: Masker, state: MaskState) -> Iterator[str]:
    """Masked lines, one per input line, in order; memory bounded by the caches, not by the input."""
    for line in lines:
        yield mask_line(line, masker, state)


def mask_chunks(chunks: Iterable[str], masker: Masker, state: MaskState) -> Iterator[str]:
    """Masked text for text arriving in arbitrary chunks (``crashdoc mask`` on a 100 MB file or stdin).

    Yields whole masked lines with their newline; a final line without one is yielded without one.
    """
    pending = ""
    for chunk in chunks:
        if not chunk:
            continue
        pending += chunk
        if "\n" not in chunk:
            continue
        *complete, pending = pending.split("\n")
        for line in complete:
            yield mask_line(line, masker, state) + "\n"
    if pending:
        yield mask_line(pending, masker, state)
