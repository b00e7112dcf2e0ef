"""Headless Chromium for the console's tests (Debian's chromium and chromium-driver, installed by
tools/services.sh; Selenium pinned in the test extra): start it, sign in, read the page in one
script, wait, save screenshots (``MQLITE_SCREENSHOTS=dir``) and collect JavaScript errors."""
from __future__ import annotations

import os
import shutil
from typing import Any

import pytest

SHOTS = os.environ.get("MQLITE_SCREENSHOTS", "")          # a directory to leave screenshots in
WAIT = 30


def browser() -> Any:
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:          # (never skipped: `make services` installs them)
        pytest.fail("chromium and chromium-driver are missing: run tools/services.sh (make services)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def js(b: Any, script: str, *args: Any) -> Any:
    return b.execute_script(script, *args)


def click(b: Any, css: str) -> None:
    js(b, "document.querySelector(arguments[0]).click()", css)


def until(b: Any, fn: Any, what: str = "") -> Any:
    """Wait for ``fn(b)``; when it does not come, fail with what the page shows then."""
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        return WebDriverWait(b, WAIT, ignored_exceptions=(StaleElementReferenceException, WebDriverException)).until(fn)
    except TimeoutException:
        shown = js(b, "const t = (id) => { const e = document.getElementById(id); return e ? e.innerText : ''; };"
                      "return t('view').slice(-1500) + ' | notices: ' + t('notices') + ' | who: ' + t('who')"
                      " + ' | login: ' + t('login-error') + ' | ' + location.hash")
        raise AssertionError(f"waited {WAIT} s for {what or fn}; the page shows: {shown}") from None


def text(b: Any, css: str) -> str:
    return str(js(b, "const e = document.querySelector(arguments[0]); return e ? e.textContent : ''", css))


def has(b: Any, css: str) -> bool:
    return bool(js(b, "return !!document.querySelector(arguments[0])", css))


def log_in(b: Any, base: str, user: str = "admin", password: str = "passw0rd") -> None:
    from selenium.webdriver.common.by import By
    b.get(base + "/ibmmq/console/")
    until(b, lambda b: js(b, "return !document.getElementById('login').hidden"), "the login form")
    b.find_element(By.ID, "username").send_keys(user)
    field = b.find_element(By.ID, "password")
    field.send_keys(password)
    field.submit()                                              # (Enter in the form, as a keyboard user)
    until(b, lambda b: text(b, "#who").startswith(user + " ("), "signed in")


def go(b: Any, base: str, hash_: str, ready: str) -> None:
    """Open a console route and wait for an element of it."""
    url = base + "/ibmmq/console/" + hash_
    if b.current_url == url:
        b.refresh()                          # (the same address again: drawn afresh)
    else:
        b.get(url)
    until(b, lambda b: has(b, ready) and not js(b, "return document.getElementById('view').hasAttribute('aria-busy')"),
          f"{hash_}: {ready}")


def type_into(b: Any, css: str, value: str, clear: bool = True) -> None:
    from selenium.webdriver.common.by import By
    e = b.find_element(By.CSS_SELECTOR, css)
    if clear:
        e.clear()
    e.send_keys(value)


def js_errors(b: Any) -> list[str]:
    """The JavaScript errors the page logged (not the HTTP refusals the tests ask for on purpose)."""
    return [e["message"] for e in b.get_log("browser")
            if e["level"] == "SEVERE" and e.get("source") != "network"]


def shot(b: Any, name: str) -> None:
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        b.save_screenshot(os.path.join(SHOTS, name + ".png"))
