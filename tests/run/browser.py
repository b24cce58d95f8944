"""Headless Chromium for the HTML report's tests, with every network request refused.

The browser gets a proxy that refuses every connection (``127.0.0.1:9``, loopback not bypassed) and a resolver that
finds no host, so a page that needed the network would show it broken; `page_requests` reads Chromium's network log
for the requests a page made (the browser's own background requests, which the proxy also refuses, are not the
page's: they carry no ``file://`` isolation key). Without Chromium the tests skip with one line saying why.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
OFFLINE = ["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--host-resolver-rules=MAP * ~NOTFOUND"]
_QUIET = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions", "--hide-scrollbars",
          "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: A script the tests add to a page's copy: how far the page overflows the window sideways, and each run column's
#: box (the side-by-side layout), as attributes of <html> that --dump-dom shows.
MEASURE = ("<script>(function(){var r=document.documentElement;"
           "r.setAttribute('data-overflow',String(r.scrollWidth-r.clientWidth));"
           "r.setAttribute('data-columns',JSON.stringify([].map.call(document.querySelectorAll('.side > div'),"
           "function(d){var b=d.getBoundingClientRect();return [Math.round(b.left),Math.round(b.top),"
           "Math.round(b.bottom)];})));})();</script>")


def chromium() -> str:
    """The Chromium executable, or skip the test saying why."""
    found = next((shutil.which(name) for name in NAMES if shutil.which(name)), None)
    if found is None:
        pytest.skip("no Chromium on PATH (%s): the browser tests need Debian's chromium (`apt-get install "
                    "chromium`; .ci/run installs it when it runs as root)" % ", ".join(NAMES))
    return found


def _run(page: Path, profile: Path, flags: List[str], timeout: int = 120) -> str:
    done = subprocess.run([chromium(), *_QUIET, *OFFLINE, "--user-data-dir=%s" % profile, *flags, page.as_uri()],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dump_dom(page: Path, work: Path, width: int = 1280, height: int = 900, netlog: Optional[Path] = None) -> str:
    """The page's DOM after its scripts ran, in a `width` x `height` window with the network refused."""
    flags = ["--window-size=%d,%d" % (width, height), "--dump-dom"]
    if netlog is not None:
        flags.append("--log-net-log=%s" % netlog)
    return _run(page, work / "profile", flags)


def screenshot(page: Path, work: Path, png: Path, width: int, height: int) -> Tuple[int, int]:
    """Write a `width` x `height` screenshot of the page to `png`; return the PNG's size as its header says."""
    _run(page, work / "profile", ["--window-size=%d,%d" % (width, height), "--screenshot=%s" % png])
    return png_size(png)


def png_size(png: Path) -> Tuple[int, int]:
    """(width, height) from a PNG file's header."""
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])


def page_requests(netlog: Path) -> List[str]:
    """The URLs (other than file:) that pages opened from disk asked for, from Chromium's --log-net-log."""
    log = json.loads(netlog.read_text(encoding="utf-8"))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if event["type"] == start and "file://" in str(params.get("network_isolation_key", "")) \
                and not params.get("url", "").startswith("file:"):
            urls.append(params["url"])
    return urls


def root_attribute(dom: str, name: str) -> Optional[str]:
    """An attribute of the dumped page's <html> element, None when it has none."""
    head = dom[dom.index("<html"):dom.index(">", dom.index("<html"))]
    for key, value in ((k, v) for k, v in _attributes(head)):
        if key == name:
            return value
    return None


def _attributes(tag: str) -> List[Tuple[str, str]]:
    import re

    return re.findall(r'([\w-]+)="([^"]*)"', tag)


def with_measure(page: Path, copy: Path, strip_csp: bool = False) -> Path:
    """A copy of the page with MEASURE added (and its Content-Security-Policy taken out when `strip_csp`)."""
    import re

    from tfguard.runtime.output.html.page import script_hash

    html = page.read_text(encoding="utf-8")
    if strip_csp:
        html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    else:  # the page allows its own scripts by hash: allow the added one the same way
        html = html.replace("script-src ", "script-src %s " % script_hash(MEASURE[8:-9]), 1)
    copy.write_text(html.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    return copy
