"""The server's answer to a file upload survives the emptying of the queue for a new page run."""

from __future__ import annotations

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

from ui.shell.upload_fix import keep_upload_answers


def _answer(request_id: str) -> ForwardMsg:
    msg = ForwardMsg()
    msg.file_urls_response.response_id = request_id
    return msg


def _delta() -> ForwardMsg:
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = [0, 0]
    msg.delta.new_element.markdown.body = "old run"
    return msg


def test_an_upload_answer_queued_when_a_page_run_starts_is_still_sent():
    keep_upload_answers()
    queue = ForwardMsgQueue()
    queue.enqueue(_delta())
    queue.enqueue(_answer("r1"))
    queue.clear(retain_lifecycle_msgs=True)  # what a starting page run does
    sent = queue.flush()
    assert [m.WhichOneof("type") for m in sent] == ["file_urls_response"]
    assert sent[0].file_urls_response.response_id == "r1"


def test_a_flushed_answer_is_sent_once():
    keep_upload_answers()
    queue = ForwardMsgQueue()
    queue.enqueue(_answer("r1"))
    assert len(queue.flush()) == 1
    assert queue.flush() == []


def test_emptying_the_queue_on_purpose_drops_answers_too():
    keep_upload_answers()
    queue = ForwardMsgQueue()
    queue.enqueue(_answer("r1"))
    queue.clear()
    assert queue.flush() == []


def test_applying_it_twice_wraps_the_queue_once():
    keep_upload_answers()
    assert keep_upload_answers() is False
