"""Ranking Metrics Explorer: the entrypoint. Run with ``streamlit run app.py``.

The pages are listed in ``ui/pages_registry.py``; every page calls ``ui.frame.page``.
"""

from ui import preload

asked = preload.preload()  # the browser fetches the chart code while the app is imported
try:
    from ui.frame import run_app

    run_app()
finally:
    preload.done(asked)
