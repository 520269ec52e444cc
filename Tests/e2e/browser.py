"""Debian's chromium, headless, driven by Selenium through Debian's chromium-driver (never Selenium Manager, which
would reach the internet). `open_browser` gives a driver whose console is checked for errors at the end."""
import os
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ROOT = Path(__file__).resolve().parents[2]
# Where screenshots go: the README's come from here (`QBTD_SCREENSHOTS=docs/screenshots make test` refreshes them).
SCREENSHOTS = Path(os.environ.get("QBTD_SCREENSHOTS", "/tmp/qbtd-screenshots"))
DESKTOP = (1366, 860)
PHONE = (390, 844)


def open_browser(size=DESKTOP):
    os.environ["SE_OFFLINE"] = "true"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--mute-audio",
                "--autoplay-policy=no-user-gesture-required", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions", "--force-prefers-reduced-motion",
                f"--window-size={size[0]},{size[1]}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    if size[0] < 500:  # headless chromium keeps windows at least 500 px wide: emulate the phone's viewport
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": True})
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(60)
    return driver


def console_errors(driver, allowed=()):
    """SEVERE console entries (uncaught errors, failed loads), minus those matching any of `allowed`."""
    return [e for e in driver.get_log("browser")
            if e["level"] == "SEVERE" and not any(a in e["message"] for a in allowed)]


def wait(driver, condition, timeout=20):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition)


def visible(driver, css, timeout=20):
    return wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, css)), timeout)


def clickable(driver, css, timeout=20):
    return wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, css)), timeout)


def login(driver, server, username="admin"):
    """Opens qbtd's page and logs in with the WebUI credentials; returns when the torrent list shows."""
    driver.get(server.base + "/")
    visible(driver, "#login-username").send_keys(server.username or username)
    driver.find_element(By.CSS_SELECTOR, "#login-password").send_keys(server.password)
    driver.find_element(By.CSS_SELECTOR, "#login-submit").click()
    visible(driver, "#app")


def go(driver, view):
    """Switches to a section (`torrents`, `search`, `rss`, `music`, `uploads`, `transfer`, `settings`)."""
    driver.execute_script("location.hash = arguments[0]", f"#/{view}")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#view").get_attribute("data-view") == view)


def screenshot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    time.sleep(0.3)  # let the last frame paint
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
