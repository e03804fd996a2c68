"""The dashboard in a real browser: headless Chromium (Debian's chromium + chromium-driver)
driven by selenium against the app served on 127.0.0.1.

Without the browser the test is skipped, except under CI=true, where it fails: CI installs it
(.ci/run). Set WACKY_DASHBOARD_SCREENSHOT=docs/dashboard.png to also write the README's
screenshot of the page, taken after a validation.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.app import create_app

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
WAIT_S = 60  # generous: a busy 2-core CI machine; waits end as soon as the page is ready
SCREENSHOT_ENV = "WACKY_DASHBOARD_SCREENSHOT"
SIZES = ((1280, 800), (1600, 1000))  # a laptop and a desktop window

if not (BROWSER and DRIVER):
    reason = "headless Chromium and chromedriver are needed (apt-get install chromium " \
             "chromium-driver; .ci/run does it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but the browser is missing: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (  # noqa: E402
    ElementClickInterceptedException,
    StaleElementReferenceException,
)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """The real app (real engine validations) on a free port of 127.0.0.1."""
    yield from _serve(create_app())


def _serve(app) -> Iterator[str]:
    """``app`` on a free port of 127.0.0.1 for the module's tests."""
    werkzeug_log = logging.getLogger("werkzeug")
    level = werkzeug_log.level
    werkzeug_log.setLevel(logging.ERROR)  # one access-log line per callback otherwise
    server = make_server("127.0.0.1", 0, app.server, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        thread.join(10)
        werkzeug_log.setLevel(level)


@pytest.fixture(scope="module")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module", params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def browser(request, downloads) -> Iterator[webdriver.Chrome]:
    width, height = request.param
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_window_size(width, height)
    try:
        yield driver
    finally:
        driver.quit()


def wait_until(driver, condition, what: str, seconds: float = WAIT_S):
    # Dash re-renders components under the test's feet: a stale element means "look again".
    return WebDriverWait(driver, seconds, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: condition(d), message=f"timed out waiting for {what}")


def text(driver, element_id: str) -> str:
    for _ in range(10):
        try:
            found = driver.find_elements(By.ID, element_id)
            return found[0].text if found else ""
        except StaleElementReferenceException:
            continue  # replaced between finding and reading it; find the new one
    raise AssertionError(f"#{element_id} kept being replaced")


def wait_text(driver, element_id: str, predicate, what: str, seconds: float = WAIT_S) -> str:
    return wait_until(driver, lambda d: (t := text(d, element_id)) and predicate(t) and t, what,
                      seconds)


def type_into(driver, element_id: str, value: str) -> None:
    """Replace a number field's content as a person would, then press Enter (the fields are
    debounced: they report on Enter or on leaving them)."""
    field = driver.find_element(By.ID, element_id)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.BACKSPACE)
    field.send_keys(value + Keys.ENTER)


def knob_value(driver, name: str) -> float:
    """The knob's box (its slider, in log10 for T and C, drives the box)."""
    return float(driver.find_element(By.ID, f"knob-{name}").get_attribute("value"))


def type_into_knob(driver, name: str, value: str) -> None:
    """The knob's box; Enter applies it."""
    type_into(driver, f"knob-{name}", value)


def recommendation(driver) -> tuple[str, str, str]:
    return text(driver, "card-family"), text(driver, "card-knobs"), text(driver, "card-theta")


def message(driver) -> str:
    return text(driver, "message")


def expect_message(driver, fragment: str) -> None:
    wait_until(driver, lambda d: fragment in message(d), f"the inline message {fragment!r}")
    assert driver.find_element(By.ID, "message").is_displayed()


def expect_no_message(driver) -> None:
    wait_until(driver, lambda d: message(d) == "", "the inline message to go")


