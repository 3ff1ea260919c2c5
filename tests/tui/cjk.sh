#!/usr/bin/env bash
# tests/tui/cjk.sh -- a line of CJK text wraps at the right column: every
# CJK character is two columns, so a 120-column transcript (sidebar hidden,
# 2 columns of indent: 118 for text) holds 59 of them per row; at 40 columns
# (38 for text) 19.
. "$(dirname "$0")/tmuxlib.sh"

ten="一二三四五六七八九十"
msg="$ten$ten$ten$ten$ten$ten$ten"          # 70 characters, 140 columns

# rows of text under the first "You" header
user_rows() { screen | awk '/^You/{f=1; next} f && /^$/{exit} f'; }

tui_start --max-tokens 5 --seed 2
keys F7
check_not "sidebar hidden" 'Parameters'
type_text "$msg"
keys Enter
check "CJK message shown" '^  一二三'
wait_idle
r1=$(user_rows | sed -n 1p); r2=$(user_rows | sed -n 2p)
r1=${r1#  }; r2=${r2#  }
if [ "${#r1}" = 59 ] && [ "${#r2}" = 11 ]; then ok; else
    fail "120 cols: rows of ${#r1} and ${#r2} characters, want 59 and 11"; user_rows; fi

tmx resize-window -x 40 -y 30
check "40 cols: redrawn" '^─{40}$'
keys Home             # empty input: scroll the transcript to the top
# (polled: the redraw after Home may take a while on a busy machine)
for i in $(seq 100); do
    r1=$(user_rows | sed -n 1p); r4=$(user_rows | sed -n 4p)
    r1=${r1#  }; r4=${r4#  }
    [ "${#r1}" = 19 ] && [ "${#r4}" = 13 ] && break
    sleep 0.1
done
if [ "${#r1}" = 19 ] && [ "${#r4}" = 13 ]; then ok; else
    fail "40 cols: rows of ${#r1} and ${#r4} characters, want 19 and 13"; user_rows; fi

# combining marks take no column: 'e' + U+0301 x 30 at 40 cols is one row
keys End
type_text "$(printf 'e\xcc\x81%.0s' $(seq 30))"
send
ea=$(printf 'e\xcc\x81')
if screen | grep -Eq "^  ($ea){30}\$"; then ok; else fail "combining marks: not one row of 30"; screen; fi

# emoji: two columns each, 19 per row at 40 columns
tui_resize 40 30
keys C-n
type_text "$(printf '😀%.0s' $(seq 25))"
send
r1=$(user_rows | sed -n 1p); r1=${r1#  }
if [ "${#r1}" = 19 ]; then ok; else fail "emoji: ${#r1} per row, want 19"; user_rows; fi

tui_quit
tui_finish
