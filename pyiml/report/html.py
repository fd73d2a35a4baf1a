"""The HTML of the report: one self-contained page, images embedded as base64 PNG.

The builder (:mod:`pyiml.report.build`) describes the report as a tree of :class:`Section`
objects holding blocks (:class:`Text`, :class:`Table`, :class:`Image`, :class:`Pre`,
:class:`Note`, :class:`KeyValues`); :func:`render` turns it into one HTML string with a
stylesheet, a table of contents and no external resources (no scripts, fonts or links), so the
file can be mailed, archived or opened offline.
"""
from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import sys
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Union

import numpy as np
import pandas as pd

__all__ = [
    "Text", "Table", "Image", "Pre", "Note", "KeyValues", "Section", "Report",
    "format_number", "figure_png", "render", "slug", "code", "plain", "as_written",
]


# ---------------------------------------------------------------------------- blocks
@dataclass
class Text:
    """A paragraph of plain text (escaped when rendered). ``code`` spans: text between backticks."""

    text: str


@dataclass
class Note:
    """A highlighted remark; ``kind`` is "info" or "warn"."""

    text: str
    kind: str = "info"


@dataclass
class Pre:
    """Preformatted text (model description, tree rules)."""

    text: str
    caption: str = ""


@dataclass
class KeyValues:
    """A two-column table of labels and values."""

    items: Dict[str, object]
    caption: str = ""


@dataclass
class Table:
    """A DataFrame shown as a table.

    Parameters
    ----------
    frame : pandas.DataFrame
    caption : str
    digits : int
        Significant digits of floating-point cells.
    max_rows : int or None
        Show at most this many rows (the caption then says how many there are).
    sci_columns : sequence of str
        Columns always shown in scientific notation (differences).
    missing : str or None
        Text of a missing value in a numeric column (default R's spelling, ``NaN``/``NA``).
    """

    frame: pd.DataFrame
    caption: str = ""
    digits: int = 4
    max_rows: Optional[int] = 40
    sci_columns: Sequence[str] = ()
    missing: Optional[str] = None


@dataclass
class Image:
    """A PNG image (bytes) with its alternative text and caption."""

    png: bytes
    alt: str
    caption: str = ""


Block = Union[Text, Note, Pre, KeyValues, Table, Image]


@dataclass
class Section:
    """A titled part of the report; ``id`` is its HTML anchor."""

    id: str
    title: str
    blocks: List[Block] = field(default_factory=list)
    children: List["Section"] = field(default_factory=list)
    toc: bool = True  # listed in the table of contents

    def add(self, *blocks: Block) -> "Section":
        self.blocks.extend(blocks)
        return self

    def walk(self) -> Iterable["Section"]:
        yield self
        for c in self.children:
            yield from c.walk()


@dataclass
class Report:
    """The whole page."""

    title: str
    intro: List[Block] = field(default_factory=list)
    sections: List[Section] = field(default_factory=list)
    footer: str = ""

    def section_ids(self) -> List[str]:
        return [s.id for top in self.sections for s in top.walk()]


# ---------------------------------------------------------------------------- helpers
def format_number(x, digits: int = 4, sci: bool = False) -> str:
    """Format one cell: ``digits`` significant digits, R's ``NA``/``NaN``/``Inf`` spellings.

    Integers print in full; floats with ``digits`` significant digits in fixed notation unless
    they are very large or small (or ``sci``), then in scientific notation. Exact zero is "0".
    """
    if x is None or x is pd.NA or x is pd.NaT:
        return "NA"
    if isinstance(x, (bool, np.bool_)):
        return "TRUE" if x else "FALSE"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        v = float(x)
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Inf" if v > 0 else "-Inf"
        if v == 0:
            return "0"
        if sci:
            return f"{v:.{max(digits - 1, 0)}e}"
        a = abs(v)
        if a >= 10 ** (digits + 2) or a < 1e-4:
            return f"{v:.{max(digits - 1, 0)}e}"
        out = f"{v:.{digits}g}"
        if "e" in out:  # numbers like 123456 with digits=4
            out = f"{v:.0f}"
        return out
    return str(x)


def slug(text: str) -> str:
    """An HTML id fragment: lower-case letters, digits and dashes."""
    out = "".join(ch if ch.isalnum() else "-" for ch in str(text).lower())
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-") or "x"


