"""Run a command and write its own peak memory and CPU time: ``python peak.py OUT CMD ...``.

A child started straight from a large process (``subprocess`` starts it with ``vfork``) reports
that process's peak as its own ``ru_maxrss``: the kernel carries the memory map's peak over
the ``exec``. Started from this small process with ``fork``, the command's ``ru_maxrss`` (read
with ``os.wait4``) is its own. ``OUT`` gets one line: peak KB, user seconds, system seconds.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    out, command = argv[0], argv[1:]
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child becomes the command
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    with open(out, "w", encoding="ascii") as handle:
        handle.write(f"{usage.ru_maxrss} {usage.ru_utime} {usage.ru_stime}\n")
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
