"""The web pages: paste a log (``/``), read a diagnosis and ask about it (``/d/{id}``), browse the encyclopedia
(``/kb``). Server-rendered and usable without JavaScript; the scripts only add progress and streaming.
Like the API, the pages hold no pipeline logic: they call ``diagnose()``, ``ask()`` and read the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from anyio import to_thread
from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from retrieval.kb import Entry
from service import fleet
from service.api import deps
from service.diff import diff_with
from service.errors import AuthError, CrashdocError, InputError, NotFound, QuotaExceeded
from service.facts.vocabulary import key_facts
from service.feedback import MAX_NOTE, FeedbackIn
from service.feedback import record as record_feedback
from service.models import Diagnosis
from service.pipeline import Engine, ask, diagnose, history_of
from service.web import encyclopedia as enc
from service.web.forms import read_run
from service.web.swimlane import swimlane
from service.web.templating import assets, line_anchor, masked_kinds, page

router = APIRouter(include_in_schema=False)

# The facts worth a glance in the diagnosis's header, in this order (all of them are in the facts table).
PRIVATE = {"Cache-Control": "no-store", "X-Robots-Tag": "noindex"}  # a diagnosis is the user's, not the web's


# Errors a person can act on, shown on the page they came from (the API maps the same tree to JSON).
_SHOWN_ON_PAGE = (InputError, AuthError, QuotaExceeded)


def _retry_after(exc: CrashdocError) -> dict[str, str]:
    return {"Retry-After": str(exc.retry_after_s)} if isinstance(exc, QuotaExceeded) else {}


def _not_found(what: str, hint: str) -> Response:
    return page("error.html", status=404, title="Not found", message=what, hint=hint)


# ---------------------------------------------------------------- paste a log


@router.get("/")
def home(request: Request) -> Response:
    engine = deps.engine(request)
    return page("index.html", limits=engine.limits, kinds=masked_kinds(), llm=bool(engine.settings.llm_model), error=None,
                example="")


EXAMPLES = Path(__file__).resolve().parent / "examples"  # a copy of examples/fusedadam-h100.log (a test keeps them equal)


@router.get("/example")
def example(request: Request) -> Response:
    """ "Try an example": the form with a real failed run's log already pasted (DeepSpeed ZeRO-2, FusedAdam, 2 x H100)."""
    engine = deps.engine(request)
    text = (EXAMPLES / "fusedadam-h100.log").read_text(encoding="utf-8")
    return page("index.html", limits=engine.limits, kinds=masked_kinds(), llm=bool(engine.settings.llm_model), error=None,
                example=text)


@router.post("/")
async def submit(request: Request) -> Response:
    """The form without JavaScript: diagnose, then show the diagnosis (POST-redirect-GET).
    The same rules as ``POST /v1/diagnoses``: who may call, and the daily allowance."""
    engine = deps.engine(request)
    try:
        who = deps.caller(request, None)
        async with deps.spending(request, who, "diagnosis"):
            sources = await read_run(request, engine.limits)
            d = await to_thread.run_sync(lambda: diagnose(engine, sources, workspace_id=who.workspace_id),
                                         limiter=deps.pool_for(request, sources))
    except _SHOWN_ON_PAGE as exc:
        return page("index.html", status=exc.status, headers=_retry_after(exc), limits=engine.limits,
                    kinds=masked_kinds(), llm=bool(engine.settings.llm_model), error=exc, example="")
    return RedirectResponse(f"/d/{quote(d.id)}", status_code=303)


# ---------------------------------------------------------------- a diagnosis and its chat


def _card_facts(d: Diagnosis) -> list[str]:
    """The fact cards: the facts that decided the cause first, then the key facts, six at most."""
    deciding = [n for n in (d.answer.deciding_facts if d.answer else []) if n in d.facts]
    return (deciding + [n for n in key_facts(d.facts) if n not in deciding])[:6]


