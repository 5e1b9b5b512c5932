"""Build, check and serve the documentation site (``docs/``).

    python tools/docs.py build      # Sphinx, warnings as errors, notebooks executed; docs/_build/html
    python tools/docs.py links      # every internal link and anchor of the built site resolves
    python tools/docs.py browser    # headless Chromium: pages load, search works, no console error
    python tools/docs.py serve      # build, then serve the site on http://127.0.0.1:8000

``build`` writes Sphinx's warnings to ``docs/_build/warnings.txt`` (empty when the build is
clean); ``browser`` saves screenshots under ``docs/_build/screenshots``. tests/python/project/test_docs.py runs
the same functions.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html.parser
import http.server
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILD = DOCS / "_build"
HTML = BUILD / "html"
WARNINGS = BUILD / "warnings.txt"
SCREENSHOTS = BUILD / "screenshots"

#: The pages the browser check opens: the home page, one API page and one gallery page.
BROWSER_PAGES = {"home": "index.html", "api": "api/pvwatts.html", "gallery": "gallery/pv_engine.html"}
#: A query whose results must include the engine's reference page.
SEARCH_QUERY = "simulate_many"


def build(fresh: bool = True) -> int:
    """Build the site with warnings as errors and nitpicky cross-references; the exit code of Sphinx."""
    BUILD.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-q", "-b", "html",
               "-w", str(WARNINGS), str(DOCS), str(HTML)]
    if fresh:
        command.insert(3, "-E")
    return subprocess.run(command, cwd=ROOT).returncode


class _Links(html.parser.HTMLParser):
    """The ids a page defines and the internal links (href/src) it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name"):
            if values.get(key) and (key == "id" or tag == "a"):
                self.ids.add(str(values[key]))
        for key in ("href", "src"):
            target = values.get(key)
            if target and not urllib.parse.urlsplit(target).scheme and not target.startswith("//"):
                self.links.append(target)


@functools.cache
def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text("utf-8", errors="replace"))
    return parser


def broken_links(site: Path = HTML) -> list[str]:
    """Every internal link of the built site whose file or anchor does not exist, as ``page: link``."""
    _parse.cache_clear()
    broken = []
    pages = (page for page in sorted(site.rglob("*.html")) if "_static" not in page.relative_to(site).parts)
    for page in pages:  # the theme's templates under _static are not pages
        for link in _parse(page).links:
            parts = urllib.parse.urlsplit(link)
            path = urllib.parse.unquote(parts.path)
            target = page if not path else (page.parent / path).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or not target.resolve().is_relative_to(site.resolve()):
                broken.append(f"{page.relative_to(site)}: {link}")
            elif parts.fragment and target.suffix == ".html" and urllib.parse.unquote(parts.fragment) not in _parse(target).ids:
                broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return broken


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serving(site: Path, port: int = 0) -> Iterator[str]:
    """Serve ``site`` on 127.0.0.1 in a thread; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def chromium_paths() -> tuple[str, str] | None:
    """Debian's chromium and its driver, or None when either is missing (``apt-get install chromium chromium-driver``)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def browser_check(site: Path = HTML, shots: Path = SCREENSHOTS) -> list[str]:
    """Open the site in headless Chromium from a local HTTP server; the problems found (empty when
    all is well). Screenshots of each page and of the search results go to ``shots``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    paths = chromium_paths()
    if paths is None:
        return ["chromium or chromedriver is not installed (apt-get install chromium chromium-driver)"]
    options = webdriver.ChromeOptions()
    options.binary_location = paths[0]
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    shots.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    with serving(site) as base:
        driver = webdriver.Chrome(service=Service(executable_path=paths[1]), options=options)
        try:
            def console_errors(name: str) -> None:
                for entry in driver.get_log("browser"):
                    if entry.get("level") == "SEVERE":
                        problems.append(f"{name}: console error: {entry.get('message')}")

            for name, page in BROWSER_PAGES.items():
                driver.get(f"{base}/{page}")
                WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
                if not driver.find_elements(By.CSS_SELECTOR, "article h1"):
                    problems.append(f"{name}: {page} has no heading in its article")
                plots = driver.find_elements(By.CSS_SELECTOR, "article img")
                if name == "gallery":
                    if not plots:
                        problems.append(f"{name}: {page} shows no plot")
                    else:  # the screenshot shows the first plot
                        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", plots[0])
                        if not driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", plots[0]):
                            problems.append(f"{name}: {page}'s first plot did not load")
                time.sleep(0.5)
                driver.save_screenshot(str(shots / f"{name}.png"))
                console_errors(name)

            driver.get(f"{base}/search.html?q={SEARCH_QUERY}")
            try:
                WebDriverWait(driver, 30).until(
                    lambda d: d.find_elements(By.CSS_SELECTOR, "#search-results li a"))
            except Exception:
                problems.append(f"search: no results for {SEARCH_QUERY!r}")
            hits = [a.get_attribute("href") or "" for a in driver.find_elements(By.CSS_SELECTOR, "#search-results li a")]
            if hits and not any("api/pvwatts.html" in hit for hit in hits):
                problems.append(f"search: {SEARCH_QUERY!r} does not find api/pvwatts.html: {hits[:5]}")
            driver.save_screenshot(str(shots / "search.png"))
            console_errors("search")
        finally:
            driver.quit()
    return problems


def serve(port: int) -> int:
    """Build the site, then serve it until Ctrl-C."""
    code = build(fresh=False)
    if code:
        return code
    with serving(HTML, port) as base:
        print(f"sunflux documentation at {base}/index.html (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(0.5)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/docs.py", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build", "links", "browser", "serve"])
    parser.add_argument("--port", type=int, default=8000, help="port of 'serve' on 127.0.0.1")
    args = parser.parse_args(argv)
    if args.command == "build":
        return build()
    if args.command == "serve":
        return serve(args.port)
    problems = broken_links() if args.command == "links" else browser_check()
    print("\n".join(problems) or f"{args.command}: no problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
