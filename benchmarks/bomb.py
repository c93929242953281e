"""A gzip of zeros uploaded to a real server: refused with little memory, and read only once.

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


async def upload(url: str, bomb: Path) -> float:
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
        await page.get_by_text("looks binary").first.wait_for(timeout=300_000)
        taken = time.perf_counter() - start
        await _wait_idle(page)
        for _ in range(2):  # two reruns: the failed read is remembered, not repeated
            await page.locator(
                '[data-testid="stSidebar"] [data-testid="stNumberInput"] button'
            ).last.click()
            await _wait_idle(page)
            await page.get_by_text("looks binary").first.wait_for(timeout=60_000)
        await browser.close()
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=int, nargs="+", default=[1, 3])
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
