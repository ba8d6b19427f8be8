"""Block Kit messages, always inside Slack's limits: long text is clipped or split here, never rejected there.

Every message is a dict ready to post to a ``response_url``: ``response_type``, a plain ``text`` fallback
(notifications, screen readers) and ``blocks``. Dynamic text is escaped for mrkdwn (&, <, >).
"""

from __future__ import annotations

import json
import re
from typing import Any

from retrieval.kb import Entry
from service.chat.models import Message
from service.errors import CrashdocError
from service.models import Diagnosis
from service.slack.commands import SUBCOMMANDS, TOO_LONG_AT, Usage

# Slack's limits (https://docs.slack.dev/reference/block-kit/blocks).
MAX_BLOCKS = 50
SECTION_TEXT = 3_000
HEADER_TEXT = 150
FIELD_TEXT = 2_000
MAX_FIELDS = 10
CONTEXT_TEXT = 3_000
CONTEXT_ELEMENTS = 10
BUTTON_TEXT = 75
BUTTON_VALUE = 2_000
URL_LENGTH = 3_000
INPUT_MAX_LENGTH = 3_000
FALLBACK_TEXT = 3_000  # Slack keeps 40,000; a notification needs far less

EVIDENCE_LINE = 600  # one log line in the evidence block (a CUDA OOM message is ~450)

ACTION_FOLLOWUP = "crashdoc_followup"  # button: opens the question box
ACTION_ASK = "crashdoc_ask"  # the question box itself (Enter sends it)
ACTION_OPEN = "crashdoc_open"  # link button to the web page; Slack still reports the click
ACTION_SHARE = "crashdoc_share"  # button on the private card: post the masked diagnosis to the channel
ACTION_RIGHT = "crashdoc_right"  # feedback: the named cause is right
ACTION_WRONG = "crashdoc_wrong"  # feedback: it is not (a modal asks what it was)
MODAL_WRONG = "crashdoc_wrong_modal"
WRONG_LABEL_BLOCK = "label"
WRONG_NOTE_BLOCK = "note"
ASK_BLOCK_PREFIX = "crashdoc_ask:"  # + diagnosis id: which diagnosis the question is about
MODAL_ASK = "crashdoc_ask_modal"  # the follow-up modal's callback_id
MODAL_QUESTION_BLOCK = "question"
SHORTCUT_DIAGNOSE = "crashdoc_diagnose"  # the message shortcut "Diagnose with crashdoc"
FIRST_FIX = 900  # the first fix step on the card

Block = dict[str, Any]
SlackMessage = dict[str, Any]

# ---------------------------------------------------------------- text


def escape(text: str) -> str:
    """The three characters mrkdwn reserves."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _clip_mrkdwn(text: str, limit: int) -> str:
    """Clip, closing a code block the cut left open."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 6].rstrip() + "…"
    return cut + "\n```" if cut.count("```") % 2 else cut


def _fence_safe(text: str) -> str:
    """Log text inside a code block: a stray ``` would end the block early."""
    return text.replace("```", "`\u200b`\u200b`")


_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![*\w])\*(?![\s*])(.+?)(?<![\s*])\*(?![*\w])")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_BULLET = re.compile(r"^(\s*)[-*]\s+")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+")
_FENCE_LANG = re.compile(r"^(\s*)```[\w+.-]+\s*$")


def _inline(segment: str) -> str:
    segment = _LINK.sub(lambda m: f"<{m.group(2)}|{m.group(1)}>", segment)
    segment = _BOLD.sub("\x00\\1\x00", segment)  # markdown **bold** is mrkdwn *bold*
    segment = _ITALIC.sub(r"_\1_", segment)  # markdown *italic* is mrkdwn _italic_
    return segment.replace("\x00", "*")


def mrkdwn(markdown: str) -> str:
    """The KB's and the chat's markdown as Slack mrkdwn (links, bold, headings, bullets, fences).

    Soft-wrapped lines are joined: Slack breaks every newline, markdown does not.
    """
    out: list[str] = []
    in_fence = False
    joinable = False  # the previous line is prose that a soft-wrapped line may continue
    for line in escape(markdown).splitlines():
        if line.strip().startswith("```"):
            in_fence = not in_fence
            out.append(_FENCE_LANG.sub(r"\1```", line))
            joinable = False
            continue
        if in_fence:
            out.append(line)
            continue
        heading = _HEADING.match(line)
        starts_block = bool(heading or _BULLET.match(line) or _NUMBERED.match(line) or line.lstrip().startswith(("&gt;", "|")))
        if heading:
            line = f"**{heading.group(1)}**"  # bold, after the inline pass below
        line = _BULLET.sub(r"\1• ", line)
        parts = line.split("`")  # odd parts are inline code: left alone
        line = "`".join(_inline(p) if i % 2 == 0 else p for i, p in enumerate(parts))
        if joinable and line.strip() and not starts_block:
            out[-1] += " " + line.strip()
            continue
        out.append(line)
        joinable = bool(line.strip()) and not heading
    return "\n".join(out)


