"""Accounts: workspaces, API keys, plans, daily usage counters and evaluation codes.

A key (``cdk_<10 chars>_<43 chars>``) and an evaluation code (``EVAL-XXXX-XXXX-XXXX-XXXX``) are shown
once, when made; only their SHA-256 is stored. A key is found by its prefix (the part before the secret)
and then compared in constant time. Usage is one counter per subject (a workspace id, or ``anon:<ip>``),
UTC day and kind, moved by a single guarded statement (``INSERT ... ON CONFLICT DO UPDATE ... WHERE
count < limit``), so concurrent requests can never spend more than the allowance.

Errors from the database come out as ``StoreError`` (through ``Store.session``); a wrong name, plan or
code as ``BadRequest`` / ``NotFound``.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from service.errors import BadRequest, NotFound, StoreError
from service.settings import Settings
from service.store import Store
from service.store.schema import ApiKeyRow, EvalCodeRow, UsageRow, WorkspaceRow

# The plans, smallest first. Each has ``plan_<name>_daily`` and ``plan_<name>_questions_daily`` in Settings.
PLANS: tuple[str, ...] = ("free", "scale")
# What is counted against a daily allowance.
KINDS: tuple[str, ...] = ("diagnosis", "question")

KEY_PREFIX = "cdk_"
_KEY_ID_LEN = 10
_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: codes are read aloud and retyped
_KEY_SHAPE = re.compile(r"cdk_[a-z0-9]{10}_[A-Za-z0-9_-]{20,100}")
_NAME_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,79}")


def _token(n: int, alphabet: str = _ID_ALPHABET) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _aware(dt: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes for what was stored as UTC."""
    return dt.replace(tzinfo=UTC) if dt is not None and dt.tzinfo is None else dt


def utc_now() -> datetime:
    return datetime.now(UTC)


def next_utc_midnight(now: datetime) -> datetime:
    return datetime.combine(now.astimezone(UTC).date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)


USAGE_NOUNS = {"diagnosis": "diagnoses", "question": "follow-up questions"}  # what each counted kind is called


