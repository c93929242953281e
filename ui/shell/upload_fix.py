"""Keep the server's answers to file uploads when a page run starts.

When a file is chosen, the page asks the server for an upload address and waits for the answer
before it uploads. Streamlit queues that answer with the page's other messages, and a page run
that starts before the queue is sent empties the queue except for the messages of the run's
life cycle: the answer is dropped, the page never uploads, and the file uploader stays empty.
Under load (several large uploads at once) a file chosen just after the previous upload's page
run was requested was lost this way. :func:`keep_upload_answers` makes the queue keep these
answers as well; it changes nothing else.
"""

from __future__ import annotations

import functools
from typing import Any

_ANSWER = "file_urls_response"


def keep_upload_answers() -> bool:
    """Make Streamlit's message queue keep upload-address answers when it is emptied for a new
    page run. Returns whether it was applied (``False`` when Streamlit's queue differs from what
    is expected, or when it is already applied)."""
    try:
        from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
    except ImportError:
        return False
    clear = getattr(ForwardMsgQueue, "clear", None)
    if clear is None or getattr(clear, "_keeps_upload_answers", False):
        return False

    @functools.wraps(clear)
    def clear_keeping_answers(
        self: Any, retain_lifecycle_msgs: bool = False, *args: Any, **kwargs: Any
    ) -> None:
        queue = getattr(self, "_queue", None)
        answers = (
            [m for m in queue if m.WhichOneof("type") == _ANSWER]
            if retain_lifecycle_msgs and isinstance(queue, list)
            else []  # emptied to be sent (flush), or on purpose: nothing to keep
        )
        clear(self, retain_lifecycle_msgs, *args, **kwargs)
        if answers and isinstance(getattr(self, "_queue", None), list):
            kept = {id(m) for m in self._queue}
            self._queue.extend(m for m in answers if id(m) not in kept)

    clear_keeping_answers._keeps_upload_answers = True  # type: ignore[attr-defined]
    ForwardMsgQueue.clear = clear_keeping_answers  # type: ignore[method-assign]
    return True