def _paragraphs(text: str) -> list[str]:
    """Split on blank lines outside code blocks, so a paragraph never splits a code block."""
    paras: list[str] = []
    current: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            in_fence = not in_fence
        if not line.strip() and not in_fence:
            if current:
                paras.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        paras.append("\n".join(current))
    return paras


def _pack(title: str, items: list[str], sep: str = "\n") -> list[str]:
    """Items under a title, as few section texts as fit (each within SECTION_TEXT)."""
    texts: list[str] = []
    current = title
    for item in items:
        item = _clip_mrkdwn(item, SECTION_TEXT - len(title) - 1)
        candidate = f"{current}{sep}{item}" if current else item
        if len(candidate) > SECTION_TEXT:
            texts.append(current)
            current = item
        else:
            current = candidate
    if current:
        texts.append(current)
    return texts


# ---------------------------------------------------------------- blocks


def _section(text: str, fields: list[str] | None = None) -> Block:
    block: Block = {"type": "section", "text": {"type": "mrkdwn", "text": _clip_mrkdwn(text, SECTION_TEXT)}}
    if fields:
        block["fields"] = [{"type": "mrkdwn", "text": clip(f, FIELD_TEXT)} for f in fields[:MAX_FIELDS]]
    return block


def _header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": clip(text, HEADER_TEXT), "emoji": True}}


def _context(*texts: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(t, CONTEXT_TEXT)} for t in texts[:CONTEXT_ELEMENTS]]}


def _button(text: str, action_id: str, *, value: str | None = None, url: str | None = None,
            primary: bool = False) -> Block:
    button: Block = {"type": "button", "action_id": action_id, "text": {"type": "plain_text", "text": clip(text, BUTTON_TEXT)}}
    if value is not None:
        button["value"] = value[:BUTTON_VALUE]
    if url is not None:
        button["url"] = url
    if primary:
        button["style"] = "primary"
    return button


def _actions(diagnosis_id: str, page: str | None, label: str, *, share: bool = False, feedback: bool = False) -> Block:
    elements = [_button("Share to channel", ACTION_SHARE, value=diagnosis_id, primary=True)] if share else []
    elements.append(_button(label, ACTION_FOLLOWUP, value=diagnosis_id, primary=not share))
    if page:
        elements.append(_button("Open in crashdoc", ACTION_OPEN, url=page))
    if feedback:
        elements += [_button("Right cause", ACTION_RIGHT, value=diagnosis_id), _button("Wrong cause…", ACTION_WRONG, value=diagnosis_id)]
    return {"type": "actions", "elements": elements}


def _fit(head: list[Block], middle: list[Block], tail: list[Block], more: str) -> list[Block]:
    """Keep the head and the tail; cut the middle so the whole stays within MAX_BLOCKS."""
    room = MAX_BLOCKS - len(head) - len(tail)
    if len(middle) > room:
        middle = [*middle[: room - 1], _context(more)]
    return head + middle + tail


def page_url(public_url: str | None, diagnosis_id: str) -> str | None:
    """The diagnosis's web page, when the service knows its public address."""
    if not public_url:
        return None
    url = f"{public_url.rstrip('/')}/d/{diagnosis_id}"
    return url if len(url) <= URL_LENGTH else None


def _message(text: str, blocks: list[Block] | None = None, *, in_channel: bool = False) -> SlackMessage:
    message: SlackMessage = {
        "response_type": "in_channel" if in_channel else "ephemeral",
        "replace_original": False,
        "text": clip(text, FALLBACK_TEXT),
    }
    if blocks is not None:
        message["blocks"] = blocks
    return message


# ---------------------------------------------------------------- messages


