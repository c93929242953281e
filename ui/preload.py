"""The browser fetches the code of plotly charts while the server prepares a session's first page.

Streamlit's browser code fetches and compiles the code that draws a plotly chart (about 4.7 MB)
only when the session's first chart arrives, and the first page sends its chart last: after the
server imported the app (numpy, pandas, arrow, the engine), read the sample and laid out the
rest of the page. :func:`preload` is called by ``app.py`` before those imports, on a session's
first run only: it sends a tiny chart in a box out of sight, so that the browser fetches and
compiles that code while the server works; :func:`done` empties the box when the run is over.
Nothing of it is seen, and a page's elements are those it lays out. (A table sent the same way
would not help: Streamlit fetches the code of tables only after the run that sent one.)
Only Streamlit is imported here.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

#: Session-state key: the browser of this session was asked for the code already.
ASKED_KEY = "_chart_code_asked"
BOX_KEY = "chart_code"
#: Out of sight but laid out (a chart of no width is not drawn), and out of the page's flow (no
#: gap above the page).
_HIDE = (
    f"<style>.st-key-{BOX_KEY} {{position: absolute !important; left: -10000px; top: 0;"
    " width: 400px; height: 200px; overflow: hidden; visibility: hidden;}</style>"
)
#: The smallest chart plotly accepts.
_CHART = {"data": [{"type": "bar", "x": [0], "y": [0]}]}


def preload() -> DeltaGenerator | None:
    """On a session's first run, send a chart out of sight (see the module docstring); returns
    its slot for :func:`done`, or ``None`` on later runs."""
    state = st.session_state
    if state.get(ASKED_KEY):
        return None
    state[ASKED_KEY] = True
    with st.container(key=BOX_KEY):
        st.html(_HIDE)
        slot = st.empty()
    slot.plotly_chart(_CHART)
    return slot


def done(slot: DeltaGenerator | None) -> None:
    """Remove the chart :func:`preload` sent (the browser keeps the code it fetched)."""
    if slot is not None:
        slot.empty()
