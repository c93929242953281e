"""Ranking Metrics Explorer: the entrypoint. Run with ``streamlit run app.py``.

The pages are listed in ``ui/shell/pages_registry.py``; every page calls ``ui.shell.frame.page``.
"""

from ui.shell import preload

asked = preload.preload()  # the browser fetches code the pages need while the app is imported
try:
    from ui.shell.frame import run_app

    run_app()
except BaseException:  # a switch to a page (the root address forwards to Data), or a stop
    if asked is not None:
        preload.again()
    raise
finally:
    preload.done(asked)
