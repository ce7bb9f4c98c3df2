"""Screenshots of a built static site in headless Chromium, for the README and for looking.

    python -m integrator_lab.dev.screenshots SITE OUT NAME:WxH[:QUERY] ...

Each ``NAME:WxH[:QUERY]`` saves ``OUT/NAME.png``, the first screen at that window size
(a phone below 600 px wide: touch, mobile), after the page is live and has run 8 s; it prints
the page's ``status().layout``. The README's: ``screenshot:1440x900`` and
``screenshot-phone:390x844``.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
from pathlib import Path

from integrator_lab.dev.chromium import CHROMIUM_ARGS

RUN_MS = 8000  # the motion and the energy plots after 8 s: the lesson at a glance


def main(argv=None) -> int:
    from playwright.sync_api import sync_playwright

    from integrator_lab.site.build import make_server

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    site, out, shots = Path(args[0]), Path(args[1]), args[2:]
    out.mkdir(parents=True, exist_ok=True)
    server = make_server(site, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=shutil.which("chromium") or "chromium", args=CHROMIUM_ARGS
            )
            for shot in shots:
                name, size, *rest = shot.split(":", 2)
                width, height = (int(v) for v in size.split("x"))
                phone = width < 600
                context = browser.new_context(
                    viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
                )
                page = context.new_page()
                page.goto(url + (rest[0] if rest else ""), timeout=120_000)
                page.wait_for_function(
                    "window.integratorLab && window.integratorLab.status().ready",
                    timeout=120_000,
                )
                page.wait_for_timeout(RUN_MS)
                page.screenshot(path=str(out / f"{name}.png"), timeout=120_000)
                print(name, json.dumps(page.evaluate("window.integratorLab.status().layout")))
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
