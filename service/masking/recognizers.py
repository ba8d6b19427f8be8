"""The ONE registry of masking recognizers, in priority order (earlier wins a tie on the same span).

Each entry is a declaration: the Presidio entity it yields, a cheap ``trigger`` (a regex that must
match wherever one of its patterns can, so lines without it never reach Presidio), and patterns, each
with a comment naming the real log line it is for. A named group ``v`` narrows the masked span to the
value, so context words (``MASTER_ADDR=``, ``Bearer``) stay readable. Triggers treat all ASCII digits
alike (``\\d``, ``[0-9]``): the prefilter caches its verdict per line shape (digits folded to 0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import regex
from presidio_analyzer import (
    AnalysisExplanation,
    EntityRecognizer,
    Pattern,
    PatternRecognizer,
    RecognizerResult,
)
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    EmailRecognizer,
    IbanRecognizer,
    IpRecognizer,
    MacAddressRecognizer,
)

from service.masking import checks

Check = Callable[[str, "regex.Match[str]", int, int], bool]


class LogPatternRecognizer(PatternRecognizer):
    """A Presidio PatternRecognizer that masks the ``v`` group when there is one and runs a context check."""

    def __init__(self, entity: str, name: str, patterns: list[tuple[Pattern, Check | None]]) -> None:
        super().__init__(
            supported_entity=entity, name=name, patterns=[p for p, _ in patterns], global_regex_flags=regex.MULTILINE
        )
        self._compiled = [(p, regex.compile(p.regex, regex.MULTILINE), check) for p, check in patterns]
        self._name = name
        self._entity = entity

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):  # type: ignore[no-untyped-def]
        results: list[RecognizerResult] = []
        for pattern, rx, check in self._compiled:
            has_v = "v" in rx.groupindex
            for m in rx.finditer(text):
                start, end = m.span("v") if has_v else m.span()
                if start < 0 or start == end:
                    continue
                if check is not None and not check(text, m, start, end):
                    continue
                explanation = AnalysisExplanation(
                    recognizer=self._name,
                    original_score=pattern.score,
                    pattern_name=pattern.name,
                    pattern=pattern.regex,
                    validation_result=check is not None,
                )
                results.append(
                    RecognizerResult(
                        entity_type=self._entity,
                        start=start,
                        end=end,
                        score=pattern.score,
                        analysis_explanation=explanation,
                        recognition_metadata={
                            RecognizerResult.RECOGNIZER_NAME_KEY: self._name,
                            RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                        },
                    )
                )
        return EntityRecognizer.remove_duplicates(results)


_IPV6 = next(p.regex for p in IpRecognizer.PATTERNS if p.name == "IPv6")


class LogIpRecognizer(IpRecognizer):
    """Presidio's IP recognizer, keeping loopback and unspecified addresses (127.0.0.1, ::1, 0.0.0.0)."""

    # NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:fe80::1c2:3dff:fe4e:5f60%eth0<0>
    # (the stock IPv6 pattern refuses a colon before the address; here an interface name precedes it)
    PATTERNS = [
        *IpRecognizer.PATTERNS,
        Pattern("IPv6 after interface", r"(?<=\b[A-Za-z][A-Za-z0-9]{0,15}:)" + _IPV6.removeprefix(r"(?<![\w:])"), 0.6),
    ]

    def invalidate_result(self, pattern_text: str) -> bool:
        return bool(super().invalidate_result(pattern_text)) or checks.is_loopback(pattern_text.split("/")[0])


class LogEmailRecognizer(EmailRecognizer):
    """Presidio's email recognizer with an offline suffix check that also accepts cluster domains."""

    def validate_result(self, pattern_text: str) -> bool:
        return checks.email_domain_ok(pattern_text)


class LogMacRecognizer(MacAddressRecognizer):
    """Presidio's MAC recognizer, minus all-decimal dash groups (a run dir named 24-05-01-12-00-03)."""

    def invalidate_result(self, pattern_text: str) -> bool:
        if "-" in pattern_text and pattern_text.replace("-", "").isdigit():
            return True
        return bool(super().invalidate_result(pattern_text))


@dataclass(frozen=True)
class P:
    """One pattern: a name (shown in the analysis explanation), a regex, and an optional own check."""

    name: str
    regex: str
    check: Check | None = None