def until_reset(now: datetime) -> tuple[int, str]:
    """Seconds until the daily counters reset at 00:00 UTC (at least 1), and the same for a person: "3 h 12 min"."""
    seconds = max(1, math.ceil((next_utc_midnight(now) - now).total_seconds()))
    hours, minutes = divmod(max(1, seconds // 60), 60)
    return seconds, f"{hours} h {minutes} min" if hours else f"{minutes} min"


# ---------------------------------------------------------------- values


@dataclass(frozen=True)
class Workspace:
    id: str
    name: str
    plan: str  # the base plan
    trial_plan: str | None
    trial_daily: int | None
    plan_until: datetime | None
    created_at: datetime

    @classmethod
    def of(cls, row: WorkspaceRow) -> Workspace:
        return cls(row.id, row.name, row.plan, row.trial_plan, row.trial_daily, _aware(row.plan_until),
                   _aware(row.created_at) or utc_now())


@dataclass(frozen=True)
class ApiKey:
    id: str
    workspace_id: str
    prefix: str
    label: str | None
    created_at: datetime
    revoked_at: datetime | None

    @classmethod
    def of(cls, row: ApiKeyRow) -> ApiKey:
        return cls(row.id, row.workspace_id, row.prefix, row.label, _aware(row.created_at) or utc_now(),
                   _aware(row.revoked_at))


@dataclass(frozen=True)
class EvalCode:
    id: str
    plan: str
    days: int
    daily: int
    created_at: datetime
    redeemed_by: str | None
    redeemed_at: datetime | None


@dataclass(frozen=True)
class Allowance:
    """What a caller may do per UTC day (None: no limit), and until when an evaluation plan lasts."""

    plan: str  # the plan in force now: "anonymous", a base plan, or the evaluation plan
    base_plan: str | None
    diagnoses: int | None
    questions: int | None
    until: datetime | None = None

    def limit(self, kind: str) -> int | None:
        return self.diagnoses if kind == "diagnosis" else self.questions


def _plan_limits(plan: str, settings: Settings) -> tuple[int | None, int | None]:
    daily = int(getattr(settings, f"plan_{plan}_daily"))
    questions = int(getattr(settings, f"plan_{plan}_questions_daily"))
    return daily or None, questions or None  # 0: no limit


def _larger(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else max(a, b)


def allowance(ws: Workspace | None, settings: Settings, now: datetime | None = None) -> Allowance:
    """The allowance in force: the anonymous one, the base plan's, or an evaluation plan's while it lasts.

    An evaluation plan never lowers what the base plan gives."""
    now = now or utc_now()
    if ws is None:
        return Allowance("anonymous", None, settings.anonymous_daily or None, settings.anonymous_questions_daily or None)
    daily, questions = _plan_limits(ws.plan, settings)
    if ws.trial_plan and ws.plan_until and now < ws.plan_until:
        _, trial_questions = _plan_limits(ws.trial_plan, settings)
        return Allowance(ws.trial_plan, ws.plan, _larger(daily, ws.trial_daily), _larger(questions, trial_questions),
                         ws.plan_until)
    return Allowance(ws.plan, ws.plan, daily, questions)


def check_plan(plan: str) -> str:
    if plan not in PLANS:
        raise BadRequest(f"Unknown plan '{plan}'.", hint=f"Plans: {', '.join(PLANS)}.")
    return plan


def normalise_code(code: str) -> str:
    """``eval-abcd efgh-...`` and ``EVAL-ABCD-EFGH-...`` are the same code."""
    canon = re.sub(r"[^A-Z0-9]", "", code.upper())
    return canon.removeprefix("EVAL")


# ---------------------------------------------------------------- data access


class Accounts:
    """Workspaces, keys, usage and evaluation codes, in the service's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ------------------------------------------------------------ workspaces

    def create_workspace(self, name: str, plan: str = "free") -> Workspace:
        name = name.strip()
        if not _NAME_SHAPE.fullmatch(name):
            raise BadRequest(f"'{name[:80]}' is not a usable workspace name.",
                             hint="Use 1-80 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit.")
        check_plan(plan)
        row = WorkspaceRow(id="w_" + _token(12), name=name, plan=plan, created_at=utc_now())
        try:
            with self.store.session() as s:
                if s.scalar(select(WorkspaceRow.id).where(WorkspaceRow.name == name)):
                    raise BadRequest(f"A workspace named '{name}' exists.", hint="Pick another name.")
                s.add(row)
        except StoreError as exc:
            if isinstance(exc.__cause__, IntegrityError):
                raise BadRequest(f"A workspace named '{name}' exists.", hint="Pick another name.") from exc
            raise
        return Workspace.of(row)

    def workspaces(self) -> list[Workspace]:
        with self.store.session() as s:
            return [Workspace.of(r) for r in s.scalars(select(WorkspaceRow).order_by(WorkspaceRow.created_at, WorkspaceRow.id))]

    @staticmethod
    def _workspace_row(s: Session, ref: str) -> WorkspaceRow:
        row = s.get(WorkspaceRow, ref) or s.scalar(select(WorkspaceRow).where(WorkspaceRow.name == ref))
        if row is None:
            raise NotFound(f"No workspace '{ref}'.", hint="`crashdoc admin workspace list` shows them.")
        return row

    def workspace(self, ref: str) -> Workspace:
        """A workspace by id or by name."""
        with self.store.session() as s:
            return Workspace.of(self._workspace_row(s, ref))

    def set_plan(self, ref: str, plan: str) -> Workspace:
        check_plan(plan)
        with self.store.session() as s:
            row = self._workspace_row(s, ref)
            row.plan = plan
            return Workspace.of(row)

    # ------------------------------------------------------------ keys

    def create_key(self, workspace_ref: str, label: str | None = None) -> tuple[ApiKey, str]:
        """A new key for the workspace: the record, and the key itself (shown once, never stored)."""
        key_id = _token(_KEY_ID_LEN)
        prefix = KEY_PREFIX + key_id
        key = f"{prefix}_{secrets.token_urlsafe(32)}"
        with self.store.session() as s:
            ws = self._workspace_row(s, workspace_ref)
            row = ApiKeyRow(id="k_" + key_id, workspace_id=ws.id, prefix=prefix, key_hash=_sha256(key),
                            label=(label or "").strip()[:80] or None, created_at=utc_now())
            s.add(row)
        return ApiKey.of(row), key

    def api_keys(self, workspace_ref: str | None = None) -> list[ApiKey]:
        with self.store.session() as s:
            q = select(ApiKeyRow).order_by(ApiKeyRow.created_at, ApiKeyRow.id)
            if workspace_ref:
                q = q.where(ApiKeyRow.workspace_id == self._workspace_row(s, workspace_ref).id)
            return [ApiKey.of(r) for r in s.scalars(q)]

    def revoke_key(self, key_id: str) -> tuple[ApiKey, bool]:
        """Revoke a key (by id or prefix); also says whether it was live until now."""
        with self.store.session() as s:
            row = s.get(ApiKeyRow, key_id) or s.scalar(select(ApiKeyRow).where(ApiKeyRow.prefix == key_id))
            if row is None:
                raise NotFound(f"No key '{key_id}'.", hint="`crashdoc admin key list` shows the key ids.")
            was_live = row.revoked_at is None
            if was_live:
                row.revoked_at = utc_now()
            return ApiKey.of(row), was_live

    def authenticate(self, key: str) -> Workspace | None:
        """The workspace a key belongs to, or None for a wrong, malformed or revoked key."""
        if not _KEY_SHAPE.fullmatch(key):
            return None
        prefix = key[: len(KEY_PREFIX) + _KEY_ID_LEN]
        with self.store.session() as s:
            found = s.execute(
                select(ApiKeyRow, WorkspaceRow).join(WorkspaceRow, WorkspaceRow.id == ApiKeyRow.workspace_id)
                .where(ApiKeyRow.prefix == prefix)
            ).first()
            if found is None:
                return None
            key_row, ws_row = found
            if key_row.revoked_at is not None or not hmac.compare_digest(key_row.key_hash, _sha256(key)):
                return None
            return Workspace.of(ws_row)

    # ------------------------------------------------------------ usage

    def consume(self, subject: str, kind: str, limit: int | None, day: date) -> int | None:
        """Count one use; the new count, or None when ``limit`` was already reached (nothing counted)."""
        with self.store.session() as s:
            return self._consume(s, subject, kind, limit, day)

    def _consume(self, s: Session, subject: str, kind: str, limit: int | None, day: date) -> int | None:
        dialect = s.get_bind().dialect.name
        row = {"subject": subject, "day": day, "kind": kind, "count": 1}
        guard = (UsageRow.count < limit) if limit is not None else None
        if dialect in ("sqlite", "postgresql"):
            upsert: Any  # the two dialects' Insert classes share on_conflict_do_update but no base type
            if dialect == "sqlite":
                from sqlalchemy.dialects.sqlite import insert as sqlite_insert

                upsert = sqlite_insert(UsageRow).values(**row).on_conflict_do_update(
                    index_elements=["subject", "day", "kind"], set_={"count": UsageRow.count + 1}, where=guard)
            else:
                from sqlalchemy.dialects.postgresql import insert as pg_insert

                upsert = pg_insert(UsageRow).values(**row).on_conflict_do_update(
                    index_elements=["subject", "day", "kind"], set_={"count": UsageRow.count + 1}, where=guard)
            new = s.execute(upsert.returning(UsageRow.count)).scalar()
            return int(new) if new is not None else None
        # Any other database: a guarded UPDATE, else the day's first use.
        match = (UsageRow.subject == subject) & (UsageRow.day == day) & (UsageRow.kind == kind)
        bumped = s.execute(update(UsageRow).where(match if guard is None else match & guard).values(count=UsageRow.count + 1))
        if bumped.rowcount:  # type: ignore[attr-defined]
            return int(s.scalar(select(UsageRow.count).where(match)) or 0)
        if s.scalar(select(UsageRow.count).where(match)) is not None:
            return None
        s.execute(insert(UsageRow).values(**row))
        return 1

    def refund(self, subject: str, kind: str, day: date) -> None:
        """Give back one use (the request it was counted for failed)."""
        with self.store.session() as s:
            self._refund(s, subject, kind, day)

    def _refund(self, s: Session, subject: str, kind: str, day: date) -> None:
        s.execute(update(UsageRow).where(UsageRow.subject == subject, UsageRow.day == day, UsageRow.kind == kind,
                                         UsageRow.count > 0).values(count=UsageRow.count - 1))

    def usage(self, subject: str, day: date) -> dict[str, int]:
        with self.store.session() as s:
            rows = s.execute(select(UsageRow.kind, UsageRow.count).where(UsageRow.subject == subject, UsageRow.day == day))
            counts = {kind: 0 for kind in KINDS}
            counts.update({k: int(c) for k, c in rows})
            return counts

    def purge_usage(self, before: date) -> int:
        with self.store.session() as s:
            n = s.scalar(select(func.count()).select_from(UsageRow).where(UsageRow.day < before)) or 0
            s.execute(delete(UsageRow).where(UsageRow.day < before))
            return int(n)

    # ------------------------------------------------------------ evaluation codes

    def create_eval_code(self, *, plan: str = "scale", days: int = 14, daily: int = 50) -> tuple[EvalCode, str]:
        """A single-use code: ``plan`` with ``daily`` diagnoses a day for ``days`` days. Returns (record, code)."""
        check_plan(plan)
        if not 1 <= days <= 3650:
            raise BadRequest(f"--days {days} is out of range.", hint="Use 1 to 3650 days.")
        if not 1 <= daily <= 1_000_000:
            raise BadRequest(f"--daily {daily} is out of range.", hint="Use 1 to 1000000 diagnoses a day.")
        groups = [_token(4, _CODE_ALPHABET) for _ in range(4)]
        code = "EVAL-" + "-".join(groups)
        row = EvalCodeRow(id="e_" + _token(10), code_hash=_sha256(normalise_code(code)), plan=plan, days=days,
                          daily=daily, created_at=utc_now())
        with self.store.session() as s:
            s.add(row)
        return self._code(row), code

    @staticmethod
    def _code(row: EvalCodeRow) -> EvalCode:
        return EvalCode(row.id, row.plan, row.days, row.daily, _aware(row.created_at) or utc_now(), row.redeemed_by,
                        _aware(row.redeemed_at))

    def eval_codes(self) -> list[EvalCode]:
        with self.store.session() as s:
            return [self._code(r) for r in s.scalars(select(EvalCodeRow).order_by(EvalCodeRow.created_at, EvalCodeRow.id))]

    def redeem(self, workspace_id: str, code: str, now: datetime | None = None) -> Workspace:
        """Give the workspace the code's plan for the code's days (after any evaluation plan still running).

        Single use: the code is claimed by one guarded UPDATE, so two workspaces racing for it cannot both
        win. Redeeming the same code again from the same workspace changes nothing."""
        now = now or utc_now()
        with self.store.session() as s:
            row = s.scalar(select(EvalCodeRow).where(EvalCodeRow.code_hash == _sha256(normalise_code(code))))
            if row is None:
                raise NotFound("This evaluation code is not valid.", hint="Check it letter by letter; codes look like EVAL-XXXX-XXXX-XXXX-XXXX.")
            ws = self._workspace_row(s, workspace_id)
            if row.redeemed_by == ws.id:
                return Workspace.of(ws)
            claimed = s.execute(
                update(EvalCodeRow).where(EvalCodeRow.id == row.id, EvalCodeRow.redeemed_by.is_(None))
                .values(redeemed_by=ws.id, redeemed_at=now)
            )
            if claimed.rowcount != 1:  # type: ignore[attr-defined]
                raise BadRequest("This evaluation code was already redeemed.", hint="Each code works once; ask for a new one.")
            until = _aware(ws.plan_until)
            start = until if until is not None and until > now else now
            ws.trial_plan, ws.trial_daily = row.plan, row.daily
            ws.plan_until = start + timedelta(days=row.days)
            return Workspace.of(ws)

    # ------------------------------------------------------------ for tests and the admin CLI

    def counts(self, subjects: Sequence[str], day: date) -> dict[str, dict[str, Any]]:
        """Usage of several subjects on one day: subject -> kind -> count."""
        out: dict[str, dict[str, Any]] = {s: {k: 0 for k in KINDS} for s in subjects}
        if not subjects:
            return out
        with self.store.session() as s:
            for subject, kind, count in s.execute(
                select(UsageRow.subject, UsageRow.kind, UsageRow.count).where(UsageRow.subject.in_(subjects), UsageRow.day == day)
            ):
                out[subject][kind] = int(count)
        return out