def test_tune_validate_and_recover_from_bad_values(url, browser, screenshots):
    d = browser
    d.get(url)

    # The page loads with the default workload's recommendation and every view drawn.
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the first recommendation")
    first = recommendation(d)
    for graph in ("structure", "theta-vs-t", "memory-frontier", "range-frontier"):
        wait_until(d, lambda d, g=graph: d.find_elements(By.CSS_SELECTOR, f"#{g} .main-svg"),
                   f"the {graph} figure")
    assert len(d.find_elements(By.CSS_SELECTOR, "#levels tbody tr")) >= 3  # header + levels
    assert "write 60%" in text(d, "mix")

    # A read-heavy workload: the recommendation changes, and the mix is shown normalized.
    type_into(d, "writes", "5")
    type_into(d, "zero-reads", "85")
    wait_text(d, "mix", lambda t: "zero-result 77%" in t, "the normalized mix")
    wait_until(d, lambda d: recommendation(d) != first and "zero 77%" in text(d, "card"),
               "a new recommendation")
    read_heavy = recommendation(d)
    assert read_heavy[1] != first[1]  # other knobs

    # Bad values get an inline message; the last valid views stay; fixing them clears it.
    for field, bad, fragment in (
        ("entries", "", "Entries N: the field is empty"),
        ("entries", "0", "Entries N: must be between 1 and 2^53; got 0"),
        ("buffer-mib", "1000000", "make it smaller than the data"),
    ):
        type_into(d, field, bad)
        expect_message(d, fragment)
        assert recommendation(d) == read_heavy
        type_into(d, field, {"entries": "2^31", "buffer-mib": "8"}[field])
        expect_no_message(d)
    for field in ("point-reads", "zero-reads", "writes"):
        type_into(d, field, "0")
    expect_message(d, "every operation weight is 0")
    type_into(d, "writes", "60")
    type_into(d, "zero-reads", "20")
    type_into(d, "point-reads", "20")
    expect_no_message(d)
    wait_until(d, lambda d: recommendation(d) == first, "the first recommendation again")

    # Validate the recommendation on the engine: under the default cap on runs per level the
    # default pick fits the validation's default (small) tree.
    d.find_element(By.ID, "validate-button").click()
    wait_until(d, lambda d: "Validated in" in text(d, "validation-status")
               or "failed" in text(d, "validation-status"), "the validation to finish")
    status = text(d, "validation-status")
    assert "Validated in" in status and "100,000 entries" in status, status
    assert "Traceback" not in status
    assert d.find_element(By.ID, "validate-button").is_enabled()
    # A bigger run's tree has room for it: the size chosen reaches the engine.
    choose_validation_size(d, "medium")
    d.find_element(By.ID, "validate-button").click()
    wait_text(d, "validation-status", lambda t: "at 500,000 entries" in t, "the medium run")
    assert "Validated in" in text(d, "validation-status"), text(d, "validation-status")
    assert "500,000 entries" in text(d, "validation-explained")
    choose_validation_size(d, "small")

    # Manual mode starts from the design shown; moving a knob moves the cost.
    d.find_element(By.CSS_SELECTOR, "#mode input[value='manual']").click()
    wait_until(d, lambda d: d.find_element(By.ID, "manual-controls").is_displayed(),
               "the manual controls")
    wait_text(d, "card", lambda t: "Manual design" in t, "the manual card")
    # The recommended bush can hold thousands of runs in Level 1, so a larger T would not be
    # physical: make it a plain tiered design (X = 1) first.
    type_into_knob(d, "X", "1")
    wait_text(d, "card-knobs", lambda t: "X = 1," in t, "X = 1")
    before = recommendation(d)
    start_t = knob_value(d, "T")
    d.find_element(By.CSS_SELECTOR, "#knob-T-slider [role='slider']").send_keys(Keys.PAGE_UP)
    wait_until(d, lambda d: knob_value(d, "T") > start_t, "the T slider to move")
    wait_until(d, lambda d: recommendation(d)[2] != before[2], "a new cost for the new T")
    assert f"T = {knob_value(d, 'T'):.4g}," in text(d, "card-knobs")

    # Enter in a knob box applies it and moves the log slider; a value out of the slider's
    # range is reported inline under the field's label, not clamped.
    type_into_knob(d, "T", "20")
    wait_text(d, "card-knobs", lambda t: "T = 20," in t, "T = 20 from its box")
    thumb = d.find_element(By.CSS_SELECTOR, "#knob-T-slider [role='slider']")
    wait_until(d, lambda d: abs(float(thumb.get_attribute("aria-valuenow")) - 1.301) < 0.01,
               "the T slider at log10(20)")
    type_into_knob(d, "T", "1000")
    expect_message(d, "T: base ratio: must be between 2 and 512; got 1000")
    assert knob_value(d, "T") == 1000
    type_into_knob(d, "T", "20")
    expect_no_message(d)

    # A Figure 8 preset sets every knob.
    d.find_element(By.XPATH, "//button[normalize-space()='tiering']").click()
    wait_text(d, "card-family", lambda t: t == "Tiering", "the Tiering preset")
    assert "T = 10, C = 9, X = 1, K = 1, Z = 1" in text(d, "card-knobs")

    # Validate it on the engine: progress, then predicted vs measured.
    d.find_element(By.ID, "validate-button").click()
    wait_until(d, lambda d: "at 100,000 entries" in text(d, "validation-status"),
               "the validation to finish")
    assert "Validated in" in text(d, "validation-status"), text(d, "validation-status")
    assert d.find_element(By.ID, "validation-progress").get_attribute("value") == "1"
    rows = d.find_elements(By.CSS_SELECTOR, "#validation-table tbody tr")
    assert len(rows) >= 6
    assert "write amplification" in text(d, "validation-table")
    wait_until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#validation-figure .main-svg"),
               "the validation figure")
    assert d.find_element(By.ID, "validate-button").is_enabled()
    # The results are brought into view, and are not stale yet.
    wait_until(d, lambda d: d.execute_script(
        "var r = document.getElementById('validation-panel').getBoundingClientRect();"
        "return r.top > -5 && r.top < window.innerHeight / 2;"), "the results scrolled into view")
    assert text(d, "validation-stale") == ""

    save_full_page(d, screenshots / f"validated-{window(d)}.png")
    if os.environ.get(SCREENSHOT_ENV) and window(d) == "1600x1000":
        save_full_page(d, Path(os.environ[SCREENSHOT_ENV]))

    # An emptied knob is reported inline too, and refilling it clears the message.
    type_into_knob(d, "K", "")
    expect_message(d, "K: greediness, levels 1..L-1: the field is empty")
    type_into_knob(d, "K", "0")
    expect_no_message(d)
    wait_text(d, "card-family", lambda t: t == "Wacky", "K = 0 with Z = 1")
    # The validation shown was of Tiering: it is now marked stale.
    wait_text(d, "validation-stale", lambda t: t.startswith("Stale:"), "the stale marker")


