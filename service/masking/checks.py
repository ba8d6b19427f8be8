"""Validators the recognizers call on a match: is this dotted name a host, is this value a real secret.

Hostname precision matters as much as recall: ``torch.distributed.run`` ends in a real gTLD (.run),
``train.py`` in Paraguay's and ``model.pt`` in Portugal's, so a public-suffix lookup alone would mask
half a traceback. A dotted name is a host only when its suffix is a cluster suffix or a curated TLD
that code and file names do not end with, and it does not sit in Python context.
"""

from __future__ import annotations

import base64
import ipaddress
import math
import re
from collections import Counter
from functools import lru_cache
from typing import Any

from service import linear_regex
from service.masking.presidio_loader import import_presidio


def words(text: str) -> frozenset[str]:
    """A word list written as prose."""
    return frozenset(text.split())


@lru_cache(maxsize=1)
def offline_tld() -> Any:
    """The bundled public-suffix snapshot, never a download (suffix_list_urls=() and no cache directory).
    Imported on the first email candidate: tldextract brings requests and urllib3, and most logs hold none."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)


# Private and cluster-internal suffixes: gpu-node-017.cluster.internal, ip-10-0-3-17.ec2.internal.
# ("example" is reserved for documentation, RFC 2606: logs written against it name internal hosts too)
CLUSTER_SUFFIXES = words("internal local localdomain lan corp intra intranet cluster svc priv private home arpa example")
# Generic TLDs that Python attributes and file names practically never end with.
STRONG_TLDS = words("com net org edu gov mil")
# Other TLDs: a host only with three labels or more, or a digit or hyphen in the first label
# (tf.io, np.ma and x.ai are code; gpu-1.example.de and lab.cs.example.ac.uk are hosts).
WEAK_TLDS = words(
    """io ai co cloud biz info tech dev us uk de fr jp cn kr ca au nl ch se no fi dk it es pl ru br sg hk
    tw il ie at be cz eu nz za mx ar tr gr hu ro sk si lt lv ee is lu vn th ph ae sa ua cl pe"""
)
# TLDs that are also file extensions (.sh .so .md .cc .cu .pt .py .pl .rs .in .mk .am .ac .la .ps .pm):
# a host only under a registry second level, as in iitb.ac.in.
FILE_LIKE_TLDS = words("sh so md cc cu pt py pl rs in mk am ac la ps pm ml ts js gz")
REGISTRY_SECOND_LEVELS = words("ac co com edu gov org net")

# Public service hosts that are diagnostic, not private: "Connection to huggingface.co timed out".
PUBLIC_HOSTS = words(
    """huggingface.co hf.co cdn-lfs.huggingface.co cdn-lfs.hf.co cas-bridge.xethub.hf.co github.com
    api.github.com raw.githubusercontent.com objects.githubusercontent.com codeload.github.com
    gitlab.com pypi.org files.pythonhosted.org download.pytorch.org pytorch.org discuss.pytorch.org
    wandb.ai api.wandb.ai docs.wandb.ai nvidia.com docs.nvidia.com developer.nvidia.com
    developer.download.nvidia.com nvcr.io docker.io registry-1.docker.io ghcr.io quay.io anaconda.org
    conda.anaconda.org repo.anaconda.com s3.amazonaws.com storage.googleapis.com www.googleapis.com
    oauth2.googleapis.com login.microsoftonline.com api.openai.com api.anthropic.com slack.com
    stackoverflow.com docs.python.org bitbucket.org registry.npmjs.org registry.yarnpkg.com"""
)

# First labels of Python dotted paths seen in tracebacks: self.net, np.ma, tf.io, model.net are code.
PYTHON_ROOTS = words(
    """self cls torch np numpy tf jax jnp os sys nn pd math json re time logging args config cfg model
    module opt optimizer trainer accelerator scheduler dataset loader batch x y out ctx"""
)

# Vendor domains whose every subdomain is public: "Get:1 http://azure.archive.ubuntu.com/ubuntu jammy".
# (Not amazonaws.com, googleapis.com or windows.net: their subdomains name customers' buckets.)
PUBLIC_DOMAINS = words(
    """nvidia.com ubuntu.com debian.org pytorch.org python.org pypi.org pythonhosted.org huggingface.co
    hf.co github.com githubusercontent.com gitlab.com anaconda.org anaconda.com conda.io conda-forge.org
    docker.io docker.com nvcr.io ghcr.io quay.io wandb.ai npmjs.org npmjs.com microsoft.com
    readthedocs.io tensorflow.org kaggle.com openai.com anthropic.com launchpad.net kernel.org"""
)

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})

_PYTHON_CONTEXT = linear_regex.compile(r"(?:\bimport\s+|\bfrom\s+|\s-m\s+|File \"|module ['\"]|\bself\.|\bcls\.)$")
_HOST_WORD = linear_regex.compile(r"(?:node|gpu|dgx|compute|hpc|nid|login|worker|host|srv|server|vm|cn|gn)")
_NODE_DIGITS = linear_regex.compile(r"^(?:node|nid|cn|gn|compute|login|dgx|worker|srv|server|host|vm)\d+$")
_IPV4ISH = linear_regex.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_NOT_HOST_WORDS = linear_regex.compile(r"^(?:rank|local_rank|cuda|gpu|cpu|device|step|epoch|default|node|worker)\d*$")

_PLACEHOLDER_VALUE = linear_regex.compile(
    r"^(?:none|null|nil|true|false|yes|no|on|off|undefined|redacted|masked|hidden|secret|password|"
    r"changeme_?placeholder|x+|\*+|\.+|-+)$|^[\[{]|^\*{3,}|^\$\{|^\$[A-Za-z_]\w*$|^data\+omitted$|^redacted\+?"  # $VAR, ${VAR}: a reference
    # [MASKED], {password} (a template); ****a1b2 (a tool showing the last characters only); not *9t1m3zl, a password
    # <redacted>, <HF_TOKEN_2> (a placeholder, ours or another tool's); %VAR% (Windows), %(password)s, %s (a format)
    r"|^<[\w .:-]*>?$|^%\w+%$|^%(?:\(\w+\))?[sdr]$",
    re.IGNORECASE,
)


def is_loopback(value: str) -> bool:
    """localhost, 127.0.0.0/8, ::1, 0.0.0.0 and :: stay: they name no machine."""
    v = value.lower().rstrip(".")
    if v in LOOPBACK_NAMES:
        return True
    try:
        ip = ipaddress.ip_address(v.split("%")[0])
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def is_public_host(name: str) -> bool:
    low = name.lower().rstrip(".")
    return low in PUBLIC_HOSTS or any(low == d or low.endswith("." + d) for d in PUBLIC_DOMAINS)


def _labels_ok(labels: list[str]) -> bool:
    return all(lab and not lab.startswith("-") and not lab.endswith("-") for lab in labels)


@lru_cache(maxsize=65536)
def is_fqdn(name: str) -> bool:
    """True for a dotted name that is a host by its suffix (gpu-node-017.cluster.internal, db.example.com)."""
    low = name.lower().rstrip(".")
    if low in LOOPBACK_NAMES or is_public_host(low):
        return False
    if name != low and name != name.upper():
        return False  # camelCase labels are code: torch.cuda.OutOfMemoryError
    labels = low.split(".")
    if len(labels) < 2 or not _labels_ok(labels) or labels[-1].isdigit() or labels[0] in PYTHON_ROOTS:
        return False
    tld = labels[-1]
    if tld in CLUSTER_SUFFIXES or tld in STRONG_TLDS:
        return True
    if tld in FILE_LIKE_TLDS:
        return len(labels) >= 3 and labels[-2] in REGISTRY_SECOND_LEVELS
    if tld in WEAK_TLDS:
        first = labels[0]
        return len(labels) >= 3 or any(c.isdigit() or c == "-" for c in first)
    return False


def in_python_context(text: str, start: int) -> bool:
    """True when the name at ``start`` follows ``import``, ``from``, ``-m``, ``File "``, ``self.``."""
    return bool(_PYTHON_CONTEXT.search(text[max(0, start - 12) : start]))


