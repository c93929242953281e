"""The default measures on 10M and 50M rows: the local engine against ``--engine spark`` in
local mode, both as the command line a user runs.

Each command runs in its own subprocess; the whole process tree (the Python driver, Spark's JVM
and its Python workers) is sampled from ``/proc`` every 0.5 s. Reported: **wall s**; **CPU s** —
user plus system time of every process of the tree; the peaks of **driver MB** — the Python
process that runs the command (for Spark: the driver program, which collects the per-query
table), **JVM MB** — Spark's JVM (in local mode it is the driver and the executors at once) and
**tree MB** — everything together at the worst moment; **rows/s per CPU s** — the input rows
divided by the CPU time of the whole tree, which does not depend on what else the machine runs:
the figure to size a cluster by.

```bash
python benchmarks/bench_spark.py --sizes 10M 50M            # writes benchmarks/data/ first
python benchmarks/bench_spark.py --sizes 10M --engines spark --master "local[2]"
```
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generate import generate

SIZES = {"1M": 10_000, "10M": 100_000, "50M": 500_000}
ROOT = Path(__file__).resolve().parent.parent


def _tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def _rss_mb(pid: int) -> tuple[float, str]:
    try:
        with open(f"/proc/{pid}/status") as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmd = handle.read().replace(b"\0", b" ").decode(errors="replace")
        return int(fields.get("VmRSS", "0 kB").split()[0]) / 1024, cmd
    except OSError:
        return 0.0, ""


def measure(argv: list[str], env: dict[str, str]) -> dict:
    """Wall time and peak memory of a command and its children; its stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    peaks = {"driver": 0.0, "jvm": 0.0, "tree": 0.0}
    cpu: dict[int, float] = {}
    chunks: list[bytes] = []
    stdout = proc.stdout
    assert stdout is not None  # opened with stdout=PIPE
    os.set_blocking(stdout.fileno(), False)
    while proc.poll() is None:
        total = 0.0
        for pid in _tree(proc.pid):
            cpu[pid] = max(cpu.get(pid, 0.0), _cpu_seconds(pid))
            rss, cmd = _rss_mb(pid)
            total += rss
            if pid == proc.pid:
                peaks["driver"] = max(peaks["driver"], rss)
            elif "java" in cmd.split(" ")[0]:
                peaks["jvm"] = max(peaks["jvm"], rss)
        peaks["tree"] = max(peaks["tree"], total)
        data = stdout.read()
        if data:
            chunks.append(data)
        time.sleep(0.5)
    rest = stdout.read()
    if rest:
        chunks.append(rest)
    return {
        "wall": time.perf_counter() - start,
        "cpu": sum(cpu.values()),
        **peaks,
        "out": b"".join(chunks).decode(),
        "status": proc.returncode,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["10M"], choices=list(SIZES))
    parser.add_argument("--engines", nargs="+", default=["local", "spark"])
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="4g")
    args = parser.parse_args(argv)
    print(
        "| rows | engine | wall s | CPU s | driver MB | JVM MB | tree MB | rows/s per CPU s "
        "| same output |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        run, qrels = generate(SIZES[size])
        rows = SIZES[size] * 100
        outputs = {}
        for engine in args.engines:
            command = [sys.executable, "-m", "metrics", str(qrels), str(run)]
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            if engine == "spark":
                command += ["--engine", "spark", "--master", args.master]
                env["PYSPARK_SUBMIT_ARGS"] = f"--driver-memory {args.driver_memory} pyspark-shell"
            result = measure(command, env)
            outputs[engine] = result["out"]
            same = (
                "—"
                if engine == args.engines[0] or args.engines[0] not in outputs
                else ("yes" if result["out"] == outputs[args.engines[0]] else "NO")
            )
            per_cpu = rows / max(result["cpu"], 1e-9)
            status = "" if result["status"] == 0 else f" (exit {result['status']})"
            print(
                f"| {size} | {engine}{status} | {result['wall']:.0f} | {result['cpu']:.0f} | "
                f"{result['driver']:.0f} | {result['jvm']:.0f} | {result['tree']:.0f} | "
                f"{per_cpu:,.0f} | {same} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