def _evidence_block(d: Diagnosis) -> Block | None:
    if not d.evidence:
        return None
    frame = "*Evidence*\n```\n{}\n```"
    budget = SECTION_TEXT - len(frame) - 40  # room for the "more lines" note
    lines: list[str] = []
    for e in d.evidence:
        where = f"{e.file}:{e.line}" + (f" [rank {e.rank}]" if e.rank is not None else "")
        line = _fence_safe(escape(clip(f"{where}  {e.text}", EVIDENCE_LINE)))
        if sum(len(x) + 1 for x in lines) + len(line) > budget:
            lines.append(f"… {len(d.evidence) - len(lines)} more line(s) on the web page")
            break
        lines.append(line)
    return _section(frame.format("\n".join(lines)))


def _card_head(d: Diagnosis) -> list[Block]:
    """Title, this run's sentence, the decisive line, the first fix: the answer, first."""
    sentence = d.answer.sentence if d.answer else d.summary
    head = [_header(d.title), _section(escape(sentence))]
    if d.evidence:
        e = d.evidence[0]
        where = f"`{escape(e.file)}:{e.line}`" + (f" · rank {e.rank}" if e.rank is not None else "")
        head.append(_section(f"*Decisive line* {where}\n```\n{_fence_safe(escape(clip(e.text, EVIDENCE_LINE)))}\n```"))
    if d.fix:
        more = f"\n_{len(d.fix) - 1} more step(s) in the details._" if len(d.fix) > 1 else ""
        head.append(_section(f"*First fix*\n{_clip_mrkdwn(mrkdwn(d.fix[0]), FIRST_FIX)}{more}"))
    elif not d.entry_id and d.candidates:
        closest = ", ".join(f"`{escape(c.entry_id)}` ({c.score:.2f})" for c in d.candidates[:3])
        head.append(_section(f"*Closest entries* {closest}"))
    return head


def _card_notes(d: Diagnosis, page: str | None) -> Block:
    cause = f"`{escape(d.entry_id)}` · confidence {d.confidence:.0%}" if d.entry_id else "no entry fits well enough"
    notes = [cause, f"diagnosis `{d.id}`"]
    if d.masked:
        notes.append("masked before analysis: " + ", ".join(f"{escape(k)} {v}" for k, v in sorted(d.masked.items())))
    if page:
        notes.append(f"<{page}|the full diagnosis>")
    return _context(*notes)


def _fallback(d: Diagnosis, page: str | None) -> str:
    cause = f"{d.title} ({d.entry_id}, confidence {d.confidence:.0%})" if d.entry_id else d.title
    return f"crashdoc: {escape(cause)}" + (f" {page}" if page else "")


def diagnosis_message(d: Diagnosis, public_url: str | None, *, shared: bool = False) -> SlackMessage:
    """The compact card: title, this run's sentence, the decisive line, the first fix, and the buttons.

    Private (ephemeral) to the person who asked, with "Share to channel"; ``shared`` is the channel's copy, made
    from the stored (masked) diagnosis only, whose details go in its thread (``details_message``)."""
    page = page_url(public_url, d.id)
    blocks = [*_card_head(d), _card_notes(d, page),
              _actions(d.id, page, "Ask a follow-up", share=not shared, feedback=d.entry_id is not None)]
    return _message(_fallback(d, page), blocks, in_channel=shared)


def details_message(d: Diagnosis, public_url: str | None) -> SlackMessage:
    """Everything the card leaves out: every evidence line, the whole fix, how to verify (for the thread)."""
    page = page_url(public_url, d.id)
    head: list[Block] = []
    evidence = _evidence_block(d)
    if evidence:
        head.append(evidence)
    middle = [_section(t) for t in _pack("*Fix*", [f"{i}. {mrkdwn(s)}" for i, s in enumerate(d.fix, 1)])] if d.fix else []
    if d.verify:
        middle += [_section(t) for t in _pack("*Verify*", [f"• {mrkdwn(s)}" for s in d.verify])]
    if d.answer and d.answer.why:
        middle += [_section(t) for t in _pack("*Why crashdoc thinks so*", [f"• {escape(w)}" for w in d.answer.why])]
    if d.collateral:
        middle.append(_context(f"{len(d.collateral)} collateral error line(s) on other ranks: consequences, not causes."))
    more = f"… more on <{page}|the web page>" if page else "… more: GET /v1/diagnoses/" + d.id
    tail = [_context(f"Details of diagnosis `{d.id}`")]
    return _message(f"Details of {d.id}", _fit(head, middle, tail, more), in_channel=True)