def figure_png(fig, dpi: int = 96) -> bytes:
    """Render a matplotlib Figure to PNG bytes and release it.

    The figure is closed through pyplot only when pyplot manages it, so rendering needs no
    interactive backend.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close(fig)
    return buf.getvalue()


#: Stands for a backtick inside a :func:`code` span (a character no text of the report holds).
_TICK = "\x01"


def code(value) -> str:
    """``value`` as a code span of report text: between backticks, its own backticks kept (a
    column may be named ``a`b``; a bare backtick would end the span)."""
    return "`" + str(value).replace("`", _TICK) + "`"


def plain(text) -> str:
    """Report text as plain text (a terminal line, a table cell): code spans without their
    backticks, the backticks of :func:`code` spans restored."""
    return str(text).replace("`", "").replace(_TICK, "`")


def as_written(text) -> str:
    """Report text for a terminal line that keeps the code spans' backticks (e.g. ``the target
    `y```): the backticks of :func:`code` spans restored (their stand-in is a control character)."""
    return str(text).replace(_TICK, "`")


def _inline(text: str) -> str:
    """Escape text; `backticks` become <code> (:func:`code` spans keep backticks of their own)."""
    parts = str(text).split("`")
    out = []
    for i, p in enumerate(parts):
        esc = html.escape(p).replace(_TICK, "`")
        out.append(f"<code>{esc}</code>" if i % 2 == 1 else esc)
    if len(parts) % 2 == 0:  # unbalanced backtick: show it literally
        return html.escape(str(text)).replace(_TICK, "`")
    return "".join(out)


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)


