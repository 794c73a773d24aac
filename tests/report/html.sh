#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# html.sh - pgsc-report --format=html: one self-contained page.
#   1. a store of three rounds (a recorded log cut in three) with hostile
#      text planted in it (an exe, a role, a label holding tags, quotes,
#      an escape byte) gives a page that loads nothing (a CSP of
#      default-src 'none', no script, no src or href, no URL but the SVG
#      namespace), whose tags balance, where every planted text shows
#      escaped, whose G column is the JSON report's global list and whose
#      chart has two bars per round;
#   2. headless Chromium (Debian's chromium, no network namespace) takes a
#      screenshot that is not blank: many colours, and the chart's two bar
#      colours present (a stdlib PNG reader);
#   3. the page tells one story, asserted on the DOM the real
#      browser laid out at 1280 px (a copy of the page with a probe script
#      appended and the CSP line dropped, printed with --dump-dom): no
#      horizontal overflow, the matrix within the window, one box colour
#      per case (green: nothing lost, nothing unattributed; amber: records
#      unattributed; red: not usable, and no green then), integer y ticks,
#      one per integer at most; the rows sorted dangerous and rare first by
#      default, --sort name by name.
#   bash tests/report/html.sh BINDIR GOLDENDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init html
BIN=$1
GOLDEN=$2
need_progs chromium python3 sqlite3
T=$T_WORK

zcat "$GOLDEN/raw.log.gz" >"$T/raw.log"
total=$(wc -l <"$T/raw.log")
split -l $(( (total + 2) / 3 )) -d -a 1 "$T/raw.log" "$T/part."
for p in 0 1 2; do
	"$BIN/pgsc-collect" -q --db "$T/s.db" --label "part $p" --import "$T/part.$p" ||
		bad "import of part $p failed"
done
[ "$(sqlite3 "$T/s.db" 'SELECT count(*) FROM rounds')" = 3 ] || bad "want 3 rounds"
# hostile text: an example exe, a role name, a round label
sqlite3 "$T/s.db" "UPDATE aggregates SET example_exe = '<img src=x onerror=alert(1)>\"&' || char(27) || '[31m' WHERE nr = 0;
UPDATE aggregates SET role = '<script>alert(2)</script>' WHERE role = 'walwriter';
UPDATE rounds SET label = '<iframe src=\"http://example.com/\"></iframe>' WHERE id = 2;" ||
	bad "cannot plant the hostile text"

"$BIN/pgsc-report" --db "$T/s.db" --format=html >"$T/report.html" 2>"$T/html.err" ||
	bad "pgsc-report --format=html: exit $?: $(cat "$T/html.err")"
"$BIN/pgsc-report" --db "$T/s.db" --format=json >"$T/report.json" ||
	bad "pgsc-report --format=json failed"
python3 - "$T/report.html" "$T/report.json" <<'PY' || bad "the page: see above"
import html.parser, json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
rep = json.load(open(sys.argv[2]))
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)
low = page.lower()
check("content-security-policy" in low and "default-src 'none'" in page, "no CSP default-src 'none'")
for bad_tag in ("<script", "<img", "<iframe", "<link", "<object", "<embed", "@import", "url("):
    check(bad_tag not in low, "the page holds %s" % bad_tag)
# a URL in a tag could be fetched; one in (escaped) text cannot
urls = set(u for t in re.findall(r"<[^>]*>", page) for u in re.findall(r"https?://[^\s\"'<>]+", t))
check(urls <= {"http://www.w3.org/2000/svg"}, "URLs in tags: %s" % urls)
# the planted text, escaped
check("&lt;img src=x onerror=alert(1)&gt;\\x22&amp;\\x1b[31m" in page, "the hostile exe is not shown escaped")
check("&lt;script&gt;alert(2)&lt;/script&gt;" in page, "the hostile role is not shown escaped")
check("&lt;iframe" in page, "the hostile label is not shown escaped")
check("\x1b" not in page, "a raw escape byte in the page")
# tags balance
VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "line", "path", "circle"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.attrs = []
    def handle_starttag(self, tag, attrs):
        self.attrs += [a for a, v in attrs]
        if tag not in VOID: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.attrs += [a for a, v in attrs]
    def handle_endtag(self, tag):
        if tag in VOID: return
        if not self.stack or self.stack[-1] != tag:
            errors.append("unbalanced </%s> (open: %s)" % (tag, self.stack[-3:]))
        else: self.stack.pop()