def answer_message(diagnosis_id: str, asked: Message, answered: Message, public_url: str | None) -> SlackMessage:
    """A follow-up: the (masked) question, the answer, what it cites."""
    page = page_url(public_url, diagnosis_id)
    quoted = "\n".join(f">{line}" for line in escape(asked.text).splitlines()) or ">"
    head = [_section(f"*Follow-up on `{diagnosis_id}`*\n{quoted}")]
    middle = [_section(t) for t in _pack("", _paragraphs(mrkdwn(answered.text)), sep="\n\n")]
    notes = [f"composer {escape(answered.composer or 'deterministic')}"]
    if answered.citations:
        notes.insert(0, "Cites " + ", ".join(f"`{escape(c.ref)}`" for c in answered.citations))
    tail = [_context(*notes), _actions(diagnosis_id, page, "Ask another")]
    more = f"… the rest on <{page}|the web page>" if page else "… the rest: GET /v1/diagnoses/" + diagnosis_id + "/messages"
    gist = clip(" ".join(answered.text.split()), 200)
    return _message(f"crashdoc on {diagnosis_id}: {escape(gist)}", _fit(head, middle, tail, more))


def followup_prompt(diagnosis_id: str, command: str, max_chars: int) -> SlackMessage:
    """The question box the "Ask a follow-up" button opens (Enter sends it back as an interaction)."""
    box: Block = {
        "type": "input",
        "block_id": ASK_BLOCK_PREFIX + diagnosis_id,
        "dispatch_action": True,
        "label": {"type": "plain_text", "text": f"Your question about {diagnosis_id}"},
        "element": {
            "type": "plain_text_input",
            "action_id": ACTION_ASK,
            "max_length": min(max_chars, INPUT_MAX_LENGTH),
            "placeholder": {"type": "plain_text", "text": "e.g. How do I confirm this is the cause?"},
            "dispatch_action_config": {"trigger_actions_on": ["on_enter_pressed"]},
        },
    }
    hint = _context(f"Press Enter to send. Or type `{escape(f'{command} ask {diagnosis_id} <question>')}`.")
    return _message(f"Ask a follow-up about {diagnosis_id}", [box, hint])


