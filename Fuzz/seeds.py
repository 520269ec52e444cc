"""Writes the seed corpora in Fuzz/Corpus (committed; rerun to regenerate): /usr/bin/python3 Fuzz/seeds.py"""
import os
import pathlib
import subprocess
import tempfile

import libtorrent as lt

CORPUS = pathlib.Path(__file__).resolve().parent / "Corpus"


def put(harness, name, data):
    folder = CORPUS / harness
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def torrents(root):
    (root / "one.bin").write_bytes(os.urandom(40000))
    (root / "many").mkdir()
    (root / "many" / "a.txt").write_bytes(b"a" * 20000)
    (root / "many" / "b.txt").write_bytes(b"b" * 30000)
    for name, source, flags in [("v1-single", "one.bin", lt.create_torrent.v1_only), ("hybrid-multi", "many", 0)]:
        fs = lt.file_storage()
        lt.add_files(fs, str(root / source))
        ct = lt.create_torrent(fs, 16384, flags=flags)
        ct.add_tracker("http://127.0.0.1:1/announce")
        ct.set_comment("seed")
        ct.add_url_seed("http://127.0.0.1:1/")
        lt.set_piece_hashes(ct, str(root))
        put("metainfo", name, lt.bencode(ct.generate()))


def mp3s(root):
    wav = root / "s.wav"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.2",
                    "-ar", "22050", "-ac", "1", str(wav)], check=True)
    for name, args in [("cbr", ["-b", "32"]), ("vbr-tagged", ["-V", "9", "--tt", "Title", "--ta", "Artist", "--tn", "3/9"])]:
        out = root / (name + ".mp3")
        subprocess.run(["lame", "--quiet", *args, str(wav), str(out)], check=True)
        put("mp3", name, out.read_bytes())


def main():
    put("form", "simple", "hashes=a%7Cb&deleteFiles=true&x=1+2&empty=&=skip")
    put("form", "escapes", "json=%7B%22save_path%22%3A%22%2Ftmp%22%7D&bad=%zz%&%C3%A9=%E2%82%AC")
    body = ("--XyZ\r\nContent-Disposition: form-data; name=\"urls\"\r\n\r\nmagnet:?a\nmagnet:?b\r\n"
            "--XyZ\r\nContent-Disposition: form-data; name=\"torrents\"; filename=\"a.torrent\"\r\n"
            "Content-Type: application/x-bittorrent\r\n\r\nd4:infoe\r\n--XyZ--\r\n")
    put("multipart", "fields-and-file", "multipart/form-data; boundary=XyZ\n" + body)
    put("multipart", "quoted-boundary", "multipart/form-data; boundary=\"XyZ\"\n" + body)
    put("multipart-stream", "fields-and-file", "\x07multipart/form-data; boundary=XyZ\n" + body)
    put("multipart-stream", "rfc5987", "\x01multipart/form-data; boundary=b\n--b\r\nContent-Disposition: form-data; "
        "name=\"file\"; filename*=UTF-8''%C3%A9t%C3%A9.txt\r\n\r\nsummer\r\n--b--\r\n")
    for i, header in enumerate(["bytes=0-99", "bytes=-500", "bytes=100-", "bytes=5-1", "bytes=0-0,10-20", "BYTES= 7 - 9 "]):
        put("range", f"r{i}", header)
    put("tus", "final", "filename bW92aWUubWt2,path aG9saWRheQ==,overwrite\nfinal;/api/v2/tus/a /api/v2/tus/b\n"
        "sha256 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
    put("tus", "partial", "filename\npartial\nmd5 1B2M2Y8AsgTpgAmY7PhCfg==")
    put("magnet", "v1", "magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567&dn=name"
        "&tr=udp%3A%2F%2Ftracker.example%3A80&ws=http%3A%2F%2Fseed.example%2F")
    put("magnet", "hybrid", "magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567"
        "&xt=urn:btmh:12200123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef&dn=x")
    put("magnet", "bare-v1", "0123456789abcdef0123456789abcdef01234567")
    put("magnet", "base32", "AEBAGBAFAYDQQCIKBMGA2DQPCAIREEYU")
    put("nova", "results", "magnet:?xt=urn:btih:00|Big Buck Bunny|276445467|12|3|https://example.org|"
        "https://example.org/desc|1700000000\nhttp://x/a.torrent|name|-1|x|y|site\n|empty|1|1|1|s\r\nshort|line\n")
    put("torznab", "results", '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" '
        'xmlns:torznab="http://torznab.com/schemas/2015/feed"><channel><item><title>Big Buck Bunny</title>'
        '<guid>http://127.0.0.1/details/1</guid><link>http://127.0.0.1/dl/1.torrent</link><size>276445467</size>'
        '<pubDate>Tue, 03 Jan 2023 11:00:00 +0100</pubDate><enclosure url="http://127.0.0.1/dl/1.torrent" length="276445467" '
        'type="application/x-bittorrent"/><torznab:attr name="seeders" value="12"/><torznab:attr name="peers" value="15"/>'
        '<torznab:attr name="magneturl" value="magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567"/></item>'
        '</channel></rss>')
    put("torznab", "error", '<?xml version="1.0" encoding="UTF-8"?><error code="100" description="Invalid API Key"/>')
    put("rss", "rss2", '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>T</title>'
        '<lastBuildDate>Mon, 02 Jan 2023 10:00:00 GMT</lastBuildDate><item><title>Show S01E02 1080p</title>'
        '<link>http://127.0.0.1/a.torrent</link><guid>a</guid><pubDate>Tue, 03 Jan 2023 11:00:00 +0100</pubDate>'
        '<enclosure url="http://127.0.0.1/a.torrent" type="application/x-bittorrent" length="10"/>'
        '<description><![CDATA[<b>x</b> &amp;]]></description></item></channel></rss>')
    put("rss", "atom", '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title type="xhtml">'
        '<div xmlns="http://www.w3.org/1999/xhtml">A&nbsp;B</div></title><entry><title>E</title><id>urn:1</id>'
        '<updated>2023-01-02T10:00:00Z</updated><link rel="enclosure" href="http://127.0.0.1/b.torrent"/>'
        '<content>c</content></entry></feed>')
    put("rss", "latin1", '<?xml version="1.0" encoding="ISO-8859-1"?><rss><channel><item><title>caf\xe9</title>'
        '</item></channel></rss>'.encode("latin-1"))
    with tempfile.TemporaryDirectory() as tmp:
        torrents(pathlib.Path(tmp))
    with tempfile.TemporaryDirectory() as tmp:
        mp3s(pathlib.Path(tmp))


if __name__ == "__main__":
    main()