p = P(); p.feed(page); p.close()
check(not p.stack, "unclosed tags %s" % p.stack)
check(not {"src", "href", "onerror", "onload"} & set(p.attrs), "fetching or script attributes: %s" % ({"src", "href", "onerror", "onload"} & set(p.attrs)))
# the G column is the global list of the JSON report
rows = re.findall(r'<tr(?: class="risk")?><td class="n">([a-z0-9_]+)</td><td class="n">[^<]*</td><td( class="g")?>', page)
g = sorted({n for n, cls in rows if cls})
# (and the module's needs the records lacked, added by pgsc-report and named on the page)
added = rep["module_needs_added"]
check(sorted(set(g) | set(added)) == sorted(rep["global"]), "G column %d names + %d added, JSON global %d" % (len(g), len(added), len(rep["global"])))
check(not added or ("added to the global list, not seen in the records: " + ",".join(added)) in page, "the page does not name the added needs %s" % added)
check(len(rows) + len(added) >= len(rep["global"]), "fewer matrix rows than global names")
# the chart: two bars per round
bars = re.findall(r"<title>round (\d+): (\d+) new to the (global|session) list</title>", page)
check(len(bars) == 6, "%d chart bars, want 6" % len(bars))
check(sum(int(n) for r, n, k in bars if k == "global") + len(added) == len(rep["global"]), "the global bars do not add up to the global list")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY

# a store whose records are all unattributed: the page says so, exit 1
zcat "$GOLDEN/norules.log.gz" >"$T/norules.log"
"$BIN/pgsc-collect" -q --db "$T/n.db" --import "$T/norules.log" 2>/dev/null
rc=0; "$BIN/pgsc-report" --db "$T/n.db" --format=html >"$T/n.html" 2>/dev/null || rc=$?
[ $rc = 1 ] || bad "--format=html of an unattributed store: exit $rc, want 1"
grep -q 'class="warn"><b>These lists are not usable.</b> .*examples/pgsc.rules' "$T/n.html" ||
	bad "the page of an unattributed store has no warning"

# 2. the screenshot
mkdir -p "$T/profile"
net=()
command -v unshare >/dev/null && unshare -n true 2>/dev/null && net=(unshare -n)
timeout 120 "${net[@]}" chromium --headless --no-sandbox --disable-gpu \
	--disable-background-networking --disable-component-update --disable-sync \
	--no-first-run --user-data-dir="$T/profile" --window-size=1280,1800 \
	--screenshot="$T/shot.png" "file://$T/report.html" >"$T/chromium.log" 2>&1 ||
	bad "chromium --headless --screenshot failed: $(tail -3 "$T/chromium.log")"
[ -s "$T/shot.png" ] || bad "no screenshot"
python3 - "$T/shot.png" <<'PY' || bad "the screenshot is blank or lacks the chart"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, hdr = 8, b"", None
while pos < len(data):
    n, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b"IHDR": hdr = struct.unpack(">IIBBBBB", body)
    elif typ == b"IDAT": idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = hdr
assert depth == 8 and ctype in (2, 6) and interlace == 0, hdr
bpp = 4 if ctype == 6 else 3
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours, nonwhite, i = {}, 0, 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[x] = (line[x] + pr) & 255
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        colours[px] = colours.get(px, 0) + 1
        if px != b"\xff\xff\xff": nonwhite += 1
    prev = line
blue, orange = colours.get(bytes.fromhex("2a6ebb"), 0), colours.get(bytes.fromhex("e67e22"), 0)
share = nonwhite / (w * h)
print("screenshot %dx%d: %d colours, %.1f%% not white, %d px of the global bar colour, %d of the session bar colour"
      % (w, h, len(colours), 100 * share, blue, orange))
