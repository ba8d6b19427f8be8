"""What each masked kind becomes: its placeholder, its counts key, and whether it is a credential.

Credentials become a fixed placeholder (``<HF_TOKEN>``): nothing about the value survives. Identities
(hosts, IPs, users, emails, MACs) become per-run pseudonyms (``<HOST_1>``) so cross-rank reasoning
still works: the same host is the same placeholder in every file and line of one run.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    entity: str  # the Presidio entity name the recognizers report
    tag: str  # placeholder: <TAG> or, when numbered, <TAG_n>
    key: str  # the lower-case counts key in MaskedLog.counts
    numbered: bool = False  # a per-run pseudonym rather than a fixed placeholder
    secret: bool = True  # credentials win overlaps and ignore diagnostic-token protection


KINDS: dict[str, Kind] = {
    k.entity: k
    for k in (
        # Credentials, fixed placeholders.
        Kind("PRIVATE_KEY", "PRIVATE_KEY", "private_key"),
        Kind("AWS_ACCESS_KEY", "AWS_ACCESS_KEY", "aws_access_key"),
        Kind("AWS_SECRET_KEY", "AWS_SECRET_KEY", "aws_secret_key"),
        Kind("GCP_API_KEY", "GCP_API_KEY", "gcp_api_key"),
        Kind("GCP_KEY_ID", "GCP_KEY_ID", "gcp_key_id"),
        Kind("AZURE_CONNECTION_STRING", "AZURE_CONNECTION_STRING", "azure_connection_string"),
        Kind("AZURE_KEY", "AZURE_KEY", "azure_key"),
        Kind("HF_TOKEN", "HF_TOKEN", "hf_token"),
        Kind("ANTHROPIC_KEY", "ANTHROPIC_KEY", "anthropic_key"),
        Kind("OPENAI_KEY", "OPENAI_KEY", "openai_key"),
        Kind("GITHUB_TOKEN", "GITHUB_TOKEN", "github_token"),
        Kind("GITLAB_TOKEN", "GITLAB_TOKEN", "gitlab_token"),
        Kind("SLACK_TOKEN", "SLACK_TOKEN", "slack_token"),
        Kind("SLACK_WEBHOOK", "SLACK_WEBHOOK", "slack_webhook"),
        Kind("WANDB_API_KEY", "WANDB_API_KEY", "wandb_key"),
        Kind("DATABRICKS_TOKEN", "DATABRICKS_TOKEN", "databricks_token"),
        Kind("PYPI_TOKEN", "PYPI_TOKEN", "pypi_token"),
        Kind("NPM_TOKEN", "NPM_TOKEN", "npm_token"),
        Kind("STRIPE_KEY", "STRIPE_KEY", "stripe_key"),
        Kind("NGC_KEY", "NGC_KEY", "ngc_key"),
        Kind("ENCODED_CREDENTIALS", "ENCODED_CREDENTIALS", "encoded_credentials"),
        Kind("JWT", "JWT", "jwt"),
        Kind("BEARER_TOKEN", "BEARER_TOKEN", "bearer_token"),
        Kind("PASSWORD", "PASSWORD", "password"),
        Kind("SECRET", "SECRET", "secret"),
        Kind("HIGH_ENTROPY_TOKEN", "SECRET", "high_entropy_token"),
        # Personal data, fixed placeholders.
        Kind("CREDIT_CARD", "CREDIT_CARD", "credit_card", secret=False),
        Kind("IBAN_CODE", "IBAN", "iban", secret=False),
        # Identities, per-run pseudonyms.
        Kind("EMAIL_ADDRESS", "EMAIL", "email", numbered=True, secret=False),
        Kind("HOSTNAME", "HOST", "hostname", numbered=True, secret=False),
        Kind("IP_ADDRESS", "IP", "ip_address", numbered=True, secret=False),
        Kind("USERNAME", "USER", "username", numbered=True, secret=False),
        Kind("MAC_ADDRESS", "MAC", "mac_address", numbered=True, secret=False),
    )
}
