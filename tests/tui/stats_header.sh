#!/usr/bin/env bash
# tests/tui/stats_header.sh -- a reply's header with its stats (F9) fits the
# transcript's width: the token count at the right stays, and the stats
# ("prefill N tok/s, decode N tok/s, max tokens") are cut after a
# whole item with an ellipsis inside their parentheses (after a whole word
# when not even one item fits) -- never mid-word without a mark.  They were printed whole and clipped at the edge ("decode
# 27636.7 tok/"), and the right-hand count was dropped.  80 columns (beside
# the sidebar), 40 and 20; the C locale's "..." and the Chinese messages'
# "，" too.  No number twice: the stats began with the reply's count
# ("40 tok, prefill ...  40 tok"), which took the speeds' room at 80
# columns; the right-hand count is the one kept (it is there without F9).
. "$(dirname "$0")/tmuxlib.sh"

# header W: the first reply header row, its first W cells (the
# transcript's width: the sidebar's border follows), trailing blanks off
header() {
    screen | python3 -c 'import sys, unicodedata as u
w = int(sys.argv[1])
for l in sys.stdin:
    if l.startswith("RWKV") and (len(l) == 4 or l[4] in " \n"):
        out, n = "", 0
        for c in l.rstrip("\n"):
            n += 2 if u.east_asian_width(c) in "WF" else 1
            if n > w:
                break
            out += c
        print(out.rstrip())
        break' "$1"
}

# check_header DESC W FULL ELL [DROP]: the header in a transcript W
# columns wide is "RWKV  (STATS)  40 tok" where STATS is FULL, or FULL's
# first whole items (cut before a separator: "," or "，") followed by ELL;
# when not even the first item fits, after one of its words; DROP=1: or no
# stats at all (no room for one item and the ellipsis)
check_header() {
    local desc=$1 w=$2 full=$3 ell=$4 h i st first
    for i in $(seq 50); do
        h=$(header "$w")
        case $h in *"tok") break ;; esac
        sleep 0.1
    done
    if ! printf '%s' "$h" | grep -Eq '  40 tok$'; then
        fail "$desc: no token count at the right: '$h'"; return
    fi
    ok
    # no number twice: "40 tok" once (not in "140 tok/s")
    if [ "$(printf '%s\n' "$h" | grep -oE '(^|[^0-9.])40 tok([^/]|$)' | wc -l)" = 1 ]; then ok; else
        fail "$desc: the token count twice: '$h'"
    fi
    if [ "$(cells "$h")" -le $((w - 1)) ]; then ok; else
        fail "$desc: the header is wider than the pane: '$h'"
    fi
    if [ "${5:-0}" = 1 ] && printf '%s' "$h" | grep -Eq '^RWKV +40 tok$'; then ok; return; fi
    st=$(printf '%s' "$h" | sed -nE 's/^RWKV  \((.*)\) +40 tok$/\1/p')
    if [ -z "$st" ]; then fail "$desc: no '(stats)' between the name and the count: '$h'"; return; fi
    if [ "$st" = "$full" ]; then ok; return; fi
    case $st in
        *"$ell") ;;
        *) fail "$desc: stats cut without a mark: '$h'"; return ;;
    esac
    st=${st%"$ell"}
    first=${full%%[,，]*}
    case $full in
        "$st,"*|"$st，"*) ok ;;
        # no room for the first item: cut after a whole word of it
        "$st "*) [ ${#st} -lt ${#first} ] && ok ||
                     fail "$desc: stats cut mid-item though an item fits: '$h' (whole: '$full')" ;;
        *) fail "$desc: stats not cut after a whole item: '$h' (whole: '$full')" ;;
    esac
}

# cells: the display width of $1 (CJK: 2 cells)
cells() {
    python3 -c 'import sys, unicodedata as u
print(sum(2 if u.east_asian_width(c) in "WF" else 1 for c in sys.argv[1]))' "$1"
}

# the whole stats, from a header wide enough for them (W columns)
whole_stats() {
    local i s
    for i in $(seq 50); do
        s=$(header "$1" | sed -nE 's/^RWKV  \((.*)\) +40 tok$/\1/p')
        [ -n "$s" ] && { echo "$s"; return 0; }
        sleep 0.1
    done
    return 1
}

# (at 20 columns not one word of the stats fits beside the ellipsis: there
# they may go, never "(pr…)")
for loc in utf8 c zh; do
    case $loc in
        utf8) env="TERM=screen"; ell='…' ;;
        c)    env="TERM=screen LANG=C LC_ALL=C"; ell='...' ;;
        zh)   env="TERM=screen LANGUAGE=zh_CN"; ell='…' ;;
    esac
    TUI_ENV="$env" W=200 H=24 tui_start --max-tokens 40 --seed 1
    keys F9
    type_text "hello there"
    send
    # 200 - 24 - 1 = 175 columns beside the sidebar
    full=$(whole_stats 175) && ok || { fail "$loc: no whole stats at 200 columns"; screen | sed 's/^/    | /'; }
    case $loc in
        zh) case $full in "预填充 "*" tok/s，解码 "*) ok ;; *) fail "zh: the stats are not the Chinese ones: '$full'" ;; esac ;;
        *)  case $full in "prefill "*" tok/s, decode "*" tok/s"*) ok ;; *) fail "$loc: stats '$full'" ;; esac ;;
    esac
    # 80 columns beside the sidebar: 80 - 24 - 1 = 55
    tmx resize-window -x 80 -y 24
    check_header "$loc 80 columns, beside the sidebar" 55 "$full" "$ell"
    for w in 40 20; do
        tmx resize-window -x $w -y 24
        check_header "$loc $w columns" $w "$full" "$ell" $([ $w = 20 ] && echo 1)
    done
    tui_resize 80 24
    tui_quit
done
tui_finish
