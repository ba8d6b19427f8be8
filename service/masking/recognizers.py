"""The ONE registry of masking recognizers, in priority order (earlier wins a tie between credentials).

Each entry declares the Presidio entity it yields, where it can occur at all (needles: lower-case
substrings; trigger: a regex), and its patterns, each under a comment naming the real log line it is
for. A named group ``v`` is the masked span, so context words (``MASTER_ADDR=``, ``Bearer``) stay.
See ``base.py`` for the rules needles and triggers follow, ``checks.py`` for the checks.
"""

from __future__ import annotations

import re

from service.masking import checks
from service.masking.base import Entry, P

# ---------------------------------------------------------------- shared fragments

_SEP = r"[\"']?\s*[:=]\s*[\"']?"  # KEY=value, KEY: value, "key": "value"
# RE2 has no look-around: a boundary before a value is consumed, the value is the group ``v`` (base.P)
_START = "(?:^|[^{}])".format  # where (?<![...]) stood: the start of the line or a character not in the class
_END = "(?:$|[^{}])".format  # where (?![...]) stood
# An unquoted value runs to the next space or quote, shell-special characters included ($Pm4o&n6;W#x),
# minus a trailing , ; ) } ] (the end of a dict, a call, a connection-string field)
_UNQUOTED = r"(?P<v>[^\s\"']*[^\s\"',;)}\]])"
# A quoted value runs to its closing quote: "a \"b\" \$c" (escapes) | 'x y z' | b'IQoJ...' (boto's bytes)
# (single quotes escape themselves: YAML 'it''s', the shell's 'it'\''s')
_QUOTED = r"\s*[:=]\s*(?:b?\"(?P<v>(?:[^\"\\\n]|\\.)+)\"|b?'(?P<w>(?:[^'\\\n]|\\.|''|'\\'')+)')"
# DB_PASSWORD, PGPASSWORD, MYSQL_PWD, password, db_pass (not PWD=/opt/app, the working directory)
_PW_KEY = (
    r"(?:\b[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE)|\b[A-Z0-9_]+_(?:PASS|PWD)"
    r"|(?:^|[^A-Za-z])(?:[Pp]ass(?:word|wd|phrase)|PASS(?:WORD|WD|PHRASE))|[_.-](?:[Pp]ass|PASS|[Pp]wd|PWD))"
)
# the last word of a secret's name, in any case: MLFLOW_TRACKING_TOKEN, X-API-Key, SessionToken, client-key-data
SECRET_WORD = (
    r"(?i:secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth[_-]?key"
    r"|key[_-]?data|certificate[_-]?data|session[_-]?id|sessionid|api[_-]?secret|app(?:lication)?[_-]?key"
    r"|(?:wandb|comet|neptune|mlflow|dd|datadog|sentry|openai|hf|kaggle|master|encryption|signing|secret|storage"
    r"|account|license|shared|service|webhook|jwt|hmac|deploy|ssh|admin|session|cookie)[_-]?key)"
)
# a secret's name in words, in prose: "using API key mtsV...", "signing secret 0e7d...", "kaggle key 402c..."
# (not "cache key 2c4f..." or "sort key": only the kinds of key that are credentials)
_SECRET_WORDS_IN_PROSE = (
    r"(?i:\b(?:secret|(?:api|access|secret|signing|storage|kaggle|license|encryption|master|account)[ _-]?key))"
)
_SECRET_KEY = r"(?:^|[^A-Za-z0-9])(?P<k>(?:[A-Za-z0-9]+[_.-])*[A-Za-z0-9]*" + SECRET_WORD + r")"
_SECRET_NEEDLES = ("secret", "token", "key", "credential", "session", "certificate")
_AWS_SECRET_NAME = r"(?:[Aa]ws_?[Ss]ecret_?(?:[Aa]ccess_?)?[Kk]ey|AWS_?SECRET_?(?:ACCESS_?)?KEY|[Ss]ecret_?[Aa]ccess_?[Kk]ey|SECRET_?ACCESS_?KEY)"
_HOST_WORDS = r"(?:ip|node|gpu|dgx|compute|hpc|nid|login|worker|host|srv|server|vm|cn|gn)"
_NODE_ELEM = r"[A-Za-z0-9][\w.-]*(?:\[[\d,-]+\][\w.-]*)?"
_HOST_VALUE = r"(?P<v>[A-Za-z0-9][\w.-]*)"
_TLDS = "|".join(
    sorted(checks.CLUSTER_SUFFIXES | checks.STRONG_TLDS | checks.WEAK_TLDS | checks.FILE_LIKE_TLDS, key=len, reverse=True)
)
_URL_USERINFO = r"\b[A-Za-z][A-Za-z0-9+.-]*://"
# after a host name: not more of a name; a dot only as the sentence's own (gpu-node-017. Retrying)
_HOST_END = r"(?:$|[^\w.-]|\.(?:$|[^\w-]))"