def choose_validation_size(driver, name: str) -> None:
    """Pick the validation's run size whose label starts with ``name`` in its dropdown."""
    # The results above the dropdown re-render and move it, and the open list (a popover
    # placed where the dropdown was) can be left off-screen: wait for the page to settle,
    # bring the dropdown into view, and reopen the list if the click still misses.
    option = f"//*[@role='option'][starts-with(normalize-space(), '{name}:')]"
    for attempt in range(5):
        wait_for_stable_layout(driver)
        scale = driver.find_element(By.ID, "validation-scale")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", scale)
        scale.click()
        wait_until(driver, lambda d: d.find_elements(By.XPATH, option), f"the {name} option")
        choice = driver.find_element(By.XPATH, option)
        driver.execute_script("arguments[0].scrollIntoView({block: 'nearest'})", choice)
        try:
            choice.click()
            break
        except (ElementClickInterceptedException, StaleElementReferenceException):
            if attempt == 4:
                raise
            ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    wait_text(driver, "validation-scale", lambda t: t.startswith(f"{name}:"),
              f"the {name} size chosen")


def choose(driver, menu_id: str, label: str) -> None:
    """Pick the choice ``label`` in the menu ``menu_id`` (a dropdown of the controls)."""
    (menu,) = wait_until(driver, lambda d: d.find_elements(By.ID, menu_id), f"the {menu_id} menu")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", menu)
    menu.click()
    option = f"//*[@role='option'][normalize-space()=\"{label}\"]"
    wait_until(driver, lambda d: d.find_elements(By.XPATH, option), f"the {label} choice")
    driver.find_element(By.XPATH, option).click()
    wait_text(driver, menu_id, lambda t: t.startswith(label), f"{label} chosen")


def wait_for_stable_layout(driver, polls: int = 3) -> None:
    """Wait until the page's height is the same over ``polls`` checks 0.2 s apart."""
    seen: list[int] = []

    def stable(d) -> bool:
        seen.append(d.execute_script("return document.body.scrollHeight"))
        return len(seen) >= polls and len(set(seen[-polls:])) == 1

    wait_until(driver, lambda d: (time.sleep(0.2), stable(d))[1], "the page to settle")


