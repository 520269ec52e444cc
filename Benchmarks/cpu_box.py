"""A CPU cap per process, so several qbtd processes on one machine stand for several equal small machines: a cgroup
per name (cgroup v1's cpu controller, or v2's cpu.max), capped at `cores` of one core. `wrap(name)` is a command
prefix that moves the process into its cgroup and execs the rest (so the process stays the one started)."""
from pathlib import Path

V1 = Path("/sys/fs/cgroup/cpu")
V2 = Path("/sys/fs/cgroup")
PERIOD = 100000  # microseconds


class CpuBox:
    def __init__(self, cores, prefix="qbtd-bench"):
        self.cores, self.prefix, self.made = cores, prefix, []
        self.root = None
        if cores > 0:
            if (V1 / "cpu.cfs_quota_us").exists() or (V1 / "cgroup.procs").exists():
                self.root, self.v2 = V1, False
            elif (V2 / "cgroup.controllers").exists() and "cpu" in (V2 / "cgroup.subtree_control").read_text():
                self.root, self.v2 = V2, True
        self.why = None if self.root else ("no CPU cap: cgroups' cpu controller is not writable here" if cores > 0
                                           else "no CPU cap (asked)")

    def wrap(self, name):
        if not self.root:
            return []
        group = self.root / f"{self.prefix}-{name}"
        try:
            group.mkdir(exist_ok=True)
            quota = int(self.cores * PERIOD)
            if self.v2:
                (group / "cpu.max").write_text(f"{quota} {PERIOD}")
            else:
                (group / "cpu.cfs_period_us").write_text(str(PERIOD))
                (group / "cpu.cfs_quota_us").write_text(str(quota))
        except OSError as e:
            self.root, self.why = None, f"no CPU cap: {e}"
            return []
        self.made.append(group)
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(group / "cgroup.procs")]

    def describe(self):
        return self.why or f"each qbtd process capped at {self.cores:g} of a core (a cgroup each)"

    def remove(self):
        for group in self.made:
            try:
                group.rmdir()   # fails while a process is in it; they have all been stopped by now
            except OSError:
                pass
        self.made = []
