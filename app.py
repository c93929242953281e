"""Ranking Metrics Explorer: the entrypoint. Run with ``streamlit run app.py``.

The pages are listed in ``ui/shell/pages_registry.py``; every page calls ``ui.shell.frame.page``.
Imported by the server when it starts (no page run then), this file defines the app's server
instead, with a start-up hook that prepares the first page (``ui/server_start.py``).
"""

from streamlit.runtime.scriptrunner import get_script_run_ctx

if get_script_run_ctx(suppress_warning=True) is None:  # the server starting: its definition
    import streamlit as st

    from ui.server_start import lifespan

    app = st.App(__file__, lifespan=lifespan)
else:  # a page run of a session
    from ui.shell import preload

    asked = preload.preload()  # the browser fetches code the pages need while the app is imported
    try:
        from ui import server_start
        from ui.shell.frame import run_app

        run_app(server_start.above())
    except BaseException:  # a switch to a page (the root address forwards to Data), or a stop
        if asked is not None:
            preload.again()
        raise
    finally:
        preload.done(asked)
