"""A review page in tabs, of which only the open one is computed and drawn.

Compare and Report show a lot: a page that laid out every table and chart at once kept the
browser drawing for seconds. :func:`sections` draws the tabs (``st.tabs`` with
``on_change="rerun"``, so that Streamlit runs only the open tab's code) and returns the open
one; the page then lays out that section alone. The verdict stays above the tabs, so the answer
is seen whichever tab is open.

Which tab is open is kept three ways: the tabs' own widget state (the tab just clicked), the
session (:func:`ui.shell.keys.section`, so that a visit to another page or a change of language
comes back to the same tab) and the link (``URL_PARAMS[page]``, so that a copied link opens the
same tab; left out when the link opens that tab anyway). A link that names a choice of the
drill-down (``q``, ``qc``, ``qm``, ``qseg``) but no tab opens the tab that shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.shell import keys
from ui.shell.i18n import t

#: Page -> the link parameter that names its open tab.
URL_PARAMS = {"compare": "ctab", "report": "rtab"}

#: Page -> (link parameters, the tab a link with one of them opens when it names no tab): the
#: drill-down's choices of Compare.
LINK_TABS = {"compare": (("q", "qc", "qm", "qseg"), "queries")}


def open_next(page: str, section: str) -> None:
    """Open ``section`` on the next run of ``page`` (as if its tab were clicked): for an action
    in one tab whose answer is shown in another."""
    st.session_state[keys.section_next(page)] = section


def label(section: str) -> str:
    """The tab label of a section id, in the session's language."""
    return t(f"review.section.{section}")


@dataclass(frozen=True)
class Section:
    """The open tab of a page: its id and the container to lay it out in."""

    id: str
    body: DeltaGenerator


def _link_default(page: str, ids: Sequence[str]) -> str:
    """The section a link opens when it names no tab."""
    link = LINK_TABS.get(page)
    if link and any(p in st.query_params for p in link[0]) and link[1] in ids:
        return link[1]
    return ids[0]


def _wanted(page: str, ids: Sequence[str]) -> str:
    """The section to open when the tabs have no state of their own yet."""
    param = st.query_params.get(URL_PARAMS[page])
    if param in ids:
        return str(param)
    saved = st.session_state.get(keys.section(page))
    if saved in ids:
        return str(saved)
    return _link_default(page, ids)


def sections(page: str, ids: Sequence[str]) -> Section:
    """Draw ``page``'s tabs (one per section id, in order) and return the open one."""
    labels = {section: label(section) for section in ids}
    by_label = {text: section for section, text in labels.items()}
    then = st.session_state.pop(keys.section_next(page), None)
    if then in labels:  # asked for by the last run: as a click on its tab
        st.session_state[keys.section_tabs(page)] = labels[then]
    clicked = by_label.get(str(st.session_state.get(keys.section_tabs(page))))
    if clicked is None:  # a first visit, a return from another page, another language
        clicked = _wanted(page, ids)
    # Written on every run: the tabs are a new widget when the tabs shown change (another data
    # set, one candidate more), which would otherwise open on the first tab.
    st.session_state[keys.section_tabs(page)] = labels[clicked]
    # The default stays that of the first tab: a default that followed the open tab would make
    # each click a new widget, which the browser draws anew.
    tabs = st.tabs(list(labels.values()), key=keys.section_tabs(page), on_change="rerun")
    current = next((s for s, tab in zip(ids, tabs) if tab.open), clicked)
    st.session_state[keys.section(page)] = current
    param = URL_PARAMS[page]
    if current == _link_default(page, ids):
        if param in st.query_params:
            del st.query_params[param]
    elif st.query_params.get(param) != current:
        st.query_params[param] = current
    return Section(current, tabs[list(ids).index(current)])
