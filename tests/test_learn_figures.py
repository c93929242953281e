"""The Learn page's curve picture: what it draws, that a gap stays a gap, and that every text
in it is escaped."""

import re
import xml.etree.ElementTree as ET

import pandas as pd

from ui.learn.figures import CUT_COLOUR, learn_curve_svg

SVG = "{http://www.w3.org/2000/svg}"


def _svg(k: int = 3, title: str = "<b>list</b>") -> str:
    values = pd.DataFrame(
        {"k": [1, 2, 3, 4], "P": [1.0, 0.5, 2 / 3, 0.5], "nDCG": [1.0, 0.6, 0.8, float("nan")]}
    )
    ideal = pd.DataFrame({"k": [1, 2, 3, 4], "P": [1.0, 1.0, 1.0, 0.75]})
    return learn_curve_svg(
        values,
        ideal,
        k,
        title=title,
        x_label="K",
        y_label="value",
        ideal_label="ideal",
        k_label=f"K = {k}",
    )


def test_the_picture_is_well_formed_svg_with_the_title_as_its_accessible_name():
    root = ET.fromstring(_svg(title="A & B"))
    assert root.tag == f"{SVG}svg" and root.get("role") == "img"
    assert root.get("aria-label") == "A & B"


def test_a_user_given_title_is_escaped_not_markup():
    text = _svg(title='<script>alert(1)</script>"')
    assert "<script>" not in text
    assert "&lt;script&gt;" in text
    assert ET.fromstring(text).get("aria-label") == '<script>alert(1)</script>"'


def test_each_point_of_each_measure_has_its_value_as_a_tooltip():
    tips = [e.text for e in ET.fromstring(_svg()).iter(f"{SVG}title")]
    assert tips == ["P@1 = 1.000", "P@2 = 0.500", "P@3 = 0.667", "P@4 = 0.500"] + [
        "nDCG@1 = 1.000",
        "nDCG@2 = 0.600",
        "nDCG@3 = 0.800",
    ]


def test_the_ideal_curve_is_dotted_in_the_same_colour_and_named_in_the_legend():
    root = ET.fromstring(_svg())
    paths = root.findall(f"{SVG}path")
    dotted = [p for p in paths if p.get("stroke-dasharray")]
    solid = [p for p in paths if not p.get("stroke-dasharray")]
    assert len(dotted) == 1 and dotted[0].get("stroke") == solid[0].get("stroke")
    legend = [e.text for e in root.iter(f"{SVG}text")]
    assert {"P", "P (ideal)", "nDCG"} <= set(legend)


def test_a_missing_value_is_a_gap_not_a_point():
    root = ET.fromstring(_svg())
    ndcg = [p for p in root.findall(f"{SVG}path") if p.get("stroke") != CUT_COLOUR][-1]
    assert len(re.findall(r"[ML]", ndcg.get("d"))) == 3  # K = 1, 2, 3; nothing at K = 4


def test_the_chosen_k_is_marked_by_a_vertical_line_with_its_label():
    root = ET.fromstring(_svg(k=2))
    (cut,) = [e for e in root.iter(f"{SVG}line") if e.get("class") == "cut"]
    assert cut.get("x1") == cut.get("x2")
    assert "K = 2" in [e.text for e in root.iter(f"{SVG}text")]
    later = ET.fromstring(_svg(k=3))
    (cut3,) = [e for e in later.iter(f"{SVG}line") if e.get("class") == "cut"]
    assert float(cut3.get("x1")) > float(cut.get("x1"))
