"""The rank timeline as a picture: an SVG swimlane built on the server (one lane per rank, error lines in timeline
order, the first failure marked, collateral greyed). Every text in it is escaped; it needs no script."""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from service.models import Diagnosis, TimelineEvent

_WIDTH = 720
_LEFT = 76  # room for the lane labels
_PAD = 14  # between the labels and the first mark
_RIGHT = 24
_LANE = 26
_TOP = 30  # room for the "first failure" label


def _lanes(events: list[TimelineEvent], initiating: int | None) -> list[int | None]:
    ranks = sorted({e.rank for e in events if e.rank is not None} | ({initiating} if initiating is not None else set()))
    return [*ranks, None] if any(e.rank is None for e in events) else list(ranks)


def _label(rank: int | None) -> str:
    return "no rank" if rank is None else f"rank {rank}"


def _tooltip(e: TimelineEvent) -> str:
    role = "first failure" if e.first else "collateral" if e.collateral else "error"
    when = f" at {e.timestamp}" if e.timestamp else ""
    return f"{_label(e.rank)}, {role} ({e.kind}){when}: {e.file}:{e.line}: {e.text}"


def swimlane(d: Diagnosis) -> Markup | None:
    """The SVG for a diagnosis with error lines on two or more ranks (or a named initiating rank), else None."""
    events = d.timeline
    lanes = _lanes(events, d.initiating_rank)
    if not events or (len(lanes) < 2 and d.initiating_rank is None):
        return None
    height = _TOP + _LANE * len(lanes) + 24
    span = _WIDTH - _LEFT - _PAD - _RIGHT
    step = span / max(len(events) - 1, 1)
    row = {rank: _TOP + _LANE * i + _LANE // 2 for i, rank in enumerate(lanes)}
    first = next((e for e in events if e.first), None)
    summary = (f"{len(events)} error lines on {len(lanes)} lanes in timeline order; "
               + (f"the first failure is on {_label(first.rank)}" if first else
                  f"rank {d.initiating_rank} is named as the first to fail" if d.initiating_rank is not None else "no first failure")
               + f"; {sum(e.collateral for e in events)} collateral")
    out = [f'<svg class="swimlane" role="img" aria-labelledby="swimlane-title swimlane-desc" viewBox="0 0 {_WIDTH} {height}" '
           f'width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">',
           '<title id="swimlane-title">Rank timeline</title>', f'<desc id="swimlane-desc">{escape(summary)}</desc>']
    for rank, y in row.items():
        lane_class = "lane initiating" if rank is not None and rank == d.initiating_rank else "lane"
        out.append(f'<g class="{lane_class}" data-rank="{"" if rank is None else rank}">'
                   f'<line x1="{_LEFT}" y1="{y}" x2="{_WIDTH - _RIGHT}" y2="{y}"/>'
                   f'<text x="{_LEFT - 8}" y="{y + 4}" text-anchor="end">{escape(_label(rank))}</text></g>')
    for i, e in enumerate(events):
        x = round(_LEFT + _PAD + i * step, 1)
        y = row[e.rank]
        kind = "first" if e.first else "collateral" if e.collateral else "cause"
        radius = 7 if e.first else 4.5
        out.append(f'<circle class="ev {kind}" cx="{x}" cy="{y}" r="{radius}" data-line="{escape(e.file)}:{e.line}">'
                   f'<title>{escape(_tooltip(e))}</title></circle>')
    if first is not None:
        x = round(_LEFT + _PAD + events.index(first) * step, 1)
        anchor = "start" if x < _WIDTH / 2 else "end"
        out.append(f'<text class="first-label" x="{x}" y="{_TOP - 10}" text-anchor="{anchor}">first failure</text>')
    legend_y = height - 8
    out.append(f'<g class="legend"><circle class="ev first" cx="{_LEFT}" cy="{legend_y - 4}" r="5"/>'
               f'<text x="{_LEFT + 10}" y="{legend_y}">first failure</text>'
               f'<circle class="ev cause" cx="{_LEFT + 110}" cy="{legend_y - 4}" r="4.5"/>'
               f'<text x="{_LEFT + 120}" y="{legend_y}">error</text>'
               f'<circle class="ev collateral" cx="{_LEFT + 180}" cy="{legend_y - 4}" r="4.5"/>'
               f'<text x="{_LEFT + 190}" y="{legend_y}">collateral (a consequence)</text></g>')
    out.append("</svg>")
    return Markup("".join(out))  # every interpolated text above is escaped