def followup_modal(diagnosis_id: str, channel_id: str, max_chars: int) -> dict[str, Any]:
    """The follow-up modal (``views.open``): the question box; the answer comes back privately in the channel."""
    return {
        "type": "modal",
        "callback_id": MODAL_ASK,
        "private_metadata": json.dumps({"diagnosis": diagnosis_id, "channel": channel_id})[:3000],
        "title": {"type": "plain_text", "text": "Ask crashdoc"},
        "submit": {"type": "plain_text", "text": "Ask"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [{
            "type": "input",
            "block_id": MODAL_QUESTION_BLOCK,
            "label": {"type": "plain_text", "text": clip(f"Your question about {diagnosis_id}", 2000)},
            "element": {"type": "plain_text_input", "action_id": ACTION_ASK, "multiline": True,
                        "max_length": min(max_chars, INPUT_MAX_LENGTH),
                        "placeholder": {"type": "plain_text", "text": "e.g. How do I confirm this is the cause?"}},
        }],
    }


def wrong_cause_modal(diagnosis_id: str, channel_id: str) -> dict[str, Any]:
    """ "Wrong cause, it was ...": the entry it was (optional) and what it was in words."""
    def field(block_id: str, label: str, hint: str, multiline: bool) -> Block:
        return {"type": "input", "block_id": block_id, "optional": True, "label": {"type": "plain_text", "text": label},
                "element": {"type": "plain_text_input", "action_id": block_id, "multiline": multiline, "max_length": 2000,
                            "placeholder": {"type": "plain_text", "text": hint}}}

    return {
        "type": "modal",
        "callback_id": MODAL_WRONG,
        "private_metadata": json.dumps({"diagnosis": diagnosis_id, "channel": channel_id})[:3000],
        "title": {"type": "plain_text", "text": "Wrong cause"},
        "submit": {"type": "plain_text", "text": "Send"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [field(WRONG_LABEL_BLOCK, "The encyclopedia entry it was (its id)", "e.g. nccl-watchdog-timeout", False),
                   field(WRONG_NOTE_BLOCK, "What it was, in your words (masked before it is stored)", "e.g. a bad node", True)],
    }


def feedback_thanks(diagnosis_id: str, verdict: str, public_url: str | None) -> SlackMessage:
    page = page_url(public_url, diagnosis_id)
    more = f" Say what it was on <{page}#feedback|the page>." if verdict == "wrong" and page else ""
    return _message(f":pray: Thanks: your verdict ({verdict} cause) is stored with `{diagnosis_id}`.{more}")


def _entry_title(entry: Entry, public_url: str | None) -> str:
    """The entry's title, linked to its page on the web when the service knows its address."""
    title = escape(entry.title)
    return f"<{public_url.rstrip('/')}/kb/{entry.id}|{title}>" if public_url else title


def kb_message(words: str, entries: list[Entry], command: str, public_url: str | None) -> SlackMessage:
    if not entries:
        text = f"No encyclopedia entry matches “{escape(words)}”. Try the error message's own words (e.g. `CUDA out of memory`)."
        return _message(text, [_section(text)])
    head = [_section(f"*Encyclopedia entries for* “{escape(clip(words, 200))}”")]
    middle = [_section(f"*{_entry_title(e, public_url)}*  `{e.id}` · {escape(e.meta.category)}\n{escape(e.meta.summary)}")
              for e in entries]
    tail = [_context(f"Diagnose a run: `{escape(f'{command} <pasted log>')}`, or the message shortcut *Diagnose with crashdoc* on a log file")]
    return _message(f"{len(entries)} encyclopedia entries for “{escape(words)}”", _fit(head, middle, tail, "…"))


def help_message(command: str) -> SlackMessage:
    lines = [f"• `{escape(' '.join(p for p in (command, s.word, s.args) if p))}`  {escape(s.summary)}" for s in SUBCOMMANDS]
    text = "*crashdoc* tells you why a GPU training run died and how to fix it.\n" + "\n".join(lines)
    note = ("Logs are masked (secrets, hosts, users) before anything reads them. Results are private to you until "
            "you press *Share to channel*. A command carries at most 4,000 characters: for a whole multi-rank log, "
            "upload it as a file or snippet and use the message shortcut *Diagnose with crashdoc*.")
    return _message(text, [_section(text), _context(note)])


def usage_message(usage: Usage, command: str) -> SlackMessage:
    form = " ".join(p for p in (command, usage.subcommand.word, usage.subcommand.args) if p)
    text = f"{escape(usage.problem)} Usage: `{escape(form)}`"
    return _message(text, [_section(text)])


def too_long_message(chars: int, public_url: str | None, command: str) -> SlackMessage:
    base = public_url.rstrip("/") if public_url else None
    page = f"<{base}/|{escape(base)}>" if base else "crashdoc's web page"
    api = escape(base or "https://<your crashdoc>")
    text = (
        f"*This log is too long for a slash command* ({chars:,} characters): Slack cuts command text at 4,000, "
        "so crashdoc would miss the end of the log, where the failure usually is.\n"
        f"• Paste or upload the whole log on the web page: {page}\n"
        f"• Or send it to the API: ```curl --data-binary @train.log -H 'Content-Type: text/plain' {api}/v1/diagnoses```\n"
        "• Or upload the log to Slack as a file (or a snippet) and run the message shortcut *Diagnose with crashdoc* "
        "on it (the ⋯ menu of the message): a file has no 4,000-character limit.\n"
        f"• Or paste only the last lines (under {TOO_LONG_AT:,} characters), but on a multi-rank run the end of the log "
        "is often the ranks that died second, not the first failure.\n"
        f"Then ask follow-ups here: `{escape(f'{command} ask <diagnosis id> <question>')}`."
    )
    return _message(f"This log is too long for a slash command ({chars:,} characters).", [_section(text)])


def ack_message(text: str) -> SlackMessage:
    """The immediate (under 3 s) answer to a command whose result comes later."""
    return _message(text)


def quota_message(limit: int, noun: str, reset_in: str) -> SlackMessage:
    """This Slack workspace has used its daily allowance (only the person who asked sees it)."""
    text = (f":no_entry: This Slack workspace has used its {limit} {noun} for today. The allowance resets at "
            f"00:00 UTC (in {reset_in}). The web page and the `crashdoc` CLI, which diagnoses on your own machine, "
            "are not counted here.")
    return _message(text, [_section(text)])


def error_message(exc: BaseException, ref: str) -> SlackMessage:
    """Slack's one mapping of the error tree: what went wrong and what to do, only to the user who asked."""
    if isinstance(exc, CrashdocError):
        text = f":warning: {escape(exc.message)}" + (f"\n{escape(exc.hint)}" if exc.hint else "")
    else:
        text = f":x: Something went wrong on our side. Reference `{ref}` (the service's log has it)."
    return _message(text, [_section(text)])
