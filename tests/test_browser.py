"""The HTML report in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, which ``.ci/run`` installs when absent) driven by selenium loads the page
of ``plrv report`` and of ``plrv audit --html``; the JavaScript console must show no error
(a fetch the page's Content-Security-Policy blocks is one), and a screenshot must not be one
colour.

Without Chromium the tests are skipped, saying why — except in CI (``CI=true``), where they
fail: the browser is part of what CI installs.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = ("chromium", "chromedriver")
runner = CliRunner()


def _missing() -> str | None:
    """Why the browser cannot run here, or None."""
    absent = [name for name in CHROMIUM if shutil.which(name) is None]
    if absent:
        return f"{' and '.join(absent)} not installed (apt-get install chromium chromium-driver)"
    for module in ("selenium", "PIL", "matplotlib"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} not installed (pip install -e '.[test,plot]')"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    why = _missing()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI runs the browser tests: {why}")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1100,1600"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(shutil.which("chromedriver"))),
                              options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _load(driver, page: Path) -> tuple[list[dict], bytes]:
    """The console errors of loading ``page`` and a screenshot (PNG)."""
    driver.get_log("browser")  # what an earlier page left
    driver.get(page.as_uri())
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    return errors, driver.get_screenshot_as_png()


def _colours(png: bytes) -> int:
    """The distinct colours of a screenshot (1: a blank page)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return len(image.getcolors(maxcolors=1 << 24) or ())


def test_the_counter_sees_errors(browser, tmp_path):
    # a page that logs an error and whose CSP blocks an image: both are counted, so a count
    # of 0 below means the report had none
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                    "content=\"default-src 'none'; script-src 'unsafe-inline'\"></head><body>"
                    "<img src=\"https://example.invalid/x.png\"><script>console.error('x')"
                    "</script></body></html>")
    errors, _ = _load(browser, page)
    assert len(errors) == 2, errors


def test_report_page_in_chromium(browser, tmp_path):
    out = tmp_path / "report.html"
    run = runner.invoke(app, ["report", str(ROOT / "examples" / "randomized_response.toml"),
                              "-o", str(out)])
    assert run.exit_code == 0, run.stderr
    errors, png = _load(browser, out)
    assert errors == []
    assert _colours(png) > 16  # text, tables, two drawn figures: far more than one colour
    assert browser.find_element("css selector", "h2").text.endswith(": holds")
    assert len(browser.find_elements("css selector", "svg")) == 2
    # the figures carry no namespace declarations: the HTML parser puts them in SVG's
    # namespace and reads xlink:href, so every glyph a <use> draws (a space has no outline)
    # has an extent
    drawn = browser.execute_script(
        "const svgs = [...document.querySelectorAll('svg')];"
        "const glyphs = [...document.querySelectorAll('svg use')].filter(u => {"
        "  const ref = u.getAttribute('xlink:href') || '';"
        "  const target = ref.startsWith('#DejaVu') && document.getElementById(ref.slice(1));"
        "  return target && (target.getAttribute('d') || '').trim() !== ''; });"
        "return [svgs.every(s => s.namespaceURI === 'http://www.w3.org/2000/svg'),"
        "  glyphs.length, glyphs.filter(u => u.getBBox().width > 0).length];")
    assert drawn[0] is True and drawn[1] > 20 and drawn[2] == drawn[1], drawn


def test_audit_page_in_chromium(browser, tmp_path):
    pytest.importorskip("opendp")
    config = tmp_path / "a.toml"
    config.write_text('[[case]]\nlibrary = "opendp"\nconstructor = '
                      '"make_randomized_response_bool"\nargs = { prob = { f64 = "0.75" } }\n'
                      'd_in = 1\n')
    out = tmp_path / "audit.html"
    run = runner.invoke(app, ["audit", str(config), "--html", str(out)])
    assert run.exit_code == 0, run.stderr
    errors, png = _load(browser, out)
    assert errors == [] and _colours(png) > 4
    assert browser.find_element("css selector", "h2").text.endswith(": sound")
