"""Tools page: why two tools give two numbers for the same measure, query by query."""

import pandas as pd
import streamlit as st

from metrics.engine.profiles import PROFILES, own_measures, profile
from ui.shell import compute, frame, keys
from ui.shell.code_panel import CodeBlock, CodeFile, code_blocks, code_downloads
from ui.shell.commands import peer_code
from ui.shell.i18n import option_text, t
from ui.shell.labels import policy_text
from ui.shell.per_query_panel import require_lists
from ui.tools.compute import (
    cause_words,
    command_line,
    differences_display,
    explanation,
    python_code,
)

ctx = frame.page("tools")
st.title(t("tools.title"))
st.caption(t("tools.intro"))
dataset = ctx.require_dataset()
require_lists(dataset, "tools.needs_lists")
view = ctx.view
models = list(dataset.models)
c1, c2, c3, c4 = st.columns([2, 2, 2, 1])
tools = list(PROFILES)
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
# a tool without the chosen measures (ragas and DeepEval: context precision) adds its own
measures = tuple(
    own_measures((first, second), [compute.cutoff_name(m, k) for m in view.measures], k)
)

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
        parts = found.best.split(" + ")
        values = (
            found.best_value if isinstance(found.best_value, dict) else {parts[0]: found.best_value}
        )
        settings_words = "; ".join(
            f"{t(f'policy.{p}.label')}: {policy_text(p, values[p])}" for p in parts
        )
        st.markdown(
            t(
                "tools.best",
                setting=frame.escape(settings_words),
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
    tool = profile(key)
    changed = ", ".join(
        f"{t(f'policy.{p}.label')}: {policy_text(p, v)}" for p, v in tool.policies.items()
    ) or t("tools.as_trec_eval")
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
    snippet = peer_code(profile(key), files, None, measures)
    if snippet:
        label = frame.escape(labels[0 if key == first else 1])
        blocks.append(CodeBlock(snippet, heading=t("tools.peer_code", tool=label)))
code_blocks(blocks)
