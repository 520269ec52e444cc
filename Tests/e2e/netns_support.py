"""Machines on one machine: a bridge in the root network namespace and a network namespace per name, each with one
address on it. Partitions drop packets without a word (as a pulled cable or a partition does: no reset, no ICMP),
and are mended by taking them away:
  - `cut(name, extra)`: a blackhole route in the name's namespace to an address on the root namespace's side (a
    database's): that program's packets go nowhere;
  - `isolate(*names)`: the names' bridge ports isolated (`bridge link set … isolated on`), so the namespaces no longer
    reach each other, while each still reaches the root namespace (the database, the tests' clients). Routes would
    not do for this: libtorrent binds its sockets to their device, and a blackhole route does not stop those.
Needs root (CAP_NET_ADMIN) and iproute2."""
import os
import subprocess


def ip(*args, ns=None):
    cmd = ["ip"] + (["-n", ns] if ns else []) + list(args)
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=30)


class Network:
    """10.77.K.0/24 on a bridge: the root namespace is .1 (the tests' clients, seeders), `extra` addresses go on the
    bridge too (a database's own address, so it can be cut apart from the clients), each name gets a namespace at
    .11, .12, …, reached from the root namespace and from each other."""

    def __init__(self, names, extra=()):
        tag = os.getpid() % 100000
        self.net = f"10.77.{os.getpid() % 250}"
        self.bridge = f"qbr{tag}"
        self.root = f"{self.net}.1"
        self.extra = {name: f"{self.net}.{5 + i}" for i, name in enumerate(extra)}
        self.spaces = {name: (f"qbtd-{tag}-{name}", f"{self.net}.{11 + i}", f"qv{tag}{i}") for i, name in enumerate(names)}
        try:
            ip("link", "add", self.bridge, "type", "bridge")
            ip("addr", "add", f"{self.root}/24", "dev", self.bridge)
            for address in self.extra.values():
                ip("addr", "add", f"{address}/24", "dev", self.bridge)
            ip("link", "set", self.bridge, "up")
            for ns, address, veth in self.spaces.values():
                ip("netns", "add", ns)
                ip("link", "add", veth, "type", "veth", "peer", "name", veth + "p")
                ip("link", "set", veth + "p", "netns", ns)
                ip("link", "set", veth, "master", self.bridge)
                ip("link", "set", veth, "up")
                ip("addr", "add", f"{address}/24", "dev", veth + "p", ns=ns)
                ip("link", "set", veth + "p", "up", ns=ns)
                ip("link", "set", "lo", "up", ns=ns)
        except Exception:
            self.remove()
            raise

    @property
    def subnet(self):
        return f"{self.net}.0/24"

    def address(self, name):
        return self.spaces[name][1] if name in self.spaces else self.extra[name]

    def wrapper(self, name):
        """A command prefix that runs a program in the name's namespace (`ip netns exec` execs it: same process)."""
        return ["ip", "netns", "exec", self.spaces[name][0]]

    def cut(self, name, extra):
        """Packets from `name` to the address `extra` names dropped from now on."""
        ip("route", "add", "blackhole", f"{self.extra[extra]}/32", ns=self.spaces[name][0])

    def mend(self, name, extra):
        ip("route", "del", "blackhole", f"{self.extra[extra]}/32", ns=self.spaces[name][0])

    def isolate(self, *names, on=True):
        """The namespaces of `names` cut off from each other (each still reaches the root namespace)."""
        for name in names:
            subprocess.run(["bridge", "link", "set", "dev", self.spaces[name][2], "isolated", "on" if on else "off"],
                           check=True, capture_output=True, timeout=30)

    def remove(self):
        for ns, _, veth in self.spaces.values():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
            subprocess.run(["ip", "link", "del", veth], capture_output=True, timeout=30)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True, timeout=30)
