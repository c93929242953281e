"""The browser fetches the code of charts, code blocks, formulas and components while the server
prepares a session's first page.

Streamlit's browser code fetches and compiles the code that draws a plotly chart (about 4.7 MB),
a code block (its syntax highlighter, 1.6 MB), a formula (KaTeX, 0.3 MB) or a component (the
code that runs Learn's list and curve) only when the session's first such element arrives: the
first page sends its chart last, after the server imported the app (numpy, pandas, arrow, the
engine) and read the sample, and Learn's formulas, code blocks and list waited for that code on
its first visit. :func:`preload` is called by ``app.py`` before those imports, on a session's
first run only: it sends one tiny element of each kind in a box out of sight, so that the
browser fetches and compiles their code while the server works; :func:`done` empties the box
when the run is over. Nothing of it is seen, and a page's elements are those it lays out. (A
table sent the same way did not help: the browser fetched the code of tables only after the run
was over.) Only Streamlit is imported here.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.shell import keys

#: Session-state key: the browser of this session was asked for the code already.
#: (no gap above the page).
_HIDE = (
    f"<style>.st-key-{keys.BROWSER_CODE} {{position: absolute !important; left: -10000px; top: 0;"
    " width: 400px; height: 200px; overflow: hidden; visibility: hidden;}</style>"
)
#: The smallest chart plotly accepts (plotly's code is fetched for it).
_CHART = {"data": [{"type": "bar", "x": [0], "y": [0]}]}


#: The smallest component of the kind Learn's list and curve are (the browser fetches the code
#: that runs such components for it).
_COMPONENT = st.components.v2.component("browser_code", js="export default function () {}")


def preload() -> DeltaGenerator | None:
    """On a session's first run, send a chart, a code block and a formula out of sight (see the
    module docstring); returns their slot for :func:`done`, or ``None`` on later runs."""
    state = st.session_state
    if state.get(keys.BROWSER_CODE_ASKED):
        return None
    state[keys.BROWSER_CODE_ASKED] = True
    with st.container(key=keys.BROWSER_CODE):
        st.html(_HIDE)
        slot = st.empty()
    with slot.container():
        st.plotly_chart(_CHART)
        st.code("0", language=None)
        st.latex("0")
        _COMPONENT(key=keys.BROWSER_CODE_COMPONENT, data="")
    return slot


def done(slot: DeltaGenerator | None) -> None:
    """Remove what :func:`preload` sent (the browser keeps the code it fetched)."""
    if slot is not None:
        slot.empty()