@lru_cache(maxsize=65536)
def is_node_name(name: str) -> bool:
    """True for a bare cluster node name: gpu-node-017, node017, nid001234, dgx-a100-03, ip-10-0-3-17."""
    low = name.lower()
    if not any(c.isdigit() for c in low) or _NOT_HOST_WORDS.match(low):
        return False
    if low.startswith("ip-"):
        return True
    if not _HOST_WORD.search(low):
        return False
    if "[" in low:
        return True  # a Slurm range: gpu-node-[001-004,017]
    if not low[-1].isdigit():
        return False  # node-html5shiv is a package; node names end in their number
    return "-" in low or bool(_NODE_DIGITS.match(low)) or bool(re.search(r"\d{3,}", low))


_FILE_SUFFIXES = FILE_LIKE_TLDS | {"json", "yaml", "yml", "txt", "log", "h", "c", "cpp", "safetensors", "bin", "ckpt"}


@lru_cache(maxsize=65536)
def is_host_value(value: str, strong: bool) -> bool:
    """A value in host context names a machine. Strong contexts (MASTER_ADDR=, hostname:, a shell prompt,
    an NCCL prefix) take any name; weak ones (Connection to, a URL) need a digit, dot or hyphen in it."""
    v = value.rstrip(".:")
    if not v or is_loopback(v) or _IPV4ISH.match(v) or is_public_host(v) or not is_real_value(v):
        return False
    if not any(c.isalpha() for c in v):
        return False  # "nodes: 2", an IP or a port: not a machine name
    dotted_code = v.rsplit(".", 1)[-1].lower() in _FILE_SUFFIXES or v != v.lower()
    if "." in v and dotted_code and not is_fqdn(v):
        return False  # a file name or a Python path, not a host
    if strong:
        return True
    if _NOT_HOST_WORDS.match(v.lower()):
        return False
    return any(c.isdigit() or c in "-." for c in v)