@dataclass(frozen=True)
class Entry:
    entity: str
    trigger: str
    patterns: tuple[P, ...] = ()
    check: Check | None = None  # the default check for patterns without their own
    stock: Callable[[], EntityRecognizer] | None = None  # a Presidio recognizer class, as is or lightly extended
    score: float = 0.9
    name: str = field(default="")

    def build(self) -> EntityRecognizer:
        if self.stock is not None:
            return self.stock()
        pats = [(Pattern(p.name, p.regex, self.score), p.check or self.check) for p in self.patterns]
        return LogPatternRecognizer(self.entity, self.name or f"{self.entity.lower()}_recognizer", pats)


# ---------------------------------------------------------------- checks


def _value(min_len: int = 1) -> Check:
    return lambda text, m, s, e: checks.is_real_value(text[s:e], min_len)


_SPECIAL_TOKEN_KEY = regex.compile(
    r"(?i)(?:^|[_.-])(?:pad|eos|bos|unk|sep|cls|mask|special|start|end|image|img|audio|video|sot|eot|"
    r"decoder_start|additional_special|chat|default|max|num|n)_?tokens?$"
)


def _secret_setting(text: str, m: regex.Match[str], s: int, e: int) -> bool:
    key = m.group("k") if "k" in m.re.groupindex and m.group("k") else ""
    if key and _SPECIAL_TOKEN_KEY.search(key):
        return False  # pad_token=<pad>, eos_token: </s>: tokenizer settings, not credentials
    if text[: m.start()].endswith("://"):
        return False  # https://x-access-token:ghs_...@github.com: the URL password pattern owns it
    return checks.is_real_value(text[s:e], 8)


def _has_digit(text: str, m: regex.Match[str], s: int, e: int) -> bool:
    return any(c.isdigit() for c in text[s:e])


def _fqdn(text: str, m: regex.Match[str], s: int, e: int) -> bool:
    if text[e : e + 1] == "(" or checks.in_python_context(text, s):
        return False  # self.net(x), import foo.bar.com-style module paths
    return checks.is_fqdn(text[s:e])


def _node(text: str, m: regex.Match[str], s: int, e: int) -> bool:
    return checks.is_node_name(text[s:e])


def _hostish(text: str, m: regex.Match[str], s: int, e: int) -> bool:
    return checks.is_hostish(text[s:e])


def _user(text: str, m: regex.Match[str], s: int, e: int) -> bool:
    v = text[s:e]
    return checks.is_real_value(v) and v not in {"root", ".", ".."}


# ---------------------------------------------------------------- shared fragments

_SEP = r"[\"']?\s*[:=]\s*[\"']?"  # KEY=value, KEY: value, "key": "value"
_UNQUOTED = r"(?P<v>[^\s\"',;&)}\]]+)"
_QUOTED = r"\s*[:=]\s*([\"'])(?P<v>[^\"'\n]+)\1"
_PW_KEY = (
    r"(?:\b[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE)|\b[A-Z0-9_]+_(?:PASS|PWD)"
    r"|(?<![A-Za-z])(?i:password|passwd|passphrase)|(?<=[_.-])(?i:pass|pwd))"
)
_SECRET_KEY = (
    r"(?P<k>\b[A-Z0-9_]*(?:SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH_KEY)"
    r"|(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*(?i:secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|credentials?|auth[_-]?key))"
)
_HOST_WORDS = r"(?:ip|node|gpu|dgx|compute|hpc|nid|login|worker|host|srv|server|vm|cn|gn)"
_NODE_ELEM = r"[A-Za-z0-9][\w.-]*(?:\[[\d,-]+\][\w.-]*)?"
_TLDS = "|".join(
    sorted(checks.CLUSTER_SUFFIXES | checks.STRONG_TLDS | checks.WEAK_TLDS | checks.FILE_LIKE_TLDS, key=len, reverse=True)
)

# ---------------------------------------------------------------- the registry

