"""Share links: the ``url`` of a diagnosis, which a teammate opens read-only without an API key.

    token = <diagnosis id>.<base64url HMAC-SHA256(secret, "crashdoc-share/v1/<diagnosis id>/<nonce>")>

The nonce is random and kept in the database (``share_links``), made on first use; the secret is
``CRASHDOC_SHARE_SECRET``, or when that is unset one made once and kept in the database, so every replica signs
and checks alike. A token is unguessable (256-bit MAC over a 128-bit nonce), tells nothing but the id, and:

    a tampered or made-up token     NotFound (404), the same as a diagnosis that does not exist
    a deleted diagnosis             NotFound (its row goes with it)
    a revoked link                  Gone (410); ``rotate`` gives a new link and the old ones fail (404)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select, update

from service.errors import Gone, NotFound
from service.store import Store
from service.store.schema import DiagnosisRow, ServiceSecretRow, ShareRow
from service.store.upsert import insert_if_absent

_SECRET_NAME = "share-links"
_NOT_FOUND = ("This link does not open a diagnosis: it is wrong, or the diagnosis was deleted.",
              "Ask whoever sent it for a new link.")


@dataclass(frozen=True)
class Shared:
    """What a valid token opens: the diagnosis and the workspace it belongs to."""

    diagnosis_id: str
    workspace_id: str | None


class ShareLinks:
    def __init__(self, store: Store, secret: str | None = None) -> None:
        self.store = store
        self._key = (secret or self._stored_secret()).encode()

    def _stored_secret(self) -> str:
        with self.store.session() as s:
            insert_if_absent(s, ServiceSecretRow, {"name": _SECRET_NAME, "value": secrets.token_urlsafe(48),
                                                            "created_at": datetime.now(UTC)}, ["name"])
        with self.store.session() as s:
            return str(s.scalars(select(ServiceSecretRow.value).where(ServiceSecretRow.name == _SECRET_NAME)).one())

    def _sign(self, diagnosis_id: str, nonce: str) -> str:
        mac = hmac.new(self._key, f"crashdoc-share/v1/{diagnosis_id}/{nonce}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()

    def token(self, diagnosis_id: str) -> str | None:
        """The diagnosis's token (its nonce made now if it has none); None when its link was revoked."""
        with self.store.session() as s:
            insert_if_absent(s, ShareRow, {"diagnosis_id": diagnosis_id, "nonce": secrets.token_hex(16),
                                                    "created_at": datetime.now(UTC)}, ["diagnosis_id"])
            row = s.get(ShareRow, diagnosis_id)
            if row is None or row.revoked_at is not None:
                return None
            return f"{diagnosis_id}.{self._sign(diagnosis_id, row.nonce)}"

    def rotate(self, diagnosis_id: str) -> str:
        """A new link (also after a revocation); every earlier link of the diagnosis stops working."""
        with self.store.session() as s:
            insert_if_absent(s, ShareRow, {"diagnosis_id": diagnosis_id, "nonce": secrets.token_hex(16),
                                                    "created_at": datetime.now(UTC)}, ["diagnosis_id"])
            nonce = secrets.token_hex(16)
            s.execute(update(ShareRow).where(ShareRow.diagnosis_id == diagnosis_id)
                      .values(nonce=nonce, revoked_at=None, created_at=datetime.now(UTC)))
        return f"{diagnosis_id}.{self._sign(diagnosis_id, nonce)}"

    def revoke(self, diagnosis_id: str) -> None:
        """The link stops working (410) until ``rotate`` makes a new one."""
        with self.store.session() as s:
            insert_if_absent(s, ShareRow, {"diagnosis_id": diagnosis_id, "nonce": secrets.token_hex(16),
                                                    "created_at": datetime.now(UTC)}, ["diagnosis_id"])
            s.execute(update(ShareRow).where(ShareRow.diagnosis_id == diagnosis_id).values(revoked_at=datetime.now(UTC)))

    def open(self, token: str) -> Shared:
        """What ``token`` opens; NotFound for a wrong token or a deleted diagnosis, Gone for a revoked link."""
        diagnosis_id, dot, signature = token.partition(".")
        if not dot or not diagnosis_id or len(token) > 200:
            raise NotFound(_NOT_FOUND[0], hint=_NOT_FOUND[1])
        with self.store.session() as s:
            found = s.execute(select(ShareRow, DiagnosisRow.workspace_id).join(DiagnosisRow, DiagnosisRow.id == ShareRow.diagnosis_id)
                              .where(ShareRow.diagnosis_id == diagnosis_id)).one_or_none()
        if found is None or not hmac.compare_digest(self._sign(diagnosis_id, found[0].nonce), signature):
            raise NotFound(_NOT_FOUND[0], hint=_NOT_FOUND[1])
        if found[0].revoked_at is not None:
            raise Gone("This link was revoked by the diagnosis's owner.", hint="Ask them for a new link.")
        return Shared(diagnosis_id, found[1])


def share_url(base: str, token: str) -> str:
    return f"{base.rstrip('/')}/s/{token}"
