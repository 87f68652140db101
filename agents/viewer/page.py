"""The replay page: one self-contained HTML file (script, style and data inline; no network).

`replay_html(records)` returns the page of a list of records; `notebook_html(records)` the same
viewer as an HTML fragment for a Jupyter output (the script is included with every fragment
and defines the viewer once). The boards are drawn in the page by `static/viewer.js` from the
positions `frames.page_data` computes, with the layout and colours of `ludo_flow.render`.
"""
import json
import uuid
from html import escape
from importlib import resources

from ludo_flow import render as R

from .frames import page_data

# Scores beyond this are wins or losses: the evaluation graph is drawn up to it.
SCORE_CAP = 500.0


def asset(name):
    """Return the text of a file of agents/viewer/static."""
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def drawing_config():
    """Return the layout and colours of the SVG boards, for the page's drawing code."""
    names = ("CELL", "LABEL_BAND", "PAD", "LABEL_FONT", "PIECE_RADIUS", "PIECE_OUTLINE", "PIECE_FONT",
             "RING_RADIUS", "RING_WIDTH", "BACKGROUND", "DARK_SQUARE", "LIGHT_SQUARE", "LAST_MOVE_TINT",
             "CHANGED_TINT", "TEXT_COLOUR", "MARK_COLOUR")
    config = {name: getattr(R, name) for name in names}
    config.update(SELECTED_TINT=("#2fa84f", 0.55), TARGET_COLOUR="#2fa84f", SCORE_CAP=SCORE_CAP)
    return config


def script_json(value):
    """Return JSON safe to put inside a <script> element (no '<', '>' or '&' left raw)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def viewer_data(records):
    """Return the data a viewer mounts: positions, palette and drawing config."""
    data = page_data(records)
    data["config"] = drawing_config()
    return data


def replay_html(records, title="ludo_flow replay"):
    """Return a whole HTML page replaying `records` (a list of record dicts)."""
    return page_html(viewer_data(records), title)


def page_html(data, title="ludo_flow replay"):
    """Return the whole HTML page of `viewer_data`."""
    return PAGE.format(title=escape(title), css=asset("viewer.css"), js=asset("viewer.js"),
                       data=script_json(data))


def notebook_html(records):
    """Return an HTML fragment (for `_repr_html_`) that mounts the viewer on `records`."""
    data = viewer_data(records)
    uid = "lfv-" + uuid.uuid4().hex[:12]
    return (f'<style>{asset("viewer.css")}</style><div id="{uid}"></div>'
            f'<script type="application/json" id="{uid}-data">{script_json(data)}</script>'
            f'<script>{asset("viewer.js")}\n(function () {{ var root = document.getElementById("{uid}");'
            f' window.LudoViewer.mount(root, JSON.parse(document.getElementById("{uid}-data").textContent)); }})();'
            f'</script>')


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>{title}</title>
<style>body {{ margin: 0; background: #fff; }} {css}</style></head>
<body><div id="viewer"></div>
<script type="application/json" id="replay-data">{data}</script>
<script>{js}
(function () {{
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var root = document.getElementById("viewer");
  window.LudoViewer.mount(root, data, {{keyTarget: document, hash: true}});
  root.focus({{preventScroll: true}});
  window.lfvReady = performance.now();
}})();
</script></body></html>
"""
