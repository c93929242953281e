"""The report's chart pictures: one that kaleido gave up on in a batch is made again alone."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

from ui.shell import plotting


def test_a_picture_missing_from_the_batch_is_made_once_more_on_its_own(monkeypatch):
    figures = [go.Figure(go.Bar(x=[1], y=[i])) for i in range(3)]
    alone = []

    def batch(figs, paths, **options):  # as kaleido on a busy machine: the second one is lost
        for i, path in enumerate(paths):
            if i != 1:
                path.write_text(f"<svg>{i}</svg>", encoding="utf-8")

    def one(fig, path, **options):
        alone.append(figures.index(fig))
        path.write_text("<svg>again</svg>", encoding="utf-8")

    monkeypatch.setattr(pio, "write_images", batch)
    monkeypatch.setattr(pio, "write_image", one)
    assert plotting.figure_pictures(figures) == ["<svg>0</svg>", "<svg>again</svg>", "<svg>2</svg>"]
    assert alone == [1]


def test_pictures_that_cannot_be_made_at_all_are_none(monkeypatch):
    def fails(*args, **options):
        raise RuntimeError("no browser")

    monkeypatch.setattr(pio, "write_images", fails)
    monkeypatch.setattr(pio, "write_image", fails)
    assert plotting.figure_pictures([go.Figure(), go.Figure()]) == [None, None]


def test_an_image_whose_first_call_fails_is_asked_for_once_more(monkeypatch):
    calls = []

    def once_busy(self, **options):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("kaleido_scopes is not defined")
        return b"png"

    monkeypatch.setattr(go.Figure, "to_image", once_busy)
    assert plotting.figure_image(go.Figure(), "png") == b"png" and len(calls) == 2
    calls.clear()
    monkeypatch.setattr(go.Figure, "to_image", lambda self, **o: calls.append(1) or 1 / 0)
    try:
        plotting.figure_image(go.Figure(), "png")
    except RuntimeError as exc:
        assert "could not be made" in str(exc) and len(calls) == 2
    else:
        raise AssertionError("no error")