def is_real_value(value: str, min_len: int = 1) -> bool:
    """False for placeholders and empty settings: None, ***, <redacted>, ${VAR}, $VAR, [MASKED]."""
    v = value.strip("\"' ")
    return len(v) >= min_len and not _PLACEHOLDER_VALUE.search(v)


def email_domain_ok(email: str) -> bool:
    """An email whose domain has a public suffix (offline snapshot) or a cluster-internal one."""
    local, _, domain = email.lower().rstrip(".").rpartition("@")
    if local == "git" and is_public_host(domain):
        return False  # git@github.com:org/repo.git is an SSH remote, not a person
    if domain.rsplit(".", 1)[-1] in CLUSTER_SUFFIXES:
        return True
    return bool(offline_tld()(domain).suffix)


# ---------------------------------------------------------------- checks on a match: (text, match, start, end)

_SPECIAL_TOKEN_KEY = linear_regex.compile(
    r"(?i)(?:^|[_.-])(?:pad|eos|bos|unk|sep|cls|mask|special|start|end|image|img|audio|video|sot|eot|"
    r"decoder_start|additional_special|chat|default|max|num|n)_?tokens?$"
)


_PROSE_WORDS = words("via from stdin file is was for the required given authentication failed and or to in on")


def password_in_prose(text: str, m: Any, s: int, e: int) -> bool:
    """``with password uFP9dCt,4Nnb``: a value with a digit in it, not ``password authentication failed``."""
    v = text[s:e].rstrip(".,;)")
    return any(c.isdigit() for c in v) and v.lower() not in _PROSE_WORDS and is_real_value(v, 6)


def value_at_least(min_len: int):  # type: ignore[no-untyped-def]
    return lambda text, m, s, e: is_real_value(text[s:e], min_len) and text[s:e].lower() not in _PROSE_WORDS


_CODE_VALUE = linear_regex.compile(r"[A-Za-z_][\w.]*\(.*")


def secret_setting(text: str, m: Any, s: int, e: int) -> bool:
    """A KEY=value credential: not a tokenizer setting (pad_token=<pad>), not a URL's user:password."""
    key = m.group("k") if "k" in m.re.groupindex and m.group("k") else ""
    if key and _SPECIAL_TOKEN_KEY.search(key):
        return False
    if text[: m.start("k") if key else s].endswith("://"):
        return False  # https://x-access-token:ghs_...@github.com: the URL password pattern owns it
    value = text[s:e]
    if _CODE_VALUE.fullmatch(value):
        return False  # secret = secrets.token_hex(16): code that makes a secret, not one
    return is_real_value(value, 8)


_CREDENTIAL_FIELDS = linear_regex.compile(
    r"\"(?:private_key|private_key_id|client_secret|refresh_token|access_token|password|api_key|token|secret)\"\s*:"
)


def encoded_credentials(text: str, m: Any, s: int, e: int) -> bool:
    """Base64 that decodes to JSON holding a key (a service-account file in a CI variable), not any base64."""
    value = text[s:e]
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)[:65536].decode("utf-8", "replace")
    except ValueError:
        return False
    return decoded.lstrip().startswith("{") and _CREDENTIAL_FIELDS.search(decoded) is not None


_WORD = linear_regex.compile(r"[A-Z]?[a-z]{3,}")  # Distributed, Data, watchdog: the words identifiers are made of
_ENTROPY_BITS = 4.0  # per character; 32 random base64 characters score 4.2 and more, English-like names less
# above this, no identifier: kernel and class names of 40-60 characters score 3.9-4.4, random base64 4.8
_ENTROPY_BITS_RANDOM = 4.6


