"""The Learn page: the worked examples of the design notes with metrics' numbers, a list you
touch (labels, order, tray, the cut at K), the relevance level on the page, lessons, links."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.app_support import codes, fresh_app, open_page


def press(at, op: str, index: int = 0, shown: int = 0) -> None:
    """What a press in the Learn list sends (``op`` on rank or tray row ``index`` of shown list
    ``shown``); the page applies it on its next run, as after a click in the browser."""
    at.session_state["learn_action"] = {"op": op, "index": index, "list": shown, "seq": 1}
    at.run()
    assert not at.exception, [e.value for e in at.exception]


@pytest.fixture
def learn():
    return open_page(fresh_app(), "learn")


def test_default_preset_shows_precision_and_recall_at_5(learn):
    shown = codes(learn)
    assert "P@5 = 3/5 = 0.60" in shown
    assert "R@5 = 3/10 = 0.30" in shown


def test_raising_k_to_10_gives_precision_four_tenths(learn):
    learn.slider(key="w_learn_k").set_value(10).run()
    assert "P@10 = 4/10 = 0.40" in codes(learn)


def test_graded_preset_gives_ndcg_at_4_of_0_985(learn):
    learn.selectbox(key="w_learn_preset").set_value("ndcg_graded").run()
    assert "nDCG@4 = 4.693/4.762 = 0.985" in codes(learn)
    ideal = learn.dataframe[1].value
    assert list(ideal["gain"]) == [3.0, 2.0, 1.0, 0.0]
    assert ideal["running IDCG"].iloc[-1] == pytest.approx(4.762, abs=1e-3)
    # the ideal order names its items and the move that makes it: doc04 (label 1) up from 4
    assert list(ideal["item"]) == ["doc01", "doc02", "doc04", "doc03"]
    assert list(ideal["move"]) == ["stays", "stays", "↑ from rank 4", "↓ from rank 3"]


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
    from metrics.io.samples import load_sample

    learn.radio(key="w_learn_source").set_value("query").run()
    learn.selectbox(key="w_learn_model").set_value("hybrid").run()
    learn.selectbox(key="w_learn_query").set_value("7").run()
    data = load_sample("web_search")
    per_query = evaluate(data.run, data.qrels, ["P@10", "nDCG@10"]).per_query
    row = per_query[(per_query["model"] == "hybrid") & (per_query["query"] == "7")].iloc[0]
    shown = {c.split(" = ")[0]: c for c in codes(learn)}
    assert shown["P@10"].endswith(f"= {row['P@10']:.2f}")
    assert shown["nDCG@10"].endswith(f"= {row['nDCG@10']:.3f}")


def test_every_number_of_a_touched_list_is_the_engine_value(learn):
    from metrics import evaluate
    from metrics.engine.explain import list_frames

    press(learn, "label", 2)  # doc02: 0 -> 1
    press(learn, "down", 1)  # doc01 below doc02
    press(learn, "tray", 3)  # doc03 out of the list, still judged
    rl = hb_list(learn)
    assert rl.items[:3] == ("doc02", "doc01", "doc04")
    assert ("doc03", 1.0) in rl.unretrieved
    run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved))
    names = ["P@5", "R@5", "RR@5", "AP@5", "nDCG@5", "F1@5", "Success@5"]
    row = evaluate(run, qrels, names).per_query.iloc[0]
    shown = {c.split(" = ")[0]: c for c in codes(learn)}
    for name in names:
        decimals = 3 if name[:2] in ("RR", "AP", "nD") else 0 if name[0] == "S" else 2
        assert shown[name].endswith(f"= {row[name]:.{decimals}f}"), (name, shown[name])


def hb_list(at):
    from ui.shell import handbuilt as hb

    name = at.selectbox(key="w_learn_hand_list").value
    return next(rl for rl in hb.lists_of(at.session_state["handbuilt_table"]) if rl.name == name)


def test_touching_a_worked_example_makes_it_a_hand_built_list_kept_in_the_link(learn):
    press(learn, "up", 2)
    assert learn.radio(key="w_learn_source").value == "handbuilt"
    assert hb_list(learn).items[:2] == ("doc02", "doc01")
    assert "RR@5 = 1/2 = 0.500" in codes(learn)
    assert learn.query_params["lh"] == "precision_recall"
    again = open_page(fresh_app(dict(learn.query_params)), "learn")
    assert again.radio(key="w_learn_source").value == "handbuilt"
    assert "RR@5 = 1/2 = 0.500" in codes(again) and "P@5 = 3/5 = 0.60" in codes(again)


def test_a_damaged_link_says_so_and_shows_the_starter_list():
    at = open_page(fresh_app({"list": "1abc", "data": "handbuilt"}), "learn")
    assert "damaged" in at.error[0].value
    assert "P@5 = 3/5 = 0.60" in codes(at)


def test_the_relevance_level_on_the_page_is_the_sidebar_setting(learn):
    learn.selectbox(key="w_learn_preset").set_value("ndcg_graded").run()
    assert any("relevant = label ≥ 1: 3 of 4 results" in m.value for m in learn.markdown)
    learn.segmented_control(key="learn_level_pick").set_value(2).run()
    assert learn.sidebar.number_input(key="w_rel").value == 2.0
    assert any("relevant = label ≥ 2: 2 of 4 results" in m.value for m in learn.markdown)
    assert "P@4 = 2/4 = 0.50" in codes(learn)
    assert learn.query_params["rel"] == "2"


def test_relevant_items_not_retrieved_count_for_recall_and_the_ideal_dcg(learn):
    shown = codes(learn)
    assert "R@5 = 3/10 = 0.30" in shown  # six of the ten relevant items are in the tray
    press(learn, "back", 0)  # doc11 joins the list at rank 11
    assert hb_list(learn).items[-1] == "doc11"
    assert "R@5 = 3/10 = 0.30" in codes(learn)


def test_pitfalls_of_the_list_are_shown_next_to_the_numbers(learn):
    warnings = " ".join(w.value for w in learn.warning)
    assert "6 relevant items are not in the list" in warnings
    assert "P@5 would be the same for any order of the top 5" in warnings


def test_a_lesson_challenge_is_checked_and_progress_counted():
    at = open_page(fresh_app({"lesson": "p_order"}), "learn")
    assert at.radio(key="w_learn_source").value == "lesson"
    assert not at.success
    press(at, "down", 1)
    assert at.success and "Challenge met" in at.success[0].value
    assert at.session_state["lessons_done"] == {"p_order"}
    link = dict(at.query_params)
    again = open_page(fresh_app(link), "learn")
    assert again.success  # the lesson's state came back from the link


def test_a_lesson_setting_on_the_page_is_the_sidebar_setting():
    at = open_page(fresh_app({"lesson": "short_lists"}), "learn")
    at.radio(key="learn_policy_short_lists").set_value("divide_by_returned").run()
    assert at.sidebar.selectbox(key="w_short_lists").value == "divide_by_returned"
    assert "Challenge met" in at.success[0].value


def test_the_teachers_view_shows_objectives_questions_and_answers():
    at = open_page(fresh_app({"lesson": "k_choice"}), "learn")
    at.toggle(key="w_teacher").set_value(True).run()
    text = " ".join(m.value for m in at.markdown)
    assert "Expected answers" in text and "From K = 7" in text


def test_no_widget_has_both_a_default_and_a_session_state_value(learn):
    press(learn, "down", 1)
    open_page(learn, "data")
    open_page(learn, "learn")
    assert not learn.exception


def test_presenter_mode_is_one_switch_kept_in_the_link():
    at = open_page(fresh_app(), "learn")
    at.sidebar.toggle(key="w_present").set_value(True).run()
    assert at.query_params["present"] == "1"
    board = "\n".join(h.proto.body for h in at.get("html"))
    assert "P@5 = 3/5 = 0.60" in board  # the view is kept, its formulas on one board
    again = open_page(fresh_app({"present": "1"}), "learn")
    assert again.sidebar.toggle(key="w_present").value is True
    again.button(key="btn_present_exit").click().run()
    assert "present" not in again.query_params


def test_a_hand_built_list_with_no_judged_item_is_explained_with_zeros_not_an_error():
    at = fresh_app()
    at.session_state["handbuilt_table"] = pd.DataFrame(
        {"list": ["x", "x"], "position": [1, 2], "item": ["a", "b"], "label": [None, None]}
    )
    open_page(at, "learn")
    at.radio(key="w_learn_source").set_value("handbuilt").run()
    assert not at.exception
    assert not [e for e in at.error if "went wrong" in e.value]
    assert "P@2 = 0/2 = 0.00" in codes(at)
    assert "Judged@2 = 0/2 = 0.00" in codes(at)
    assert any("trec_eval leaves such a query out" in w.value for w in at.warning)


# --------------------------------------------------------------------------- several lists


def _mean_card(at, name: str) -> str:
    """The code block of the card of ``name`` (``MRR@5``) in the several-lists mode."""
    return next(c for c in codes(at) if f"\n{name} = " in c)


def test_several_lists_open_with_the_notes_mrr_example_and_its_mean(learn):
    learn.radio(key="w_learn_source").set_value("queries").run()
    card = _mean_card(learn, "MRR@5")
    assert card.splitlines() == [
        "q1: RR@5 = 1/2 = 0.500",
        "q2: RR@5 = 1/1 = 1.000",
        "q3: RR@5 = 1/4 = 0.250",
        "MRR@5 = (0.500 + 1.000 + 0.250)/3 = 0.583",
    ]
    assert _mean_card(learn, "MAP@5").endswith("MAP@5 = (0.500 + 1.000 + 0.250)/3 = 0.583")
    assert _mean_card(learn, "mean nDCG@5").endswith("/3 = 0.687")
    assert learn.query_params["lq"] == "1" and learn.query_params["list"]


def test_each_of_several_lists_is_touched_on_its_own_and_the_means_follow(learn):
    from metrics import evaluate, summarize

    learn.radio(key="w_learn_source").set_value("queries").run()
    press(learn, "up", 4, shown=2)  # q3: the first hit from rank 4 to 3
    assert "q3: RR@5 = 1/3 = 0.333" in _mean_card(learn, "MRR@5")
    table = learn.session_state["handbuilt_table"]
    run = table.assign(score=-table["position"].astype(float)).rename(columns={"list": "query"})
    qrels = table.rename(columns={"list": "query", "label": "relevance"})
    ev = evaluate(run[["query", "item", "score"]], qrels[["query", "item", "relevance"]], ["RR@5"])
    mrr = float(summarize(ev)["value"].iloc[0])
    assert f"MRR@5 = (0.500 + 1.000 + 0.333)/3 = {mrr:.3f}" in _mean_card(learn, "MRR@5")
    for _ in range(3):  # q2's only hit: 1 -> 2 -> 3 -> unjudged (graded labels)
        press(learn, "label", 1, shown=1)
    assert "q2: RR@5 = 0 = 0.000" in _mean_card(learn, "MRR@5")


def test_queries_are_added_and_removed_and_a_list_without_judgments_is_left_out(learn):
    learn.radio(key="w_learn_source").set_value("queries").run()
    learn.button(key="btn_learn_add_query").click().run()
    assert "q4: RR@5 = 1/3 = 0.333" in _mean_card(learn, "MRR@5")
    learn.button(key="btn_learn_remove_query_0").click().run()
    card = _mean_card(learn, "MRR@5")
    assert not card.startswith("q1:") and card.endswith("/3 = 0.528")  # (1 + 1/4 + 1/3)/3
    table = learn.session_state["handbuilt_table"].copy()
    table.loc[table["list"] == "q2", "label"] = float("nan")  # q2: nothing judged
    learn.session_state["handbuilt_table"] = table
    learn.run()
    card = _mean_card(learn, "MRR@5")
    assert "q2: nothing judged: left out of the mean (as trec_eval)" in card
    assert card.endswith("MRR@5 = (0.250 + 0.333)/2 = 0.292")


def test_the_several_lists_link_reopens_the_same_lists_and_means(learn):
    learn.radio(key="w_learn_source").set_value("queries").run()
    press(learn, "up", 2, shown=0)
    params = {k: str(v) for k, v in learn.query_params.items()}
    again = open_page(fresh_app(params), "learn")
    assert again.radio(key="w_learn_source").value == "queries"
    assert _mean_card(again, "MRR@5") == _mean_card(learn, "MRR@5")
    assert "q1: RR@5 = 1/1 = 1.000" in _mean_card(again, "MRR@5")


def test_the_mrr_examples_open_side_by_side_from_the_worked_example(learn):
    learn.selectbox(key="w_learn_preset").set_value("mrr_first_at_4").run()
    learn.button(key="btn_learn_open_queries").click().run()
    assert learn.radio(key="w_learn_source").value == "queries"
    assert _mean_card(learn, "MRR@5").endswith("= 0.583")


def test_the_mrr_lesson_shows_three_queries_and_their_mean_and_is_met_by_labels(learn):
    learn.radio(key="w_learn_source").set_value("lesson").run()
    learn.selectbox(key="w_lesson").set_value("mrr_first").run()
    assert _mean_card(learn, "MRR@5").endswith("MRR@5 = (0.500 + 1.000 + 0.250)/3 = 0.583")
    assert not learn.success
    press(learn, "label", 3, shown=0)
    press(learn, "label", 5, shown=1)
    press(learn, "label", 5, shown=2)
    assert any("Challenge met!" in s.value for s in learn.success)
    assert _mean_card(learn, "MRR@5").endswith("= 0.583")
