"""qbtd's web interface, torrents section, in a real (headless) chromium: adding a torrent through the add dialog and
watching it download from a loopback seeder, the file tree's priority select, sort/filter/search, delete from the
page, a 2,000-torrent list that stays virtualized (and filters, sorts and takes a server's change), and a 3,000-file
tree that does too. Screenshots: `torrents` (desktop) and `torrents-phone`."""
import os
import time

import libtorrent as lt
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from browser import PHONE, clickable, console_errors, go, login, open_browser, screenshot, visible, wait
from conftest import Seeder, wait_for


def tiny_torrent(name, size=1000):
    """A single-file .torrent with one made-up piece hash: enough for a stopped torrent that never downloads."""
    return lt.bencode({"info": {"name": name, "piece length": 16384, "length": size, "pieces": os.urandom(20)}})


def add_torrents(session, server, named, **fields):
    """Adds `named` ({name: size}) stopped, in multipart batches of 100."""
    items = list(named.items())
    for start in range(0, len(items), 100):
        files = [("torrents", (f"{name}.torrent", tiny_torrent(name, size))) for name, size in items[start:start + 100]]
        r = session.post(server.url("torrents/add"), files=files,
                         data={"stopped": "true", "paused": "true", **fields}, timeout=60)
        assert r.status_code == 200, (r.status_code, r.text)


def hashes_by_name(session, server):
    return {t["name"]: t["hash"] for t in session.get(server.url("torrents/info"), timeout=30).json()}


def row_names(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#torrent-list .tl-row')].filter(r => r.offsetParent)"
        ".map(r => r.querySelector('.c-name').textContent)")


def count_text(driver):
    return driver.find_element(By.CSS_SELECTOR, "#torrent-count").text