def _entropy(value: str) -> float:
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def high_entropy(text: str, m: Any, s: int, e: int) -> bool:
    """A random-looking token: mixed case and digits, few words, high entropy; not code, a path or a hex id.

    Kept: hex of any length (git SHAs of builds, CUDA addresses, NCCL ids, hashes), C++ mangled symbols
    (_ZN3c10...), CamelCase and UPPER_SNAKE identifiers, paths (site-packages/torch/...), GPU UUIDs.
    """
    value = text[s:e].rstrip("=")
    segments = value.split("/")
    if len(segments) > 1 and any(_is_word(seg) for seg in segments):
        # a path or a URL's: random only where the segments between its words are (hooks/v1/<token>/notify,
        # and a base64 token holds slashes of its own: Zq9f/SMee/Yab7)
        runs: list[str] = []
        run: list[str] = []
        before = ""
        for seg in [*segments, "end"]:
            if _is_word(seg):
                if before not in _CACHE_DIRS:  # ~/.triton/cache/<key>/: a content hash, not a credential
                    runs.append("/".join(run))
                run = []
                before = seg
            else:
                run.append(seg)
        return any(len(r) >= 24 and _random_looking(r) for r in runs)
    return _random_looking(value)


_CACHE_DIRS = frozenset({"cache", "caches", "blobs", "snapshots", "objects"})


def _is_word(segment: str) -> bool:
    return segment.isalpha() and segment.islower() and len(segment) >= 3


def _random_looking(value: str) -> bool:
    if value.startswith(("_Z", "__Z")) or all(c in "0123456789abcdefABCDEF-" for c in value):
        return False
    lower = sum(c.islower() for c in value)
    upper = sum(c.isupper() for c in value)
    if lower < 0.2 * len(value) or upper < 0.15 * len(value) or not any(c.isdigit() for c in value):
        return False
    entropy = _entropy(value)
    if entropy >= _ENTROPY_BITS_RANDOM:
        return True  # random whatever words chance put in it (Zqrof2rr8AGhrxeoCZPlN/SMeelDw9kJqn)
    words = sum(len(w.group()) for w in _WORD.finditer(value))
    return words < 0.4 * len(value) and entropy >= _ENTROPY_BITS


def echoed_secret(text: str, m: Any, s: int, e: int) -> bool:
    """A lone echoed token with lower, upper case and digits and either a symbol or a random look: what
    `echo "$TOKEN" | ... --password-stdin` shows under bash -x, not `echo Done`, a version or a path."""
    v = text[s:e]
    if "/" in v or v.startswith(("$", "-")) or not is_real_value(v, 10):
        return False
    classes = any(c.islower() for c in v) and any(c.isupper() for c in v) and any(c.isdigit() for c in v)
    return classes and (any(not c.isalnum() and c not in "._-" for c in v) or _random_looking(v))


def has_digit(text: str, m: Any, s: int, e: int) -> bool:
    return any(c.isdigit() for c in text[s:e])


def openai_key(text: str, m: Any, s: int, e: int) -> bool:
    """sk-... with a digit, and not sk-ant-... (Anthropic's, its own entry)."""
    return not text.startswith("sk-ant-", s) and has_digit(text, m, s, e)


# Presidio's validators for cards, IPs and MAC addresses, as its predefined recognizers write them (importing
# those recognizers imports spaCy); tests/masking/test_presidio_parity.py compares them with Presidio's own.
_MAC_SEPARATORS = re.compile(r"[:\-.]")


def luhn(value: str) -> bool:
    """CreditCardRecognizer.validate_result: the Luhn checksum of the digits, dashes and spaces removed."""
    digits = value.replace("-", "").replace(" ", "")
    if not digits.isdecimal():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def ip_invalid(value: str) -> bool:
    """IpRecognizer.invalidate_result: not an address or interface ``ipaddress`` accepts."""
    try:
        ipaddress.ip_interface(value)
    except ValueError:
        return True
    return False


def mac_invalid(value: str) -> bool:
    """MacAddressRecognizer.invalidate_result: not 12 hex digits, or the broadcast or all-zero address."""
    cleaned = _MAC_SEPARATORS.sub("", value)
    if re.fullmatch(r"[0-9A-Fa-f]{12}", cleaned) is None:
        return True
    return cleaned.upper() in ("FFFFFFFFFFFF", "000000000000")


@lru_cache(maxsize=1)
def _iban_recognizer() -> Any:
    """Presidio's IBAN recognizer (its country formats), imported only when a line holds an IBAN candidate."""
    import_presidio()
    from presidio_analyzer.predefined_recognizers import IbanRecognizer

    return IbanRecognizer()