ok = len(colours) >= 50 and share >= 0.05 and blue >= 500 and orange >= 500
sys.exit(0 if ok else 1)
PY
# 3. the DOM in the real browser at 1280 px
cat >"$T/probe.js" <<'JS'
window.addEventListener('load', function () {
  var r = {inner: window.innerWidth, scroll: document.documentElement.scrollWidth};
  var m = document.querySelector('table.m');
  r.matrix_right = m ? Math.ceil(m.getBoundingClientRect().right) : -1;
  r.boxes = [];
  document.querySelectorAll('div.ok, div.amber, div.warn').forEach(function (d) {
    r.boxes.push([d.className, getComputedStyle(d).backgroundColor]);
  });
  r.ticks = [];
  document.querySelectorAll('svg text.tick').forEach(function (t) { r.ticks.push(t.textContent); });
  r.rows = [];
  document.querySelectorAll('table.m tr').forEach(function (tr, i) {
    if (i === 0) return;
    r.rows.push([tr.className, tr.cells[0].textContent, Number(tr.cells[6].textContent)]);
  });
  var pre = document.createElement('pre');
  pre.id = 'pgsc-dom';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
});
JS
# dom NAME PAGE: the probe's JSON of PAGE into $T/NAME.dom
dom() {
	sed '/Content-Security-Policy/d' "$2" >"$T/$1.probe.html"
	printf '<script>%s</script>\n' "$(cat "$T/probe.js")" >>"$T/$1.probe.html"
	timeout 120 "${net[@]}" chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$T/profile" --window-size=1280,1800 \
		--dump-dom "file://$T/$1.probe.html" 2>"$T/$1.chromium.log" |
		sed -n 's/.*<pre id="pgsc-dom">\([^<]*\)<\/pre>.*/\1/p' >"$T/$1.dom"
	[ -s "$T/$1.dom" ] || bad "$1: chromium --dump-dom gave no probe result: $(tail -3 "$T/$1.chromium.log")"
}
# a whole recording in one round: nothing unattributed, one serial
# missing from the recording (docs/robustness.md, F4)
"$BIN/pgsc-collect" -q --db "$T/g.db" --import "$T/raw.log"
"$BIN/pgsc-report" --db "$T/g.db" --format=html >"$T/g.html" || bad "the page of the golden store: exit $?"
"$BIN/pgsc-report" --db "$T/g.db" --format=html --sort name >"$T/gn.html" || bad "--sort name: exit $?"
rc=0; "$BIN/pgsc-report" --db "$T/g.db" --format=html --sort bogus >/dev/null 2>"$T/sort.err" || rc=$?
[ $rc = 2 ] && grep -q 'sort takes risk, rare, count, name or number' "$T/sort.err" || bad "--sort bogus: exit $rc: $(cat "$T/sort.err")"
# max 1 on the chart: a postmaster and a backend, one syscall
pm='auid=4294967295 uid=101 gid=104 ses=4294967295 pid=4000 comm="postgres" exe="/usr/lib/postgresql/15/bin/postgres" sig=0 arch=c000003e'
{
	echo "type=SECCOMP msg=audit(1796252190.001:1): $pm syscall=0 compat=0 ip=0x7f5670d054e7 code=0x7ffc0000"
	echo "type=SYSCALL msg=audit(1796252190.002:2): arch=c000003e syscall=56 success=yes exit=4001 a0=0 a1=0 a2=0 a3=8 items=0 ppid=1 pid=4000 auid=4294967295 uid=101 gid=104 euid=101 suid=101 fsuid=101 egid=104 sgid=104 fsgid=104 tty=(none) ses=4294967295 comm=\"postgres\" exe=\"/usr/lib/postgresql/15/bin/postgres\" key=\"pgsc\""
	echo "type=SECCOMP msg=audit(1796252190.003:3): ${pm/pid=4000/pid=4001} syscall=0 compat=0 ip=0x7f5670d054e7 code=0x7ffc0000"
} >"$T/one.log"
"$BIN/pgsc-collect" -q --db "$T/one.db" --postmaster-pid 4000 --import "$T/one.log"
"$BIN/pgsc-report" --db "$T/one.db" --format=html >"$T/one.html" || bad "the page of one syscall: exit $?"
dom golden "$T/g.html"; dom sorted "$T/gn.html"; dom three "$T/report.html"
dom unusable "$T/n.html"; dom one "$T/one.html"
python3 - "$T" <<'PY' || bad "the DOM: see above"
import json, sys
T = sys.argv[1]
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)
GREEN, AMBER, RED = "rgb(227, 244, 225)", "rgb(255, 243, 205)", "rgb(253, 226, 225)"
# the golden recording misses one serial (docs/robustness.md, F4): amber;
# "one" is whole and attributed: green
want = {"golden": {AMBER}, "sorted": {AMBER}, "three": {AMBER}, "unusable": {RED}, "one": {GREEN}}
for name, colours in want.items():
    try:
        d = json.load(open("%s/%s.dom" % (T, name)))
    except (OSError, ValueError) as e:
        errors.append("%s: no DOM result (%s)" % (name, e)); continue
    check(d["inner"] == 1280, "%s: window %d px, want 1280" % (name, d["inner"]))
    check(d["scroll"] <= d["inner"], "%s: the page overflows: %d px wide in a %d px window" % (name, d["scroll"], d["inner"]))
    check(d["matrix_right"] <= d["inner"], "%s: the role table ends at %d px" % (name, d["matrix_right"]))
    got = {c for k, c in d["boxes"]}
    check(got == colours, "%s: box colours %s, want %s" % (name, d["boxes"], colours))
    ticks = d["ticks"]
    check(ticks and all(t.isdigit() for t in ticks), "%s: y ticks %s are not integers" % (name, ticks))
    check(len(set(ticks)) == len(ticks) and len(ticks) <= 6, "%s: y ticks %s repeat or crowd" % (name, ticks))
    print("%s: %d px of %d, matrix to %d px, boxes %s, ticks %s" % (name, d["scroll"], d["inner"], d["matrix_right"], [k for k, c in d["boxes"]], ticks))
    if name == "one":
        check(ticks == ["0", "1"], "one: y ticks %s, want 0, 1" % ticks)
    if name == "golden":
        rows = d["rows"]
        risk = [r for r in rows if r[0] == "risk"]
        check(risk and rows[:len(risk)] == risk, "golden: the security-relevant rows are not first")
        rest = [r[2] for r in rows[len(risk):]]
        check(rest == sorted(rest), "golden: the other rows are not rarest first")
        check({r[1] for r in risk} >= {"execve", "socket", "kill"}, "golden: execve, socket or kill not marked: %s" % [r[1] for r in risk])
    if name == "sorted":
        names = [r[1] for r in d["rows"]]
        check(names == sorted(names), "--sort name: rows not by name")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY

# PGSC_HTML_SHOT=FILE keeps the screenshot (and FILE.html the page)
if [ -n "${PGSC_HTML_SHOT:-}" ]; then
	cp "$T/shot.png" "$PGSC_HTML_SHOT"; cp "$T/report.html" "$PGSC_HTML_SHOT.html"
fi
t_done
