"""Issue 20 (item 2): /metrics in Prometheus' text format, behind the session or an API key on qbtd's address and
without authentication on --metrics-listen; Debian's prometheus scrapes it on 127.0.0.1 and its query API returns
qbtd's series with sensible values after a loopback download."""
import os
import subprocess
import time

import requests

from conftest import free_port, wait_for
from test_stream import FileSeeder

KEY = "qbt_metricstestkey0123456789ab"


def series(text, name):
    """{labels: value} of one metric family in an exposition."""
    out = {}
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            head, value = line.rsplit(" ", 1)
            out[head[len(name):]] = float(value)
    return out


def test_metrics_after_a_download_scraped_by_prometheus(qbtd_factory, tmp_path):
    listen = free_port()
    q = qbtd_factory(extra=["--metrics-listen", f"127.0.0.1:{listen}", "--api-key", KEY])
    # Authentication on qbtd's own address; none on the metrics address.
    assert requests.get(q.base + "/metrics", timeout=30).status_code == 403
    upload_key = q.session().post(q.url("qbtd/createAPIKey"), data={"name": "up", "scope": "upload"}).json()["key"]
    assert requests.get(q.base + "/metrics", headers={"Authorization": f"Bearer {upload_key}"}, timeout=30).status_code == 403
    r = requests.get(q.base + "/metrics", headers={"Authorization": f"Bearer {KEY}"}, timeout=30)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    assert requests.get(f"http://127.0.0.1:{listen}/metrics", timeout=30).status_code == 200
    assert requests.get(f"http://127.0.0.1:{listen}/api/v2/app/version", timeout=30).status_code == 404

    # A loopback download, a stream read, some API calls.
    s = q.session()
    payload = os.urandom(4 * 1024 * 1024 + 99)
    seeder = FileSeeder(tmp_path / "seed", "clip", {"clip.mkv": payload})
    digest = str(seeder.info.info_hashes().get_best())
    assert s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}).text == "Ok."
    s.post(q.url("torrents/addPeers"), data={"hashes": digest, "peers": f"127.0.0.1:{seeder.port}"})
    wait_for(lambda: s.get(q.url("torrents/info")).json()[0]["progress"] == 1, 120, what="the download")
    stream = s.post(q.url("stream/prepare"), data={"hash": digest}, timeout=60).json()
    assert len(requests.get(stream["playbackUrl"], timeout=60).content) == len(payload)
    for _ in range(5):
        s.get(q.url("torrents/info"))
    s.get(q.url("no/such"))

    text = requests.get(f"http://127.0.0.1:{listen}/metrics", timeout=30).text
    torrents = series(text, "qbtd_torrents")
    assert sum(torrents.values()) == 1 and any(v == 1 for k, v in torrents.items() if "stalledUP" in k or "uploading" in k), torrents
    assert series(text, "qbtd_session_downloaded_bytes")[""] >= len(payload)
    assert series(text, "qbtd_stream_bytes_served_total")[""] >= len(payload)
    requests_total = series(text, "qbtd_http_requests_total")
    assert requests_total['{route="torrents/info",status="200"}'] >= 6, requests_total
    assert any('route="api/other"' in k and 'status="404"' in k for k in requests_total), requests_total
    assert series(text, "qbtd_http_request_duration_seconds_count")['{route="torrents/info"}'] >= 6
    assert series(text, "process_resident_memory_bytes")[""] > 10 << 20
    assert 10 < series(text, "process_open_fds")[""] < 10000
    assert series(text, "qbtd_streams")[""] == 1

    # Prometheus itself scrapes it, every second, and answers queries with qbtd's series.
    prom_port = free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(f"""
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: qbtd
    static_configs:
      - targets: ["127.0.0.1:{listen}"]
""")
    log = open(tmp_path / "prometheus.log", "wb")
    prom = subprocess.Popen(["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                             f"--web.listen-address=127.0.0.1:{prom_port}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        api = f"http://127.0.0.1:{prom_port}/api/v1/query"

        def query(expr):
            try:
                r = requests.get(api, params={"query": expr}, timeout=10).json()
            except (requests.RequestException, ValueError):
                return None
            result = r.get("data", {}).get("result", [])
            return result or None

        up = wait_for(lambda: query('up{job="qbtd"} == 1'), 60, what="Prometheus to scrape qbtd")
        assert up[0]["metric"]["instance"] == f"127.0.0.1:{listen}"
        done = wait_for(lambda: query('sum(qbtd_torrents{state=~"stalledUP|uploading"})'), 30, what="qbtd_torrents")
        assert float(done[0]["value"][1]) == 1
        downloaded = query("qbtd_session_downloaded_bytes")
        assert float(downloaded[0]["value"][1]) >= len(payload)
        rate = wait_for(lambda: query('sum(qbtd_http_requests_total{route="torrents/info"})'), 30, what="request counts")
        assert float(rate[0]["value"][1]) >= 6
        p99 = query('histogram_quantile(0.99, sum by (le) (qbtd_http_request_duration_seconds_bucket))')
        assert p99 and 0 < float(p99[0]["value"][1]) < 10
        print(f"prometheus: up, torrents/info requests {rate[0]['value'][1]}, request p99 {float(p99[0]['value'][1]) * 1000:.1f} ms")
    finally:
        prom.terminate()
        prom.wait(30)
