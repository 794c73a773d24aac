#!/usr/bin/env python3
# SPDX-License-Identifier: PostgreSQL
"""auditmon.py PIDFILE OUT - SECCOMP records of chosen process trees, read
from the kernel's read-only audit multicast group (AUDIT_NLGRP_READLOG).

For a run that must see its records for an hour while other tests come
and go as the kernel's audit daemon (tests/world/soak.sh): the multicast
group receives every record whoever the daemon is (lossy: the kernel
drops what a full socket cannot take; a 32 MiB buffer, and the soak's
servers make a handful).  A
record is kept when its pid is, or descends from, one of the pids listed
in PIDFILE (re-read every second); the ancestry is read from /proc when
the record arrives.  A server process gone by then cannot be attributed:
its records go to OUT.gone, to be counted.  OUT.ROOT (ROOT the listed pid it descends from)
gets auditd's RAW format, one line a record ("type=SECCOMP
msg=audit(...): ..."), which pgsc-collect --import reads.
Root (CAP_AUDIT_READ).  Stops on SIGTERM or SIGINT.
"""
import os
import signal
import socket
import struct
import sys
import time

NETLINK_AUDIT = 9
AUDIT_NLGRP_READLOG = 1
AUDIT_SECCOMP = 1326
SO_RCVBUFFORCE = 33


def ancestors(pid):
    """pid and its ancestors, from /proc (empty when it is gone)."""
    out = []
    while pid > 1 and len(out) < 64:
        out.append(pid)
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                st = f.read()
        except OSError:
            break
        # the comm field may hold spaces and parentheses: after the last ')'
        pid = int(st[st.rindex(b")") + 2:].split()[1])
    return out


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: auditmon.py PIDFILE OUT\n")
        return 2
    pidfile, outpath = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 * 1024 * 1024)
    s.bind((0, 1 << (AUDIT_NLGRP_READLOG - 1)))
    s.settimeout(1.0)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    roots, seen_at = set(), 0.0
    kept = overruns = 0
    outs = {}
    while not stop:
        if time.time() - seen_at > 1.0:
            try:
                with open(pidfile) as f:
                    roots = {int(x) for x in f.read().split()}
            except (OSError, ValueError):
                pass
            seen_at = time.time()
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        except OSError as e:  # ENOBUFS: the group overran
            overruns += 1
            sys.stderr.write("auditmon: %s\n" % e)
            continue
        off = 0
        while off + 16 <= len(data):
            ln, typ = struct.unpack_from("=IH", data, off)
            if ln < 16 or off + ln > len(data):
                break
            text = data[off + 16:off + ln].rstrip(b"\0").decode("utf-8", "replace")
            off += (ln + 3) & ~3
            if typ != AUDIT_SECCOMP:
                continue
            pid = 0
            for f in text.split():
                if f.startswith("pid="):
                    pid = int(f[4:]) if f[4:].isdigit() else 0
                    break
            anc = ancestors(pid) if pid else []
            hit = roots & set(anc)
            if not anc and 'exe="/usr/lib/postgresql/' in text:
                # gone before its record was read: no ancestry to
                # attribute it by; kept apart, counted
                hit = {"gone"}
            for root in hit:
                if root not in outs:
                    outs[root] = open("%s.%s" % (outpath, root), "a", buffering=1)
                outs[root].write("type=SECCOMP msg=%s\n" % text)
                kept += 1
    for f in outs.values():
        f.close()
    sys.stderr.write("auditmon: %d records kept, %d overruns\n" % (kept, overruns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