def diagnosis_context(engine: Engine, diagnosis_id: str, workspace_id: str | None = None) -> dict[str, Any]:
    """What the diagnosis page shows; ``workspace_id``: the owner's, for a shared link (``web.shared``)."""
    d = engine.store.get(diagnosis_id, workspace_id)
    excerpt = engine.store.excerpt(diagnosis_id, workspace_id)
    primary = {line_anchor(e.file, e.line) for e in d.evidence} | {line_anchor(c.file, c.line) for c in d.collateral[:20]}
    anchors = primary | {line_anchor(e.file, e.line) for e in excerpt}  # what a chat citation can link to
    cited = {(e.file, e.line) for e in d.evidence}
    entries = {c.entry_id: engine.kb.get(c.entry_id) for c in d.candidates}
    return {
        "d": d, "entry": engine.kb.get(d.entry_id) if d.entry_id else None, "excerpt": excerpt, "cited": cited,
        "primary": primary, "anchors": anchors, "messages": history_of(engine, diagnosis_id, workspace_id), "entries": entries,
        "key_facts": _card_facts(d),
        "deciding_values": [d.facts[n].value for n in (d.answer.deciding_facts if d.answer else []) if n in d.facts],
        "threshold": engine.settings.unknown_threshold, "phase": enc.phase_of(entry) if (entry := engine.kb.get(d.entry_id or "")) else None,
        "llm": bool(engine.settings.llm_model), "max_question": engine.settings.max_question_chars,
        "timeline_svg": swimlane(d), "shared": False, "kb_ids": sorted(engine.kb.entries), "diff": None, "diff_error": None,
        "feedback_error": None, "feedback_thanks": False,
    }


@router.get("/d/{diagnosis_id}")
def diagnosis_page(diagnosis_id: str, request: Request, feedback: str = "") -> Response:
    try:
        ctx = diagnosis_context(deps.engine(request), diagnosis_id)
    except NotFound:
        return _not_found("There is no diagnosis with this id.", "Diagnoses can be purged after the retention period; paste the log again.")
    return page("diagnosis.html", headers=PRIVATE, chat_error=None, **{**ctx, "feedback_thanks": feedback in ("right", "wrong")})


@router.post("/d/{diagnosis_id}/compare")
async def compare_form(diagnosis_id: str, request: Request) -> Response:
    """"Compare with a good run": the good run's pasted log or files against this diagnosis; nothing is stored."""
    engine = deps.engine(request)
    try:
        who = deps.caller(request, None)
        d = await to_thread.run_sync(lambda: engine.store.get(diagnosis_id, who.workspace_id))
        sources = await read_run(request, engine.limits, field="good")
        diff = await to_thread.run_sync(lambda: diff_with(engine, d, sources), limiter=deps.pool_for(request, sources))
        error = None
    except NotFound:
        return _not_found("There is no diagnosis with this id.", "Paste the log again.")
    except _SHOWN_ON_PAGE as exc:
        diff, error = None, exc
    ctx = await to_thread.run_sync(lambda: diagnosis_context(engine, diagnosis_id, who.workspace_id))
    return page("diagnosis.html", status=error.status if error else 200, headers=PRIVATE, chat_error=None,
                **{**ctx, "diff": diff, "diff_error": error})


@router.post("/d/{diagnosis_id}/feedback")
async def feedback_form(diagnosis_id: str, request: Request) -> Response:
    """"Right cause" / "Wrong cause, it was ...": stored with the diagnosis, then the page again (POST-redirect-GET)."""
    engine = deps.engine(request)
    form = await request.form(max_files=0, max_fields=4, max_part_size=16 * 1024)
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    try:
        who = deps.caller(request, None)
        given = FeedbackIn(verdict="wrong" if fields.get("verdict") == "wrong" else "right",
                           label=fields.get("label") or None, note=(fields.get("note") or "")[:MAX_NOTE] or None)
        await to_thread.run_sync(lambda: record_feedback(engine, diagnosis_id, given, source="web", workspace_id=who.workspace_id))
    except NotFound:
        return _not_found("There is no diagnosis with this id.", "Paste the log again.")
    except _SHOWN_ON_PAGE as exc:
        ctx = await to_thread.run_sync(lambda: diagnosis_context(engine, diagnosis_id, who.workspace_id))
        return page("diagnosis.html", status=exc.status, headers=PRIVATE, chat_error=None, **{**ctx, "feedback_error": exc})
    return RedirectResponse(f"/d/{quote(diagnosis_id)}?feedback={given.verdict}#feedback", status_code=303)


@router.get("/d/{diagnosis_id}/chat")
def chat_fragment(diagnosis_id: str, request: Request) -> Response:
    """The conversation as an HTML fragment: the page swaps it in when a streamed answer is complete."""
    engine = deps.engine(request)
    try:
        ctx = diagnosis_context(engine, diagnosis_id)
    except NotFound:
        return _not_found("There is no diagnosis with this id.", "Reload the page.")
    return page("_messages.html", headers=PRIVATE, **ctx)