def row(driver, name):
    """The list's row showing `name`, or None (looked up in one script: rows are reused as the list scrolls)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#torrent-list .tl-row')]"
        ".find(r => r.offsetParent && r.querySelector('.c-name').textContent === arguments[0]) || null", name)


def row_cells(driver, hash_):
    return driver.execute_script(
        "const r = document.querySelector(`#torrent-list .tl-row[data-hash='${arguments[0]}']`);"
        "return r ? [r.querySelector('.c-progress em').textContent, r.querySelector('.c-state').textContent] : null", hash_)


def dialog_button(driver, value):
    return clickable(driver, f"dialog[open] button[value='{value}']")


def test_add_download_and_file_priority(qbtd_factory, tmp_path):
    server = qbtd_factory()
    seeder = Seeder(tmp_path / "seed", [3 * 1024 * 1024, 1024 * 1024 + 77, 500 * 1024])
    torrent_file = tmp_path / "payload.torrent"
    torrent_file.write_bytes(seeder.torrent)
    save = tmp_path / "save"
    save.mkdir()
    s = server.session()
    driver = open_browser()
    try:
        login(driver, server)
        go(driver, "torrents")
        visible(driver, "#torrent-list")
        clickable(driver, "#btn-add").click()
        visible(driver, "#add-files").send_keys(str(torrent_file))
        wait(driver, lambda d: "payload.torrent" in d.find_element(By.CSS_SELECTOR, ".add-file-list").text)
        path = driver.find_element(By.CSS_SELECTOR, "#add-savepath")
        wait(driver, lambda d: path.get_attribute("value") != "")  # prefilled from app/defaultSavePath
        path.clear()
        path.send_keys(str(save))
        dialog_button(driver, "add").click()
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"))

        torrent = wait_for(lambda: next(iter(s.get(server.url("torrents/info"), timeout=10).json()), None), 20,
                           what="the torrent in torrents/info")
        assert torrent["save_path"].rstrip("/") == str(save)
        hash_ = torrent["hash"]
        wait(driver, lambda d: row_cells(d, hash_) is not None)
        r = s.post(server.url("torrents/addPeers"), data={"hashes": hash_, "peers": seeder.peer}, timeout=10)
        assert r.status_code == 200, r.text
        wait(driver, lambda d: (row_cells(d, hash_) or [""])[0] == "100.0%", timeout=90)
        wait(driver, lambda d: row_cells(d, hash_)[1] in ("Seeding", "Completed"), timeout=30)
        seeder.verify(save)

        # Details pane, files tab: the priority select of file 1 → torrents/filePrio.
        driver.find_element(By.CSS_SELECTOR, f"#torrent-list .tl-row[data-hash='{hash_}']").click()
        visible(driver, "#torrent-details")
        clickable(driver, "#tab-files").click()
        files = s.get(server.url("torrents/files"), params={"hash": hash_}, timeout=10).json()
        target = files[1]["index"]
        select = Select(visible(driver, f"[data-testid='prio-{target}']"))
        assert select.first_selected_option.get_attribute("value") == "1"
        select.select_by_value("6")
        wait_for(lambda: s.get(server.url("torrents/files"), params={"hash": hash_}, timeout=10).json()[1]["priority"] == 6,
                 10, what="file priority 6")
        select = Select(driver.find_element(By.CSS_SELECTOR, f"[data-testid='prio-{target}']"))
        select.select_by_value("0")
        wait_for(lambda: s.get(server.url("torrents/files"), params={"hash": hash_}, timeout=10).json()[1]["priority"] == 0,
                 10, what="file priority 0")
        # Other tabs load without errors; the piece bar is drawn.
        for tab in ("trackers", "peers", "webseeds", "general"):
            clickable(driver, f"#tab-{tab}").click()
            wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#details-panel").text.strip() != "")
        visible(driver, "#details-panel canvas.piece-bar")
        assert console_errors(driver) == []
    finally:
        driver.quit()
        seeder.session.pause()


def test_sort_filter_search_delete_and_screenshots(qbtd_factory):
    server = qbtd_factory()
    s = server.session()
    add_torrents(s, server, {"alpha": 4000, "bravo": 1000, "charlie": 3000, "delta": 2000, "echo": 5000})
    s.post(server.url("torrents/createCategory"), data={"category": "films", "savePath": ""}, timeout=10)
    wait_for(lambda: len(hashes_by_name(s, server)) == 5, 30, what="5 torrents")
    hashes = hashes_by_name(s, server)
    s.post(server.url("torrents/setCategory"), data={"hashes": f"{hashes['bravo']}|{hashes['delta']}", "category": "films"}, timeout=10)
    s.post(server.url("torrents/addTags"), data={"hashes": hashes["charlie"], "tags": "hd"}, timeout=10)
    driver = open_browser()
    try:
        login(driver, server)
        go(driver, "torrents")
        wait(driver, lambda d: count_text(d) == "5 torrents")
        wait(driver, lambda d: row_names(d) == ["alpha", "bravo", "charlie", "delta", "echo"])
        name_header = driver.find_element(By.CSS_SELECTOR, ".tl-head .c-name")
        assert name_header.get_attribute("aria-sort") == "ascending"
        driver.find_element(By.CSS_SELECTOR, "button[data-sort='name']").click()
        wait(driver, lambda d: row_names(d) == ["echo", "delta", "charlie", "bravo", "alpha"])
        assert name_header.get_attribute("aria-sort") == "descending"
        driver.find_element(By.CSS_SELECTOR, "button[data-sort='size']").click()
        wait(driver, lambda d: row_names(d) == ["bravo", "delta", "charlie", "alpha", "echo"])
        driver.find_element(By.CSS_SELECTOR, "button[data-sort='name']").click()

        # Search, then the filters.
        search = driver.find_element(By.CSS_SELECTOR, "#torrent-search")
        search.send_keys("ar")
        wait(driver, lambda d: row_names(d) == ["charlie"] and count_text(d) == "1 of 5 torrents")
        search.send_keys(Keys.BACKSPACE, Keys.BACKSPACE)
        wait(driver, lambda d: len(row_names(d)) == 5)
        # A single server has no Nodes filter and no Node column (a cluster's: test_cluster).
        assert driver.execute_script("return document.querySelector(\"[data-section='node']\").hidden"
                                     " && document.querySelector('.tl-head .c-node').offsetParent === null")
        clickable(driver, "[data-filter='category'][data-value='films']").click()
        wait(driver, lambda d: row_names(d) == ["bravo", "delta"])
        clickable(driver, "[data-filter='category'][data-value='']").click()
        wait(driver, lambda d: row_names(d) == ["alpha", "charlie", "echo"])
        clickable(driver, "[data-filter='category'][data-value='*']").click()
        clickable(driver, "[data-filter='tag'][data-value='hd']").click()
        wait(driver, lambda d: row_names(d) == ["charlie"])
        clickable(driver, "[data-filter='tag'][data-value='']").click()
        wait(driver, lambda d: len(row_names(d)) == 4)
        clickable(driver, "[data-filter='tag'][data-value='*']").click()
        clickable(driver, "[data-filter='status'][data-value='seeding']").click()
        wait(driver, lambda d: row_names(d) == [] and count_text(d) == "0 of 5 torrents")
        clickable(driver, "[data-filter='status'][data-value='stopped']").click()
        wait(driver, lambda d: len(row_names(d)) == 5)
        clickable(driver, "[data-filter='tracker'][data-value='']").click()  # trackerless: all of them
        wait(driver, lambda d: len(row_names(d)) == 5)
        clickable(driver, "[data-filter='status'][data-value='all']").click()
        clickable(driver, "[data-filter='tracker'][data-value='*']").click()

        # Selection: click, Ctrl+A, keyboard; the details pane follows the selection (desktop screenshot).
        row(driver, "bravo").click()
        visible(driver, "#torrent-details")
        wait(driver, lambda d: "bravo" in d.find_element(By.CSS_SELECTOR, ".details-title").text)
        grid = driver.find_element(By.CSS_SELECTOR, "#torrent-list")
        grid.send_keys(Keys.ARROW_DOWN)
        wait(driver, lambda d: "charlie" in d.find_element(By.CSS_SELECTOR, ".details-title").text)
        grid.send_keys(Keys.CONTROL, "a")
        wait(driver, lambda d: "5 selected" in d.find_element(By.CSS_SELECTOR, "#torrent-selected").text)
        row(driver, "charlie").click()
        wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#details-panel").text.strip() != "")
        screenshot(driver, "torrents")

        # Delete from the page (without files).
        row(driver, "delta").click()
        clickable(driver, "#btn-delete").click()
        assert not visible(driver, "#delete-files").is_selected()
        dialog_button(driver, "delete").click()
        wait(driver, lambda d: row(d, "delta") is None and count_text(d) == "4 torrents")
        assert "delta" not in hashes_by_name(s, server)

        # Stop/start reach the server (5.x names, 4.x fallback on 404).
        row(driver, "alpha").click()
        clickable(driver, "#btn-start").click()
        wait_for(lambda: not s.get(server.url("torrents/info"), params={"hashes": hashes["alpha"]}, timeout=10).json()[0]["state"]
                 .startswith(("stopped", "paused")), 20, what="alpha started")
        clickable(driver, "#btn-stop").click()
        wait_for(lambda: s.get(server.url("torrents/info"), params={"hashes": hashes["alpha"]}, timeout=10).json()[0]["state"]
                 .startswith(("stopped", "paused")), 20, what="alpha stopped")
        assert console_errors(driver) == []
    finally:
        driver.quit()

    phone = open_browser(PHONE)
    try:
        # Headless chromium keeps windows at least 500 px wide: emulate the phone's 390 px viewport.
        phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})
        login(phone, server)
        go(phone, "torrents")
        wait(phone, lambda d: count_text(d) == "4 torrents")
        assert not phone.find_element(By.CSS_SELECTOR, "#torrent-filters").is_displayed()
        assert not phone.find_element(By.CSS_SELECTOR, "#btn-recheck").is_displayed()
        assert not phone.find_element(By.CSS_SELECTOR, ".tl-head .c-size").is_displayed()
        assert phone.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
        screenshot(phone, "torrents-phone")
        clickable(phone, "#filters-toggle").click()
        clickable(phone, "[data-filter='category'][data-value='films']").click()
        wait(phone, lambda d: row_names(d) == ["bravo"] and not d.find_element(By.CSS_SELECTOR, "#torrent-filters").is_displayed())
        row(phone, "bravo").click()
        clickable(phone, "#btn-more").click()
        clickable(phone, "#btn-details").click()
        visible(phone, "#torrent-details")
        screenshot(phone, "torrents-phone-details")
        clickable(phone, "#details-close").click()
        wait(phone, lambda d: not d.find_element(By.CSS_SELECTOR, "#torrent-details").is_displayed())
        assert console_errors(phone) == []
    finally:
        phone.quit()


def test_two_thousand_torrents_virtualized(qbtd_factory):
    server = qbtd_factory()
    s = server.session()
    n = 2000
    started = time.monotonic()
    add_torrents(s, server, {f"bulk-{i:04d}": 1000 + i for i in range(n)})
    wait_for(lambda: len(s.get(server.url("torrents/info"), timeout=30).json()) == n, 120, interval=1, what=f"{n} torrents")
    print(f"added {n} torrents in {time.monotonic() - started:.1f}s")
    driver = open_browser()
    try:
        login(driver, server)
        go(driver, "torrents")
        wait(driver, lambda d: count_text(d) == f"{n} torrents", timeout=60)
        rows = driver.execute_script("return document.querySelectorAll('#torrent-list .tl-row').length")
        assert 0 < rows < 120, rows
        driver.execute_script("const l = document.getElementById('torrent-list'); l.scrollTop = l.scrollHeight;")
        wait(driver, lambda d: row(d, f"bulk-{n - 1:04d}") is not None and row(d, f"bulk-{n - 1:04d}").is_displayed())
        last = row(driver, f"bulk-{n - 1:04d}")
        inside = driver.execute_script(
            "const r = arguments[0].getBoundingClientRect(), l = document.getElementById('torrent-list').getBoundingClientRect();"
            "return r.top >= l.top && r.bottom <= l.bottom + 1", last)
        assert inside
        assert driver.execute_script("return document.querySelectorAll('#torrent-list .tl-row').length") < 120
        # The name filter works over the whole list (the rows it keeps were far below the window), then sorting.
        search = driver.find_element(By.CSS_SELECTOR, "#torrent-search")
        search.send_keys("bulk-19")
        wait(driver, lambda d: count_text(d) == f"100 of {n} torrents")
        wait(driver, lambda d: (row_names(d) or [""])[0] == "bulk-1900")
        driver.find_element(By.CSS_SELECTOR, "button[data-sort='name']").click()
        wait(driver, lambda d: (row_names(d) or [""])[0] == "bulk-1999")
        driver.find_element(By.CSS_SELECTOR, "button[data-sort='name']").click()
        for _ in range(len("bulk-19")):
            search.send_keys(Keys.BACKSPACE)
        wait(driver, lambda d: count_text(d) == f"{n} torrents")
        # A change on the server reaches the row it shows (pushed, or polled where push is missing).
        first = driver.execute_script("return document.querySelector('#torrent-list .tl-row').dataset.hash")
        s.post(server.url("torrents/addTags"), data={"hashes": first, "tags": "smoke"}, timeout=10)
        wait(driver, lambda d: d.execute_script(
            "const r = document.querySelector(`#torrent-list .tl-row[data-hash='${arguments[0]}'] .c-tags`);"
            "return r && r.textContent", first) == "smoke", timeout=15)
        # Updates are measured (the benchmark reads these).
        wait(driver, lambda d: len(d.execute_script("return window.qbtdMetrics.updates")) >= 2)
        assert console_errors(driver) == []
    finally:
        driver.quit()


def test_file_tree_of_three_thousand_files_virtualized(qbtd_factory):
    """A torrent of 3,000 files in 30 folders: the Files tab holds a window of rows, scrolls to the last file, and a
    folder collapses (the rows after it move up)."""
    server = qbtd_factory()
    s = server.session()
    files = [{"length": 1000, "path": [f"dir-{i // 100:02d}", f"file-{i:04d}.bin"]} for i in range(3000)]
    data = lt.bencode({"info": {"name": "tree", "piece length": 1 << 22, "files": files, "pieces": os.urandom(20)}})
    r = s.post(server.url("torrents/add"), files=[("torrents", ("tree.torrent", data))], data={"stopped": "true", "paused": "true"}, timeout=30)
    assert r.status_code == 200, r.text
    wait_for(lambda: len(s.get(server.url("torrents/info"), timeout=10).json()) == 1, 30, what="the torrent")
    driver = open_browser()
    try:
        login(driver, server)
        go(driver, "torrents")
        visible(driver, "#torrent-list .tl-row").click()
        clickable(driver, "#tab-files").click()
        visible(driver, ".file-tree .ft-file")
        count = lambda d: d.execute_script("return document.querySelectorAll('.file-tree .ft-row').length")  # noqa: E731
        assert 0 < count(driver) < 150, count(driver)
        scroller = driver.find_element(By.CSS_SELECTOR, ".ft-scroll")
        driver.execute_script("arguments[0].scrollTop = arguments[0].scrollHeight", scroller)
        visible(driver, "[data-testid='prio-2999']")
        assert count(driver) < 150
        driver.execute_script("arguments[0].scrollTop = 0", scroller)
        toggle = clickable(driver, ".ft-toggle[data-key='/tree/dir-00']")
        assert toggle.get_attribute("aria-expanded") == "true"
        toggle.click()
        wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, ".ft-toggle[data-key='/tree/dir-00']").get_attribute("aria-expanded") == "false")
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-testid='prio-0']"))
        visible(driver, ".ft-toggle[data-key='/tree/dir-01']")
        assert console_errors(driver) == []
    finally:
        driver.quit()


def test_dialogs_queue_and_drop(qbtd_factory):
    """Category (a new one), tags, limits through their dialogs; queue moves disabled while queueing is off, acting
    once it is on; a dropped .torrent file."""
    server = qbtd_factory()
    s = server.session()
    add_torrents(s, server, {"one": 1000, "two": 2000})
    wait_for(lambda: len(hashes_by_name(s, server)) == 2, 30, what="2 torrents")
    hashes = hashes_by_name(s, server)
    info = lambda name: s.get(server.url("torrents/info"), params={"hashes": hashes[name]}, timeout=10).json()[0]  # noqa: E731
    driver = open_browser()
    try:
        login(driver, server)
        go(driver, "torrents")
        wait(driver, lambda d: count_text(d) == "2 torrents")
        row(driver, "one").click()
        assert not driver.find_element(By.ID, "btn-node").is_displayed()  # moving between nodes: a cluster's only

        clickable(driver, "#btn-category").click()
        Select(visible(driver, "#category-select")).select_by_visible_text("New category…")
        visible(driver, "#category-new-name").send_keys("music")
        dialog_button(driver, "set").click()
        wait_for(lambda: info("one")["category"] == "music", 10, what="category music")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-filter='category'][data-value='music']"))

        clickable(driver, "#btn-tags").click()
        visible(driver, "#tags-new").send_keys("lossless, live")
        dialog_button(driver, "apply").click()
        wait_for(lambda: sorted(t.strip() for t in info("one")["tags"].split(",")) == ["live", "lossless"], 10, what="tags")
        wait(driver, lambda d: "live" in (row(d, "one").text if row(d, "one") else ""))
        clickable(driver, "#btn-tags").click()
        box = visible(driver, "dialog[open] input[type='checkbox'][value='live']")
        assert box.is_selected()
        box.click()
        dialog_button(driver, "apply").click()
        wait_for(lambda: info("one")["tags"].strip() == "lossless", 10, what="tag live removed")

        clickable(driver, "#btn-limits").click()
        down = visible(driver, "#limit-down")
        down.clear()
        down.send_keys("100")
        dialog_button(driver, "set").click()
        wait_for(lambda: info("one")["dl_limit"] == 100 * 1024, 10, what="download limit")

        # Queueing is off on this server: the queue moves are disabled and say why; once it is on, they act.
        top = driver.find_element(By.CSS_SELECTOR, "#btn-top")
        wait(driver, lambda d: not top.is_enabled() and "queueing is off" in top.get_attribute("title").lower())
        s.post(server.url("app/setPreferences"), data={"json": '{"queueing_enabled": true}'})
        row(driver, "two").click()
        wait(driver, lambda d: top.is_enabled())
        wait_for(lambda: info("two")["priority"] == 2, 10, what="two second in the queue")
        driver.execute_script("arguments[0].click()", top)  # it may sit in the overflow menu
        wait_for(lambda: info("two")["priority"] == 1, 10, what="two moved to the top")

        # A .torrent dropped on the view opens the add dialog with it.
        driver.execute_script("""
            const data = new DataTransfer();
            data.items.add(new File([new Uint8Array([100, 101])], "dropped.torrent", { type: "application/x-bittorrent" }));
            const list = document.getElementById("torrent-list");
            list.dispatchEvent(new DragEvent("dragover", { bubbles: true, cancelable: true, dataTransfer: data }));
            list.dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: data }));""")
        wait(driver, lambda d: "dropped.torrent" in d.find_element(By.CSS_SELECTOR, "dialog[open] .add-file-list").text)
        dialog_button(driver, "").click()
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"))

        # A magnet link through the add dialog, not started.
        clickable(driver, "#btn-add").click()
        visible(driver, "#add-urls").send_keys("magnet:?xt=urn:btih:" + "ab" * 20 + "&dn=magnetic")
        start = driver.find_element(By.CSS_SELECTOR, "#add-start")
        assert start.is_selected()
        start.click()
        dialog_button(driver, "add").click()
        wait(driver, lambda d: row(d, "magnetic") is not None and count_text(d) == "3 torrents")
        assert "ab" * 20 in hashes_by_name(s, server).values()

        # Keyboard: Delete asks; Cancel keeps the torrent.
        grid = driver.find_element(By.CSS_SELECTOR, "#torrent-list")
        row(driver, "two").click()
        grid.send_keys(Keys.DELETE)
        visible(driver, "#delete-files")
        dialog_button(driver, "").click()
        assert len(hashes_by_name(s, server)) == 3
        assert console_errors(driver) == []
    finally:
        driver.quit()


def test_free_space_guard_reason_shows(qbtd_factory, tmp_path):
    """Issue 38: a torrent qbtd's free-space guard holds shows as stopped with a mark, the reason as the state's title
    and above the details; the API lists it under `stopped` with qbtd_reason; once the floor is lowered it starts
    again by itself. The floor is set above any disk's free space, so the hold does not depend on the machine."""
    server = qbtd_factory()
    s = server.session()
    r = s.post(server.url("torrents/add"), files={"torrents": ("held.torrent", tiny_torrent("held", 10_000))},
               data={"savepath": str(tmp_path / "held")}, timeout=30)
    assert r.status_code == 200, r.text
    info = lambda: s.get(server.url("torrents/info"), timeout=10).json()[0]  # noqa: E731
    wait_for(lambda: info()["state"] in ("stalledDL", "downloading"), 20, what="the torrent running")
    floor = 1 << 30  # MiB: a petabyte and more
    assert s.post(server.url("app/setPreferences"), data={"json": f'{{"disk_guard_min_free_mib": {floor}}}'}).status_code == 200
    wait_for(lambda: info()["state"] == "stoppedDL" and "free-space guard" in info()["qbtd_reason"], 20, what="held")
    assert [t["name"] for t in s.get(server.url("torrents/info"), params={"filter": "stopped"}).json()] == ["held"]
    log = s.get(server.url("log/main"), params={"last_known_id": -1}).json()
    assert any("free-space guard" in line["message"] and str(tmp_path / "held") in line["message"] for line in log)
    driver = open_browser()
    try:
        login(driver, server)
        go(driver, "torrents")
        wait(driver, lambda d: row(d, "held") is not None)
        state = lambda d: d.execute_script(  # noqa: E731
            "const s = document.querySelector('#torrent-list .tl-row .c-state .state'); return s ? [s.textContent, s.title] : null")
        wait(driver, lambda d: state(d) and state(d)[0] == "Stopped ⚠" and "free-space guard" in state(d)[1])
        row(driver, "held").click()
        wait(driver, lambda d: "free-space guard" in d.find_element(By.CSS_SELECTOR, "body").text)
        assert not console_errors(driver)
    finally:
        driver.quit()
    assert s.post(server.url("app/setPreferences"), data={"json": '{"disk_guard_min_free_mib": 0}'}).status_code == 200
    wait_for(lambda: info()["state"] in ("stalledDL", "downloading") and info()["qbtd_reason"] == "", 20, what="let go")
