"""Every format side by side, and our engine against trec_eval on both shapes of judgments.

Part one: the same rows as TREC files, CSV, gzip CSV, Parquet, JSON Lines and Excel (not at
10M rows: a workbook holds at most about a million), and as one gzip CSV holding the run with
its labels, each evaluated by ``python -m metrics QRELS RUN --curves 100`` (P, R, AP and nDCG at
every K to 100, and RR) in its own process, one format after another, ``--rounds`` times: the
median CPU seconds (user + system) and the largest peak memory of the command's own process
(``benchmarks/peak.py``), the text the rows make (decompressed; for Parquet and Excel the same
rows as CSV), the peak against the memory rule (3 times the text + 300 MB), the CPU time against
the TREC files', and whether the output is the TREC files' (it must be).

Part two: our command line against each trec_eval binary on both shapes of judgments of
``benchmarks/generate.py`` (``sparse``: about 45 judgments per query, most of them 0;
``judged``: 55 per query, most of them relevant, 5 not retrieved), ``--rounds`` rounds of
alternate runs each (:func:`benchmarks.bench_engine.versus`).

Usage::

    python -m benchmarks.bench_formats                          # 1M rows
    python -m benchmarks.bench_formats --sizes 1M 10M --rounds 3
    python -m benchmarks.bench_formats --trec-eval /tmp/trec_eval_O2/trec_eval
    python -m benchmarks.bench_formats --sizes 20k --rounds 1   # a check in seconds

Data are written once into ``benchmarks/data/`` (git-ignored); the Excel files take about a
minute per million rows to write.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
from pathlib import Path

from benchmarks import bench_engine
from benchmarks.bench_engine import K_MAX, measure
from benchmarks.formats import FORMATS, write_formats
from benchmarks.generate import DATA, SHAPES, generate

#: Queries (of 100 results each) per size.
SIZES = {"20k": 200, "1M": 10_000, "10M": 100_000}
#: The formats left out at a size, and why.
LEFT_OUT = {"10M": {"xlsx": "Excel sheets hold at most 1,048,576 rows"}}
LABELLED = "labelled.csv.gz"
NAMES = {
    "trec": "TREC files",
    "csv": "CSV",
    "csv.gz": "gzip CSV",
    "parquet": "Parquet",
    "jsonl": "JSON Lines",
    "xlsx": "Excel (.xlsx)",
    LABELLED: "gzip CSV, labels in the run's table",
}


def command(paths: tuple[Path | None, Path]) -> list[str]:
    judgments, run = paths
    files = [str(run)] if judgments is None else [str(judgments), str(run)]
    return [sys.executable, "-m", "metrics", *files, "--curves", str(K_MAX), "--quiet"]


def text_bytes(paths: tuple[Path | None, Path]) -> int:
    """The bytes of text of the files (decompressed)."""
    total = 0
    for path in paths:
        if path is None:
            continue
        if path.name.endswith(".gz"):
            with gzip.open(path, "rb") as handle:
                while chunk := handle.read(1 << 24):
                    total += len(chunk)
        else:
            total += path.stat().st_size
    return total


def formats_table(size: str, rounds: int, timeout: float, folder: Path) -> str:
    """Part one at ``size``: a Markdown table, one row per format."""
    run, qrels = generate(SIZES[size], directory=folder)
    left_out = LEFT_OUT.get(size, {})
    wanted = tuple(f for f in FORMATS if f not in left_out)
    files: dict[str, tuple[Path | None, Path]] = {"trec": (qrels, run)}
    for fmt, (judgments, table) in write_formats(run, qrels, folder, wanted).items():
        files[fmt] = (None, table) if fmt == LABELLED else (judgments, table)
    csv_text = text_bytes(files["csv"])
    results: dict[str, list[tuple[float, float, str, int]]] = {f: [] for f in files}
    for round_ in range(rounds):  # rounds, so that a change of load hits every format
        for fmt, paths in files.items():
            wall, peak, out, status, cpu = measure(command(paths), timeout)
            results[fmt].append((cpu, peak, out, status))
            print(
                f"{size} round {round_ + 1} {fmt}: CPU {cpu:.2f} s, peak {peak:.0f} MB, "
                f"wall {wall:.2f} s",
                file=sys.stderr,
            )
    trec_out = results["trec"][0][2]
    trec_cpu = statistics.median(r[0] for r in results["trec"])
    lines = [
        f"\n### {size} rows ({SIZES[size]:,} queries x 100 results), every format, "
        f"`python -m metrics ... --curves {K_MAX}`, {rounds} round(s)\n",
        "| format | text MB | CPU s (median) | CPU / TREC | peak MB | rule MB (3 x text + 300) "
        "| within the rule | same output as TREC |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for fmt, runs in results.items():
        if any(status != 0 for *_, status in runs):
            lines.append(f"| {NAMES[fmt]} | | exit {runs[0][3]} | | | | | |")
            continue
        text = csv_text if fmt in ("parquet", "xlsx") else text_bytes(files[fmt])
        cpu = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        rule = 3 * text / 2**20 + 300
        same = all(r[2] == trec_out for r in runs)
        lines.append(
            f"| {NAMES[fmt]} | {text / 2**20:.1f} | {cpu:.2f} | {cpu / trec_cpu:.2f}x | "
            f"{peak:.0f} | {rule:.0f} | {'yes' if peak <= rule else '**no**'} | "
            f"{'yes' if same else '**no**'} |"
        )
    for fmt, why in left_out.items():
        lines.append(f"| {NAMES[fmt]} | left out: {why} | | | | | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1M"], choices=list(SIZES))
    parser.add_argument("--rounds", type=int, default=3, help="runs of each format and pair")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument(
        "--trec-eval",
        action="append",
        default=[],
        metavar="PATH",
        help="a trec_eval binary to compare with (repeatable); default: $TREC_EVAL and "
        "$TREC_EVAL_O2, else trec_eval on PATH",
    )
    parser.add_argument(
        "--no-versus", action="store_true", help="leave out part two (against trec_eval)"
    )
    parser.add_argument(
        "--data", type=Path, default=DATA, help="where the data are written and kept"
    )
    args = parser.parse_args(argv)
    bench_engine.GIVEN_BINARIES[:] = args.trec_eval
    print(bench_engine.machine(), flush=True)
    for size in args.sizes:
        print(formats_table(size, max(args.rounds, 1), args.timeout, args.data), flush=True)
        if args.no_versus:
            continue
        for shape in SHAPES:
            run, qrels = generate(SIZES[size], directory=args.data, shape=shape)
            shown = f"{size} ({shape} judgments)"
            print(
                bench_engine.versus(shown, qrels, run, max(args.rounds, 1), args.timeout),
                flush=True,
            )
    print(f"\nload average at the end: {bench_engine._load()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
