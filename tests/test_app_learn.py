"""The Learn page reproduces the worked examples of the design notes with metrics' numbers."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.app_support import codes, fresh_app, open_page


@pytest.fixture
def learn():
    return open_page(fresh_app(), "learn")


def comparison(at) -> pd.DataFrame:
    return at.dataframe[-1].value.set_index("measure")


def test_default_preset_shows_precision_and_recall_at_5(learn):
    shown = codes(learn)
    assert "P@5 = 3/5 = 0.60" in shown
    assert "R@5 = 3/10 = 0.30" in shown


def test_raising_k_to_10_gives_precision_four_tenths(learn):
    learn.slider(key="w_learn_k::preset::precision_recall").set_value(10).run()
    assert "P@10 = 4/10 = 0.40" in codes(learn)


def test_graded_preset_gives_ndcg_at_4_of_0_985(learn):
    learn.selectbox(key="w_learn_preset").set_value("ndcg_graded").run()
    assert "nDCG@4 = 4.693/4.762 = 0.985" in codes(learn)
    ideal = learn.dataframe[1].value
    assert list(ideal.iloc[:, 1]) == [3.0, 2.0, 1.0, 0.0]
    assert ideal.iloc[-1, -1] == pytest.approx(4.762, abs=1e-3)


def test_position_table_shows_gain_discount_and_running_dcg(learn):
    learn.selectbox(key="w_learn_preset").set_value("ndcg_graded").run()
    table = learn.dataframe[0].value
    assert list(table["gain"]) == [3.0, 2.0, 0.0, 1.0]
    assert table["discount 1/log2(i+1)"].iloc[1] == pytest.approx(0.6309, abs=1e-4)
    assert table["running DCG"].iloc[-1] == pytest.approx(4.693, abs=1e-3)


def test_mrr_presets_show_the_mean_over_three_lists(learn):
    learn.selectbox(key="w_learn_preset").set_value("mrr_first_at_2").run()
    assert "RR@5 = 1/2 = 0.500" in codes(learn)
    assert any("MRR = (1/2 + 1/1 + 1/4)/3 = 0.583" in i.value for i in learn.info)


def test_swapping_inside_the_top_k_changes_ndcg_and_rr_but_not_precision(learn):
    learn.number_input(key="w_learn_swap_a").set_value(1).run()
    learn.number_input(key="w_learn_swap_b").set_value(2).run()
    learn.button(key="btn_learn_swap").click().run()
    assert list(learn.session_state["learn_copy_table"]["item"][:3]) == ["doc02", "doc01", "doc03"]
    table = comparison(learn)
    assert table.loc["P@5", "changed?"] == "same"
    assert table.loc["R@5", "changed?"] == "same"
    assert table.loc["nDCG@5", "changed?"] == "changed"
    assert table.loc["RR@5", "B"] == pytest.approx(0.5)


def copy_of_first_list(**changes) -> pd.DataFrame:
    """The default preset as a copy table (doc01..doc10, relevant at 1, 3, 4, 7), edited."""
    table = pd.DataFrame(
        {
            "position": list(range(1, 11)),
            "item": [f"doc{i:02d}" for i in range(1, 11)],
            "label": [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        }
    )
    for column, values in changes.items():
        table[column] = values
    return table


def edit_copy(at, table: pd.DataFrame):
    at.session_state["learn_copy_table"] = table
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_an_unedited_copy_changes_no_measure(learn):
    table = comparison(learn)
    assert set(table["changed?"]) == {"same"}
    assert table.loc["P@5", "B"] == pytest.approx(0.6)


def test_moving_a_relevant_item_inside_the_top_5_keeps_p_at_5_but_not_ndcg_or_rr(learn):
    edit_copy(learn, copy_of_first_list(position=[2, 1, 3, 4, 5, 6, 7, 8, 9, 10]))
    table = comparison(learn)
    assert table.loc["P@5", "B"] == pytest.approx(0.6) and table.loc["P@5", "changed?"] == "same"
    assert table.loc["RR@5", "B"] == pytest.approx(0.5)
    assert table.loc["nDCG@5", "changed?"] == "changed"
    assert table.loc["nDCG@5", "B"] < table.loc["nDCG@5", "A"]
    assert not learn.warning


def test_rows_are_ranked_by_position_with_ties_in_table_order(learn):
    # doc07 (relevant) to position 2 ties with doc02: doc02 stays first of the two
    edit_copy(learn, copy_of_first_list(position=[1, 2, 3, 4, 5, 6, 2, 8, 9, 10]))
    assert "doc01 › doc02 › doc07 › doc03" in "\n".join(x.value for x in learn.text)
    table = comparison(learn)
    # top 5: doc01, doc02, doc07, doc03, doc04 (doc05, not relevant, leaves) -> 4/5
    assert table.loc["P@5", "B"] == pytest.approx(0.8)
    assert table.loc["RR@5", "changed?"] == "same"


def test_relabelling_an_item_changes_precision_at_5(learn):
    edit_copy(learn, copy_of_first_list(label=[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]))
    table = comparison(learn)
    assert table.loc["P@5", "B"] == pytest.approx(0.8)
    assert table.loc["P@5", "changed?"] == "changed"


def test_added_and_deleted_rows_are_part_of_the_copy(learn):
    table = copy_of_first_list().iloc[1:]  # doc01 deleted
    added = pd.DataFrame({"position": [1], "item": ["new"], "label": [2.0]})
    edit_copy(learn, pd.concat([table, added], ignore_index=True))
    shown = comparison(learn)
    assert shown.loc["RR@5", "B"] == pytest.approx(1.0)
    assert shown.loc["P@5", "B"] == pytest.approx(0.6)  # new, doc02, doc03, doc04, doc05


@pytest.mark.parametrize(
    "change, says",
    [
        (
            {"item": ["doc01", None, *[f"doc{i:02d}" for i in range(3, 11)]]},
            "Row 2: the item is empty",
        ),
        (
            {"label": [1.0, "lots", 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]},
            "Row 2: the label 'lots'",
        ),
        (
            {"item": ["doc01", "doc01", *[f"doc{i:02d}" for i in range(3, 11)]]},
            "Rows 1 & 2: the item 'doc01' appears twice",
        ),
    ],
)
def test_a_bad_edit_shows_a_warning_and_keeps_the_last_valid_copy(learn, change, says):
    edit_copy(learn, copy_of_first_list(position=[2, 1, 3, 4, 5, 6, 7, 8, 9, 10]))
    assert comparison(learn).loc["RR@5", "B"] == pytest.approx(0.5)
    edit_copy(learn, copy_of_first_list(**change))
    warning = learn.warning[0].value
    assert says in warning.replace("\\", "")
    assert comparison(learn).loc["RR@5", "B"] == pytest.approx(0.5)  # previous valid copy


def test_reset_copy_starts_again_from_the_chosen_list(learn):
    edit_copy(learn, copy_of_first_list(label=[0.0] * 10))
    assert comparison(learn).loc["P@5", "B"] == 0.0
    learn.button(key="btn_learn_copy_reset").click().run()
    assert list(learn.session_state["learn_copy_table"]["label"][:3]) == [1.0, 0.0, 1.0]
    assert set(comparison(learn)["changed?"]) == {"same"}


def test_choosing_another_list_starts_a_new_copy(learn):
    edit_copy(learn, copy_of_first_list(label=[0.0] * 10))
    learn.selectbox(key="w_learn_preset").set_value("ndcg_graded").run()
    assert set(comparison(learn)["changed?"]) == {"same"}
    assert len(learn.session_state["learn_copy_table"]) == 4


def test_exponential_gain_setting_changes_the_graded_example(learn):
    learn.selectbox(key="w_learn_preset").set_value("ndcg_graded").run()
    learn.sidebar.selectbox(key="w_gain").set_value("exponential").run()
    # gains 7, 3, 0, 1: DCG = 7 + 1.893 + 0 + 0.431 = 9.323; ideal 7, 3, 1, 0 = 9.393
    assert "nDCG@4 = 9.323/9.393 = 0.993" in codes(learn)


def test_hand_built_list_is_explained_like_a_preset():
    at = fresh_app()
    at.session_state["handbuilt_table"] = pd.DataFrame(
        {
            "list": ["mine"] * 4,
            "position": [1, 2, 3, 4],
            "item": ["a", "b", "c", "d"],
            "label": [0, 1, 0, 1],
        }
    )
    open_page(at, "learn")
    at.radio(key="w_learn_source").set_value("handbuilt").run()
    assert "P@4 = 2/4 = 0.50" in codes(at)
    assert "RR@4 = 1/2 = 0.500" in codes(at)


def test_a_query_of_the_loaded_data_is_explained_with_metrics_values(learn):
    from metrics import evaluate
    from metrics.io.loaders import load_sample

    learn.radio(key="w_learn_source").set_value("query").run()
    learn.selectbox(key="w_learn_model").set_value("hybrid").run()
    learn.selectbox(key="w_learn_query").set_value("7").run()
    data = load_sample("web_search")
    per_query = evaluate(data.run, data.qrels, ["P@10", "nDCG@10"]).per_query
    row = per_query[(per_query["model"] == "hybrid") & (per_query["query"] == "7")].iloc[0]
    shown = {c.split(" = ")[0]: c for c in codes(learn)}
    assert shown["P@10"].endswith(f"= {row['P@10']:.2f}")
    assert shown["nDCG@10"].endswith(f"= {row['nDCG@10']:.3f}")
