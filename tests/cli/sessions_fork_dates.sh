#!/usr/bin/env bash
# tests/cli/sessions_fork_dates.sh -- `sessions show` of a fork never says it
# was updated before it was created.  A fork is dated 1 ms before its
# source (so it lists right below it and --resume still opens the source),
# which made show print "created <now>, updated <the source's last chat>";
# "updated" is now said only when later than "created".  The listing and
# --resume stay as they were.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
DB=$TMP/s.db

printf 'hello\n' | "$T" chat --demo --db "$DB" --new source --max-tokens 3 --seed 1 >/dev/null 2>&1 &&
    ok || fail "chat"
# the source's last chat an hour ago (minutes are what show prints)
sqlite3 "$DB" "update sessions set created_ms = created_ms - 7200000, updated_ms = updated_ms - 3600000" ||
    fail "sqlite3"
turn=$(sqlite3 "$DB" "select max(id) from turns where session_id = 1")
out=$("$T" sessions --db "$DB" fork 1 "$turn") && [ "$out" = "forked session 1 at turn $turn as session 2" ] &&
    ok || fail "fork: $out"

# the fork: created now, no "updated" before it
out=$("$T" sessions --db "$DB" show 2 | sed -n 2p)
case $out in
    "created "[0-9][0-9][0-9][0-9]-*"; "*" turns in the tree"*)
        case $out in *updated*) fail "fork's show says updated: $out" ;; *) ok ;; esac ;;
    *) fail "fork's show: $out" ;;
esac
# the source: both dates, updated after created
out=$("$T" sessions --db "$DB" show 1 | sed -n 2p)
case $out in "created "*", updated "*"; "*) ok ;; *) fail "source's show: $out" ;; esac

# listed right below its source, which --resume still opens
ids=$("$T" sessions --db "$DB" list | awk 'NR > 1 { print $1 }' | tr '\n' ' ')
[ "$ids" = "1 2 " ] && ok || fail "list order: $ids"
out=$(printf '/history\n' | "$T" chat --db "$DB" --resume 2>&1 >/dev/null)
case $out in *"resumed session 1: source "*) ok ;; *) fail "--resume: $out" ;; esac

# chatted in, the fork was updated after its creation: said again
printf 'more\n' | "$T" chat --db "$DB" --session 2 --max-tokens 2 --seed 1 >/dev/null 2>&1 ||
    fail "chat in the fork"
out=$("$T" sessions --db "$DB" show 2 | sed -n 2p)
case $out in "created "*", updated "*"; "*) ok ;; *) fail "fork's show after a chat: $out" ;; esac
finish
