"""``crashdoc admin``: workspaces, API keys, evaluation codes and retention, on the service's database.

What a script needs (a new id, key or code) goes to stdout alone; what a person should read, to stderr.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.store.accounts import Accounts


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "admin",
        help="workspaces, API keys, evaluation codes and retention",
        description="Administer the service's database (CRASHDOC_DATA_DIR or CRASHDOC_DATABASE_URL): workspaces "
        "and their plans, API keys (shown once, stored hashed), single-use evaluation codes, and the retention purge.",
    )
    p.set_defaults(run=run)
    what = p.add_subparsers(dest="admin_command", metavar="WHAT", required=True)

    ws = what.add_parser("workspace", help="create and list workspaces").add_subparsers(dest="action", metavar="ACTION", required=True)
    c = ws.add_parser("create", help="create a workspace; prints its id")
    c.add_argument("name", metavar="NAME", help="a unique name (letters, digits, spaces, . _ -)")
    c.add_argument("--plan", default="free", help="free (default) or scale")
    c.set_defaults(handler=workspace_create)
    ws.add_parser("list", help="every workspace with its plan and today's usage").set_defaults(handler=workspace_list)
    pl = ws.add_parser("plan", help="change a workspace's base plan")
    pl.add_argument("workspace", metavar="WORKSPACE", help="name or id")
    pl.add_argument("plan", metavar="PLAN", help="free or scale")
    pl.set_defaults(handler=workspace_plan)

    key = what.add_parser("key", help="create, list and revoke API keys").add_subparsers(dest="action", metavar="ACTION", required=True)
    kc = key.add_parser("create", help="a new API key for a workspace; printed once, never shown again")
    kc.add_argument("workspace", metavar="WORKSPACE", help="name or id")
    kc.add_argument("--label", help="what the key is for, e.g. 'ci-bot'")
    kc.set_defaults(handler=key_create)
    kl = key.add_parser("list", help="keys (ids and prefixes, never the keys)")
    kl.add_argument("workspace", nargs="?", metavar="WORKSPACE", help="only this workspace's keys")
    kl.set_defaults(handler=key_list)
    kr = key.add_parser("revoke", help="revoke a key: requests with it get 401 from now on")
    kr.add_argument("key_id", metavar="KEY_ID", help="the key's id (k_...) or prefix (cdk_...)")
    kr.set_defaults(handler=key_revoke)

    code = what.add_parser("eval-code", help="single-use evaluation codes").add_subparsers(dest="action", metavar="ACTION", required=True)
    ec = code.add_parser("create", help="mint a code: a workspace that redeems it gets PLAN for DAYS days; prints the code")
    ec.add_argument("--days", type=int, default=14, help="how long the plan lasts once redeemed (default: 14)")
    ec.add_argument("--daily", type=int, default=50, help="diagnoses a day meanwhile (default: 50)")
    ec.add_argument("--plan", default="scale", help="the plan it gives (default: scale)")
    ec.set_defaults(handler=code_create)
    code.add_parser("list", help="codes and who redeemed them (never the codes)").set_defaults(handler=code_list)

    pu = what.add_parser("purge", help="delete diagnoses (with their chat) older than the retention period")
    pu.add_argument("--days", type=int, help="older than this many days (default: CRASHDOC_RETENTION_DAYS)")
    pu.set_defaults(handler=purge)


def run(args: argparse.Namespace) -> int:
    return int(args.handler(args))


def _accounts() -> Accounts:
    from service.settings import get_settings
    from service.store import Store
    from service.store.accounts import Accounts

    return Accounts(Store(get_settings().resolved_database_url))


def _when(dt: datetime | None) -> str:
    return dt.strftime("%Y-%m-%d %H:%M") if dt else "-"


def _table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())


def _note(text: str) -> None:
    print(text, file=sys.stderr)


# ---------------------------------------------------------------- workspaces


def workspace_create(args: argparse.Namespace) -> int:
    ws = _accounts().create_workspace(args.name, args.plan)
    print(ws.id)
    _note(f"created workspace '{ws.name}' ({ws.plan} plan). Next: crashdoc admin key create '{ws.name}'")
    return 0


def workspace_list(args: argparse.Namespace) -> int:
    from service.settings import get_settings
    from service.store.accounts import allowance, utc_now

    acc, settings, now = _accounts(), get_settings(), utc_now()
    spaces = acc.workspaces()
    if not spaces:
        _note("no workspaces yet: crashdoc admin workspace create NAME")
        return 0
    used = acc.counts([w.id for w in spaces], now.date())
    keys: dict[str, int] = {}
    for k in acc.api_keys():
        if k.revoked_at is None:
            keys[k.workspace_id] = keys.get(k.workspace_id, 0) + 1

    def of(n: int | None) -> str:
        return "no limit" if n is None else str(n)

    rows = []
    for w in spaces:
        a = allowance(w, settings, now)
        rows.append([w.id, w.name, a.plan if a.until is None else f"{a.plan} (then {w.plan})", _when(a.until),
                     f"{used[w.id]['diagnosis']}/{of(a.diagnoses)}", f"{used[w.id]['question']}/{of(a.questions)}",
                     str(keys.get(w.id, 0))])
    _table(["ID", "NAME", "PLAN", "UNTIL (UTC)", "DIAGNOSES TODAY", "QUESTIONS TODAY", "KEYS"], rows)
    return 0


def workspace_plan(args: argparse.Namespace) -> int:
    ws = _accounts().set_plan(args.workspace, args.plan)
    _note(f"workspace '{ws.name}' is on the {ws.plan} plan")
    return 0


# ---------------------------------------------------------------- keys


def key_create(args: argparse.Namespace) -> int:
    acc = _accounts()
    record, key = acc.create_key(args.workspace, args.label)
    print(key)
    _note(f"key {record.id} for workspace '{acc.workspace(record.workspace_id).name}'. This is the only time it is shown: "
          "keep it as a secret (e.g. in CI), send it as 'Authorization: Bearer <key>'.")
    return 0


def key_list(args: argparse.Namespace) -> int:
    acc = _accounts()
    names = {w.id: w.name for w in acc.workspaces()}
    found = acc.api_keys(args.workspace)
    if not found:
        _note("no keys yet: crashdoc admin key create WORKSPACE")
        return 0
    _table(["ID", "PREFIX", "WORKSPACE", "LABEL", "CREATED (UTC)", "REVOKED (UTC)"],
           [[k.id, k.prefix + "_…", names.get(k.workspace_id, k.workspace_id), k.label or "-", _when(k.created_at),
             _when(k.revoked_at)] for k in found])
    return 0


def key_revoke(args: argparse.Namespace) -> int:
    key, was_live = _accounts().revoke_key(args.key_id)
    _note(f"revoked key {key.id}" if was_live else f"key {key.id} was already revoked on {_when(key.revoked_at)} UTC")
    return 0


# ---------------------------------------------------------------- evaluation codes


def code_create(args: argparse.Namespace) -> int:
    record, code = _accounts().create_eval_code(plan=args.plan, days=args.days, daily=args.daily)
    print(code)
    _note(f"evaluation code {record.id}: the {record.plan} plan with {record.daily} diagnoses a day for {record.days} days, "
          "single use. A workspace redeems it with POST /v1/workspace/redeem {\"code\": \"...\"}. Shown only now.")
    return 0


def code_list(args: argparse.Namespace) -> int:
    acc = _accounts()
    names = {w.id: w.name for w in acc.workspaces()}
    found = acc.eval_codes()
    if not found:
        _note("no evaluation codes yet: crashdoc admin eval-code create --days 14 --daily 50")
        return 0
    _table(["ID", "PLAN", "DAYS", "DAILY", "CREATED (UTC)", "REDEEMED BY", "REDEEMED (UTC)"],
           [[c.id, c.plan, str(c.days), str(c.daily), _when(c.created_at),
             names.get(c.redeemed_by, c.redeemed_by or "-") if c.redeemed_by else "-", _when(c.redeemed_at)] for c in found])
    return 0


# ---------------------------------------------------------------- retention


def purge(args: argparse.Namespace) -> int:
    from service.errors import BadRequest
    from service.settings import get_settings
    from service.store.accounts import utc_now
    from service.store.idempotency import IdempotencyKeys

    days = args.days if args.days is not None else get_settings().retention_days
    if days <= 0:
        raise BadRequest("Retention is off (CRASHDOC_RETENTION_DAYS is 0), so nothing is old enough to purge.",
                         hint="Pass --days N, or set CRASHDOC_RETENTION_DAYS.")
    acc = _accounts()
    diagnoses = acc.store.purge(days)
    counters = acc.purge_usage((utc_now() - timedelta(days=days)).date())
    keys = IdempotencyKeys(acc.store).purge()
    _note(f"purged {diagnoses} diagnoses (with their chat) and {counters} daily usage counters older than {days} days, "
          f"and {keys} expired idempotency keys")
    return 0
