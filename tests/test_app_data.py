"""The Data page: samples, uploads through file_uploader, column roles, the report, privacy."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.app_support import fresh_app, open_page, sidebar_text, upload

RUN = b"""qid,doc,score,system
q1,a,3,alpha
q1,b,2,alpha
q1,c,1,alpha
q2,d,2,alpha
q2,e,1,alpha
q1,a,1,beta
q1,b,3,beta
q1,c,2,beta
q2,d,1,beta
q2,e,2,beta
"""
QRELS = b"""query,item,relevance
q1,a,1
q1,c,1
q2,d,1
"""


def test_first_open_shows_the_web_search_sample_in_the_sidebar():
    at = open_page(fresh_app(), "data")
    text = sidebar_text(at)
    assert text.startswith("web_search")
    assert "models: lexical, dense, hybrid" in text
    assert "queries: 300" in text and "rows: 45,000" in text and "warnings: 0" in text


def test_the_demo_sample_opens_without_a_warning():
    at = open_page(fresh_app(), "data")
    assert not at.warning and not [m for m in at.main.markdown if m.value.endswith("**warning**")]
    assert [s.value for s in at.success] == ["No warnings."]


@pytest.mark.parametrize(
    ("lang", "headers"),
    [
        ("en", ["label", "judgments", "share"]),
        ("zh", ["标签", "标注数", "占比"]),
        ("ja", ["ラベル", "関連判定の数", "割合"]),
    ],
)
def test_the_labels_of_the_judgments_are_counted_in_a_table_in_the_session_language(lang, headers):
    from metrics.io.labels import label_counts
    from ui.shell.compute import sample_dataset

    at = open_page(fresh_app({"lang": lang}), "data")
    assert not at.get("plotly_chart")  # the first page draws no chart
    shown = at.dataframe[-1].value
    assert list(shown.columns) == headers
    expected = label_counts(sample_dataset("web_search").qrels["relevance"])
    assert list(shown[headers[0]]) == ["0", "1", "2", "3"] == list(expected["label"])
    assert list(shown[headers[1]]) == list(expected["judgments"])
    assert sum(shown[headers[1]]) == 10_683  # every judgment of the sample
    assert list(shown[headers[2]]) == pytest.approx(list(expected["share"] * 100))


def test_report_lists_the_teaching_samples_warnings_with_their_explanations():
    at = open_page(fresh_app({"data": "web_search_pitfalls"}), "data")
    texts = [x.value for x in at.main.text]
    assert any("4 of 40 judged queries have no relevant item" in x for x in texts)
    assert "12; 14; 18; 22" in texts
    assert sum(m.value.endswith("**warning**") for m in at.main.markdown) == 4
    assert at.selectbox(key="w_sample").value == "web_search_pitfalls"


@pytest.mark.slow
def test_choosing_another_sample_updates_the_sidebar():
    at = open_page(fresh_app(), "data")
    at.selectbox(key="w_sample").set_value("recommendations").run()
    assert "models: baseline, candidate" in sidebar_text(at)
    assert at.query_params["data"] == "recommendations"


def test_uploaded_run_and_judgments_become_the_active_data_set():
    at = upload(fresh_app(), [("my run.csv", RUN, "text/csv")], ("judged.csv", QRELS, "text/csv"))
    text = sidebar_text(at)
    assert text.startswith("my run.csv")
    assert "models: alpha, beta" in text and "queries: 2" in text and "rows: 10" in text
    assert at.query_params["data"] == "upload"
    open_page(at, "curves")
    shown = at.dataframe[0].value.set_index("model")
    # alpha: q1 relevant a at 1 (P@1 = 1), q2 relevant d at 1 (1) -> 1.0; beta: b, e first -> 0
    assert shown.loc["alpha", "P@1"] == pytest.approx(1.0)
    assert shown.loc["beta", "P@1"] == pytest.approx(0.0)


def role_box(at, role):
    return next(
        b
        for b in at.selectbox
        if b.key and b.key.startswith("w_map_") and b.key.endswith(f"_{role}")
    )


def test_guessed_roles_are_shown_and_can_be_changed():
    at = upload(fresh_app(), [("my run.csv", RUN, "text/csv")], ("judged.csv", QRELS, "text/csv"))
    assert (
        role_box(at, "query").value,
        role_box(at, "score").value,
        role_box(at, "model").value,
    ) == ("qid", "score", "system")
    role_box(at, "model").set_value("—").run()
    assert "models: my run" in sidebar_text(at)


def test_a_score_column_with_an_unknown_name_is_mapped_by_hand():
    odd = RUN.replace(b"qid,doc,score,system", b"qid,doc,points,system")
    at = upload(fresh_app(), [("odd.csv", odd, "text/csv")], ("judged.csv", QRELS, "text/csv"))
    assert "neither a score nor a rank column" in at.error[0].value.replace("\\", "")
    role_box(at, "score").set_value("points").run()
    assert not at.error
    assert "models: alpha, beta" in sidebar_text(at)


def test_unreadable_numbers_stop_with_a_message_naming_file_and_line():
    bad = RUN.replace(b"q2,e,1,alpha", b"q2,e,lots,alpha")
    at = upload(fresh_app(), [("bad.csv", bad, "text/csv")], ("judged.csv", QRELS, "text/csv"))
    message = " ".join(e.value for e in at.error).replace("\\", "")  # shown without escapes
    assert "bad.csv" in message and "line 6" in message
    assert sidebar_text(at).startswith("web_search") is False


def test_run_with_inline_labels_needs_no_judgments_file():
    inline = b"user_id,item_id,score,clicked\nu1,a,0.9,1\nu1,b,0.5,0\nu2,c,0.7,0\nu2,d,0.2,1\n"
    at = upload(fresh_app(), [("clicks.csv", inline, "text/csv")])
    assert "queries: 2" in sidebar_text(at)
    open_page(at, "curves")
    assert at.dataframe[0].value.set_index("model").loc["clicks", "P@1"] == pytest.approx(0.5)


def test_an_upload_is_invisible_to_another_session(tmp_path):
    first = upload(
        fresh_app(), [("secret.csv", RUN, "text/csv")], ("judged.csv", QRELS, "text/csv")
    )
    assert "secret.csv" in sidebar_text(first)
    second = fresh_app({"data": "upload"})
    open_page(second, "data")
    assert "upload_dataset" not in second.session_state
    assert "secret.csv" not in sidebar_text(second)
    assert any("kept in this browser's workspace" in i.value for i in second.info)


def test_hand_built_lists_are_a_data_set_kept_across_pages():
    at = open_page(fresh_app(), "data")
    at.radio(key="w_source").set_value("handbuilt").run()
    assert sidebar_text(at).startswith("hand-built lists")
    at.session_state["handbuilt_table"] = pd.DataFrame(
        {
            "list": ["x", "x", "x", "y", "y"],
            "position": [2, 1, 3, 1, 2],
            "item": ["b", "a", "c", "d", "e"],
            "label": [0, 1, 1, 0, 0],
        }
    )
    at.run()
    assert "queries: 2" in sidebar_text(at) and "rows: 5" in sidebar_text(at)
    open_page(at, "curves")
    shown = at.dataframe[0].value.set_index("model")
    # x: a (1), b (0), c (1) -> P@1 = 1; y: nothing relevant -> 0; mean 0.5
    assert shown.loc["hand_built", "P@1"] == pytest.approx(0.5)
    open_page(at, "data")
    assert at.radio(key="w_source").value == "handbuilt"
    editor = at.session_state["handbuilt_table"]
    assert list(editor["item"]) == ["b", "a", "c", "d", "e"]


def test_run_files_with_ranks_but_no_scores_are_named_in_one_remark():
    run_a = b"query,item,rank\nq1,a,1\nq1,b,2\nq2,c,1\n"
    run_b = b"query,item,rank\nq1,a,2\nq1,b,1\nq2,c,1\n"
    qrels = b"query,item,label\nq1,a,1\nq2,c,1\n"
    at = upload(
        fresh_app(),
        [("a.csv", run_a, "text/csv"), ("b.csv", run_b, "text/csv")],
        ("qrels.csv", qrels, "text/csv"),
    )
    remarks = [x.value for x in at.main.text if "ranks but no scores" in x.value]
    assert remarks == [
        "The run files a.csv, b.csv have ranks but no scores; their scores are set to -rank."
    ]


def test_hand_built_lists_make_no_remark_on_ranks_without_scores():
    at = open_page(fresh_app(), "data")
    at.radio(key="w_source").set_value("handbuilt").run()
    assert not [x.value for x in at.main.text if "ranks but no scores" in x.value]


def test_hand_built_buttons_add_a_list_and_start_again():
    at = open_page(fresh_app({"data": "handbuilt"}), "data")
    at.button(key="btn_hand_add").click().run()
    table = at.session_state["handbuilt_table"]
    assert list(pd.unique(table["list"])) == ["my_list", "list_2"]
    assert "queries: 2" in sidebar_text(at)
    at.button(key="btn_hand_reset").click().run()
    assert list(at.session_state["handbuilt_table"]["item"]) == ["a", "b", "c", "d", "e"]


def test_sort_by_position_renumbers_the_lists():
    at = open_page(fresh_app({"data": "handbuilt"}), "data")
    at.session_state["handbuilt_table"] = pd.DataFrame(
        {
            "list": ["x", "x", "x"],
            "position": [10, 2, 7],
            "item": ["c", "a", "b"],
            "label": [1, 0, 1],
        }
    )
    at.run()
    at.button(key="btn_hand_sort").click().run()
    table = at.session_state["handbuilt_table"]
    assert list(table["item"]) == ["a", "b", "c"] and list(table["position"]) == [1, 2, 3]


@pytest.mark.slow
def test_file_names_and_messages_are_shown_literally_not_as_markdown():
    at = upload(
        fresh_app(), [("*bold*[link](x).csv", RUN, "text/csv")], ("judged.csv", QRELS, "text/csv")
    )
    assert at.expander[0].label.startswith(r"\*bold\*\[link\]\(x\)\.csv")
    assert sidebar_text(at).startswith("*bold*[link](x).csv")  # st.text: shown as is
    bad = RUN.replace(b"q2,e,1,alpha", b"q2,e,**x**,alpha")
    at = upload(fresh_app(), [("bad.csv", bad, "text/csv")], ("judged.csv", QRELS, "text/csv"))
    assert r"\*\*x\*\*" in at.error[0].value


def test_markdown_escape_leaves_no_markup_characters_bare():
    from ui.shell.safe import md_escape

    assert md_escape("*a*_b_[c](d)<e>") == r"\*a\*\_b\_\[c\]\(d\)&lt;e&gt;"


def test_a_role_guess_the_contents_contradict_is_left_empty_with_a_warning():
    rows = "".join(f"q{i % 3},x,{1 - i / 100}\n" for i in range(12)).encode()
    judged = b"query,item,relevance\nq0,x,1\nq1,x,1\n"
    at = upload(fresh_app(), [("plain.csv", rows, "text/csv")], ("judged.csv", judged, "text/csv"))
    warning = " ".join(w.value for w in at.warning).replace("\\", "")
    assert (
        "the column 'column_2' was guessed as Item from its contents, but it holds one value "
        "('x') on all 12 rows" in warning
    )
    assert role_box(at, "item").value == "—" and role_box(at, "query").value == "column_1"
    assert "plain" not in sidebar_text(at)  # nothing computed from the guess


def test_a_new_upload_shows_in_the_sidebar_and_its_health_without_running_the_page_again(
    monkeypatch,
):
    import streamlit

    reruns = []
    real = streamlit.rerun

    def counting(*args, **options):
        reruns.append(args)
        return real(*args, **options)

    monkeypatch.setattr(streamlit, "rerun", counting)
    at = upload(fresh_app(), [("my run.csv", RUN, "text/csv")], ("judged.csv", QRELS, "text/csv"))
    assert reruns == []
    assert "models: alpha, beta" in sidebar_text(at)
    assert "Data health" in [s.value for s in at.subheader]


@pytest.mark.parametrize(
    ("lang", "binary", "nul"),
    [
        ("en", "looks binary (it contains NUL bytes)", "Line 2 holds a NUL byte"),
        ("zh", "看起来是二进制文件", "第 2 行含有 NUL 字节"),
        ("ja", "バイナリのようです", "2 行目に NUL バイトがあります"),
    ],
)
def test_an_unreadable_upload_is_explained_in_the_session_language(lang, binary, nul):
    binary_file = ("blob.csv", b"\x00\x01\x02" * 200, "text/csv")
    nul_file = ("nul.csv", b"query,item,score\nq1,d\x001,0.5\n", "text/csv")
    at = upload(fresh_app({"lang": lang}), [binary_file, nul_file])
    errors = " ".join(e.value for e in at.main.error).replace("\\", "")  # markdown escapes
    assert binary in errors and nul in errors
    assert "blob.csv" in errors and "nul.csv" in errors


VIEWS_RUN = b"""query,item,score,views
q1,a,0.9,3
q1,b,0.8,1
q1,c,0.7,0
q2,d,0.5,0
q2,e,0.6,2
"""
VIEWS_QRELS = b"query,item,relevance\nq1,a,0\nq1,b,0\nq1,c,1\nq2,d,1\nq2,e,0\n"


def test_a_run_column_of_small_whole_numbers_is_not_taken_as_labels_beside_a_judgments_file():
    at = upload(
        fresh_app(), [("views.csv", VIEWS_RUN, "text/csv")], ("judged.csv", VIEWS_QRELS, "text/csv")
    )
    assert role_box(at, "label").value == "—"
    open_page(at, "curves")
    # only the judgments file judges: a (0.9) and e (0.6) come first and are not relevant
    assert at.dataframe[0].value.set_index("model").loc["views", "P@1"] == pytest.approx(0.0)


def test_a_label_seeded_before_the_judgments_arrive_is_dropped_but_a_chosen_one_is_kept():
    at = upload(fresh_app(), [("views.csv", VIEWS_RUN, "text/csv")])
    assert role_box(at, "label").value == "views"  # alone, the run's labels are all there is
    at.file_uploader(key="up_judgments").set_value([("judged.csv", VIEWS_QRELS, "text/csv")])
    at.run()
    assert role_box(at, "label").value == "—"
    role_box(at, "label").set_value("views").run()
    at.run()
    assert role_box(at, "label").value == "views"
    assert not at.exception


def test_a_json_dictionary_of_whole_number_scores_in_the_runs_uploader_is_read_as_a_run():
    run = b'{"q1": {"a": 3, "b": 2, "c": 1}, "q2": {"d": 2, "e": 1}}'
    at = upload(
        fresh_app(), [("bm25.json", run, "application/json")], ("judged.csv", QRELS, "text/csv")
    )
    assert not at.error
    assert "models: bm25" in sidebar_text(at)
    open_page(at, "curves")
    assert at.dataframe[0].value.set_index("model").loc["bm25", "P@1"] == pytest.approx(1.0)


ONE_RUN_A = b"query,item,score\nq1,a,3\nq1,b,2\nq2,d,2\nq2,e,1\n"
ONE_RUN_B = b"query,item,score\nq1,b,3\nq1,a,2\nq2,e,2\nq2,d,1\n"


def test_two_run_files_of_the_same_name_are_two_models():
    at = upload(
        fresh_app(),
        [("run.csv", ONE_RUN_A, "text/csv"), ("run.csv", ONE_RUN_B, "text/csv")],
        ("judged.csv", QRELS, "text/csv"),
    )
    assert not at.exception
    assert "models: run, run (2)" in sidebar_text(at)
    open_page(at, "curves")
    shown = at.dataframe[0].value.set_index("model")
    assert shown.loc["run", "P@1"] == pytest.approx(1.0)  # a and d first: both relevant
    assert shown.loc["run (2)", "P@1"] == pytest.approx(0.0)


def test_run_files_that_differ_only_in_extension_are_not_merged():
    at = upload(
        fresh_app(),
        [("bm25.csv", ONE_RUN_A, "text/csv"), ("bm25.tsv", ONE_RUN_B.replace(b",", b"\t"), "")],
        ("judged.csv", QRELS, "text/csv"),
    )
    assert "models: bm25.csv, bm25.tsv" in sidebar_text(at)
    assert "more than once in the same list" not in " ".join(w.value for w in at.warning)


# --------------------------------------------------------------------------- doubtful role guesses
#: Three impressions whose session type is theirs alone: either column groups the rows into the
#: same lists, and neither name settles which is the query.
TWIN = b"impression_id,doc,score,session_type,relevance\n" + b"".join(
    f"i{q},d{q * 5 + r},{1 - r / 10},t{q},{r % 2}\n".encode() for q in range(3) for r in range(1, 6)
)


def test_an_unsure_role_guess_is_asked_about_and_nothing_is_computed_until_confirmed():
    at = upload(fresh_app(), [("log.csv", TWIN, "text/csv")])
    warning = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "'impression_id' and 'session_type' could both be the Query / user column" in warning
    assert "'session_type' has one value per ranked list (3 values, median list length 5)" in (
        warning
    )
    assert role_box(at, "query").value == "impression_id"  # the guess stands, asked about
    assert any("Nothing is computed until" in i.value for i in at.info)
    assert "log.csv" not in sidebar_text(at)
    box = next(c for c in at.checkbox if c.key and c.key.startswith("w_roles_ok_"))
    box.check().run()
    assert sidebar_text(at).startswith("log.csv") and "queries: 3" in sidebar_text(at)
    assert "Queries: 3 · lists per model: 3 · median list length: 5" in [i.value for i in at.info]


def test_choosing_the_doubtful_role_in_its_menu_answers_the_question():
    at = upload(fresh_app(), [("log.csv", TWIN, "text/csv")])
    role_box(at, "query").set_value("session_type").run()
    assert not any("Nothing is computed until" in i.value for i in at.info)
    assert sidebar_text(at).startswith("log.csv")


def test_an_unsure_guess_is_explained_in_the_session_language():
    at = upload(fresh_app({"lang": "zh"}), [("log.csv", TWIN, "text/csv")])
    warning = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "“impression_id”和“session_type”都可能是“查询 / 用户”列" in warning
    assert "每个排序列表一个值（共 3 个值，列表长度中位数 5）" in warning


def test_query_level_columns_are_proposed_as_segments_and_the_first_two_chosen():
    rows = "".join(
        f"u{u},i{(u * 3 + r) % 40},{1 - r / 10},{(u + r) % 2},{['new', 'old'][u % 2]},"
        f"{['web', 'app', 'tv'][u % 3]},{['us', 'de'][u // 5 % 2]}\n"
        for u in range(12)
        for r in range(1, 6)
    )
    data = ("user_id,item_id,score,clicked,tenure,device,market\n" + rows).encode()
    at = upload(fresh_app(), [("users.csv", data, "text/csv")])
    chosen = next(m for m in at.multiselect if m.key and m.key.endswith("_segments"))
    assert chosen.value == ["tenure", "device"]
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert (
        "Proposed as segment columns (one value per query, 2 to 50 values): tenure, device, "
        in (captions)
    )


def test_the_data_page_gives_the_lists_at_a_glance():
    at = open_page(fresh_app(), "data")
    assert "Queries: 300 · lists per model: 300 · median list length: 50" in [
        i.value for i in at.info
    ]
