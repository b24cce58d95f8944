"""Make the docs' pictures of the HTML report from a real run: seed 003 (a Saver built in the loop) under
`tfguard run --html`, shot by headless Chromium with the network refused, at 1280 px and at phone width.

    python tools/html_report_screenshot.py [--steps 60] [--out docs/runtime]

Writes html-report.png (1280 x 1500, the top of the page) and html-report-phone.png (390 x 1900) into --out, and
the page itself as html-report-example.html next to them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = os.path.join("tfguard", "demo", "seed003_saver_in_loop.py")
OFFLINE = ["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--host-resolver-rules=MAP * ~NOTFOUND"]
SHOTS = (("html-report.png", 1280, 1500), ("html-report-phone.png", 390, 1900))


def _shrink(png: str) -> None:
    """Rewrite the screenshot with a 64-colour palette (a page of flat colours and text: it looks the same at a
    third of the size); left as it is without Pillow (matplotlib's dependency)."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(png) as image:
        small = image.convert("RGB").quantize(colors=64)
    small.save(png, optimize=True)


def main() -> int:
    """Run the seed, write the page, shoot it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60, help="training steps of the seed run (default 60)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "runtime"), help="folder for the pictures")
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("error: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    page = os.path.join(args.out, "html-report-example.html")
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run([sys.executable, "-m", "tfguard", "run", "-q", "--html", page, SEED, "--steps",
                           str(args.steps)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    if done.returncode != 0:
        return done.returncode
    with tempfile.TemporaryDirectory() as profile:
        for name, width, height in SHOTS:
            subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--user-data-dir=" + profile, *OFFLINE, "--window-size=%d,%d" % (width, height),
                            "--screenshot=" + os.path.join(args.out, name), "file://" + os.path.abspath(page)],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _shrink(os.path.join(args.out, name))
            print("wrote %s (%d KB)" % (os.path.join(args.out, name), os.path.getsize(os.path.join(args.out, name))
                                        // 1024))
    return 0


if __name__ == "__main__":
    sys.exit(main())
