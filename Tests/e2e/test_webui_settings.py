"""The web interface's Settings, Speed, Search and RSS sections in a real browser against a real qbtd: preferences
saved from the form and read back, the global limits and the alternative-speed switch, an API key made in the page
and used, a nova3 plugin installed and searched from the page, an RSS feed added from the page and a rule made."""
import time

import pytest
import requests
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import PHONE, clickable, console_errors, go, login, open_browser, screenshot, visible, wait
from conftest import wait_for
from rss_support import FeedServer, day, make_torrent, rss
from search_fixtures import Site, write_plugin


@pytest.fixture
def server(qbtd_factory):
    return qbtd_factory()


@pytest.fixture
def driver():
    d = open_browser()
    yield d
    d.quit()


def set_value(driver, css, value):
    field = visible(driver, css)
    field.clear()
    field.send_keys(value)
    return field


def phone(driver):
    """Headless Chromium keeps windows at least 500 px wide: emulate the phone's viewport itself."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})


def click_fresh(driver, css):
    """Clicks `css`, finding it again if the list it is in was drawn anew meanwhile."""
    def attempt(d):
        try:
            d.find_element(By.CSS_SELECTOR, css).click()
            return True
        except (StaleElementReferenceException, NoSuchElementException):
            return False
    wait(driver, attempt)


def no_console_errors(driver):
    errors = console_errors(driver)
    assert not errors, errors


def test_settings_form_saves_changed_preferences_and_api_keys(server, driver, tmp_path):
    s = server.session()
    before = s.get(server.url("app/preferences")).json()
    assert before["incomplete_files_ext"] is False
    login(driver, server)
    go(driver, "settings")
    target = tmp_path / "elsewhere"
    target.mkdir()
    set_value(driver, "#pref-save_path", str(target))
    clickable(driver, "#pref-incomplete_files_ext").click()
    # A number in another tab: typed, and sent as a number.
    clickable(driver, "#settings-tab-connection").click()
    set_value(driver, "#pref-max_connec", "321")
    assert driver.find_elements(By.CSS_SELECTOR, "#pref-current_network_interface option")
    screenshot(driver, "settings")
    clickable(driver, "#settings-save").click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#settings-status").text == "Saved")
    after = s.get(server.url("app/preferences")).json()
    assert after["save_path"] == str(target)
    assert after["incomplete_files_ext"] is True
    assert after["max_connec"] == 321
    assert after["dht"] == before["dht"]
    # Saving again with nothing changed sends nothing.
    clickable(driver, "#settings-save").click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#settings-status").text == "Nothing changed.")

    # API keys: a read-only key made in the page reads, and is refused a change.
    clickable(driver, "#settings-tab-apikeys").click()
    set_value(driver, "#apikey-name", "dashboard")
    Select(visible(driver, "#apikey-scope")).select_by_value("read-only")
    clickable(driver, "#apikey-create").click()
    key = visible(driver, "#apikey-value").get_attribute("value")
    assert key
    wait(driver, lambda d: "dashboard" in d.find_element(By.CSS_SELECTOR, "#apikey-list").text)
    bearer = {"Authorization": f"Bearer {key}"}
    assert requests.get(server.url("torrents/info"), headers=bearer, timeout=10).status_code == 200
    assert requests.post(server.url("torrents/pause"), data={"hashes": "all"}, headers=bearer, timeout=10).status_code == 403
    listed = s.get(server.url("qbtd/apiKeys")).json()
    assert [(k["name"], k["scope"]) for k in listed] == [("dashboard", "read-only")]
    no_console_errors(driver)


def test_settings_at_phone_width(server):
    d = open_browser(PHONE)
    try:
        phone(d)
        login(d, server)
        go(d, "settings")
        visible(d, "#pref-save_path")
        assert d.execute_script("return innerWidth") == PHONE[0]
        width = d.execute_script("return document.documentElement.scrollWidth")
        assert width <= PHONE[0], width
        screenshot(d, "settings-phone")
        no_console_errors(d)
    finally:
        d.quit()


def test_speed_limits_graph_and_alternative_mode(server, driver):
    s = server.session()
    login(driver, server)
    go(driver, "transfer")
    visible(driver, "#speed-graph")
    set_value(driver, "#speed-dl-limit", "300")
    set_value(driver, "#speed-up-limit", "0")
    clickable(driver, "#speed-limits-apply").click()
    wait_for(lambda: s.get(server.url("transfer/downloadLimit")).text == str(300 * 1024), 10, what="download limit")
    assert s.get(server.url("transfer/speedLimitsMode")).text == "0"
    toggle = clickable(driver, "#speed-alt-toggle")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    wait_for(lambda: s.get(server.url("transfer/speedLimitsMode")).text == "1", 10, what="alternative mode on")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#speed-alt-toggle").get_attribute("aria-pressed") == "true")
    # The history survives a trip to another section; the canvas has been drawn.
    time.sleep(2.2)
    go(driver, "settings")
    go(driver, "transfer")
    visible(driver, "#speed-graph")
    assert driver.execute_script("return document.querySelector('#speed-graph').width") > 0
    screenshot(driver, "speed")
    clickable(driver, "#speed-alt-toggle").click()
    wait_for(lambda: s.get(server.url("transfer/speedLimitsMode")).text == "0", 10, what="alternative mode off")
    no_console_errors(driver)


def test_search_plugin_install_search_and_add(server, driver, tmp_path):
    torrent, info_hash = make_torrent(tmp_path / "t", "found")
    site = Site(results=6, torrent=torrent)
    try:
        plugin = write_plugin(tmp_path, "localsite", site.url)
        s = server.session()
        login(driver, server)
        go(driver, "search")
        # Install from the page (a path on the server, as the WebAPI takes it).
        clickable(driver, "#search-plugins-box summary").click()
        set_value(driver, "#search-install-source", str(plugin))
        clickable(driver, "#search-install").click()
        visible(driver, "#search-plugin-enabled-localsite")
        assert "localsite" in [p["name"] for p in s.get(server.url("search/plugins")).json()]
        set_value(driver, "#search-pattern", "ubuntu")
        wait(driver, lambda d: any(o.get_attribute("value") == "localsite"
                                   for o in d.find_elements(By.CSS_SELECTOR, "#search-plugins option")))
        Select(driver.find_element(By.CSS_SELECTOR, "#search-plugins")).select_by_value("localsite")
        clickable(driver, "#search-start").click()
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-testid^='search-add-']")) == 6, 30)
        wait(driver, lambda d: "Search finished." in d.find_element(By.CSS_SELECTOR, "#search-status").text, 30)
        # Sorting by name puts "result 0" first; its Add fetches the .torrent from the site.
        clickable(driver, "#search-results th button[data-sort='fileName']").click()
        first = driver.find_element(By.CSS_SELECTOR, "#search-results tbody tr")
        assert "ubuntu result 0" in first.text
        screenshot(driver, "search")
        first.find_element(By.CSS_SELECTOR, "[data-testid^='search-add-']").click()
        wait_for(lambda: [t["hash"] for t in s.get(server.url("torrents/info")).json()] == [info_hash], 20, what="added torrent")
        wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#search-results tbody tr [data-testid^='search-add-']").text == "Added")
        no_console_errors(driver)
    finally:
        site.close()


def test_rss_feed_articles_download_and_rule(server, driver, tmp_path):
    feeds = FeedServer()
    try:
        torrent, info_hash = make_torrent(tmp_path / "t", "episode")
        feeds.put("/ep1.torrent", torrent, "application/x-bittorrent")
        items = [{"title": f"My Show S01E0{n} 1080p", "guid": f"ep{n}", "enclosure": feeds.url(f"/ep{n}.torrent"),
                  "date": day(n), "description": f"<p>Episode <b>{n}</b> of the show</p><script>alert(1)</script>"}
                 for n in (1, 2, 3)]
        url = feeds.put("/show.xml", rss("My Show", items))
        s = server.session()
        login(driver, server)
        go(driver, "rss")
        clickable(driver, "#rss-add-feed").click()
        set_value(driver, "#rss-feed-url", url)
        set_value(driver, "#rss-feed-name", "My Show")
        clickable(driver, "dialog button.primary").click()
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rss-articles .rss-article")) == 3, 30)
        assert "My Show S01E03 1080p" in driver.find_element(By.CSS_SELECTOR, "#rss-articles .rss-article").text
        assert "My Show" in s.get(server.url("rss/items")).json()
        # A description shows as text only.
        click_fresh(driver, "#rss-articles .rss-article:last-child .rss-title-button")
        # (the list may be drawn again as the article turns read: read it afresh each time)
        desc = wait(driver, lambda d: d.execute_script(
            "const p = document.querySelector('#rss-articles .rss-article:last-child .rss-desc');"
            "return p && !p.hidden && p.textContent"))
        assert "Episode 1 of the show" in desc and "<b>" not in desc and "alert" not in desc
        screenshot(driver, "rss")
        # Download the oldest (the one the feed server has a torrent for).
        wait_for(lambda: [a["isRead"] for a in s.get(server.url("rss/items"), params={"withData": "true"}).json()["My Show"]["articles"]
                          if a["title"] == "My Show S01E01 1080p"] == [True], 10, what="the article read")
        click_fresh(driver, "#rss-articles .rss-article:last-child [data-testid^='rss-download-']")
        wait_for(lambda: [t["hash"] for t in s.get(server.url("torrents/info")).json()] == [info_hash], 20, what="added torrent")

        # A rule made in the page.
        clickable(driver, "#rss-tab-rules").click()
        clickable(driver, "#rss-rule-new").click()
        set_value(driver, "#rss-rule-name", "Show rule")
        clickable(driver, "dialog button.primary").click()
        set_value(driver, "#rule-mustContain", "my show 1080p")
        set_value(driver, "#rule-episodeFilter", "1x2-;")
        clickable(driver, "#rule-feed-0").click()
        set_value(driver, "#rule-savePath", str(tmp_path / "shows"))
        clickable(driver, "#rss-rule-save").click()
        rule = wait_for(lambda: s.get(server.url("rss/rules")).json().get("Show rule", {}).get("affectedFeeds") and
                        s.get(server.url("rss/rules")).json()["Show rule"], 10, what="the rule")
        assert rule["mustContain"] == "my show 1080p"
        assert rule["episodeFilter"] == "1x2-;"
        assert rule["affectedFeeds"] == [url]
        assert rule["enabled"] is True
        assert str(tmp_path / "shows") in (rule.get("savePath"), rule.get("torrentParams", {}).get("save_path"))
        wait(driver, lambda d: "S01E02" in d.find_element(By.CSS_SELECTOR, "#rss-rule-matches").text, 10)
        assert "S01E01" not in driver.find_element(By.CSS_SELECTOR, "#rss-rule-matches").text
        no_console_errors(driver)
    finally:
        feeds.stop()


def test_settings_show_the_keys_of_the_46_profile(qbtd_factory, driver):
    q = qbtd_factory(extra=["--profile", "4.6"])
    login(driver, q)
    go(driver, "settings")
    box = clickable(driver, "#pref-start_paused_enabled")
    assert not driver.find_elements(By.CSS_SELECTOR, "#pref-add_stopped_enabled")
    box.click()
    clickable(driver, "#settings-save").click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#settings-status").text == "Saved")
    assert q.session().get(q.url("app/preferences")).json()["start_paused_enabled"] is True
    no_console_errors(driver)