# Presidio's address patterns, with their look-arounds as consumed boundaries
_CI = re.MULTILINE | re.IGNORECASE
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)"
_IPV4 = r"(?:" + _OCTET + r"\.){3}" + _OCTET
_V6_PREFIX = r"(?:/(?:12[0-8]|1[01]\d|[1-9]?\d))?"
_H16 = r"[0-9A-Fa-f]{1,4}"
_IPV6 = (
    r"(?:(?:H:){7}H|(?:H:){1,7}:|:(?::H){1,7}|(?:H:){1,6}:H|(?:H:){1,5}(?::H){1,2}|(?:H:){1,4}(?::H){1,3}"
    r"|(?:H:){1,3}(?::H){1,4}|(?:H:){1,2}(?::H){1,5}|H:(?::H){1,6}|:(?::H){1,6})(?:%[0-9a-zA-Z]+)?"
).replace("H", _H16) + _V6_PREFIX
_IPV6_END = r"(?:$|[^\w:.]|\.(?:$|\D))"  # not more of an address, and not an IPv4 tail (the embedded pattern's)

# ---------------------------------------------------------------- the registry

REGISTRY: list[Entry] = [
    # {"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQ...\n-----END PRIVATE KEY-----\n"}
    # [rank0]: -----BEGIN OPENSSH PRIVATE KEY-----   (a multi-line block: the stream masks the lines after it)
    Entry(
        "PRIVATE_KEY",
        needles=("-----begin",),
        patterns=(
            P(
                "pem private key",
                r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\\n)?|.*)",
            ),
        ),
        score=1.0,
    ),
    # "private_key_id": "8f3e0c6b1d2a4f5e9c7b3a1d0e2f4a6b8c9d0e1f",   (GCP service-account JSON)
    # {'type': 'service_account', 'private_key_id': '8f3e...'}   (the same JSON printed as a Python dict)
    Entry(
        "GCP_KEY_ID",
        needles=("private_key_id",),
        patterns=(P("gcp sa key id", r"[\"']private_key_id[\"']\s*:\s*[\"'](?P<v>[0-9a-f]{40})[\"']"),),
    ),
    # GOOGLE_APPLICATION_CREDENTIALS_JSON=ewogICJ0eXBlIjogInNlcnZpY2VfYWNjb3VudCIs...   (a key file, base64-encoded
    # into a CI variable: the check decodes it and looks for a key inside)
    Entry(
        "ENCODED_CREDENTIALS",
        needles=("ewog", "eyj"),
        patterns=(P("base64 json credentials", r"(?:^|[^A-Za-z0-9+/])(?P<v>(?:ewog|eyJ)[A-Za-z0-9+/]{60,}={0,2})"),),
        check=checks.encoded_credentials,
    ),
    # docker login nvcr.io -u '$oauthtoken' -p nvapi-...   |  NGC_API_KEY=nvapi-...
    Entry("NGC_KEY", needles=("nvapi-",), patterns=(P("ngc api key", r"\bnvapi-[A-Za-z0-9_-]{40,}"),)),
    # botocore.credentials: Found credentials in environment variables. AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE
    Entry(
        "AWS_ACCESS_KEY",
        needles=("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca"),
        patterns=(P("aws key id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b"),),
    ),
    # aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY   ('SecretAccessKey': '...' in boto debug)
    Entry(
        "AWS_SECRET_KEY",
        needles=("secret",),
        patterns=(P("aws secret after its key name", _AWS_SECRET_NAME + _SEP + r"(?P<v>[A-Za-z0-9/+]{40})" + _END("A-Za-z0-9/+=")),),
    ),
    # google.api_core.exceptions.Forbidden: 403 ... ?key=AIzaSyD-EXAMPLEEXAMPLEEXAMPLEEXAMPLE12
    Entry("GCP_API_KEY", needles=("aiza",), patterns=(P("google api key", r"\bAIza[0-9A-Za-z_-]{30,}"),)),
    # AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=...;EndpointSuffix=core.windows.net
    Entry(
        "AZURE_CONNECTION_STRING",
        needles=("defaultendpointsprotocol=", "endpoint=sb://", "accountendpoint="),
        patterns=(
            P("azure storage connection string", r"DefaultEndpointsProtocol=[^\s;\"']+(?:;[A-Za-z]+=[^\s;\"']*)+;?"),
            P("azure service bus connection string", r"Endpoint=sb://[^\s;\"']+(?:;[A-Za-z]+=[^\s;\"']*)+;?"),
            P("azure cosmos connection string", r"AccountEndpoint=https://[^\s;\"']+(?:;[A-Za-z]+=[^\s;\"']*)+;?"),
        ),
    ),
    # AccountKey=abc...==  |  https://acct.blob.core.windows.net/ckpt?sv=2022-11-02&sig=abc%2Bdef...  |  AZURE_STORAGE_KEY=...
    Entry(
        "AZURE_KEY",
        needles=("accountkey=", "sharedaccess", "sig=", "azure_"),
        patterns=(
            P("azure account key", r"\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=(?P<v>[A-Za-z0-9+/=%]{16,})"),
            P("azure sas signature", r"[?&]sig=(?P<v>[A-Za-z0-9%+/=]{16,})"),
            P("azure key setting", r"\bAZURE_[A-Z_]*(?:KEY|SECRET)" + _SEP + r"(?P<v>[A-Za-z0-9+/=._~-]{16,})"),
        ),
    ),
    # huggingface_hub: ... HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567
    Entry("HF_TOKEN", needles=("hf_", "api_org_"), patterns=(P("hugging face token", r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,}\b"),)),
    # anthropic.AuthenticationError ... ANTHROPIC_API_KEY=sk-ant-api03-...
    Entry("ANTHROPIC_KEY", needles=("sk-ant-",), patterns=(P("anthropic key", r"\bsk-ant-[A-Za-z0-9_-]{32,}"),)),
    # openai.AuthenticationError: Incorrect API key provided: sk-proj-...   |  OPENAI_API_KEY=sk-...
    Entry(
        "OPENAI_KEY",
        needles=("sk-",),
        patterns=(P("openai key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{32,}"),),
        check=checks.openai_key,
    ),
    # fatal: Authentication failed for 'https://x-access-token:ghs_...@github.com/org/repo'
    Entry(
        "GITHUB_TOKEN",
        needles=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        patterns=(
            P("github token", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
            P("github fine-grained pat", r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"),
        ),
    ),
    # git clone https://oauth2:glpat-xxxxxxxxxxxxxxxxxxxx@gitlab.example.com/...
    Entry(
        "GITLAB_TOKEN",
        needles=("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-", "glsoat-", "glft-", "glimt-", "glagent-"),
        patterns=(P("gitlab token", r"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}"),),
    ),
    # slack_sdk ... POST https://hooks.slack.com/services/T0000/B0000/XXXXXXXX
    Entry(
        "SLACK_WEBHOOK",
        needles=("hooks.slack.com",),
        patterns=(P("slack webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),),
    ),
    # SLACK_BOT_TOKEN=xoxb-1234-5678-AbCdEf...  |  xapp-1-A0123-456-abcdef...
    Entry(
        "SLACK_TOKEN",
        needles=("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-"),
        patterns=(
            P("slack token", r"\bxox[abposre]-(?:[0-9]+-)*[A-Za-z0-9-]{10,}"),
            P("slack app token", r"\bxapp-\d-[A-Za-z0-9-]{10,}"),
        ),
    ),
    # WANDB_API_KEY=0123...  |  $ wandb login 0123...  |  wandb.login(key="...")  |  machine api.wandb.ai login user password 0123...
    # (a 40-hex string is a W&B key only in a W&B context: elsewhere it is a git SHA and stays)
    Entry(
        "WANDB_API_KEY",
        needles=("wandb", "w&b"),
        patterns=(
            P("wandb env", r"\bWANDB_API_KEY" + _SEP + r"(?P<v>[A-Za-z0-9_-]{40,})"),
            P("wandb login cli", r"\bwandb\s+login\s+(?:--?[\w-]+(?:=\S+)?\s+)*(?P<v>[A-Za-z0-9_-]{40,})"),
            P("wandb.login(key=)", r"\bwandb\.login\([^)]*?\bkey\s*=\s*[\"'](?P<v>[A-Za-z0-9_-]{40,})"),
            P("wandb netrc line", r"\bmachine\s+api\.wandb\.ai\s+login\s+\S+\s+password\s+(?P<v>[A-Za-z0-9_-]{40,})"),
            # print(f"wandb api key: {key}")  |  W&B key is 0123...   (a 40-hex key named in prose)
            P("wandb key in prose", r"(?i:\bw(?:and|&)b\b[^\n]{0,40}?\bkey\b)\W{0,4}(?:is\s+)?(?P<v>[0-9a-f]{40})\b"),
        ),
    ),
    # databricks.sdk ... DATABRICKS_TOKEN=dapi0123456789abcdef0123456789abcdef
    Entry("DATABRICKS_TOKEN", needles=("dapi",), patterns=(P("databricks token", r"\bdapi[0-9a-f]{32}(?:-\d)?\b"),)),
    # twine upload ... TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmc...
    Entry("PYPI_TOKEN", needles=("pypi-",), patterns=(P("pypi token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),)),
    # //registry.npmjs.org/:_authToken=npm_AbC...
    Entry("NPM_TOKEN", needles=("npm_",), patterns=(P("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),)),
    # STRIPE_API_KEY=sk_live_...   (a billing callback in a training script's env dump)
    Entry("STRIPE_KEY", needles=("k_live_", "k_test_"), patterns=(P("stripe key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),)),
    # Authorization: Bearer eyJhbGciOiJIUzI1NiIs...   |  ?token=eyJ...
    Entry("JWT", needles=("eyj",), patterns=(P("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),)),
    # curl -H "Authorization: Bearer abc123..."  |  headers={'Authorization': 'token ...'}
    Entry(
        "BEARER_TOKEN",
        needles=("bearer", "authorization"),
        patterns=(
            P("bearer token", r"\b(?:[Bb]earer|BEARER)\s+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)", needles=("bearer",)),
            P(
                "authorization header",
                r"\b(?:[Aa]uthorization|AUTHORIZATION)" + _SEP + r"(?:(?:[Bb]asic|[Tt]oken|[Bb]earer|BASIC|TOKEN|BEARER)\s+)?"
                r"(?P<v>[A-Za-z0-9._~+/-]{16,}=*)",
                needles=("authorization",),
            ),
        ),
    ),
    # postgresql://alice:hunter2@db.corp.internal:5432/mlflow  |  DB_PASSWORD=hunter2  |  --password hunter2
    # netrc:   password hunter2
    Entry(
        "PASSWORD",
        needles=("pass", "pwd", "://", "login", "mysql", "curl", "wget", "redis", "echo", "cat"),
        patterns=(
            P("password in url", _URL_USERINFO + r"[^\s:/@]*:(?P<v>[^\s@/]+)@", needles=("://",)),
            # bash -x of `echo "$REGISTRY_PASSWORD" | docker login --password-stdin`: the trace shows the value alone
            #   + echo 'lXABlp9D#Wnsa1S&RFW9oIWz'
            P("bash -x echo of a lone secret", r"(?:^|\s)\++ echo '?(?P<v>[^\s']{10,})'?\s*$", checks.echoed_secret, needles=("echo",)),
            P("password setting quoted", _PW_KEY + r"[\"']?" + _QUOTED, needles=("pass", "pwd")),
            # + export 'SMTP_PASSWORD=a b&c#d'   (bash -x quotes the whole assignment)
            P("password assignment quoted", r"'" + _PW_KEY + r"=(?P<v>(?:[^'\n]|'\\'')*[^'\s])'", needles=("pass", "pwd")),
            # docker inspect:  "Env": ["MYSQL_ROOT_PASSWORD=e032Sb,8ZnN'KzORB4", ...]
            P("password assignment double-quoted", r"\"" + _PW_KEY + r"=(?P<v>(?:[^\"\\\n]|\\.)+)\"", needles=("pass", "pwd")),
            # env / printenv: the line is NAME=value and the value is the rest of it, spaces and quotes included
            P(
                "password env line",
                r"^\s*(?:declare -x |export )?[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|_PASS|_PWD)=(?P<v>[^\"'\s][^\n]*[^\s])\s*$",
                needles=("pass", "pwd"),
            ),
            P("password setting", _PW_KEY + _SEP + _UNQUOTED, needles=("pass", "pwd")),
            # docker login -u ci -p s3cr3t nvcr.io  |  podman login --password s3cr3t  |  helm registry login -p ...
            P(
                "registry login password",
                r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm\s+registry|oras|az)\s+login\b[^\n|;]*?\s(?:-p|--password)(?:=|\s+)"
                r"[\"']?(?P<v>[^\s\"']+)",
                needles=("login",),
            ),
            # sshpass -p 's3cr3t' ssh gpu-node-17  |  sshpass -ps3cr3t
            P("sshpass password", r"\bsshpass\s+(?:-[a-oq-z]\S*\s+)*-p\s*[\"']?(?P<v>[^\s\"']+)", needles=("sshpass",)),
            # mysql -h db -u ml -pS3cr3t  (-p glued to its value; a bare -p prompts and holds nothing)
            P("mysql password", r"\bmysql(?:dump|admin|import|sh)?\b[^\n|;]*?\s[\"']?-p(?P<v>[^\s\"'-][^\s\"']*)", needles=("mysql",)),
            # redis-cli -h 10.0.0.5 -p 6379 -a 's3cr3t' ping
            P("redis-cli password", r"\bredis-cli\b[^\n|;]*?\s(?:-a|--pass)\s+[\"']?(?P<v>[^\s\"']+)", needles=("redis",)),
            # ~/.pgpass line: hostname:port:database:username:password
            P("pgpass line", r"(?:^|[\s'\"])[\w.*-]+:(?:\d{2,5}|\*):[^:\s]+:[^:\s]+:(?P<v>[^\s'\"]+)", needles=("pgpass", "echo", "cat")),
            # INFO connecting as svc_train with password uFP9dCt,4Nnb (a password named in prose: it has a digit)
            P("password in prose", r"(?i:\bpassword)\s+(?:is\s+|was\s+|of\s+)?(?P<v>[^\s\"']{6,})", checks.password_in_prose, needles=("password",)),
            # curl -u ci:s3cr3t https://...  |  wget --password=s3cr3t (the flag pattern below)
            P("curl user password", r"\bcurl\b[^\n|;]*?\s(?:-u|--user)\s*[\"']?[^\s:\"']+:(?P<v>[^\s\"']+)", needles=("curl",)),
            P(
                "password flag",
                r"--(?:[A-Za-z0-9]+[-_])*(?:password|passwd|passphrase|pass)(?:=|\s+)(?P<v>[^\s\"'-][^\s\"']*)",
                needles=("--",),
            ),
            P("netrc password line", r"^\s*password\s+(?P<v>\S+)\s*$", needles=("password",)),
            P("netrc inline", r"\bmachine\s+\S+\s+login\s+\S+\s+password\s+(?P<v>\S+)", needles=("machine",)),
        ),
        check=checks.value_at_least(1),
        score=1.0,
    ),
    # MLFLOW_TRACKING_TOKEN=...  |  "client_secret": "..."  |  --hub_token abc...  |  api_key: ...
    Entry(
        "SECRET",
        trigger=(
            r"(?i:ecret|oken|key|redentials?|key[_-]?data|certificate[_-]?data|session[_-]?id|cookie)[\"']?\s*[:=]"
            r"|\bbot\d{8}|(?i:token|secret|password|key)>|(?i:secret|key) \w"
            r"|--[\w-]*(?:token|secret|[Kk]ey)[\s=]"
        ),
        patterns=(
            P("secret setting quoted", _SECRET_KEY + r"[\"']?" + _QUOTED, needles=_SECRET_NEEDLES),
            P("secret setting", _SECRET_KEY + _SEP + _UNQUOTED, needles=_SECRET_NEEDLES),
            # curl -v:  > Cookie: sessionid=abc; csrftoken=def  |  < Set-Cookie: session=...; Path=/; HttpOnly
            # HTTPSConnectionPool(host='api.telegram.org', ...) (url: /bot4338007752:AAjhghDZHb_HmtkVOz.../sendMessage)
            P("telegram bot token", r"\bbot(?P<v>\d{8,10}:[A-Za-z0-9_-]{35})\b", needles=("bot",)),
            # botocore.parsers [DEBUG] Response body: b'...<SessionToken>IQoJ...</SessionToken>'   (XML elements)
            P("xml secret element", r"<(?P<k>[A-Za-z]*(?:Token|Secret|Password|SecretAccessKey))>(?P<v>[^<\s]+)</", needles=("token>", "secret>", "password>", "key>")),
            # COMET INFO: Using API key mtsVgXae2QMB3mFnF0JRUzHE8 for workspace acme-ml
            P("secret in prose", _SECRET_WORDS_IN_PROSE + r"\s+(?:is\s+)?(?P<v>[^\s\"'<]{15,}[^\s\"',;:)}\].])",
              checks.password_in_prose, needles=("key", "secret")),
            P(
                "cookie header",  # every name=value pair, up to the first space that no ';' precedes
                r"(?i:\b(?:set-)?cookie)\s*:\s*(?P<v>[^\s;=]+=[^\s;]*(?:;\s*[^\s;=]+(?:=[^\s;]*)?)*;?)",
                needles=("cookie",),
            ),
            P(
                "secret flag",
                r"--(?P<k>(?:[A-Za-z0-9]+[-_])*" + SECRET_WORD + r")(?:=|\s+)(?P<v>[^\s\"'-][^\s\"']*)",
                needles=("--",),
            ),
        ),
        check=checks.secret_setting,
    ),
    # a credential with no vendor prefix and no name beside it, by its shape (detect-secrets' entropy idea):
    #   curl -H "$AUTH" https://api.corp.internal/v2/jobs?sig=Zq3Vb8Lp0Kx9Wm2TnQ7rYc4Hd1FgJe6S
    # last of the credentials, so a named or vendor match wins; the check keeps identifiers, paths, hex
    Entry(
        "HIGH_ENTROPY_TOKEN",
        trigger=r"[A-Za-z0-9+/_-]{32}",
        patterns=(P("high-entropy token", _START("A-Za-z0-9+/_=-") + r"(?P<v>[A-Za-z0-9+/_-]{32,}={0,2})" + _END("A-Za-z0-9+/_=-")),),
        check=checks.high_entropy,
    ),
    # print(batch) ... 'text': 'my card is 4111 1111 1111 1111'   (personal data inside printed samples)
    # (Presidio's credit-card pattern; its look-ahead refusing 13-digit numbers that start with 1, epoch
    # milliseconds, is the check's; the Luhn checksum is Presidio's)
    Entry(
        "CREDIT_CARD",
        trigger=_START("0-9") + r"\d{4}[- ]?\d{3,4}[- ]?\d{3,4}[- ]?\d{3}",
        patterns=(P("credit card", r"\b(?:4\d{3}|5[0-5]\d{2}|6\d{3}|1\d{3}|3\d{3})[- ]?\d{3,4}[- ]?\d{3,4}[- ]?\d{3,5}\b"),),
        check=checks.credit_card,
    ),
    # ... 'iban': 'DE89 3704 0044 0532 0130 00'
    # (Presidio's IBAN pattern, case-insensitive as Presidio runs it; country format and checksum are Presidio's)
    Entry(
        "IBAN_CODE",
        trigger=_START("A-Za-z0-9") + r"[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2}",
        patterns=(
            P(
                "iban",
                _START("A-Z0-9") + r"(?P<v>[A-Z]{2}[0-9]{2}(?:[ -]?[A-Z0-9]{4}){2,6}(?:[ -]?[A-Z0-9]{4})?(?:[ -]?[A-Z0-9]{1,3})?)"
                + _END("A-Z0-9"),
                flags=re.MULTILINE | re.IGNORECASE,
            ),
        ),
        check=checks.iban,
    ),
    # wandb: Currently logged in as: alice@example.com  |  git config user.email alice@corp.internal
    # (Presidio's email pattern; the domain must have a public suffix, offline, or a cluster-internal one)
    Entry(
        "EMAIL_ADDRESS",
        needles=("@",),
        patterns=(
            P(
                "email",
                r"\b(?:[!#$%&'*+\-/=?^_`{|}~\w]|[!#$%&'*+\-/=?^_`{|}~\w][!#$%&'*+\-/=?^_`{|}~.\w]*[!#$%&'*+\-/=?^_`{|}~\w])"
                r"@\w+(?:-+\w+)*(?:\.\w+(?:-+\w+)*)+\b",
                flags=re.MULTILINE | re.IGNORECASE,
            ),
        ),
        check=checks.email,
    ),
    # File "/home/alice/llm/train.py", line 88  |  SLURM_JOB_USER=alice  |  C:\Users\alice\  |  alice@gpu-node-017:~$
    Entry(
        "USERNAME",
        needles=("/home/", "/users/", "users\\", "users/", "user", "logname", "@", "wandb.ai/", "logged in as", "uid",
                 "login", "psql", "torchinductor_", "job", "://", "/scratch/", "/fsx/", "/lustre/", "/gpfs/", "/nobackup/",
                 "wandb_entity", ") $", ") #", "pts/", "tty", " :", "r--", "rw-", "r-x", "rwx", "/data/", "/mnt/", "/nfs/", "/storage/", "/disk", "/raid"),
        patterns=(
            P("home dir", r"/home/(?P<v>[A-Za-z0-9._-]+)", needles=("/home/",)),
            P("macos home dir", r"/Users/(?P<v>[A-Za-z0-9._-]+)", needles=("/users/",)),
            # HF_HOME=/scratch/mchen/hf  |  /fsx/users/alice/ckpt  (HPC per-user areas: /scratch/$USER)
            P(
                "scratch dir",
                r"/(?:scratch|fsx|lustre|gpfs|nobackup)/(?:users?/|home/)?(?P<v>[a-z][a-z0-9._-]{1,31})/",
                checks.scratch_user,
                needles=("/scratch/", "/fsx/", "/lustre/", "/gpfs/", "/nobackup/"),
            ),
            # -v /data/jkowalski:/data  |  /mnt/rpatel/ckpt: a person's directory on a lab machine's data disk.
            # The usual false positive is a dataset (/data/imagenet); masking it costs the diagnosis nothing,
            # and the name is not learned, so the word is not masked elsewhere.
            P(
                "data disk dir",
                _START(r"\w.-") + r"/(?:data|mnt|nfs|storage|disk\d?|raid\d?)/(?P<v>[a-z][a-z0-9]{2,15})[/:]",
                checks.data_disk_user,
                needles=("/data/", "/mnt/", "/nfs/", "/storage/", "/disk", "/raid"),
            ),
            P("windows home dir", r"\b[A-Za-z]:(?:\\\\|\\|/)(?:[Uu]sers|USERS)(?:\\\\|\\|/)(?P<v>[^\\/\s\"':*?<>|]+)", needles=("users",)),
            P(
                "user env",
                _START("A-Za-z0-9_") + r"(?:SLURM_JOB_USER|SLURM_USER|USER|LOGNAME|USERNAME|SUDO_USER|PBS_O_LOGNAME|LSB_USER|WANDB_ENTITY|WANDB_USERNAME)"
                + _SEP + r"(?P<v>[A-Za-z0-9._-]+)",
                needles=("user", "logname", "wandb_entity"),
            ),
            # [prolog] job 88122 user svcml partition h100 | job 5518032 'vit' user=tnakamura | user: alice
            P("user setting", _START("A-Za-z0-9_") + r"(?:[Uu]ser(?:_?[Nn]ame)?|USER(?:_?NAME)?)" + _SEP + r"(?P<v>[A-Za-z0-9._-]+)", needles=("user",)),
            P("slurm job user", r"\bjob\s+\d+\b[^\n]*?\buser\s+(?P<v>[A-Za-z][A-Za-z0-9._-]*)", needles=("job",)),
            # == job 991203 (mtorres) on gpu-c11,gpu-c12 ==
            P("slurm job banner", r"\bjob\s+\d+\s+\((?P<v>[A-Za-z][A-Za-z0-9._-]*)\)", needles=("job",)),
            # torch.compile cache dir: /tmp/torchinductor_alice/
            P("inductor cache dir", r"\btorchinductor_(?P<v>[A-Za-z0-9._-]+)", needles=("torchinductor_",)),
            # psql -h db.corp.internal -U alice  |  --username alice
            P("psql user flag", r"\bpsql\b[^\n]*?\s-U\s*(?P<v>[A-Za-z0-9._-]+)", needles=("psql",)),
            P("user flag", r"--(?:db[_-])?user(?:name)?(?:=|\s+)(?P<v>[A-Za-z0-9._-]+)", needles=("--",)),
            P("odbc user id", r"(?:\b[Uu]ser\s?[Ii][Dd]|\bUSER\s?ID|\b[Uu]id|\bUID)\s*=\s*(?P<v>[^;\s\"']+)", needles=("uid", "user id", "userid")),
            P("shell prompt", r"\b(?P<v>[a-z_][a-z0-9_-]*)@[A-Za-z0-9][\w.-]*:[~/]", needles=("@",)),
            # (rpatel) $ python train_seg.py ...   (a bare prompt whose only name is the person's)
            P("bare prompt name", r"^\((?P<v>[A-Za-z][A-Za-z0-9._-]*)\) [$#] ", checks.prompt_env_user, needles=("$", "#")),
            # who / w / last: "tgarcia  pts/5        2026-11-30 04:12 (10.0.0.7)"
            P("who line", r"^(?P<v>[A-Za-z_][\w.-]{1,31})\s+(?:pts/\d+|tty\w*|:\d+)\s+(?:\d{4}-\d\d-\d\d|[A-Z][a-z]{2} )",
              checks.user_value, needles=("pts/", "tty", " :")),
            # ls -l: "-rw-rw-r-- 1 priya.raman ml 651 Feb  2 21:47 config.json" (the owner column)
            P("ls owner", _START(r"\w-") + r"[-dlcbps][r-][w-][xsS-][r-][w-][xsS-][r-][w-][xtT-][.+@]?\s+\d+\s+(?P<v>[A-Za-z_][\w.-]{0,31})\s+[\w.-]+\s+\d",
              checks.user_value, needles=("r--", "rw-", "r-x", "rwx")),
            P("user in url", _URL_USERINFO + r"(?P<v>[^\s:/@]+)(?::[^\s@/]*)?@", needles=("://",)),
            P("wandb entity", r"\bwandb\.ai/(?P<v>[A-Za-z0-9_-]+)/", needles=("wandb.ai/",)),
            # wandb: Currently logged in as: alice (alice-team). Use `wandb login --relogin` to force relogin
            P("wandb logged in", r"\blogged in as:?\s+(?P<v>[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)" + _END(r"\w@"), needles=("logged in as",)),
            P("wandb team", r"\blogged in as:?\s+\S+\s+\((?P<v>[A-Za-z0-9_-]+)\)", needles=("logged in as",)),
            P("netrc inline login", r"\bmachine\s+\S+\s+login\s+(?P<v>\S+)", needles=("machine",)),
            P("netrc login line", r"^\s*login\s+(?P<v>[\w.@+-]+)\s*$", needles=("login",)),
        ),
        check=checks.user_value,
    ),
    # torch.distributed.DistNetworkError: Connection to gpu-node-017.cluster.internal:29500 failed
    Entry(
        "HOSTNAME",
        needles=("ip-", "node", "gpu", "dgx", "compute", "hpc", "nid", "login", "worker", "host", "srv", "server",
                 "addr", "connect", "resolve", "machine", "@", "://", "kubectl", "namespace"),
        trigger=r"\.(?i:" + _TLDS + r")\b|(?:cn|gn|vm)\d|:\d+:\d+ \[\d+\]|\[[A-Za-z][\w.-]*:\d+\]|[a-z0-9-]\[\d",
        patterns=(
            # [c10d] The client socket has timed out ... (gpu-node-017.cluster.internal, 29500)
            P(
                "fqdn",
                _START(r"\w.-") + r"(?P<v>(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63})" + _HOST_END,
                checks.fqdn_match,
                needles=(".",),
            ),
            # kubectl -n ml-team-a logs ...  |  Namespace:  ml-team-a  (a namespace names internal infrastructure, as a host does)
            P(
                "kubernetes namespace",
                r"(?:\bkubectl\b[^|;\n]*?\s(?:-n|--namespace)[ =]|" + _START(r"\w.") + r"[Nn]amespace:\s+|\bnamespace=)(?P<v>[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)" + _END(r"\w.-"),
                checks.k8s_namespace,
                needles=("kubectl", "namespace"),
            ),
            # gpu-node-017:2345:2345 [3] NCCL INFO ...  |  ip-10-0-3-17  |  nid001234
            P(
                "node name",
                _START(r"\w.-") + r"(?P<v>(?:[a-z0-9]+-)*" + _HOST_WORDS + r"(?:-?[a-z0-9]+)*)" + _HOST_END,
                checks.node_match,
                needles=("ip", "node", "gpu", "dgx", "compute", "hpc", "nid", "login", "worker", "host", "srv", "server", "vm", "cn", "gn"),
            ),
            # SLURM_JOB_NODELIST=gpu-node-[001-004,017]  |  nodes gpu-h[01-02]
            P("node range", _START(r"\w.-") + r"(?P<v>[a-z][a-z0-9-]*\[[\d,-]+\][\w-]*)", checks.node_match, needles=("[",)),
            P(
                "node list",
                r"(?:(?i:nodelist|node_list|nodenames?)|" + _START("A-Za-z_") + r"(?i:nodes))" + _SEP
                + r"(?P<v>" + _NODE_ELEM + r"(?:," + _NODE_ELEM + r")*)",
                needles=("node",),
                split=",",
            ),
            # [prolog] job 88122 user svcml partition h100 nodes gpu-h[01-02] started
            P("nodes word", _START("A-Za-z_") + r"(?i:nodes?|nodelist)\s+(?P<v>" + _NODE_ELEM + r")", checks.host_weak, needles=("node",)),
            # MASTER_ADDR=trainer-0  |  SLURMD_NODENAME=a100x8-17  |  HOSTNAME=box17
            P(
                "host env",
                _START("A-Za-z0-9_") + r"(?:[A-Z0-9_]*_)?(?:ADDR|HOST|HOSTNAME|NODENAME|NODE_NAME)" + _SEP + _HOST_VALUE,
                needles=("addr", "host", "node"),
            ),
            P(
                "host flag",
                r"--(?:master[_-]addr|master[_-]host|rdzv[_-]endpoint|host|hostname|node[_-]ip)(?:=|\s+)" + _HOST_VALUE,
                needles=("--",),
            ),
            P("hostname field", r"(?i:\bhostname)[\"']?\s*(?:[:=]|\bis\b)\s*[\"']?" + _HOST_VALUE, needles=("hostname",)),
            P("hostname word", r"(?i:\bhostname)\s+" + _HOST_VALUE, checks.host_weak, needles=("hostname",)),
            # torchelastic ChildFailedError summary:   host      : gpu-node-017.cluster.internal
            P("host field", r"\b(?i:host)\s*[:=]\s*[\"']?" + _HOST_VALUE, needles=("host",)),
            P(
                "connection context",
                r"(?i:\bconnection to|\bconnect to|\bconnecting to|\bconnected to|\bresolve host(?:name)?:?|\bunknown host"
                r"|\bunreachable host|\bfrom host|\bon host|\bfailed to resolve|\bcould not resolve|\bcouldn't resolve"
                r"|\bgetaddrinfo(?: failed)?(?: for)?|\bresolving)\s+[\"'(\[]?" + _HOST_VALUE,
                checks.host_weak,
                needles=("connect", "resolve", "host"),
            ),
            P("nccl prefix", r"^\s*" + _HOST_VALUE + r":\d+:\d+ \[\d+\]", needles=(" [",)),
            P("host:rank tag", r"\[" + _HOST_VALUE + r":\d+\]", checks.host_weak, needles=("[",)),
            P("shell prompt host", r"\b[a-z_][a-z0-9_-]*@" + _HOST_VALUE + r":[~/]", needles=("@",)),
            P("url host", r"\b[a-z][a-z0-9+.-]*://(?:[^\s/@]*@)?" + _HOST_VALUE + r"(?:[:/\s\"']|$)", checks.host_weak, needles=("://",)),
            P("netrc machine", r"\bmachine\s+" + _HOST_VALUE, checks.host_weak, needles=("machine",)),
        ),
        check=checks.host_strong,  # context patterns: a machine name, not "localhost", an IP or a placeholder
    ),
    # NCCL INFO NET/Socket : Using [0]eth0:10.0.3.17<0>  |  fe80::1c2:3dff:fe4e:5f60%ib0
    # (Presidio's IP patterns, as it runs them: case-insensitive; loopback and unspecified addresses stay)
    Entry(
        "IP_ADDRESS",
        trigger=r"\.\d{1,3}\.\d{1,3}\.\d|::|:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:",
        patterns=(
            # ::ffff:10.0.3.17
            P("ipv4 mapped", _START(r"\w:") + r"(?P<v>::(?:ffff(?::0{1,4})?:)?" + _IPV4 + _V6_PREFIX + r")\b", flags=_CI),
            # 64:ff9b::10.0.3.17
            P(
                "ipv4 embedded",
                _START(r"\w:") + r"(?P<v>(?:(?:" + _H16 + r":){1,5}:(?:" + _H16 + r":){0,4}|(?:" + _H16 + r":){6})"
                + _IPV4 + _V6_PREFIX + r")\b",
                flags=_CI,
            ),
            # Connecting to 10.0.3.17:29500  |  NCCL INFO NET/Socket : Using [0]eth0:10.0.3.17<0>
            P("ipv4", r"\b" + _IPV4 + r"(?:/(?:[0-2]?\d|3[0-2]))?\b", flags=_CI),
            # fe80::1c2:3dff:fe4e:5f60%ib0
            P("ipv6", _START(r"\w:") + r"(?P<v>" + _IPV6 + r")" + _IPV6_END, flags=_CI),
            # NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:fe80::1c2:3dff:fe4e:5f60%eth0<0>
            # (the stock IPv6 pattern refuses a colon before the address; here an interface name precedes it)
            P("ipv6 after interface", r"\b[A-Za-z][A-Za-z0-9]{0,15}:(?P<v>" + _IPV6 + r")" + _IPV6_END, flags=_CI),
        ),
        check=checks.ip_address,
    ),
    # 2: ib0: <BROADCAST,MULTICAST,UP> ... link/ether 00:1b:21:3a:4f:5c
    Entry(
        "MAC_ADDRESS",
        trigger=r":[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:|-[0-9A-Fa-f]{2}-[0-9A-Fa-f]{2}-|\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}",
        patterns=(
            P("mac colon", r"\b[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}\b", flags=_CI),
            P("mac hyphen", r"\b[0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){5}\b", flags=_CI),
            P("mac cisco dot", r"\b[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\b", flags=_CI),
        ),
        check=checks.mac_address,
    ),
]