def credit_card(text: str, m: Any, s: int, e: int) -> bool:
    """Presidio's Luhn check; never a 13-digit number that starts with 1 (epoch milliseconds: 1764567890123)."""
    if text[s] == "1" and text[s : s + 13].isdigit() and not text[s + 13 : s + 14].isdigit():
        return False
    return luhn(text[s:e])


def iban(text: str, m: Any, s: int, e: int) -> bool:
    """Presidio's IBAN check (country format, checksum); None there means "format unsure": kept, as Presidio does."""
    return _iban_recognizer().validate_result(text[s:e]) is not False


def email(text: str, m: Any, s: int, e: int) -> bool:
    return email_domain_ok(text[s:e])


def ip_address(text: str, m: Any, s: int, e: int) -> bool:
    """A real address (Presidio's check) that names a machine: not loopback, not unspecified."""
    value = text[s:e]
    return not ip_invalid(value) and not is_loopback(value.split("/")[0])


def mac_address(text: str, m: Any, s: int, e: int) -> bool:
    """Presidio's MAC check, minus all-decimal dash groups (a run directory named 24-05-01-12-00-03)."""
    value = text[s:e]
    if "-" in value and value.replace("-", "").isdigit():
        return False
    return not mac_invalid(value)


def fqdn_match(text: str, m: Any, s: int, e: int) -> bool:
    if text[e : e + 1] == "(" or in_python_context(text, s):
        return False  # self.net(x), import foo.bar.com-style module paths
    return is_fqdn(text[s:e])


def node_match(text: str, m: Any, s: int, e: int) -> bool:
    return is_node_name(text[s:e])


def host_strong(text: str, m: Any, s: int, e: int) -> bool:
    return is_host_value(text[s:e], True)


def host_weak(text: str, m: Any, s: int, e: int) -> bool:
    return is_host_value(text[s:e], False)


def user_value(text: str, m: Any, s: int, e: int) -> bool:
    v = text[s:e]
    return is_real_value(v) and v not in {"root", "git", ".", ".."} and not (v.startswith("__") and v.endswith("__"))  # root@box, git@github.com: no person


# Directory names under /scratch, /fsx, /lustre that name a shared area, not a person.
_SHARED_DIRS = words(
    """shared common public data datasets dataset corpora models model weights ckpt ckpts checkpoint checkpoints
    cache caches tmp temp hf huggingface projects project proj runs logs outputs output results envs env conda
    venv venvs scratch users user home group groups team teams lab labs apps software sw opt bin lib src code
    repos jobs job slurm archive backup exp exps experiments train training eval evals test tests images raw
    processed tokenized tokenizers containers images sif"""
)


def scratch_user(text: str, m: Any, s: int, e: int) -> bool:
    """/scratch/mchen/ckpt names a person; /scratch/checkpoints/ckpt does not."""
    return text[s:e].lower() not in _SHARED_DIRS


# Directory names on a data disk that name data, mounts or tools rather than a person.
_DATA_DISK_DIRS = _SHARED_DIRS | words(
    """imagenet coco laion pile redpajama openwebtext wikitext wikipedia wiki books bookcorpus commoncrawl
    mnist cifar voc kinetics audioset librispeech squad glue webtext refinedweb fineweb dolma slimpajama
    c4 hub cuda nvidia docker workspace containers volumes local nvme ssd hdd ephemeral fast slow
    imagenet1k imagenet21k coco2017 mount mounts disk disks store storage share"""
)


def data_disk_user(text: str, m: Any, s: int, e: int) -> bool:
    """/data/jkowalski/ckpt names a person; /data/imagenet/train and /mnt/checkpoints/ do not."""
    return text[s:e].lower() not in _DATA_DISK_DIRS


_PUBLIC_NAMESPACES = words("default kube-system kube-public kube-node-lease kubeflow gpu-operator monitoring ingress-nginx")


def k8s_namespace(text: str, m: Any, s: int, e: int) -> bool:
    """A team's or a project's namespace, not Kubernetes' own ones."""
    return text[s:e] not in _PUBLIC_NAMESPACES


_ENV_WORDS = words("base conda venv pytorch torch train training finetune sparse diffusion default python")


def prompt_env_user(text: str, m: Any, s: int, e: int) -> bool:
    """``(rpatel) $`` with no user@host: a PS1 that shows the person, not a short env name like (ft) or (pt22)."""
    v = text[s:e]
    return len(v) >= 5 and v.isalpha() and v.lower() not in _ENV_WORDS | _SHARED_DIRS
