"""The browser fetches the code of formulas and components while the server prepares a session's
first page, and the code of code blocks and charts in the pauses after pages are drawn.

Streamlit's browser code fetches and compiles the code that draws a plotly chart (about 4.7 MB),
a code block (its syntax highlighter, 1.6 MB), a formula (KaTeX, 0.3 MB) or a component (the
code that runs Learn's list and curve) only when the session's first such element arrives; the
pages after Data (Learn's formulas, code blocks and list, the charts of Curves) would wait for
it on their first visit. :func:`preload` is called by ``app.py`` before the app is imported, on
a session's first page run: it sends a formula and a component in a box out of sight, so that
the browser fetches their code while the server works; :func:`done` empties the formula when
the run is over, and the next run, which does not send the box, removes the component. Running
the chart and code-block code takes the browser about a second, which the first page (it draws
neither) should not wait for: the component asks for those two files of Streamlit's browser code
(:data:`LATER`) when the browser is idle, one per page drawn: the first once it drew this page
(its run over, its tables drawn), the second once it drew the next page, so that each compile
falls in the moment after a page appears, when its reader reads it, rather than in its drawing or
at a random click (a session that goes from Data straight to a chart page loads plotly's code
there, as without this); when Streamlit needs them they are there. Nothing of it is seen. Only
Streamlit is imported here.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.shell import keys

#: The box out of sight (no gap above the page).
_HIDE = (
    f"<style>.st-key-{keys.BROWSER_CODE} {{position: absolute !important; left: -10000px; top: 0;"
    " width: 400px; height: 200px; overflow: hidden; visibility: hidden;}</style>"
)
#: Streamlit's browser code: the files of its code blocks and charts, in the order they are
#: asked for (their names change with each Streamlit version; a file not found is fetched when a
#: page needs it, as without this).
_BROWSER_JS = Path(st.__file__).parent / "static" / "static" / "js"
LATER = tuple(
    path.name
    for prefix in ("StreamlitSyntaxHighlighter.", "PlotlyChart.")  # Learn's first, then charts
    for path in sorted(_BROWSER_JS.glob(prefix + "*.js"))[:1]
)

#: The smallest component of the kind Learn's list and curve are (the browser fetches the code
#: that runs such components for it); it asks for :data:`LATER` when the browser is idle, once
#: per page load.
_COMPONENT = st.components.v2.component(
    "browser_code",
    js="""
export default function ({ data }) {
  if (window.__browserCodeAsked || !data || !data.later) return;
  window.__browserCodeAsked = true;
  const index = document.querySelector('script[src*="/static/js/index."]');
  const app = document.querySelector('[data-testid="stApp"]');
  if (!index || !app) return;
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 500));
  const drawn = () => app.getAttribute("data-test-script-state") === "notRunning"
    && !document.querySelector('[data-testid="stSkeleton"]')
    && [...document.querySelectorAll('[data-testid="stDataFrame"]')]
      .every((t) => t.querySelector("canvas"));
  // once drawn (or after ten seconds, whatever the page holds)
  const whenDrawn = (then, since = Date.now()) => (drawn() || Date.now() - since > 10000
    ? then() : setTimeout(() => whenDrawn(then, since), 100));
  // the next page run that is over, once it is drawn (its reader is reading the new page then);
  // the run state changes only when a run starts or ends
  const afterNextPage = (then) => {
    const watch = new MutationObserver(() => {
      if (app.getAttribute("data-test-script-state") === "running") return;
      watch.disconnect();
      whenDrawn(then);
    });
    watch.observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
  };
  // one file per page drawn: each compile falls in the pause after a page, not in its drawing
  const ask = (names) => {
    if (!names.length) return;
    idle(() => {
      import(new URL(names[0], index.src).href)
        .catch(() => {})
        .finally(() => afterNextPage(() => ask(names.slice(1))));
    }, { timeout: 5000 });
  };
  whenDrawn(() => ask(data.later));
}
""",
)


def preload() -> DeltaGenerator | None:
    """On a session's first run, send a formula and a component out of sight (see the module
    docstring); returns their slot for :func:`done`, or ``None`` on later runs."""
    state = st.session_state
    if state.get(keys.BROWSER_CODE_ASKED):
        return None
    state[keys.BROWSER_CODE_ASKED] = True
    with st.container(key=keys.BROWSER_CODE):
        st.html(_HIDE)
        # not emptied with the slot: the component's code runs once it is drawn, which may be
        # after the run; the next run, which does not send it, removes it
        _COMPONENT(key=keys.BROWSER_CODE_COMPONENT, data={"later": list(LATER)})
        slot = st.empty()
    with slot.container():
        st.latex("0")
    return slot


def again() -> None:
    """The run that sent the box did not lay out a page (it switched to one, or stopped): the
    next run sends it again, so that the browser keeps it long enough."""
    st.session_state[keys.BROWSER_CODE_ASKED] = False


def done(slot: DeltaGenerator | None) -> None:
    """Remove the formula :func:`preload` sent (the browser keeps the code it fetched)."""
    if slot is not None:
        slot.empty()