@router.post("/d/{diagnosis_id}/ask")
async def ask_form(diagnosis_id: str, request: Request) -> Response:
    """The chat without JavaScript: ask, then show the page again at the conversation."""
    engine = deps.engine(request)
    form = await request.form(max_files=0, max_fields=4, max_part_size=64 * 1024)
    question = form.get("question")
    try:
        who = deps.caller(request, None)
        async with deps.spending(request, who, "question"):
            await to_thread.run_sync(lambda: ask(engine, diagnosis_id, question if isinstance(question, str) else "",
                                                 workspace_id=who.workspace_id))
    except NotFound:
        return _not_found("There is no diagnosis with this id.", "Paste the log again.")
    except _SHOWN_ON_PAGE as exc:
        ctx = await to_thread.run_sync(lambda: diagnosis_context(engine, diagnosis_id))
        return page("diagnosis.html", status=exc.status, headers={**PRIVATE, **_retry_after(exc)}, chat_error=exc, **ctx)
    return RedirectResponse(f"/d/{quote(diagnosis_id)}#chat", status_code=303)


# ---------------------------------------------------------------- the encyclopedia


def _cards(entries: list[Entry]) -> list[dict[str, Any]]:
    return [{"entry": e, "phase": enc.phase_of(e)} for e in entries]


@router.get("/kb")
def kb_index(request: Request, q: str = "") -> Response:
    engine = deps.engine(request)
    kb = engine.kb
    results = _cards(enc.search(kb, engine.index, q)) if q.strip() else None
    libraries = [(lib, len(enc.entries_for_library(kb, lib))) for lib in enc.LIBRARIES]
    return page("kb_index.html", q=q, results=results, categories={c: _cards(es) for c, es in enc.categories(kb).items()},
                libraries=[(lib, n) for lib, n in libraries if n], phases=enc.PHASES, total=len(kb), kb_version=kb.version)


@router.get("/kb/category/{name}")
def kb_category(name: str, request: Request) -> Response:
    entries = enc.categories(deps.engine(request).kb).get(name)
    if not entries:
        return _not_found(f"There is no category '{name}'.", "The encyclopedia lists the categories.")
    return page("kb_hub.html", kind="category", title=enc.category_title(name), name=name, groups=enc.by_phase(entries),
                library=None, count=len(entries), software_for=enc.software_for, first_fix=enc.first_fix,
                telltale=enc.telltale)


@router.get("/kb/library/{name}")
def kb_library(name: str, request: Request) -> Response:
    lib = enc.library(name)
    entries = enc.entries_for_library(deps.engine(request).kb, lib) if lib else []
    if lib is None or not entries:
        return _not_found(f"There is no library hub '{name}'.", "The encyclopedia lists the libraries.")
    return page("kb_hub.html", kind="library", title=lib.title, name=name, groups=enc.by_phase(entries), library=lib,
                count=len(entries), software_for=enc.software_for, first_fix=enc.first_fix,
                telltale=enc.telltale)


@router.get("/kb/{entry_id}")
def kb_entry(entry_id: str, request: Request) -> Response:
    kb = deps.engine(request).kb
    entry = kb.get(entry_id)
    if entry is None:
        return _not_found(f"There is no entry '{entry_id}'.", "Search the encyclopedia for it.")
    related = [kb.entries[r] for r in entry.meta.related if r in kb.entries]
    return page("kb_entry.html", entry=entry, related=related, phase=enc.phase_of(entry),
                libraries=enc.libraries_of(entry), ids=kb.entries.keys())


# ---------------------------------------------------------------- static files


@router.get("/static/{name}")
def static(name: str, v: str = "") -> Response:
    asset = assets().get(name)
    if asset is None:
        return Response("Not found\n", status_code=404, media_type="text/plain")
    cache = "public, max-age=31536000, immutable" if v == asset.version else "no-cache"
    return Response(asset.body, media_type=asset.media_type, headers={"Cache-Control": cache, "ETag": f'"{asset.version}"'})


# ---------------------------------------------------------------- recurring failures


@router.get("/failures")
def failures_page(request: Request) -> Response:
    """The failure groups and flagged nodes of the caller's scope (a local install's: the anonymous one)."""
    engine = deps.engine(request)
    who = deps.caller(request, None)
    scope = fleet.records.scope_of(who.workspace_id)
    n = engine.settings.bad_node_min_jobs
    return page("failures.html", groups=fleet.records.failures(engine.store, scope),
                flagged=fleet.records.flagged_nodes(engine.store, scope, n), min_jobs=n, headers=PRIVATE)