def window(driver) -> str:
    size = driver.get_window_size()
    return f"{size['width']}x{size['height']}"


def save_full_page(driver, path: Path) -> None:
    """A screenshot of the whole page: the window grown to the page's height."""
    size = driver.get_window_size()
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(size["width"], height + 120)
    driver.execute_script("window.scrollTo(0, 0)")  # the results scrolled the page down
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    driver.set_window_size(size["width"], size["height"])


def field_value(driver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).get_attribute("value")


def test_a_url_restores_the_state_and_edits_update_the_url(url, browser, downloads,
                                                           screenshots):
    d = browser
    d.get(url + "?point-reads=10&zero-reads=30&writes=50&range-reads=10&range-blocks=4"
           "&entries=1000000000&bits-per-entry=8&mode=manual&T=6&C=5&X=1&K=1&Z=0"
           "&filters=uniform")
    wait_text(d, "card-knobs", lambda t: "T = 6, C = 5, X = 1, K = 1, Z = 0" in t,
              "the design from the URL")
    assert "uniform filters" in text(d, "card-knobs")
    assert "Manual design" in text(d, "card")
    assert "range 10% × 4 blocks" in text(d, "card")
    assert field_value(d, "entries") == "1,000,000,000"
    assert field_value(d, "bits-per-entry") == "8"
    assert d.find_element(By.ID, "manual-controls").is_displayed()
    assert knob_value(d, "T") == 6
    # An edit goes into the URL, so the address bar always links to what is shown.
    type_into(d, "writes", "70")
    wait_until(d, lambda d: "writes=70" in d.current_url, "the URL to follow the edit")
    assert "T=6" in d.current_url and "mode=manual" in d.current_url
    # Nothing is cut off at this window size: the alternatives table fits its panel.
    wait_until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#alternatives tbody tr"),
               "the alternatives table")
    fits = d.execute_script(
        "var t = document.querySelector('#alternatives table');"
        "return t.getBoundingClientRect().right <= window.innerWidth;")
    assert fits, f"the alternatives table is cut off at {window(d)}"
    d.save_screenshot(str(screenshots / f"from-url-{window(d)}.png"))

    # The RocksDB panel shows the export of the design shown, and its buttons download it.
    wait_text(d, "rocksdb-options", lambda t: "write_buffer_size=" in t, "the RocksDB options")
    assert text(d, "rocksdb-grade")
    d.find_element(By.ID, "rocksdb-options-button").click()
    d.find_element(By.ID, "rocksdb-json-button").click()
    options_file, json_file = downloads / "OPTIONS-wacky.ini", downloads / "wacky-rocksdb.json"
    wait_until(d, lambda d: options_file.exists() and json_file.exists(), "the downloads")
    assert "[DBOptions]" in options_file.read_text()
    assert '"grade"' in json_file.read_text()

    # A design with more than 36 runs in a level carries the guardrail's warning on its card.
    d.get(url + "?mode=manual&T=100&C=99&X=1&K=1&Z=0")
    wait_text(d, "card-warnings", lambda t: "RocksDB stops writes at 36" in t,
              "the guardrail warning")
    # ... and, far from the best design, it stays inside the Θ-against-T chart's axis.
    theta = float(text(d, "card-theta"))
    y_range = wait_until(d, lambda d: d.execute_script(
        "var p = document.querySelector('#theta-vs-t .js-plotly-plot');"
        "return p && p._fullLayout && p._fullLayout.yaxis && p._fullLayout.yaxis.range;"),
        "the Θ-against-T chart")
    assert 10 ** y_range[0] < theta < 10 ** y_range[1], (theta, y_range)


