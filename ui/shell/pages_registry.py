"""The pages of the app, in menu order. Adding a page is one line in :data:`PAGES`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageDef:
    """One page: its key (used by :func:`ui.shell.frame.page` and the catalog), file and icon.

    The title is the catalog message ``page.<key>``; the URL path is ``url_path``.
    """

    key: str
    path: str
    icon: str
    url_path: str


PAGES: tuple[PageDef, ...] = (
    PageDef("data", "pages/1_Data.py", ":material/table:", "Data"),
    PageDef("learn", "pages/2_Learn.py", ":material/school:", "Learn"),
    PageDef("curves", "pages/3_Curves.py", ":material/show_chart:", "Curves"),
    PageDef("compare", "pages/4_Compare.py", ":material/compare_arrows:", "Compare"),
    PageDef("segments", "pages/5_Segments.py", ":material/grid_view:", "Segments"),
    PageDef("report", "pages/6_Report.py", ":material/summarize:", "Report"),
    PageDef("tools", "pages/7_Tools.py", ":material/rule:", "Tools"),
    PageDef("labels", "pages/8_Labels.py", ":material/rate_review:", "Labels"),
    PageDef("history", "pages/9_History.py", ":material/history:", "History"),
)


def page_def(key: str) -> PageDef:
    """The page registered under ``key``."""
    for p in PAGES:
        if p.key == key:
            return p
    raise KeyError(f"no page '{key}' in ui.shell.pages_registry.PAGES")
