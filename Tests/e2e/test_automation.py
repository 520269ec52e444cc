"""Issue 16, automation: watched folders (scan_dirs) and qBittorrent's "Run external program" on torrent added and on torrent finished, with every
placeholder, the command line split as qBittorrent splits it (no shell: a name with spaces, quotes and `$(…)` is one
argument and runs nothing), the program detached from qbtd, its exit status in log/main."""
import json
import os
import re
import sys
import time
from pathlib import Path

import libtorrent as lt

from conftest import BytesServer, wait_for
from test_stream import FileSeeder

# A torrent name a shell would mangle: spaces, both quotes, a command substitution.
NAME = """it's a "quoted" $(touch PWNED) name"""

RECORDER = """#!{python}
import json, sys
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(sys.argv[2:]) + "\\n")
sys.exit(int(sys.argv[2] == "fail") * 3)
"""

PLACEHOLDERS = '"%N" %L %G "%F" "%R" "%D" %C %Z %T %I %J %K'


def set_prefs(s, q, **values):
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(values)}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)


def log_lines(s, q):
    return s.get(q.url("log/main"), timeout=30).json()


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_programs_run_on_add_and_on_finish_with_every_placeholder(qbtd_factory, tmp_path):
    recorder = tmp_path / "bin" / "record prog"  # a program path with a space
    recorder.parent.mkdir()
    recorder.write_text(RECORDER.format(python=sys.executable))
    recorder.chmod(0o755)
    added_out, finished_out = tmp_path / "added.jsonl", tmp_path / "finished.jsonl"
    seeder = FileSeeder(tmp_path / "seed", NAME, {"a.bin": os.urandom(700_000), "sub/b.bin": os.urandom(300_000)},
                        piece_size=64 * 1024)
    hashes = seeder.info.info_hashes()  # a hybrid torrent (libtorrent 2 makes v1+v2): the ID is the truncated v2
    info_hash, v2, torrent_id = str(hashes.v1), str(hashes.v2), str(hashes.get_best())

    q = qbtd_factory()
    s = q.session()
    exported, exported_fin = tmp_path / "export", tmp_path / "export done"
    set_prefs(s, q, autorun_on_torrent_added_enabled=True,
              autorun_on_torrent_added_program=f'"{recorder}" {added_out} added {PLACEHOLDERS}',
              autorun_enabled=True, autorun_program=f'"{recorder}" {finished_out} {PLACEHOLDERS}',
              export_dir=str(exported), export_dir_fin=str(exported_fin))
    p = s.get(q.url("app/preferences")).json()
    assert p["autorun_enabled"] and p["autorun_on_torrent_added_enabled"] and str(recorder) in p["autorun_program"]

    save = tmp_path / "save dir"
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")},
               data={"savepath": str(save), "category": "tv shows", "tags": "b,a"})
    assert (r.status_code, r.text) == (200, "Ok."), r.text
    wait_for(lambda: records(added_out), 10, what="the on-add program to run")
    [added] = records(added_out)
    # Placeholders are substituted per argument, after the split: a value with spaces stays one argument.
    assert added[:4] == ["added", NAME, "tv shows", "a,b"], added

    s.post(q.url("torrents/addPeers"), data={"hashes": torrent_id, "peers": f"127.0.0.1:{seeder.port}"})
    wait_for(lambda: records(finished_out), 120, what="the on-finish program to run")
    [done] = records(finished_out)
    content = str(save / NAME)
    assert done == [NAME, "tv shows", "a,b", content, content, str(save), "2", "1000000", "", info_hash, v2,
                    torrent_id], done
    assert not Path("PWNED").exists() and not (save / "PWNED").exists(), "the name reached a shell"

    # Export folders: the .torrent on add and on finish, named as qBittorrent names it.
    file_name = re.sub(r'[\\/:?"*<>|]+', " ", NAME).strip() + ".torrent"
    for folder in (exported, exported_fin):
        files = [f.name for f in folder.iterdir()]
        assert files == [file_name], (folder, files)
        assert str(lt.torrent_info(str(folder / file_name)).info_hashes().get_best()) == torrent_id

    lines = [e["message"] for e in log_lines(s, q)]
    running = [m for m in lines if m.startswith("Running external program.")]
    assert len(running) == 2 and all(f'Torrent: "{NAME}"' in m for m in running), running
    wait_for(lambda: any("External program ended (exit code 0)" in e["message"] for e in log_lines(s, q)), 10,
             what="the exit status in log/main")