def test_skew_a_cache_a_memory_budget_and_help_on_every_label(url, browser, screenshots):
    d = browser
    d.get(url)
    # The first paint already has the recommendation (it is in the page, not a first callback).
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the first recommendation")
    # Every label explains itself on hover.
    labels = d.find_elements(By.CSS_SELECTOR, "label[for]")
    assert len(labels) >= 20 and all(len(x.get_attribute("title")) > 20 for x in labels)
    # Key skew and a cache: the card's Θ becomes the skew model's, with the cache's hit rate.
    d.find_element(By.XPATH, "//summary[contains(., 'Key skew')]").click()
    type_into(d, "write-keys", "zipf:0.9")
    type_into(d, "read-keys", "zipf:0.9")
    type_into(d, "cache-mib", "4096")
    wait_text(d, "card", lambda t: "under the key skew (skew model)" in t and "cache hit rate"
              in t, "the skew model's card")
    d.save_screenshot(str(screenshots / f"skew-{window(d)}.png"))
    # A total memory budget: the search splits it, and the card says how.
    type_into(d, "write-keys", "uniform")
    type_into(d, "read-keys", "uniform")
    type_into(d, "cache-mib", "0")
    d.find_element(By.ID, "memory-split").find_element(By.TAG_NAME, "input").click()
    wait_until(d, lambda d: d.find_element(By.ID, "memory-bits").is_enabled(),
               "the total memory field to be enabled")
    type_into(d, "memory-bits", "12")
    # Five searches queue behind one another here (three fields back to uniform, the split at
    # the page's memory, then at 12 bits), 31.5 s on a quiet machine: twice the usual wait.
    wait_text(d, "card", lambda t: "Memory, split by the search: buffer" in t
              and "= 12 bits/entry" in t, "the memory split on the card", 2 * WAIT_S)
    wait_until(d, lambda d: "memory-split=1" in d.current_url and "memory-bits=12"
               in d.current_url, "the split in the URL")
    # Robust tuning cannot go with skew: the field is named inline.
    type_into(d, "robust-rho", "0.5")
    wait_text(d, "card", lambda t: "Robust tuning for ρ = 0.5" in t, "the robust card")
    type_into(d, "write-keys", "zipf:0.9")
    expect_message(d, "Uncertainty ρ (robust tuning): robust tuning is not combined with key")

    # Target = Stock RocksDB: the card lists the RocksDB options it priced, and validating it
    # gives the command that runs it on stock RocksDB (the native engine cannot build it).
    d.get(url)
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the first recommendation")
    choose(d, "target", "Stock RocksDB")
    options = wait_text(d, "card-rocksdb-options", lambda t: "max_bytes_for_level_multiplier"
                        in t, "the RocksDB options on the card")
    for name in ("level0_file_num_compaction_trigger", "target_file_size_base",
                 "max_bytes_for_level_base", "write_buffer_size", "bits per key"):
        assert name in options
    assert "Recommended stock RocksDB configuration" in text(d, "card")
    assert "target=rocksdb" in d.current_url
    d.find_element(By.ID, "validate-button").click()
    wait_text(d, "validation-status", lambda t: "wacky validate --engine rocksdb --stock" in t,
              "the command for stock RocksDB")


def test_the_first_paint_has_the_views_without_waiting_for_a_callback(url, browser,
                                                                     monkeypatch):
    """The default views come in the page itself; a link with state computes them once."""
    from dashboard import callbacks

    calls = []
    compute = callbacks.update_views
    monkeypatch.setattr(callbacks, "update_views",
                        lambda *a, **k: calls.append(1) or compute(*a, **k))
    d = browser
    d.get(url)
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the recommendation in the page")
    time.sleep(1.5)  # time for any callback the load would fire
    assert calls == []
    d.get(url + "?writes=30")
    wait_text(d, "mix", lambda t: "write 43%" in t, "the linked mix")
    assert len(calls) >= 1


# ------------------------------------------------------------------ issue 31: usable as it comes


@pytest.fixture(scope="module")
def fake_url() -> Iterator[str]:
    """The app with a made-up validation (tests/dashboard_helpers.py): the views are the real
    ones, a validation's table appears at once."""
    from dashboard_helpers import fake_runner

    yield from _serve(create_app(runner=fake_runner))


def no_horizontal_scroll(driver) -> bool:
    return driver.execute_script(
        "return document.body.scrollWidth <= window.innerWidth"
        " && document.documentElement.scrollWidth <= document.documentElement.clientWidth;")


