"""Session ids that every cookie jar sends back as it got them: qBittorrent's are 32 letters and digits. Python's
http.cookies (under aiohttp's cookie jar) quotes a value with `/`, `+` or `=`, and a quoted SID is no session."""
import asyncio
import re

import aiohttp

from conftest import PASSWORD

SESSIONS = 30


async def log_in_and_use(base):
    # unsafe=True: aiohttp keeps cookies of IP-address hosts only so (as qBittorrent clients on aiohttp set it).
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as client:
        async with client.post(f"{base}/api/v2/auth/login", data={"username": "admin", "password": PASSWORD}) as r:
            assert r.status == 200 and await r.text() == "Ok.", await r.text()
            sid = r.cookies["SID"].value
        async with client.get(f"{base}/api/v2/app/version") as r:
            return sid, r.status


def test_aiohttp_sessions_are_sent_back_as_they_came(qbtd_factory):
    q = qbtd_factory()

    async def run():
        return [await log_in_and_use(q.base) for _ in range(SESSIONS)]

    results = asyncio.run(run())
    assert all(re.fullmatch(r"[A-Za-z0-9]{32}", sid) for sid, _ in results), [sid for sid, _ in results]
    assert [status for _, status in results] == [200] * SESSIONS
