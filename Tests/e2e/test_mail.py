"""Issue 16, e-mail on completion: qBittorrent's notification (sender, recipient, SMTP server with its login) for
each finished torrent and for app/sendTestEmail, against an SMTP server (aiosmtpd) the test runs on 127.0.0.1."""
import base64
import email
import json
import os

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from conftest import free_port, wait_for
from test_stream import FileSeeder


class Inbox:
    """Collects every message delivered; logins must be user/secret."""

    def __init__(self):
        self.messages = []
        self.port = free_port()

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (b"user", b"secret")
            return AuthResult(success=ok, handled=False)  # aiosmtpd answers 535 itself

        self.controller = Controller(self, hostname="127.0.0.1", port=self.port, authenticator=authenticator,
                                     auth_required=True, auth_require_tls=False)
        self.controller.start()

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.mail_from, envelope.rcpt_tos, email.message_from_bytes(envelope.content)))
        return "250 OK"

    def stop(self):
        self.controller.stop()


def body(message):
    return base64.b64decode(message.get_payload()).decode()


def set_prefs(s, q, **values):
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(values)}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)


def test_notification_mails_as_qbittorrent_sends_them(qbtd_factory, tmp_path):
    inbox = Inbox()
    try:
        seeder = FileSeeder(tmp_path / "seed", "Mailed show", {"e1.mkv": os.urandom(1_500_000)}, piece_size=64 * 1024)
        q = qbtd_factory()
        s = q.session()
        set_prefs(s, q, mail_notification_enabled=True, mail_notification_sender="qbtd@example.org",
                  mail_notification_email="me@example.org", mail_notification_smtp=f"127.0.0.1:{inbox.port}",
                  mail_notification_auth_enabled=True, mail_notification_username="user",
                  mail_notification_password="secret")

        assert s.post(q.url("app/sendTestEmail")).status_code == 200
        wait_for(lambda: inbox.messages, 10, what="the test e-mail")
        sender, recipients, test = inbox.messages[0]
        assert (sender, recipients) == ("qbtd@example.org", ["me@example.org"])
        assert test["Subject"] == "Test email" and test["From"] == "qBittorrent <qbtd@example.org>"
        assert test["To"] == "me@example.org" and test["Date"]
        assert body(test) == "This is a test email.\r\nThank you for using qBittorrent.\r\n"

        r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")})
        assert r.text == "Ok."
        torrent_id = str(seeder.info.info_hashes().get_best())
        s.post(q.url("torrents/addPeers"), data={"hashes": torrent_id, "peers": f"127.0.0.1:{seeder.port}"})
        wait_for(lambda: len(inbox.messages) == 2, 60, what="the e-mail for the finished torrent")
        done = inbox.messages[1][2]
        assert done["Subject"] == 'Torrent "Mailed show" has finished downloading', done["Subject"]
        lines = body(done).split("\r\n")
        save = s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()[0]["save_path"]
        assert lines[:3] == ["Torrent name: Mailed show", "Torrent size: 1.4\u00a0MiB", f"Save path: {save}"], lines
        assert lines[4].startswith("The torrent was downloaded in ") and lines[7] == "Thank you for using qBittorrent."

        # An address that would end the SMTP command (CR LF, '>') is refused, never sent as commands.
        set_prefs(s, q, mail_notification_email="me@example.org>\r\nRCPT TO:<evil@example.org")
        s.post(q.url("app/sendTestEmail"))
        wait_for(lambda: any("not an e-mail address" in e["message"] for e in s.get(q.url("log/main")).json()), 20,
                 what="the refused address in log/main")
        assert len(inbox.messages) == 2
        set_prefs(s, q, mail_notification_email="me@example.org")

        # A wrong login: nothing is delivered, the log says why.
        set_prefs(s, q, mail_notification_password="wrong")
        s.post(q.url("app/sendTestEmail"))
        wait_for(lambda: any(e["message"].startswith("Email Notification Error:") and e["type"] == 4
                             for e in s.get(q.url("log/main")).json()), 20, what="the mail error in log/main")
        assert len(inbox.messages) == 2
    finally:
        inbox.stop()