def _table_html(t: Table) -> str:
    df = t.frame
    n = len(df)
    shown = df if t.max_rows is None or n <= t.max_rows else df.iloc[: t.max_rows]
    cap = t.caption
    if len(shown) < n:
        cap = (cap + " " if cap else "") + f"(first {len(shown)} of {n} rows)"
    numeric = {c: _is_numeric(df[c]) for c in df.columns}
    head = "".join(
        f'<th scope="col" class="{"num" if numeric[c] else "txt"}">{html.escape(str(c))}</th>' for c in df.columns)
    rows = []
    for _, r in shown.iterrows():
        cells = []
        for c in df.columns:
            v = r[c]
            if numeric[c]:
                txt = t.missing if t.missing is not None and pd.isna(v) else \
                    format_number(v, t.digits, sci=c in t.sci_columns)
                cells.append(f'<td class="num">{html.escape(txt)}</td>')
            else:
                txt = "NA" if (v is None or (isinstance(v, float) and math.isnan(v))) else str(v)
                cells.append(f'<td class="txt">{html.escape(txt).replace(chr(10), "<br>")}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cap_html = f"<caption>{_inline(cap)}</caption>" if cap else ""
    return (f'<div class="table-wrap"><table>{cap_html}<thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _block_html(b: Block) -> str:
    if isinstance(b, Text):
        return f"<p>{_inline(b.text)}</p>"
    if isinstance(b, Note):
        kind = "warn" if b.kind == "warn" else "info"
        return f'<p class="note {kind}">{_inline(b.text)}</p>'
    if isinstance(b, Pre):
        cap = f'<figcaption>{_inline(b.caption)}</figcaption>' if b.caption else ""
        return f"<figure class=\"pre\"><pre>{html.escape(b.text)}</pre>{cap}</figure>"
    if isinstance(b, KeyValues):
        rows = "".join(f'<tr><th scope="row">{html.escape(str(k))}</th><td>{_inline(str(v))}</td></tr>'
                       for k, v in b.items.items())
        cap = f"<caption>{_inline(b.caption)}</caption>" if b.caption else ""
        return f'<div class="table-wrap"><table class="kv">{cap}<tbody>{rows}</tbody></table></div>'
    if isinstance(b, Table):
        return _table_html(b)
    if isinstance(b, Image):
        data = base64.b64encode(b.png).decode("ascii")
        cap = f"<figcaption>{_inline(b.caption)}</figcaption>" if b.caption else ""
        return (f'<figure class="plot"><img src="data:image/png;base64,{data}" alt="{html.escape(b.alt, quote=True)}">'
                f"{cap}</figure>")
    raise TypeError(f"unknown report block {type(b).__name__}")


def _section_html(s: Section, level: int) -> str:
    h = min(level, 6)
    body = "\n".join(_block_html(b) for b in s.blocks)
    kids = "\n".join(_section_html(c, level + 1) for c in s.children)
    return (f'<section id="{html.escape(s.id, quote=True)}" class="level{level}">'
            f"<h{h}>{_inline(s.title)}</h{h}>\n{body}\n{kids}</section>")


def _toc_html(sections: List[Section]) -> str:
    def items(secs):
        out = []
        for s in secs:
            if not s.toc:
                continue
            listed = [c for c in s.children if c.toc]
            sub = f"<ol>{items(listed)}</ol>" if listed else ""
            out.append(f'<li><a href="#{html.escape(s.id, quote=True)}">{_inline(s.title)}</a>{sub}</li>')
        return "".join(out)

    return f'<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>{items(sections)}</ol></nav>'


_CSS = """
:root { --fg:#1d2430; --muted:#5b6675; --line:#d9dee5; --accent:#2f5d8a; --bg:#ffffff; --soft:#f4f6f9; }
* { box-sizing: border-box; }
html { scroll-behavior: smooth; }
body { margin:0; background:var(--bg); color:var(--fg);
       font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
header.top { background:#23384f; color:#fff; padding:22px 32px; }
header.top h1 { margin:0 0 4px; font-size:26px; font-weight:600; }
header.top p { margin:0; color:#cfd9e4; }
header.top code { background:rgba(255,255,255,.14); color:#fff; }
.layout { display:flex; align-items:flex-start; max-width:1400px; margin:0 auto; }
nav.toc { position:sticky; top:0; flex:0 0 260px; max-height:100vh; overflow:auto; padding:20px 16px 40px 24px;
          border-right:1px solid var(--line); font-size:13.5px; }
nav.toc h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:0 0 8px; }
nav.toc ol { list-style:none; margin:0; padding-left:12px; }
nav.toc > ol { padding-left:0; }
nav.toc li { margin:3px 0; }
nav.toc a { color:var(--accent); text-decoration:none; }
nav.toc a:hover { text-decoration:underline; }
main { flex:1 1 auto; min-width:0; padding:16px 36px 60px; }
section.level1 { border-bottom:2px solid var(--line); padding-bottom:18px; margin-bottom:8px; }
section.level2, section.level3 { margin-top:18px; }
h1, h2, h3, h4 { line-height:1.25; }
section.level1 > h1 { font-size:24px; margin:26px 0 8px; color:#23384f; }
section.level2 > h2 { font-size:19px; margin:22px 0 6px; border-bottom:1px solid var(--line); padding-bottom:4px; }
section.level3 > h3 { font-size:16px; margin:16px 0 6px; }
p { margin:6px 0 10px; max-width:78ch; }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size:0.92em;
       background:var(--soft); padding:1px 4px; border-radius:3px; }
.note { border-left:4px solid var(--accent); background:#eef4fa; padding:8px 12px; border-radius:0 4px 4px 0; }
.note.warn { border-left-color:#b7791f; background:#fdf6e7; }
.table-wrap { overflow-x:auto; margin:8px 0 14px; }
table { border-collapse:collapse; font-size:13.5px; font-variant-numeric: tabular-nums; }
caption { caption-side:top; text-align:left; color:var(--muted); font-size:13px; padding:0 0 4px; }
th, td { padding:4px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
thead th { background:var(--soft); border-bottom:2px solid var(--line); font-weight:600; white-space:nowrap; }
td.num, th.num { text-align:right; white-space:nowrap; }
td.txt, th.txt { text-align:left; }
table.kv th { text-align:left; font-weight:600; background:var(--soft); white-space:nowrap; }
tbody tr:nth-child(even) td { background:#fafbfc; }
figure { margin:10px 0 18px; }
figure.plot img { max-width:100%; height:auto; border:1px solid var(--line); border-radius:4px; background:#fff; }
figure.pre pre { background:var(--soft); padding:10px 12px; border-radius:4px; overflow-x:auto; font-size:13px;
                 margin:0;
                 white-space:pre-wrap; overflow-wrap:anywhere; }
figcaption { color:var(--muted); font-size:13px; margin-top:4px; max-width:78ch; }
footer { color:var(--muted); font-size:12.5px; padding:18px 36px 30px; border-top:1px solid var(--line); }
@media (max-width: 900px) { .layout { display:block; } nav.toc { position:static; max-height:none; border-right:0;
  border-bottom:1px solid var(--line); } main { padding:12px 16px 40px; } }
@media print { nav.toc { display:none; } header.top { background:none; color:#000; } }
"""


def render(report: Report) -> str:
    """The complete HTML page of ``report`` (a str; write it with UTF-8)."""
    ids = report.section_ids()
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"duplicated section ids in the report: {dup}")
    intro = "\n".join(_block_html(b) for b in report.intro)
    body = "\n".join(_section_html(s, 1) for s in report.sections)
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    footer = html.escape(report.footer) + (" · " if report.footer else "") + f"generated {stamp}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(report.title)}</title>
<style>{_CSS}</style>
</head>
<body>
<header class="top"><h1>{html.escape(report.title)}</h1>{intro}</header>
<div class="layout">
{_toc_html(report.sections)}
<main>
{body}
</main>
</div>
<footer>{footer}</footer>
</body>
</html>
"""