def test_a_failing_or_missing_program_is_logged_and_changes_nothing(qbtd_factory, tmp_path):
    recorder = tmp_path / "rec"
    recorder.write_text(RECORDER.format(python=sys.executable))
    recorder.chmod(0o755)
    out = tmp_path / "out.jsonl"
    seeder = FileSeeder(tmp_path / "seed", "small", {"x.bin": os.urandom(100_000)}, piece_size=16 * 1024)
    q = qbtd_factory()
    s = q.session()
    set_prefs(s, q, autorun_on_torrent_added_enabled=True, autorun_on_torrent_added_program=f"{recorder} {out} fail %N")
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")})
    assert r.text == "Ok."
    wait_for(lambda: any("External program ended (exit code 3)" in e["message"] and e["type"] == 4
                         for e in log_lines(s, q)), 10, what="the failing program's status")
    set_prefs(s, q, autorun_on_torrent_added_program="/nonexistent/program %N")
    s.post(q.url("torrents/delete"), data={"hashes": str(seeder.info.info_hashes().get_best()), "deleteFiles": "false"})
    wait_for(lambda: not s.get(q.url("torrents/info")).json(), 10, what="the torrent to be removed")
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")})
    assert r.text == "Ok."
    wait_for(lambda: any(e["message"].startswith("Failed to run external program.") for e in log_lines(s, q)), 10,
             what="the spawn failure in log/main")
    assert s.get(q.url("app/version")).status_code == 200


# ---- watched folders (scan_dirs)

def info_of(s, q, torrent_id):
    items = s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()
    return items[0] if items else None