def test_the_stock_rocksdb_mode_end_to_end(fake_url, browser, downloads):
    """A workload, Target = Stock RocksDB: the pick of `wacky recommend --target rocksdb`, its
    gain over RocksDB's defaults, and its OPTIONS file downloaded."""
    from wacky_model.rocksdb_tuning import recommend_rocksdb
    from wacky_model.types import System, Workload

    d = browser
    d.get(fake_url)
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the first recommendation")
    type_into(d, "writes", "30")
    type_into(d, "point-reads", "50")
    wait_text(d, "mix", lambda t: "write 30%" in t, "the new mix")
    choose(d, "target", "Stock RocksDB")
    report = recommend_rocksdb(Workload(0.5, 0.2, 0.3, 0.0), System(bits_per_entry=5.0))
    c = report.best.config
    wait_text(d, "card-rocksdb-gain", lambda t: "fewer I/O per operation" in t,
              "the gain over RocksDB's defaults on the card")
    assert float(text(d, "card-theta")) == pytest.approx(report.best.theta, rel=1e-3)
    options = text(d, "card-rocksdb-options")
    assert f"max_bytes_for_level_multiplier {c.multiplier:g}" in options
    assert f"level0_file_num_compaction_trigger {c.level0_trigger}" in options
    assert f"Θ {report.default.theta:.4g}" in text(d, "card-rocksdb-gain")
    comparison = text(d, "rocksdb-comparison")
    assert "RocksDB's defaults" in comparison and f"{report.default.theta:.4g}" in comparison
    gain = report.to_dict()["gain_over_defaults"]
    assert f"{gain:.1%} fewer I/O per operation" in text(d, "rocksdb-gain")
    assert len(d.find_elements(By.CSS_SELECTOR, "#rocksdb-reasons li")) == len(report.reasons)
    # The OPTIONS download is the file `wacky recommend --target rocksdb --out` writes.
    for old in downloads.glob("OPTIONS-wacky*.ini"):
        old.unlink()
    button = d.find_element(By.ID, "rocksdb-options-button")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    options_file = downloads / "OPTIONS-wacky.ini"
    expected = report.export.options_file() + "\n"
    wait_until(d, lambda d: options_file.exists() and options_file.read_text() == expected,
               "the OPTIONS file downloaded")
    assert f"max_bytes_for_level_multiplier={c.multiplier:g}" in options_file.read_text()
    # The wide comparison fits the window too.
    assert no_horizontal_scroll(d), f"the page scrolls sideways at {window(d)}"


def test_the_memory_split_disables_the_fields_it_overrides(fake_url, browser):
    d = browser
    d.get(fake_url)
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the first recommendation")
    enabled = lambda d, i: d.find_element(By.ID, i).is_enabled()  # noqa: E731
    assert enabled(d, "buffer-mib") and enabled(d, "bits-per-entry")
    assert not enabled(d, "memory-bits")  # nothing to split yet
    assert "the buffer holds 65,536 entries" in text(d, "system-summary")
    d.find_element(By.ID, "memory-split").find_element(By.TAG_NAME, "input").click()
    wait_until(d, lambda d: not enabled(d, "buffer-mib") and not enabled(d, "bits-per-entry")
               and enabled(d, "memory-bits"), "the split to disable the buffer and filters")
    type_into(d, "memory-bits", "12")
    summary = wait_text(d, "system-summary", lambda t: "the search chose the buffer" in t
                        and "12 bits/entry" in t, "the split's buffer in the summary")
    assert "65,536 entries" not in summary
    wait_text(d, "card", lambda t: "Memory, split by the search: buffer" in t,
              "the split on the card")
    # A manual design keeps the buffer given: only the filter field stays disabled.
    d.find_element(By.CSS_SELECTOR, "#mode input[value='manual']").click()
    wait_until(d, lambda d: enabled(d, "buffer-mib") and not enabled(d, "bits-per-entry"),
               "the buffer field back for a manual design")
    wait_text(d, "system-summary", lambda t: "you gave the buffer" in t
              and "65,536 entries" in t, "the manual design's buffer in the summary")
    # Unticked, the split gives the fields back, and its total is disabled.
    d.find_element(By.CSS_SELECTOR, "#mode input[value='recommend']").click()
    d.find_element(By.ID, "memory-split").find_element(By.TAG_NAME, "input").click()
    wait_until(d, lambda d: enabled(d, "buffer-mib") and enabled(d, "bits-per-entry")
               and not enabled(d, "memory-bits"), "the fields back without the split")
    # A number beyond a double is out of range, typed or from a link (it was "empty").
    type_into(d, "entries", "9" * 500)
    expect_message(d, "Entries N: must be between 1 and 2^53; got a 500-digit number")
    wait_until(d, lambda d: "entries=" + "9" * 500 in d.current_url, "the URL to keep it")
    d.get(d.current_url)
    expect_message(d, "Entries N: must be between 1 and 2^53; got a 500-digit number")


