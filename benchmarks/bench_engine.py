"""End-to-end benchmark: full curves from TREC files, our engine against trec_eval's peers.

Computes P, R, AP and nDCG at every K from 1 to 100 plus RR (401 values per query) from a TREC
run and qrels file, with every tool in its own subprocess, and prints wall time, the time of the
work inside the process, peak memory (the child's ``ru_maxrss`` from ``wait4``) and the largest
difference of the 401 means from our command line's.

Usage::

    python benchmarks/bench_engine.py                    # 1M rows (10k queries x 100)
    python benchmarks/bench_engine.py --sizes 1M 10M     # also 100k queries x 100
    python benchmarks/bench_engine.py --tools cli library
    TREC_EVAL=/path/to/trec_eval python benchmarks/bench_engine.py --tools cli trec_eval

The trec_eval binary is ``$TREC_EVAL`` when that variable is set, else ``trec_eval`` on ``PATH``.

Data files are generated once into ``benchmarks/data/`` (fixed seed; git-ignored).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
K_MAX = 100
SIZES = {"1M": 10_000, "10M": 100_000}
TOOLS = ("cli", "library", "library_pandas", "pytrec_eval", "ranx", "trec_eval")
LABELS = {
    "cli": "ours: `python -m metrics --curves 100` (process start included)",
    "library": "ours: library in-process (TREC reader + rank_lists + kernels)",
    "library_pandas": "ours: library via pandas tables (load_table + evaluate)",
    "pytrec_eval": "pytrec_eval",
    "ranx": "ranx (warm: second call, after numba compilation)",
    "trec_eval": "trec_eval binary",
}


# ====================================================================== workers (subprocesses)
def _our_names() -> list[str]:
    return (
        [f"P@{k}" for k in range(1, K_MAX + 1)]
        + [f"R@{k}" for k in range(1, K_MAX + 1)]
        + [f"AP@{k}" for k in range(1, K_MAX + 1)]
        + [f"nDCG@{k}" for k in range(1, K_MAX + 1)]
        + ["RR"]
    )


def worker_library(qrels: str, run: str) -> dict:
    start = time.perf_counter()
    from metrics.cli.evaluate import compute_matrix, load_inputs
    from metrics.engine.registry import parse_measures
    from metrics.engine.settings import Settings

    specs = parse_measures(_our_names())
    inputs = load_inputs(qrels, [run], Settings(), K_MAX)
    lists = next(iter(inputs.lists.values()))
    means = compute_matrix(lists, specs).mean(axis=0)
    return {"work": time.perf_counter() - start, "means": means.tolist()}


def worker_library_pandas(qrels: str, run: str) -> dict:
    start = time.perf_counter()
    import numpy as np

    from metrics import evaluate
    from metrics.io.formats import load_table

    run_df = load_table(run).frame
    qrels_df = load_table(qrels).frame
    ev = evaluate(run_df[["query", "item", "score"]], qrels_df, _our_names())
    means = ev.per_query[_our_names()].to_numpy(dtype=np.float64).mean(axis=0)
    return {"work": time.perf_counter() - start, "means": means.tolist()}


def _read_dicts(qrels: str, run: str) -> tuple[dict, dict]:
    qrels_d: dict = {}
    with open(qrels) as handle:
        for line in handle:
            q, _, d, rel = line.split()
            qrels_d.setdefault(q, {})[d] = int(rel)
    run_d: dict = {}
    with open(run) as handle:
        for line in handle:
            q, _, d, _, score, _ = line.split()
            run_d.setdefault(q, {})[d] = float(score)
    return qrels_d, run_d


def worker_pytrec_eval(qrels: str, run: str) -> dict:
    start = time.perf_counter()
    import numpy as np
    import pytrec_eval

    qrels_d, run_d = _read_dicts(qrels, run)
    parsed = time.perf_counter()
    ks = ",".join(str(k) for k in range(1, K_MAX + 1))
    request = {f"P.{ks}", f"recall.{ks}", f"map_cut.{ks}", f"ndcg_cut.{ks}", "recip_rank"}
    per_query = pytrec_eval.RelevanceEvaluator(qrels_d, request).evaluate(run_d)
    done = time.perf_counter()
    names = (
        [f"P_{k}" for k in range(1, K_MAX + 1)]
        + [f"recall_{k}" for k in range(1, K_MAX + 1)]
        + [f"map_cut_{k}" for k in range(1, K_MAX + 1)]
        + [f"ndcg_cut_{k}" for k in range(1, K_MAX + 1)]
        + ["recip_rank"]
    )
    means = [float(np.mean([v[n] for v in per_query.values()])) for n in names]
    return {"work": done - start, "work_from_dicts": done - parsed, "means": means}


def worker_ranx(qrels: str, run: str) -> dict:
    start = time.perf_counter()
    from ranx import Qrels, Run, evaluate

    q = Qrels.from_file(qrels, kind="trec")
    r = Run.from_file(run, kind="trec")
    loaded = time.perf_counter()
    names = (
        [f"precision@{k}" for k in range(1, K_MAX + 1)]
        + [f"recall@{k}" for k in range(1, K_MAX + 1)]
        + [f"map@{k}" for k in range(1, K_MAX + 1)]
        + [f"ndcg@{k}" for k in range(1, K_MAX + 1)]
        + ["mrr"]
    )
    evaluate(q, r, names, make_comparable=True)  # numba compilation
    warm_start = time.perf_counter()
    result = evaluate(q, r, names, make_comparable=True)
    done = time.perf_counter()
    return {
        "work": (loaded - start) + (done - warm_start),
        "work_from_dicts": done - warm_start,
        "first_call": warm_start - loaded,
        "means": [float(result[n]) for n in names],
    }


WORKERS = {
    "library": worker_library,
    "library_pandas": worker_library_pandas,
    "pytrec_eval": worker_pytrec_eval,
    "ranx": worker_ranx,
}


# ====================================================================== measuring
def measure(argv: list[str], timeout: float) -> tuple[float, float, str, int, float]:
    """Run a command; return (wall seconds, peak RSS in MB, stdout, exit status, CPU seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    chunks: list[bytes] = []
    deadline = start + timeout
    import selectors

    stdout = proc.stdout
    if not isinstance(stdout, io.BufferedReader):  # stdout=PIPE with the default buffering
        raise RuntimeError(f"{argv[0]}: no buffered pipe from the child's stdout.")
    sel = selectors.DefaultSelector()
    sel.register(stdout, selectors.EVENT_READ)
    while True:
        if time.perf_counter() > deadline:
            proc.kill()
        if sel.select(timeout=1.0):
            data = stdout.read1(1 << 20)
            if not data:
                break
            chunks.append(data)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss / 1024, b"".join(chunks).decode(), proc.returncode, cpu


def trec_eval_binary() -> str | None:
    """The trec_eval binary: ``$TREC_EVAL`` when set, else ``trec_eval`` on ``PATH``."""
    given = os.environ.get("TREC_EVAL")
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise SystemExit(f"TREC_EVAL={given} is not an executable file.")
        return given
    return shutil.which("trec_eval")


def run_tool(tool: str, qrels: Path, run: Path, timeout: float) -> dict | None:
    if tool == "cli":
        argv = [
            sys.executable,
            "-m",
            "metrics",
            str(qrels),
            str(run),
            "--curves",
            str(K_MAX),
            "--quiet",
            "--digits",
            "10",
        ]
        wall, peak, out, status, cpu = measure(argv, timeout)
        if status != 0:
            return {"error": f"exit {status}"}
        means = [float(line.split("\t")[2]) for line in out.splitlines()]
        return {"wall": wall, "cpu": cpu, "peak_mb": peak, "means": means}
    if tool == "trec_eval":
        binary = trec_eval_binary()
        if binary is None:
            return None
        ks = ",".join(str(k) for k in range(1, K_MAX + 1))
        argv = [
            binary,
            "-m",
            f"P.{ks}",
            "-m",
            f"recall.{ks}",
            "-m",
            f"map_cut.{ks}",
            "-m",
            f"ndcg_cut.{ks}",
            "-m",
            "recip_rank",
            str(qrels),
            str(run),
        ]
        wall, peak, out, status, cpu = measure(argv, timeout)
        if status != 0:
            return {"error": f"exit {status}"}
        values = {f[0]: float(f[2]) for f in (line.split() for line in out.splitlines())}
        order = (
            [f"P_{k}" for k in range(1, K_MAX + 1)]
            + [f"recall_{k}" for k in range(1, K_MAX + 1)]
            + [f"map_cut_{k}" for k in range(1, K_MAX + 1)]
            + [f"ndcg_cut_{k}" for k in range(1, K_MAX + 1)]
            + ["recip_rank"]
        )
        return {"wall": wall, "cpu": cpu, "peak_mb": peak, "means": [values[n] for n in order]}
    argv = [sys.executable, str(Path(__file__).resolve()), "--worker", tool, str(qrels), str(run)]
    wall, peak, out, status, cpu = measure(argv, timeout)
    if status != 0:
        return {"error": "timed out" if wall >= timeout else f"exit {status}"}
    result = json.loads(out.strip().splitlines()[-1])
    result.update(wall=wall, cpu=cpu, peak_mb=peak)
    return result


def best_of(runs: list[dict | None]) -> dict | None:
    """The fastest of repeated runs (by wall time), with the least CPU time seen and the largest
    peak memory; the first run's outcome when none succeeded."""
    good = [r for r in runs if r is not None and "error" not in r]
    if not good:
        return runs[0]
    best = min(good, key=lambda r: r["wall"])
    return {
        **best,
        "cpu": min(r["cpu"] for r in good),
        "peak_mb": max(r["peak_mb"] for r in good),
        "walls": [round(r["wall"], 2) for r in good],
    }


def report(size: str, results: dict[str, dict | None]) -> str:
    base = results.get("cli") or {}
    lines = [
        f"\n### {size} rows ({SIZES[size]:,} queries x {K_MAX} results), 401 values per query\n",
        "| tool | wall s | all walls | CPU s | work s | from dicts s | peak MB | wall / ours "
        "| max diff of means |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for tool, r in results.items():
        if r is None:
            lines.append(f"| {LABELS[tool]} | not installed | | | | | | | |")
            continue
        if "error" in r:
            lines.append(f"| {LABELS[tool]} | {r['error']} | | | | | | | |")
            continue
        ratio = r["wall"] / base["wall"] if base.get("wall") else float("nan")
        diff = (
            max(abs(a - b) for a, b in zip(r["means"], base["means"]))
            if base.get("means")
            else float("nan")
        )
        work = f"{r['work']:.2f}" if "work" in r else ""
        dicts = f"{r['work_from_dicts']:.2f}" if "work_from_dicts" in r else ""
        walls = ", ".join(f"{w:.2f}" for w in r.get("walls", [r["wall"]]))
        lines.append(
            f"| {LABELS[tool]} | {r['wall']:.2f} | {walls} | {r['cpu']:.2f} | {work} | {dicts} | "
            f"{r['peak_mb']:.0f} | {ratio:.2f}x | {diff:.1e} |"
        )
    te = results.get("trec_eval") or {}
    if base.get("wall") and te.get("wall"):
        lines.append(
            f"\nOur command line takes {base['wall'] / te['wall']:.2f}x trec_eval's wall time "
            f"and {base['cpu'] / te['cpu']:.2f}x its CPU time (best of each, same run)."
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1M"], choices=list(SIZES))
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    parser.add_argument(
        "--skip-at-10m",
        nargs="*",
        default=["library_pandas", "pytrec_eval", "ranx"],
        choices=TOOLS,
        help="tools left out at 10M rows (minutes each)",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per tool")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs per tool; the fastest is reported (the machine may be shared)",
    )
    parser.add_argument(
        "--worker", nargs=3, metavar=("TOOL", "QRELS", "RUN"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.worker:
        tool, qrels, run = args.worker
        print(json.dumps(WORKERS[tool](qrels, run)))
        return 0
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.generate import generate

    print(machine(), flush=True)
    for size in args.sizes:
        run, qrels = generate(SIZES[size])
        tools = [t for t in args.tools if not (size == "10M" and t in args.skip_at_10m)]
        runs: dict[str, list[dict | None]] = {tool: [] for tool in tools}
        for round_ in range(max(args.repeat, 1)):  # rounds, so that load changes hit every tool
            for tool in tools:
                outcome = run_tool(tool, qrels, run, args.timeout)
                runs[tool].append(outcome)
                shown = outcome and {k: v for k, v in outcome.items() if k != "means"}
                print(f"{size} round {round_ + 1} {tool}: {shown} load {_load()}", file=sys.stderr)
        results: dict[str, dict | None] = {tool: best_of(runs[tool]) for tool in tools}
        for tool in args.tools:
            results.setdefault(tool, {"error": "skipped at this size"})
        print(report(size, results), flush=True)
    print(f"\nload average at the end: {_load()}", flush=True)
    return 0


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def machine() -> str:
    """Cores, Python, numpy and pyarrow versions, and the load average when the run starts."""
    import platform

    import numpy
    import pyarrow

    return (
        f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {numpy.__version__}, "
        f"pyarrow {pyarrow.__version__}; trec_eval: {trec_eval_binary() or 'not found'}; "
        f"load average at the start: {_load()}"
    )


if __name__ == "__main__":
    sys.exit(main())