def slow_write(path, data, pause=1.5):
    """Writes a file in two halves with a pause between, as a slow download or copy does."""
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
        f.flush()
        time.sleep(pause)
        f.write(data[len(data) // 2:])


def test_watched_folders_in_all_three_modes_and_across_a_restart(qbtd_factory, tmp_path):
    seeders = [FileSeeder(tmp_path / f"seed{i}", f"watched{i}", {"f.bin": os.urandom(50_000 + i)}, piece_size=16 * 1024)
               for i in range(5)]
    ids = [str(x.info.info_hashes().get_best()) for x in seeders]
    own, default, custom = tmp_path / "w own", tmp_path / "w default", tmp_path / "w custom"
    target = tmp_path / "custom target"
    for d in (own, default, custom):
        d.mkdir()
    q = qbtd_factory()
    s = q.session()
    set_prefs(s, q, scan_dirs={str(own): 0, str(default): 1, str(custom): str(target), "relative/dir": 0})
    p = s.get(q.url("app/preferences")).json()
    assert p["scan_dirs"] == {str(own): 0, str(default): 1, str(custom): str(target)}, p["scan_dirs"]
    default_save = p["save_path"]

    started = time.monotonic()
    slow_write(own / "a.torrent", seeders[0].torrent)
    (default / "b.torrent").write_bytes(seeders[1].torrent)
    (custom / "c.torrent").write_bytes(seeders[2].torrent)
    for torrent_id, where in ((ids[0], str(own)), (ids[1], default_save), (ids[2], str(target))):
        t = wait_for(lambda: info_of(s, q, torrent_id), 5, what=f"the watched file for {where} to be added")
        assert t["save_path"] == where, (t["save_path"], where)
    print(f"\nwatched files added {time.monotonic() - started:.2f} s after the first one started landing")
    left = [f.name for d in (own, default, custom) for f in d.iterdir() if f.suffix == ".torrent"]
    assert not left, f"added files are deleted, as qBittorrent does: {left}"

    # A .magnet file: a magnet link and a bare info-hash, one per line; a bad line is logged and skipped.
    (default / "more.magnet").write_text(f"{seeders[3].magnet}\nnot a magnet\n{seeders[4].info.info_hashes().v2}\n")
    wait_for(lambda: info_of(s, q, ids[3]) and info_of(s, q, ids[4]), 5, what="the .magnet file's torrents")
    assert not (default / "more.magnet").exists()
    assert any("Invalid Magnet URI" in e["message"] for e in log_lines(s, q))

    # An invalid file is retried for a while, then renamed .qbt_rejected; other files are not held up.
    (own / "broken.torrent").write_bytes(b"d4:infoi1ee-not-really")
    wait_for(lambda: (own / "broken.torrent.qbt_rejected").exists(), 40, what="the invalid file to be rejected")
    assert not (own / "broken.torrent").exists()
    assert any("Rejecting failed torrent file" in e["message"] for e in log_lines(s, q))

    # The folders survive a restart, and a file that landed while qbtd was down is taken at start.
    s.post(q.url("torrents/delete"), data={"hashes": ids[0], "deleteFiles": "false"})
    q.stop()
    (own / "again.torrent").write_bytes(seeders[0].torrent)
    q.start()
    s = q.session()
    t = wait_for(lambda: info_of(s, q, ids[0]), 10, what="the file that landed while qbtd was down")
    assert t["save_path"] == str(own)
    assert s.get(q.url("app/preferences")).json()["scan_dirs"][str(own)] == 0


# ---- extra trackers (add_trackers, add_trackers_url)

def ListServer(body):
    """An HTTP server on 127.0.0.1 serving one tracker list, counting its fetches."""
    return BytesServer(body, "/trackers.txt")


def private_torrent(tmp_path):
    fs = lt.file_storage()
    (tmp_path / "priv").mkdir()
    (tmp_path / "priv" / "p.bin").write_bytes(os.urandom(20_000))
    lt.add_files(fs, str(tmp_path / "priv"))
    ct = lt.create_torrent(fs, 16 * 1024)
    ct.set_priv(True)
    ct.add_tracker("http://127.0.0.1:9/private", 0)
    lt.set_piece_hashes(ct, str(tmp_path))
    data = lt.bencode(ct.generate())
    return data, str(lt.torrent_info(lt.bdecode(data)).info_hashes().get_best())


def test_extra_trackers_are_added_to_new_public_torrents(qbtd_factory, tmp_path):
    listed = ListServer("udp://127.0.0.3:9/listed1\n\nudp://127.0.0.3:9/listed2\n")
    seeder = FileSeeder(tmp_path / "seed", "public", {"f.bin": os.urandom(30_000)}, piece_size=16 * 1024)
    public_id = str(seeder.info.info_hashes().get_best())
    private_data, private_id = private_torrent(tmp_path)
    q = qbtd_factory()
    s = q.session()
    set_prefs(s, q, add_trackers_enabled=True, add_trackers="http://127.0.0.1:9/one\n http://127.0.0.1:9/two \n\nhttp://127.0.0.1:9/three",
              add_trackers_from_url_enabled=True, add_trackers_url=listed.url)
    wait_for(lambda: s.get(q.url("app/preferences")).json()["add_trackers_url_list"] == listed.body, 10,
             what="the tracker list to be fetched")
    assert any(e["message"] == "Tracker list updated" for e in log_lines(s, q))

    for name, data in (("public.torrent", seeder.torrent), ("private.torrent", private_data)):
        r = s.post(q.url("torrents/add"), files={"torrents": (name, data, "application/x-bittorrent")})
        assert r.text == "Ok."

    def trackers(torrent_id):
        return [(t["url"], t["tier"]) for t in s.get(q.url("torrents/trackers"), params={"hash": torrent_id}).json()
                if not t["url"].startswith("**")]

    # add_trackers on tiers 0, 0, 1 after the torrent's own (none here), then the fetched list after those.
    assert trackers(public_id) == [("http://127.0.0.1:9/one", 0), ("http://127.0.0.1:9/two", 0),
                                   ("http://127.0.0.1:9/three", 1), ("udp://127.0.0.3:9/listed1", 2),
                                   ("udp://127.0.0.3:9/listed2", 3)], trackers(public_id)
    assert trackers(private_id) == [("http://127.0.0.1:9/private", 0)], "a private torrent gets no extra tracker"

    # Switched off, the fetched list is cleared and new torrents get nothing from it.
    set_prefs(s, q, add_trackers_from_url_enabled=False)
    assert s.get(q.url("app/preferences")).json()["add_trackers_url_list"] == ""


def test_excluded_file_names_are_skipped_at_add(qbtd_factory, tmp_path):
    seeder = FileSeeder(tmp_path / "seed", "Show", {"episode.mkv": os.urandom(40_000), "info.NFO": b"nfo",
                                                  "Sample/clip.mkv": os.urandom(20_000), "samples/keep.mkv": b"k" * 100},
                        piece_size=16 * 1024)
    q = qbtd_factory()
    s = q.session()
    set_prefs(s, q, excluded_file_names_enabled=True, excluded_file_names="*.nfo\nsample")
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")},
               data={"stopped": "true"})
    assert r.text == "Ok."
    torrent_id = str(seeder.info.info_hashes().get_best())
    priorities = {f["name"]: f["priority"] for f in s.get(q.url("torrents/files"), params={"hash": torrent_id}).json()}
    assert priorities == {"Show/episode.mkv": 1, "Show/info.NFO": 0, "Show/Sample/clip.mkv": 0,
                          "Show/samples/keep.mkv": 1}, priorities


def test_stop_conditions(qbtd_factory, tmp_path):
    """MetadataReceived: a magnet stops once its metadata is in (a .torrent is added stopped, as 5.1 does);
    FilesChecked: a torrent stops once its files were checked; the global default is torrent_stop_condition."""
    # Throttled seeders, so a torrent that does not stop is seen downloading on.
    seeders = [FileSeeder(tmp_path / f"seed{i}", f"cond{i}", {"f.bin": os.urandom(2_000_000 + i)}, piece_size=16 * 1024,
                          upload_limit=100_000) for i in range(3)]
    ids = [str(x.info.info_hashes().get_best()) for x in seeders]
    q = qbtd_factory()
    s = q.session()

    def stopped(torrent_id):
        t = info_of(s, q, torrent_id)
        return t if t and t["state"] in ("stoppedDL", "stoppedUP") else None

    r = s.post(q.url("torrents/add"), data={"urls": seeders[0].magnet, "stopCondition": "MetadataReceived"})
    assert r.text == "Ok."
    t = wait_for(lambda: stopped(ids[0]), 30, what="the magnet to stop when its metadata arrived")
    assert t["has_metadata"] and t["progress"] < 1, t

    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeders[1].torrent, "application/x-bittorrent")},
               data={"stopCondition": "MetadataReceived"})
    assert r.text == "Ok."
    # Stopped from the add on; its status may show checkingResumeData for a moment first (qBittorrent's does too).
    t = wait_for(lambda: stopped(ids[1]), 10, what="a torrent with its metadata to be added stopped")
    assert t["progress"] == 0, t

    set_prefs(s, q, torrent_stop_condition="FilesChecked")
    assert s.get(q.url("app/preferences")).json()["torrent_stop_condition"] == "FilesChecked"
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeders[2].torrent, "application/x-bittorrent")})
    assert r.text == "Ok."
    s.post(q.url("torrents/addPeers"), data={"hashes": ids[2], "peers": f"127.0.0.1:{seeders[2].port}"})
    t = wait_for(lambda: stopped(ids[2]), 30, what="the torrent to stop once its files were checked")
    assert t["progress"] < 1, "it stopped after the check, before downloading"
    assert sum("Torrent stopped." in e["message"] for e in log_lines(s, q)) >= 2