def test_a_second_device_places_the_levels_and_bad_values_name_the_fields(fake_url, browser):
    """The folded probes, paged metadata and devices fields work in the page: a second device
    gives the pick's placement on the card and in the URL; a bad value and a refused pair are
    named as the page labels them."""
    d = browser
    d.get(fake_url)
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the first recommendation")
    summary = d.find_element(By.XPATH, "//summary[contains(., 'Probes, paged metadata')]")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
    summary.click()
    type_into(d, "entries", "1e8")
    type_into(d, "own-device-gib", "1")
    type_into(d, "device2-write", "10")
    expect_message(d, "Second device: read cost (block reads): the field is empty")
    type_into(d, "device2-read", "10")
    wait_text(d, "card", lambda t: "Placement: levels 0-1 on own, level 2 and below on second"
              in t, "the placement on the card")
    wait_until(d, lambda d: "device2-read=10" in d.current_url, "the device in the URL")
    type_into(d, "probe-cost", "2")
    expect_message(d, "Probe cost (block reads): must be between 0 and 1; got 2")
    type_into(d, "probe-cost", "0")
    d.find_element(By.ID, "paged-metadata").find_element(By.TAG_NAME, "input").click()
    expect_message(d, "paged filters and indexes (“filters and indexes paged through the "
                      "cache” ticked)")


def test_the_page_fits_the_window_with_a_validation_shown(fake_url, browser, screenshots):
    """At 1280x800 (and 1600x1000) nothing scrolls sideways, the validation table included:
    it wraps its headers, and would scroll inside its card rather than the page."""
    d = browser
    d.get(fake_url)
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the first recommendation")
    d.find_element(By.ID, "validate-button").click()
    wait_until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#validation-table tbody tr"),
               "the validation table")
    wait_for_stable_layout(d)
    table = d.find_element(By.CSS_SELECTOR, "#validation-table table")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", table)
    d.save_screenshot(str(screenshots / f"validation-{window(d)}.png"))
    save_full_page(d, screenshots / f"fits-{window(d)}.png")
    assert no_horizontal_scroll(d), f"the page scrolls sideways at {window(d)}"
    panel = d.find_element(By.ID, "validation-panel").rect
    assert table.rect["x"] + table.rect["width"] <= panel["x"] + panel["width"] + 1, \
        f"the validation table is cut off at {window(d)}"


def test_an_uploaded_profile_gives_the_sustainable_rate_on_the_card(fake_url, browser,
                                                                    tmp_path):
    """Upload a machine profile, choose stock RocksDB: the card shows T2's sustainable rate;
    the write rate field appears, and a rate on it gives T3's verdict."""
    from wacky_model.devices import DeviceProfile, write_profile

    profile = tmp_path / "machine.json"
    write_profile(DeviceProfile("browser-machine", 500.0, 500.0, 10_000.0, 100.0,
                                rocksdb_ns_per_put=1500.0, rocksdb_ns_per_compaction_byte=2.0,
                                rocksdb_ns_per_flush_byte=5.0, cores=2), profile)
    d = browser
    d.get(fake_url)
    wait_text(d, "card-theta", lambda t: float(t) > 0, "the first recommendation")
    # dcc.Upload loads its code after the page: wait for its file input.
    (upload,) = wait_until(d, lambda d: d.find_elements(
        By.CSS_SELECTOR, "#profile-upload input[type=file]"), "the profile upload")
    upload.send_keys(str(profile))
    wait_text(d, "profile-status", lambda t: "browser-machine" in t, "the profile read")
    choose(d, "target", "Stock RocksDB")
    wait_text(d, "card", lambda t: "Recommended: sustains" in t and "browser-machine" in t,
              "the sustainable rate on the card")
    wait_until(d, lambda d: d.find_element(By.ID, "write-rate").is_displayed(),
               "the write rate field")
    type_into(d, "write-rate", "50000")
    wait_text(d, "card", lambda t: "at 50,000/s no stall predicted" in t, "T3's verdict")
