"""Tools page: why two tools give two numbers for the same measure, query by query."""

import pandas as pd
import streamlit as st

from ui.shell import frame, keys
from ui.shell.code_panel import CodeBlock, CodeFile, code_blocks, code_downloads
from ui.shell.i18n import option_text, t
from ui.shell.per_query_panel import require_lists
from ui.tools.compute import (
    best_words,
    cause_words,
    command_line,
    differences_display,
    explanation,
    peer_snippet,
    python_code,
    tool_changes,
    tool_measures,
    tool_names,
)

ctx = frame.page("tools")
st.title(t("tools.title"))
st.caption(t("tools.intro"))
dataset = ctx.require_dataset()
require_lists(dataset, "tools.needs_lists")
view = ctx.view
models = list(dataset.models)
c1, c2, c3, c4 = st.columns([2, 2, 2, 1])
tools = tool_names()
st.session_state.setdefault(keys.W_TOOLS_FIRST, "trec_eval")
st.session_state.setdefault(keys.W_TOOLS_SECOND, "ranx")
first = c1.selectbox(
    t("tools.first"), tools, key=keys.W_TOOLS_FIRST, format_func=option_text("tools.profile.")
)
second = c2.selectbox(
    t("tools.second"), tools, key=keys.W_TOOLS_SECOND, format_func=option_text("tools.profile.")
)
if st.session_state.get(keys.W_TOOLS_MODEL) not in models:
    st.session_state[keys.W_TOOLS_MODEL] = models[0]
model = c3.selectbox(t("tools.model"), models, key=keys.W_TOOLS_MODEL)
st.session_state.setdefault(keys.W_TOOLS_K, 10)
k = int(c4.number_input("K", min_value=1, max_value=1000, step=1, key=keys.W_TOOLS_K))
measures = tool_measures((first, second), view.measures, k)

found = explanation(dataset, model, measures, first, second)
labels = (t(f"tools.profile.{first}"), t(f"tools.profile.{second}"))

st.subheader(t("tools.means"))
means = pd.DataFrame(
    [
        {
            t("tools.col.measure"): m,
            labels[0]: a,
            labels[1]: b,
            "Δ": b - a,
            t("tools.col.differing"): int((found.queries["measure"] == m).sum()),
        }
        for m, (a, b) in found.measure_means.items()
    ]
)
st.dataframe(
    means,
    hide_index=True,
    width="stretch",
    key="tools_means",
    column_config={c: st.column_config.NumberColumn(format="%.4f") for c in (*labels, "Δ")},
)

st.subheader(t("tools.causes"))
if not len(found.queries):
    st.success(t("tools.same", first=labels[0], second=labels[1]))
else:
    causes = pd.DataFrame(
        [
            {t("tools.col.cause"): cause_words(c, t), t("tools.col.queries"): n}
            for c, n in sorted(found.counts.items(), key=lambda item: -item[1])
        ]
    )
    st.dataframe(causes, hide_index=True, key="tools_causes")
    if found.best:
        st.markdown(
            t(
                "tools.best",
                setting=frame.escape(best_words(found, t)),
                agreed=sum(1 for f in found.queries["fixes"] if found.best in f)
                or found.counts.get(found.best, 0),
                n=len(found.queries),
            )
        )
    st.dataframe(
        differences_display(found, t, labels),
        hide_index=True,
        width="stretch",
        key="tools_queries",
        column_config={c: st.column_config.NumberColumn(format="%.4f") for c in labels},
    )

st.subheader(t("tools.profiles"))
for key in (first, second):
    changed = tool_changes(key, t)
    st.markdown(f"**{frame.escape(labels[0 if key == first else 1])}** · {frame.escape(changed)}")
    st.caption(t(f"tools.limits.{key}"))

st.subheader(t("tools.code"))
st.caption(t("tools.code_caption"))
run = dataset.run
run_file = run[run["model"] == model].drop(columns="model") if "model" in run.columns else run
files = ("qrels.csv", "run.csv")
code_downloads(
    [
        CodeFile(t("tools.download_run"), "run.csv", run_file),
        CodeFile(t("tools.download_qrels"), "qrels.csv", dataset.qrels),
    ],
    "tools",
)
blocks = [
    CodeBlock(command_line(files, None, measures, first, second), "bash"),
    CodeBlock(python_code(files, None, measures, first, second)),
]
for key in (first, second):
    snippet = peer_snippet(key, files, measures)
    if snippet:
        label = frame.escape(labels[0 if key == first else 1])
        blocks.append(CodeBlock(snippet, heading=t("tools.peer_code", tool=label)))
code_blocks(blocks)
