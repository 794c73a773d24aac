#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/report/k8s-docs.sh - the YAML of docs/kubernetes.md as its APIs
# read it.
#
#   bash tests/report/k8s-docs.sh BINDIR SRCDIR
#
# Every ```yaml block of the page is parsed (python3-yaml) and checked
# against the API it names:
#   - seccompProfile, on a Pod's or a container's securityContext and on
#     a CloudNativePG Cluster's spec, as core/v1 SeccompProfile defines
#     it: type one of Unconfined, RuntimeDefault, Localhost;
#     localhostProfile a relative path without "..", given exactly when
#     type is Localhost;
#   - each Localhost path is one the page's commands write: the file of
#     "pgsc-report ... --format oci > /var/lib/kubelet/seccomp/PATH", or
#     operator/NAMESPACE/NAME.json of the SeccompProfile that --format spo
#     writes (its metadata.name taken from pgsc-report's own output) in
#     the pod's namespace;
#   - the blocks are the three the page promises (a Pod with the kubelet
#     file, a Cluster of postgresql.cnpg.io/v1, a Pod with the operator's);
#   - the table of --base runtime-default's cost, measured on
#     examples/lists/ against src/containerd_default.def.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init k8s-docs
t_bindir "k8s-docs.sh BINDIR SRCDIR" "$@"
SRC=$(cd "${2:?usage: k8s-docs.sh BINDIR SRCDIR}" && pwd)
need_exec "$BINDIR/pgsc-report" "$BINDIR/pgsc-collect"
need_progs python3
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is missing (tools/install-deps.sh)"
T=$T_WORK
zcat "$SRC/tests/golden/raw.log.gz" >"$T/raw.log"
"$BINDIR/pgsc-collect" --db "$T/x.db" --import "$T/raw.log" >/dev/null 2>&1 || fail "import of raw.log"
"$BINDIR/pgsc-report" --db "$T/x.db" --format spo >"$T/x.spo.yaml" 2>/dev/null || fail "--format spo"

python3 - "$SRC/docs/kubernetes.md" "$T/x.spo.yaml" <<'EOF'
import re, sys, yaml
doc = open(sys.argv[1]).read()
spo_name = yaml.safe_load(open(sys.argv[2]))["metadata"]["name"]
blocks = [yaml.safe_load(b) for b in re.findall(r"^```yaml\n(.*?)^```", doc, re.S | re.M)]
oci_files = set(re.findall(r"--format oci > /var/lib/kubelet/seccomp/(\S+)", doc))
spo_cmds = re.findall(r"--format spo > \S+", doc)
fails = []

def profile(sp, where, ns):
    # core/v1 SeccompProfile
    if not isinstance(sp, dict) or set(sp) - {"type", "localhostProfile"}:
        fails.append(f"{where}: fields {sp}")
        return None
    t = sp.get("type")
    if t not in ("Unconfined", "RuntimeDefault", "Localhost"):
        fails.append(f"{where}: type {t!r}")
    lp = sp.get("localhostProfile")
    if (t == "Localhost") != (lp is not None):
        fails.append(f"{where}: localhostProfile given iff type Localhost")
    if lp is not None and (lp.startswith("/") or ".." in lp.split("/")):
        fails.append(f"{where}: localhostProfile {lp!r} is not relative")
    if lp is not None and lp not in oci_files and lp != f"operator/{ns}/{spo_name}.json":
        fails.append(f"{where}: {lp!r} is no file the page writes ({sorted(oci_files)}, operator/{ns}/{spo_name}.json)")
    return lp

seen = []
for b in blocks:
    kind, api = b.get("kind"), b.get("apiVersion")
    ns = b.get("metadata", {}).get("namespace", "default")
    if (api, kind) == ("v1", "Pod"):
        sc = b["spec"].get("securityContext", {})
        lp = profile(sc.get("seccompProfile"), "Pod", ns)
        for c in b["spec"]["containers"]:
            if "seccompProfile" in c.get("securityContext", {}):
                profile(c["securityContext"]["seccompProfile"], "container", ns)
        seen.append(("pod-operator" if lp and lp.startswith("operator/") else "pod-kubelet"))
    elif (api, kind) == ("postgresql.cnpg.io/v1", "Cluster"):
        profile(b["spec"].get("seccompProfile"), "Cluster", ns)
        seen.append("cnpg")
    else:
        fails.append(f"a block of {api} {kind}, which this test does not know")
if sorted(seen) != ["cnpg", "pod-kubelet", "pod-operator"]:
    fails.append(f"blocks {seen}: want a kubelet Pod, a CloudNativePG Cluster, an operator Pod")
if not oci_files or not spo_cmds:
    fails.append("the page has no --format oci or --format spo command")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
EOF
check "docs/kubernetes.md: the YAML blocks as core/v1 and CloudNativePG read them, paths the page writes" $?

# The "What it costs" table of --base runtime-default, computed: for each
# list of examples/lists/ (global and session), its names, the delta (not
# in containerd's unconditional names, B of src/containerd_default.def),
# what B adds beyond it, and the union; a row for every file and list, and
# the release the page names is the data's.
python3 - "$SRC/docs/kubernetes.md" "$SRC/src/containerd_default.def" "$SRC"/examples/lists/*.guc <<'EOF'
import os, re, sys
doc = open(sys.argv[1]).read()
d = open(sys.argv[2]).read()
B = set(re.findall(r'^CONTAINERD_ALLOW\("([a-z0-9_]+)"\)$', d, re.M))
version = re.search(r'^CONTAINERD_DEFAULT\("([0-9.]+)", ', d, re.M).group(1)
rows = {(f, l): tuple(map(int, n)) for f, l, *n in
        re.findall(r"^\| `(\S+\.guc)` (global|session) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", doc, re.M)}
fails = []
if len(B) < 200:
    fails.append(f"{sys.argv[2]}: {len(B)} names")
if f"containerd-default-{version}" not in doc or f"containerd {version}" not in doc:
    fails.append(f"the page does not name containerd {version}, the data's release")
want = set()
for path in sys.argv[3:]:
    text = open(path).read()
    for l in ("global", "session"):
        m = re.search(r"^(?:\w+\.)?%s_syscall_allow = '(.*)'$" % l, text, re.M)
        L = set(m.group(1).split(","))
        key = (os.path.basename(path), l)
        want.add(key)
        got = (len(L), len(L - B), len(B - L), len(B | L))
        if rows.get(key) != got:
            fails.append(f"{key}: the page says {rows.get(key)}, measured {got}")
if set(rows) != want:
    fails.append(f"rows {sorted(set(rows) ^ want)} do not match examples/lists/")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
EOF
check "docs/kubernetes.md: the --base runtime-default table measured on examples/lists/ against src/containerd_default.def" $?
t_done