REGISTRY: list[Entry] = [
    # {"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQ...\n-----END PRIVATE KEY-----\n"}
    # [rank0]: -----BEGIN OPENSSH PRIVATE KEY-----   (a multi-line block: the stream masks the lines after it)
    Entry(
        "PRIVATE_KEY",
        trigger=r"-----BEGIN",
        patterns=(
            P("pem private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?!-----END).)*"
                r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\\n)?)?",
            ),
        ),
        score=1.0,
    ),
    # "private_key_id": "8f3e0c6b1d2a4f5e9c7b3a1d0e2f4a6b8c9d0e1f",   (GCP service-account JSON)
    Entry(
        "GCP_KEY_ID",
        trigger=r"private_key_id",
        patterns=(P("gcp sa key id", r"(?<=\"private_key_id\"\s*:\s*\")[0-9a-f]{40}(?=\")"),),
    ),
    # botocore.credentials: Found credentials in environment variables. AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE
    Entry(
        "AWS_ACCESS_KEY",
        trigger=r"A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)",
        patterns=(P("aws key id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b"),),
    ),
    # aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY   ('SecretAccessKey': '...' in boto debug)
    Entry(
        "AWS_SECRET_KEY",
        trigger=r"(?i:secret_?access_?key|aws_?secret)",
        patterns=(
            P("aws secret after its key name", r"(?<=(?i:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)" + _SEP + r")"
                r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
            ),
        ),
    ),
    # google.api_core.exceptions.Forbidden: 403 ... ?key=AIzaSyD-EXAMPLEEXAMPLEEXAMPLEEXAMPLE12
    Entry("GCP_API_KEY", trigger=r"AIza", patterns=(P("google api key", r"\bAIza[0-9A-Za-z_-]{30,}"),)),
    # AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=...;EndpointSuffix=core.windows.net
    Entry(
        "AZURE_CONNECTION_STRING",
        trigger=r"DefaultEndpointsProtocol=|Endpoint=sb://|AccountEndpoint=",
        patterns=(
            P("azure storage connection string", r"DefaultEndpointsProtocol=[^\s;\"']+(?:;[A-Za-z]+=[^\s;\"']*)+;?"),
            P("azure service bus connection string", r"Endpoint=sb://[^\s;\"']+(?:;[A-Za-z]+=[^\s;\"']*)+;?"),
            P("azure cosmos connection string", r"AccountEndpoint=https://[^\s;\"']+(?:;[A-Za-z]+=[^\s;\"']*)+;?"),
        ),
    ),
    # AccountKey=abc...==  |  https://acct.blob.core.windows.net/ckpt?sv=2022-11-02&sig=abc%2Bdef...  |  AZURE_STORAGE_KEY=...
    Entry(
        "AZURE_KEY",
        trigger=r"AccountKey=|SharedAccess|sig=|AZURE_",
        patterns=(
            P("azure account key", r"(?<=\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=)[A-Za-z0-9+/=%]{16,}"),
            P("azure sas signature", r"(?<=[?&]sig=)[A-Za-z0-9%+/=]{16,}"),
            P("azure key setting", r"(?<=\bAZURE_[A-Z_]*(?:KEY|SECRET)" + _SEP + r")[A-Za-z0-9+/=._~-]{16,}"),
        ),
    ),
    # huggingface_hub: Token is valid. ... HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567
    Entry("HF_TOKEN", trigger=r"hf_|api_org_", patterns=(P("hugging face token", r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,}\b"),)),
    # anthropic.AuthenticationError ... ANTHROPIC_API_KEY=sk-ant-api03-...
    Entry("ANTHROPIC_KEY", trigger=r"sk-ant-", patterns=(P("anthropic key", r"\bsk-ant-[A-Za-z0-9_-]{32,}"),)),
    # openai.AuthenticationError: Incorrect API key provided: sk-proj-...   |  OPENAI_API_KEY=sk-...
    Entry(
        "OPENAI_KEY",
        trigger=r"sk-",
        patterns=(P("openai key", r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{32,}"),),
        check=_has_digit,
    ),
    # remote: Invalid username or password ... https://x-access-token:ghs_...@github.com/org/repo
    Entry(
        "GITHUB_TOKEN",
        trigger=r"gh[pousr]_|github_pat_",
        patterns=(
            P("github token", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
            P("github fine-grained pat", r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"),
        ),
    ),
    # CI_JOB_TOKEN=... git clone https://oauth2:glpat-xxxxxxxxxxxxxxxxxxxx@gitlab.example.com/...
    Entry(
        "GITLAB_TOKEN",
        trigger=r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-",
        patterns=(P("gitlab token", r"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}"),),
    ),
    # slack_sdk ... POST https://hooks.slack.com/services/T0000/B0000/XXXXXXXX
    Entry(
        "SLACK_WEBHOOK",
        trigger=r"hooks\.slack\.com",
        patterns=(P("slack webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),),
    ),
    # SLACK_BOT_TOKEN=xoxb-1234-5678-AbCdEf...  |  xapp-1-A0123-456-abcdef...
    Entry(
        "SLACK_TOKEN",
        trigger=r"xox[abposre]-|xapp-",
        patterns=(
            P("slack token", r"\bxox[abposre]-(?:[0-9]+-)*[A-Za-z0-9-]{10,}"),
            P("slack app token", r"\bxapp-\d-[A-Za-z0-9-]{10,}"),
        ),
    ),
    # WANDB_API_KEY=0123...  |  $ wandb login 0123...  |  wandb.login(key="...")  |  machine api.wandb.ai login user password 0123...
    # (a 40-hex string is a W&B key only in a W&B context: elsewhere it is a git SHA and stays)
    Entry(
        "WANDB_API_KEY",
        trigger=r"WANDB_API_KEY|wandb",
        patterns=(
            P("wandb env", r"(?<=\bWANDB_API_KEY" + _SEP + r")[A-Za-z0-9_-]{40,}"),
            P("wandb login cli", r"(?<=\bwandb\s+login\s+(?:--?[\w-]+(?:=\S+)?\s+)*)[A-Za-z0-9_-]{40,}"),
            P("wandb.login(key=)", r"(?<=\bwandb\.login\([^)]*?\bkey\s*=\s*[\"'])[A-Za-z0-9_-]{40,}"),
            P("wandb netrc line", r"(?<=\bmachine\s+api\.wandb\.ai\s+login\s+\S+\s+password\s+)[A-Za-z0-9_-]{40,}"),
        ),
    ),
    # databricks.sdk ... DATABRICKS_TOKEN=dapi0123456789abcdef0123456789abcdef
    Entry("DATABRICKS_TOKEN", trigger=r"dapi", patterns=(P("databricks token", r"\bdapi[0-9a-f]{32}(?:-\d)?\b"),)),
    # twine upload ... TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmc...
    Entry("PYPI_TOKEN", trigger=r"pypi-", patterns=(P("pypi token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),)),
    # //registry.npmjs.org/:_authToken=npm_AbC...
    Entry("NPM_TOKEN", trigger=r"npm_", patterns=(P("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),)),
    # STRIPE_API_KEY=sk_live_...   (a billing callback in a training script's env dump)
    Entry("STRIPE_KEY", trigger=r"k_live_|k_test_", patterns=(P("stripe key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),)),
    # Authorization: Bearer eyJhbGciOiJIUzI1NiIs...   |  token=eyJ...
    Entry("JWT", trigger=r"eyJ", patterns=(P("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),)),
    # curl -H "Authorization: Bearer abc123..."  |  headers={'Authorization': 'token ...'}
    Entry(
        "BEARER_TOKEN",
        trigger=r"(?i:bearer|authorization)",
        patterns=(
            P("bearer token", r"(?<=\b(?i:bearer)\s+)[A-Za-z0-9._~+/-]{16,}=*"),
            P("authorization header", r"(?<=\b(?i:authorization)" + _SEP + r"(?:(?i:basic|token|bearer)\s+)?)[A-Za-z0-9._~+/-]{16,}=*",
            ),
        ),
    ),
    # postgresql://alice:hunter2@db.corp.internal:5432/mlflow  |  DB_PASSWORD=hunter2  |  --password hunter2
    # netrc:   password hunter2
    Entry(
        "PASSWORD",
        trigger=r"pass|Pass|PASS|_PWD|_pwd|-pwd|\.pwd|://",
        patterns=(
            P("password in url", r"(?<=\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:)(?P<v>[^\s@/]+)(?=@)"),
            P("password setting quoted", _PW_KEY + r"[\"']?" + _QUOTED),
            P("password setting", _PW_KEY + _SEP + _UNQUOTED),
            P("password flag", r"--(?:[A-Za-z0-9]+[-_])*(?:password|passwd|passphrase|pass)(?:=|\s+)(?P<v>[^\s\"'-][^\s\"']*)"),
            P("netrc password line", r"^\s*password\s+(?P<v>\S+)\s*$"),
            P("netrc inline", r"\bmachine\s+\S+\s+login\s+\S+\s+password\s+(?P<v>\S+)"),
        ),
        check=_value(1),
        score=1.0,
    ),
    # MLFLOW_TRACKING_TOKEN=...  |  "client_secret": "..."  |  --hf_token abc...  |  api_key: ...
    Entry(
        "SECRET",
        trigger=r"(?i:secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth[_-]?key)(?:[\"']?\s*[:=]|\s)",
        patterns=(
            P("secret setting quoted", _SECRET_KEY + r"[\"']?" + _QUOTED),
            P("secret setting", _SECRET_KEY + _SEP + _UNQUOTED),
            P("secret flag", r"--(?P<k>(?:[A-Za-z0-9]+[-_])*(?:token|secret|api[-_]?key|access[-_]?key))(?:=|\s+)(?P<v>[^\s\"'-][^\s\"']*)",
            ),
        ),
        check=_secret_setting,
    ),
    # print(batch) ... 'text': 'my card is 4111 1111 1111 1111'   (personal data inside printed samples)
    Entry("CREDIT_CARD", trigger=r"\d{4}[- ]?\d{3,4}[- ]?\d{3,4}[- ]?\d{3}", stock=CreditCardRecognizer),
    # ... 'iban': 'DE89 3704 0044 0532 0130 00'
    Entry("IBAN_CODE", trigger=r"[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2}", stock=IbanRecognizer),
    # wandb: Currently logged in as: alice@example.com  |  git config user.email alice@corp.internal
    Entry("EMAIL_ADDRESS", trigger=r"@", stock=LogEmailRecognizer),
    # File "/home/alice/llm/train.py", line 88  |  SLURM_JOB_USER=alice  |  C:\Users\alice\  |  alice@gpu-node-017:~$
    Entry(
        "USERNAME",
        trigger=r"/home/|/Users/|Users\\|Users/|USER|LOGNAME|@|wandb\.ai/|logged in as|(?i:user ?id|uid)\s*=|login\s|-U|--(?:db[_-])?user",
        patterns=(
            P("home dir", r"/home/(?P<v>[A-Za-z0-9._-]+)"),
            P("macos home dir", r"/Users/(?P<v>[A-Za-z0-9._-]+)"),
            P("windows home dir", r"(?i:\b[A-Z]:(?:\\\\|\\|/)Users(?:\\\\|\\|/))(?P<v>[^\\/\s\"':*?<>|]+)"),
            P("user env", r"(?<![A-Za-z0-9_])(?:SLURM_JOB_USER|SLURM_USER|USER|LOGNAME|USERNAME|SUDO_USER|PBS_O_LOGNAME|LSB_USER)"
                + _SEP
                + r"(?P<v>[A-Za-z0-9._-]+)",
            ),
            # psql -h db.corp.internal -U alice  |  --username alice
            P("psql user flag", r"(?<=\bpsql\b[^\n]*?\s-U\s*)(?P<v>[A-Za-z0-9._-]+)"),
            P("user flag", r"--(?:db[_-])?user(?:name)?(?:=|\s+)(?P<v>[A-Za-z0-9._-]+)"),
            P("odbc user id", r"(?i:\buser\s?id|\buid)\s*=\s*(?P<v>[^;\s\"']+)"),
            P("shell prompt", r"\b(?P<v>[a-z_][a-z0-9_-]*)@(?=[A-Za-z0-9][\w.-]*:[~/])"),
            P("user in url", r"(?<=\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<v>[^\s:/@]+)(?=(?::[^\s@/]*)?@)"),
            P("wandb entity", r"(?<=\bwandb\.ai/)(?P<v>[A-Za-z0-9_-]+)(?=/)"),
            P("wandb logged in", r"(?<=\blogged in as:?\s+)(?P<v>[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)(?![\w@])"),
            # wandb: Currently logged in as: alice (alice-team). Use `wandb login --relogin` to force relogin
            P("wandb team", r"(?<=\blogged in as:?\s+\S+\s+\()(?P<v>[A-Za-z0-9_-]+)(?=\))"),
            P("netrc inline login", r"\bmachine\s+\S+\s+login\s+(?P<v>\S+)"),
            P("netrc login line", r"^\s*login\s+(?P<v>[\w.@+-]+)\s*$"),
        ),
        check=_user,
    ),
    # torch.distributed.DistNetworkError: ... gpu-node-017.cluster.internal:29500  |  NCCL prefixes, MASTER_ADDR=
    Entry(
        "HOSTNAME",
        trigger=(
            r"\.(?i:" + _TLDS + r")\b|ip-\d|node|gpu|dgx|compute|hpc|nid|login|worker|host|srv|server|vm|cn\d|gn\d"
            r"|ADDR|HOST|NODENAME|NODE_NAME|[Hh]ostname|[Cc]onnect|resolve|NODELIST|[Nn]ode[Ll]ist|[Nn]odes|machine"
            r"|:\d+:\d+ \[\d+\]|\[[A-Za-z][\w.-]*:\d+\]|@|://"
        ),
        patterns=(
            # [E socket.cpp:957] [c10d] The client socket has timed out ... (gpu-node-017.cluster.internal, 29500)
            P(
                "fqdn",
                r"(?<![\w.-])(?P<v>(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63})(?![\w-]|\.[\w-])",
                _fqdn,
            ),
            # gpu-node-017:2345:2345 [3] NCCL INFO ...  |  ip-10-0-3-17  |  nid001234
            P("node name", r"(?<![\w.-])(?P<v>(?:[a-z0-9]+-)*" + _HOST_WORDS + r"(?:-?[a-z0-9]+)*)(?![\w-]|\.[\w-])", _node),
            # SLURM_JOB_NODELIST=gpu-node-[001-004,017]
            P("node range", r"(?<![\w.-])(?P<v>(?:[a-z0-9]+-)*" + _HOST_WORDS + r"-?\[[\d,-]+\][\w-]*)", _node),
            P("node list", r"(?<=(?i:nodelist|node_list|nodenames?|(?<![A-Za-z_])nodes)" + _SEP + r"(?:" + _NODE_ELEM + r",)*)"
                r"(?P<v>" + _NODE_ELEM + r")",
            ),
            # MASTER_ADDR=trainer-0  |  SLURMD_NODENAME=a100x8-17  |  HOSTNAME=box17
            P("host env", r"(?<![A-Za-z0-9_])(?:[A-Z0-9_]*_)?(?:ADDR|HOST|HOSTNAME|NODENAME|NODE_NAME)" + _SEP + r"(?P<v>[A-Za-z0-9][\w.-]*)",
            ),
            P("host flag", r"--(?:master[_-]addr|master[_-]host|rdzv[_-]endpoint|host|hostname|node[_-]ip)(?:=|\s+)(?P<v>[A-Za-z0-9][\w.-]*)"),
            P("hostname context", r"(?i:\bhostname)[\"']?\s*(?:[:=]|\bis\b)?\s*[\"']?(?P<v>[A-Za-z0-9][\w.-]*)"),
            # torchelastic ChildFailedError summary:   host      : gpu-node-017.cluster.internal
            P("host field", r"\b(?i:host)\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9][\w.-]*)"),
            P("connection context", r"(?i:\bconnection to|\bconnect to|\bconnecting to|\bconnected to|\bresolve host(?:name)?:?|\bunknown host"
                r"|\bunreachable host|\bfrom host|\bon host)\s+[\"'(\[]?(?P<v>[A-Za-z0-9][\w.-]*)",
            ),
            P("nccl prefix", r"^\s*(?P<v>[A-Za-z0-9][\w.-]*):\d+:\d+ \[\d+\]"),
            P("host:rank tag", r"\[(?P<v>[A-Za-z][\w.-]*):\d+\]"),
            P("shell prompt host", r"(?<=\b[a-z_][a-z0-9_-]*@)(?P<v>[A-Za-z0-9][\w.-]*)(?=:[~/])"),
            P("url host", r"(?<=\b[a-z][a-z0-9+.-]*://(?:[^\s/@]*@)?)(?P<v>[A-Za-z0-9][\w.-]*)(?=[:/\s\"']|$)"),
            P("netrc machine", r"\bmachine\s+(?P<v>[A-Za-z0-9][\w.-]*)"),
        ),
        check=_hostish,  # context patterns: the value must look like a machine, not "localhost" or "memory"
    ),
    # NCCL INFO NET/Socket : Using [0]eth0:10.0.3.17<0>  |  fe80::1c2:3dff:fe4e:5f60%ib0
    Entry("IP_ADDRESS", trigger=r"\.\d{1,3}\.\d{1,3}\.\d|::|:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:", stock=LogIpRecognizer),
    # 2: ib0: <BROADCAST,MULTICAST,UP> ... link/infiniband ... link/ether 00:1b:21:3a:4f:5c
    Entry(
        "MAC_ADDRESS",
        trigger=r":[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:|-[0-9A-Fa-f]{2}-[0-9A-Fa-f]{2}-|\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}",
        stock=LogMacRecognizer,
    ),
]
