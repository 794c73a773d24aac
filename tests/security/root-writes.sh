#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# root-writes.sh - the files root writes in directories another user owns
# (docs/security.md §10): that user plants symlinks where
# root will write, and nothing outside the directory changes.
#   - pgsc-collect --db through a planted symlink: refused (exit 1), the
#     target untouched (it was opened O_RDWR and made a store before);
#   - pgsc-iterate's include file, with pgsc-iterate.conf.tmp planted as a
#     symlink (it was written through with a shell '>'), and
#     postgresql.conf planted as a symlink (it was appended to as root);
#   - pgsc-check-world cluster in a directory root does not own: refused.
# pgsc-iterate runs against a stand-in server (PGSC_PGBIN: a 'postgres'
# that answers -C, a 'pg_ctl' that says stopped) and stand-in pgsc
# programs, so only its writes before the first round are exercised.
# Root needed (the directory's owner is user nobody); fails without.
#   bash tests/security/root-writes.sh BINDIR SRCDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init root-writes
BIN=$1
SRC=$2
need_root "files root writes as another user's directory"
need_progs runuser
T=$T_WORK
chmod 755 "$T"
# the victim: a root file the other user cannot write
victim() { printf 'root:secret\n' >"$T/$1"; chmod 0600 "$T/$1"; }
intact() { [ "$(cat "$T/$1")" = root:secret ] && [ "$(stat -c %a "$T/$1")" = 600 ]; }

# 1. the collector's store
victim store.victim
: >"$T/empty.victim"; chmod 0600 "$T/empty.victim"
mkdir "$T/other"; chown nobody "$T/other"
runuser -u nobody -- ln -s "$T/store.victim" "$T/other/a.db"
runuser -u nobody -- ln -s "$T/empty.victim" "$T/other/b.db"
for db in a b; do
	"$BIN/pgsc-collect" --db "$T/other/$db.db" --import "$SRC/tests/fixtures/bad/fields.log" >/dev/null 2>"$T/collect.err"
	rc=$?
	if [ $rc != 0 ] && grep -q "a.db\|b.db" "$T/collect.err" && grep -q symlink "$T/collect.err" &&
		intact store.victim && [ ! -s "$T/empty.victim" ] && [ ! -e "$T/empty.victim-wal" ]; then
		ok "pgsc-collect --db through a planted symlink ($db): refused, target untouched"
	else
		bad "pgsc-collect --db through a symlink ($db): exit $rc, $(cat "$T/collect.err"); victim size $(stat -c %s "$T/empty.victim")"
	fi
done
# a store that is no symlink is still created 0600 there
if "$BIN/pgsc-collect" --db "$T/other/c.db" --import "$SRC/tests/fixtures/bad/fields.log" >/dev/null 2>&1 &&
	[ "$(stat -c %a "$T/other/c.db")" = 600 ]; then
	ok "a new store in that directory: created, 0600"
else
	bad "a new store in that directory was not made"
fi

# 2. pgsc-iterate's include file and its include line
mkdir -p "$T/pgbin" "$T/fakebin" "$T/data" "$T/work"
cat >"$T/pgbin/postgres" <<'EOF'
#!/bin/bash
# a stand-in server: postgres -D DIR -C NAME
d=$2
case $4 in
config_file) echo "$d/postgresql.conf" ;;
data_directory) echo "$d" ;;
port) echo 5999 ;;
unix_socket_directories) echo /tmp ;;
shared_preload_libraries) echo pgsc ;;
pgsc.global_syscall_default) sed -n "s/^pgsc.global_syscall_default = '\(.*\)'$/\1/p" "$d/pgsc-iterate.conf" ;;
*) exit 1 ;;
esac
EOF
printf '#!/bin/sh\nexit 3\n' >"$T/pgbin/pg_ctl"
printf '#!/bin/sh\nexit 1\n' >"$T/fakebin/pgsc-collect"
cp "$T/fakebin/pgsc-collect" "$T/fakebin/pgsc-report"
chmod 755 "$T/pgbin"/* "$T/fakebin"/*
chown nobody "$T/data"
chmod 700 "$T/data"
iterate() {
	PGSC_PGBIN=$T/pgbin PGSC_AUDIT_LOCK_HELD=1 bash "$SRC/tools/pgsc-iterate" --datadir "$T/data" \
		--bindir "$T/fakebin" --workdir "$T/work" --max-rounds 1 -- true >"$T/iterate.out" 2>&1
}
victim include.victim
runuser -u nobody -- sh -c "echo '# the server config' >'$T/data/postgresql.conf'"
runuser -u nobody -- ln -s "$T/include.victim" "$T/data/pgsc-iterate.conf.tmp"
iterate
inc=$T/data/pgsc-iterate.conf
if intact include.victim && [ -f "$inc" ] && [ ! -L "$inc" ] && [ "$(stat -c '%U %a' "$inc")" = "nobody 644" ] &&
	grep -qx 'pgsc.global_syscall_default = .log.' "$inc" &&
	grep -q "include_if_exists = 'pgsc-iterate.conf'" "$T/data/postgresql.conf" &&
	[ "$(stat -c %U "$T/data/postgresql.conf")" = nobody ]; then
	ok "pgsc-iterate: planted pgsc-iterate.conf.tmp not followed; include file nobody's, 0644"
else
	bad "pgsc-iterate with a planted .tmp: victim '$(cat "$T/include.victim")' $(stat -c %a "$T/include.victim"), include $(stat -c '%U %a' "$inc" 2>&1)"
	cat "$T/iterate.out"
fi
# the include file itself planted as a symlink: replaced, never followed
rm -f "$inc"
runuser -u nobody -- ln -s "$T/include.victim" "$inc"
iterate
if intact include.victim && [ -f "$inc" ] && [ ! -L "$inc" ]; then
	ok "pgsc-iterate: planted pgsc-iterate.conf symlink replaced, not followed"
else
	bad "pgsc-iterate with a planted pgsc-iterate.conf: victim '$(cat "$T/include.victim")'"
fi
victim conf.victim
rm -f "$T/data/postgresql.conf"
runuser -u nobody -- ln -s "$T/conf.victim" "$T/data/postgresql.conf"
iterate
rc=$?
if intact conf.victim && [ $rc = 2 ]; then
	ok "pgsc-iterate: postgresql.conf planted as a symlink: not appended to (exit $rc)"
else
	bad "pgsc-iterate appended through a planted postgresql.conf (exit $rc): '$(cat "$T/conf.victim")'"
fi

# 3. pgsc-check-world cluster: a directory root does not own
mkdir "$T/cl"; chown nobody "$T/cl"
if PGSC_PGBIN=$T/pgbin bash "$SRC/tools/pgsc-check-world" cluster "$T/cl" >"$T/cw.out" 2>&1; then
	bad "pgsc-check-world cluster in nobody's directory was accepted"
elif grep -q "owned by nobody" "$T/cw.out"; then
	ok "pgsc-check-world cluster: a directory of another user's refused"
else
	bad "pgsc-check-world cluster: $(cat "$T/cw.out")"
fi
t_done
