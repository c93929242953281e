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
    python benchmarks/bench_engine.py --versus 5 \
        --trec-eval /tmp/trec_eval_default/trec_eval --trec-eval /tmp/trec_eval_O2/trec_eval

The trec_eval binaries are the ``--trec-eval`` paths (repeatable), else ``$TREC_EVAL`` and
``$TREC_EVAL_O2`` when set, else ``trec_eval`` on ``PATH``. ``--build-trec-eval SOURCE`` (a
folder holding trec_eval's source, or a git repository or URL to clone) builds the two binaries
instead, each in its own copy of the source in a temporary folder outside the repository,
removed at the end: one with trec_eval's own ``make`` (``-g``, no optimisation) and one with
``-O2``.
``--versus N`` times our command line against each binary in N rounds of alternate runs (ours,
the binary, ours, the binary, ...) and reports per binary the median of the rounds' CPU-time
ratios (user + system time of the whole process tree, from ``wait4``), the wall-time ratio
beside it and the load average when the comparison starts and ends.

Every child runs with a fresh bytecode cache in a temporary folder (``PYTHONPYCACHEPREFIX``),
filled by an untimed first run, so that no run pays for compiling the modules.

Data files are generated once into ``benchmarks/data/`` (fixed seed; git-ignored).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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
    from metrics.cli.evaluate import load_inputs
    from metrics.engine.registry import parse_measures
    from metrics.engine.results import compute_matrix
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
_PYCACHE = tempfile.mkdtemp(prefix="bench_engine_pycache_")


def child_env() -> dict[str, str]:
    """The children's environment: this repository first on the path, and bytecode cached in a
    temporary folder (whatever ``PYTHONDONTWRITEBYTECODE`` says here)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONPYCACHEPREFIX": _PYCACHE}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def measure(argv: list[str], timeout: float) -> tuple[float, float, str, int, float]:
    """Run a command; return (wall seconds, its own peak RSS in MB, stdout, exit status, CPU
    seconds: user + system time of the command and the children it waited for).

    The command runs under ``benchmarks/peak.py``, a small process that forks it and reads its
    peak and CPU time with ``os.wait4``: waited for straight from this process, a command would
    report this process's peak as its own when that is larger (the kernel carries the peak over
    a ``vfork`` and ``exec``; so two tools once showed the same 895 MB)."""
    handle, report = tempfile.mkstemp(prefix="bench_peak_", suffix=".txt")
    os.close(handle)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "peak.py"), report, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
        env=child_env(),
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
    _, status, _ = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    try:
        peak_kb, user, system = (float(x) for x in Path(report).read_text().split())
    except ValueError:  # the command was killed before it was waited for
        peak_kb, user, system = float("nan"), float("nan"), float("nan")
    finally:
        os.unlink(report)
    return wall, peak_kb / 1024, b"".join(chunks).decode(), proc.returncode, user + system


#: The ``--trec-eval`` paths given on the command line (see :func:`trec_eval_binaries`).
GIVEN_BINARIES: list[str] = []


def trec_eval_binaries() -> list[str]:
    """The trec_eval binaries to time: the ``--trec-eval`` paths, else ``$TREC_EVAL`` and
    ``$TREC_EVAL_O2`` (those set), else ``trec_eval`` on ``PATH`` (none when there is none)."""
    named = [("--trec-eval", path) for path in GIVEN_BINARIES] or [
        (f"{name}=", os.environ[name])
        for name in ("TREC_EVAL", "TREC_EVAL_O2")
        if name in os.environ
    ]
    for how, path in named:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise SystemExit(f"{how} {path} is not an executable file.")
    if named:
        return [path for _, path in named]
    found = shutil.which("trec_eval")
    return [found] if found else []


#: ``CFLAGS`` of the optimised build: the Makefile's own include and version flags, with -O2.
O2_CFLAGS = '-O2 -I. -Wall -DVERSIONID=\\"$(VERSIONID)\\"'


def build_trec_eval(source: str, folder: Path) -> list[str]:
    """trec_eval built twice from ``source`` (a source folder with its Makefile, or a git
    repository or URL cloned first), each build in its own copy under ``folder``: the default
    ``make`` and ``make CFLAGS=<-O2 ...>``. Returns the two binaries, the default build first."""
    tree = folder / "source"
    if (Path(source) / "Makefile").is_file():
        shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".git"))
    else:
        shallow = [] if Path(source).exists() else ["--depth", "1"]
        subprocess.run(["git", "clone", "--quiet", *shallow, source, str(tree)], check=True)
    binaries = []
    for name, flags in (("default", []), ("O2", [f"CFLAGS={O2_CFLAGS}"])):
        build = folder / name
        shutil.copytree(tree, build, ignore=shutil.ignore_patterns(".git"))
        done = subprocess.run(["make", *flags], cwd=build, capture_output=True, text=True)
        binary = build / "trec_eval"
        if done.returncode or not os.access(binary, os.X_OK):
            raise SystemExit(f"building trec_eval ({name}) failed:\n{done.stderr[-2000:]}")
        binaries.append(str(binary))
    return binaries


def trec_eval_binary() -> str | None:
    """The first of :func:`trec_eval_binaries` (the binary of the ``trec_eval`` row)."""
    return next(iter(trec_eval_binaries()), None)


def trec_eval_argv(binary: str, qrels: Path, run: Path) -> list[str]:
    ks = ",".join(str(k) for k in range(1, K_MAX + 1))
    return [
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


def cli_argv(qrels: Path, run: Path) -> list[str]:
    return [
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


def run_tool(tool: str, qrels: Path, run: Path, timeout: float) -> dict | None:
    if tool == "cli":
        wall, peak, out, status, cpu = measure(cli_argv(qrels, run), timeout)
        if status != 0:
            return {"error": f"exit {status}"}
        means = [float(line.split("\t")[2]) for line in out.splitlines()]
        return {"wall": wall, "cpu": cpu, "peak_mb": peak, "means": means}
    if tool == "trec_eval":
        binary = trec_eval_binary()
        if binary is None:
            return None
        wall, peak, out, status, cpu = measure(trec_eval_argv(binary, qrels, run), timeout)
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


def versus(size: str, qrels: Path, run: Path, rounds: int, timeout: float) -> str:
    """Our command line against each trec_eval binary, in ``rounds`` rounds of alternate runs;
    a Markdown table of the CPU-time ratios (ours / trec_eval) per binary."""
    binaries = trec_eval_binaries()
    if not binaries:
        return f"\n{size}: no trec_eval binary (give --trec-eval PATH)."
    start_load = _load()
    measure(cli_argv(qrels, run), timeout)  # untimed: fills the bytecode and page caches
    for binary in binaries:
        measure(trec_eval_argv(binary, qrels, run), timeout)
    pairs: dict[str, list[tuple[float, float, float, float, float, float]]] = {
        binary: [] for binary in binaries
    }
    for round_ in range(rounds):
        for binary in binaries:
            ours = measure(cli_argv(qrels, run), timeout)
            theirs = measure(trec_eval_argv(binary, qrels, run), timeout)
            if ours[3] != 0 or theirs[3] != 0:
                raise SystemExit(f"exit status {ours[3]} (ours), {theirs[3]} ({binary})")
            pairs[binary].append((ours[4], theirs[4], ours[0], theirs[0], ours[1], theirs[1]))
            print(
                f"{size} round {round_ + 1} vs {binary}: CPU {ours[4]:.2f} / {theirs[4]:.2f} s, "
                f"wall {ours[0]:.2f} / {theirs[0]:.2f} s, load {_load()}",
                file=sys.stderr,
            )
    lines = [
        f"\n### {size} rows: `python -m metrics --curves {K_MAX}` against trec_eval, "
        f"{rounds} rounds of alternate runs\n",
        "| trec_eval binary | CPU ratio (median) | CPU ratio per round | wall ratio (median) "
        "| ours CPU s (median) | trec_eval CPU s (median) | ours peak MB | trec_eval peak MB |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for binary, runs in pairs.items():
        cpu = [a / b for a, b, *_ in runs]
        wall = [r[2] / r[3] for r in runs]
        lines.append(
            f"| `{binary}` | {statistics.median(cpu):.2f}x | "
            + ", ".join(f"{x:.2f}" for x in cpu)
            + f" | {statistics.median(wall):.2f}x | {statistics.median(r[0] for r in runs):.2f} "
            f"| {statistics.median(r[1] for r in runs):.2f} | {max(r[4] for r in runs):.0f} "
            f"| {max(r[5] for r in runs):.0f} |"
        )
    lines.append(f"\nLoad average at the start: {start_load}; at the end: {_load()}.")
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
    parser.add_argument(
        "--shape",
        choices=("sparse", "judged"),
        default="sparse",
        help="the judgments (benchmarks/generate.py): sparse, 45 per query mostly 0 (default); "
        "judged, 55 per query mostly relevant, 5 of them not retrieved",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per tool")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs per tool; the fastest is reported (the machine may be shared)",
    )
    parser.add_argument(
        "--trec-eval",
        action="append",
        default=[],
        metavar="PATH",
        help="a trec_eval binary (repeatable: say, the default and the -O2 build); "
        "default: $TREC_EVAL and $TREC_EVAL_O2, else trec_eval on PATH",
    )
    parser.add_argument(
        "--build-trec-eval",
        metavar="SOURCE",
        help="build trec_eval from SOURCE (its source folder or a git URL) twice, with its own "
        "make and with -O2, in a temporary folder, and time both binaries",
    )
    parser.add_argument(
        "--versus",
        type=int,
        metavar="N",
        help="only compare our command line with each trec_eval binary: N rounds of "
        "alternate runs, the median CPU-time ratio per binary",
    )
    parser.add_argument(
        "--worker", nargs=3, metavar=("TOOL", "QRELS", "RUN"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.worker:
        tool, qrels, run = args.worker
        print(json.dumps(WORKERS[tool](qrels, run)))
        return 0
    GIVEN_BINARIES[:] = args.trec_eval
    if args.build_trec_eval:
        with tempfile.TemporaryDirectory(prefix="trec_eval_builds_") as folder:
            GIVEN_BINARIES[:] = build_trec_eval(args.build_trec_eval, Path(folder))
            return _run(args)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.generate import generate

    print(machine(), flush=True)
    for size in args.sizes:
        run, qrels = generate(SIZES[size], shape=args.shape)
        if args.versus:
            shown = size if args.shape == "sparse" else f"{size} ({args.shape})"
            print(versus(shown, qrels, run, args.versus, args.timeout), flush=True)
            continue
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

    binaries = ", ".join(trec_eval_binaries()) or "not found"
    return (
        f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {numpy.__version__}, "
        f"pyarrow {pyarrow.__version__}; trec_eval: {binaries}; "
        f"load average at the start: {_load()}"
    )


if __name__ == "__main__":
    sys.exit(main())
