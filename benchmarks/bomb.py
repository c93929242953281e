"""A gzip of zeros uploaded to a real server: refused with little memory, and read only once.

``--text MB`` uploads instead a gzip of valid CSV text (``query,item,score,label`` lines) that
unpacks to MB megabytes, past the app's upload limit (50 MB of text by default): it must be
refused as it is decompressed, with the server under the same bound.

Run with ``python -m benchmarks.bomb``. It writes a 1 MB gzip of 1 GB of zeros (and, with
``--gigabytes 3``, a 3 MB gzip of 3 GB), starts the app, uploads it on the Data page, waits for
the message, then changes two settings (two reruns) and reports the server's peak resident set
size above idle (``VmHWM`` minus the idle ``VmRSS``) and the time to the message. Target: under
300 MB above idle.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sessions import _wait_idle, memory_mb, warm_up  # noqa: E402
from tests.browser.support import (  # noqa: E402
    CHROMIUM,
    LAUNCH_ARGS,
    streamlit_process,
)


def write_bomb(path: Path, gigabytes: int) -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 24)
    with open(path, "wb") as out:
        for _ in range(gigabytes * 64):
            out.write(packer.compress(block))
        out.write(packer.flush())


def write_text(path: Path, megabytes: int) -> None:
    """A gzip of valid CSV text of about ``megabytes`` MB once unpacked."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    lines = "".join(
        f"q{q},d{d},{1 - d / 100:.2f},{int(d < 3)}\n" for q in range(20) for d in range(50)
    )
    block = lines.encode()
    with open(path, "wb") as out:
        out.write(packer.compress(b"query,item,score,label\n"))
        for _ in range(megabytes * (1 << 20) // len(block) + 1):
            out.write(packer.compress(block))
        out.write(packer.flush())


async def upload(url: str, bomb: Path, expected: str = "looks binary", reruns: int = 2) -> float:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = await browser.new_page(viewport={"width": 1400, "height": 1000})
        await page.goto(url)
        await page.get_by_text("Data health").first.wait_for(timeout=120_000)
        await page.get_by_text("Upload files", exact=True).click()
        await page.get_by_text("Upload at least one run file").first.wait_for(timeout=120_000)
        inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
        start = time.perf_counter()
        await inputs.nth(0).set_input_files(str(bomb))
        await page.get_by_text(expected).first.wait_for(timeout=300_000)
        taken = time.perf_counter() - start
        await _wait_idle(page)
        for _ in range(reruns):  # reruns: the failed read is remembered, not repeated
            await page.locator(
                '[data-testid="stSidebar"] [data-testid="stNumberInput"] button'
            ).last.click()
            await _wait_idle(page)
            await page.get_by_text(expected).first.wait_for(timeout=60_000)
        await browser.close()
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--text", type=int, metavar="MB", help="valid CSV text instead of zeros")
    args = parser.parse_args()
    if args.text:
        text_upload(args.text)
        return
    print("| zeros | gzip MB | message after s | idle MB | peak above idle MB |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for gigabytes in args.gigabytes:
            bomb = Path(tmp) / f"zeros_{gigabytes}g.csv.gz"
            write_bomb(bomb, gigabytes)
            with streamlit_process(timeout=90) as (url, pid):
                asyncio.run(warm_up(url))
                time.sleep(3)
                idle, _ = memory_mb(pid)
                taken = asyncio.run(upload(url, bomb))
                _, peak = memory_mb(pid)
            print(
                f"| {gigabytes} GB | {bomb.stat().st_size / 1e6:.1f} | {taken:.1f} "
                f"| {idle:.0f} | {peak - idle:.0f} |",
                flush=True,
            )


def text_upload(megabytes: int) -> None:
    print("| valid text MB | gzip MB | message after s | idle MB | peak above idle MB |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"text_{megabytes}m.csv.gz"
        write_text(path, megabytes)
        with streamlit_process(timeout=90) as (url, pid):
            asyncio.run(warm_up(url))
            time.sleep(3)
            idle, _ = memory_mb(pid)
            taken = asyncio.run(upload(url, path, "than the upload limit", reruns=0))
            _, peak = memory_mb(pid)
        print(
            f"| {megabytes} | {path.stat().st_size / 1e6:.2f} | {taken:.1f} "
            f"| {idle:.0f} | {peak - idle:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
