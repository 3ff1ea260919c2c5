#!/usr/bin/env bash
# tests/tui/params_int_sidebar.sh -- the sidebar's value prompt takes an
# integer parameter (top-k, max-tokens) as digits alone, as --top-k does:
# "1e1", "5." and "+5" were set as 10, 5 and 5.  Refused, the prompt stays
# open holding the text with the reason above it; digits are then set.  A
# preset row holding one is refused too (at start, named by the config's
# 'preset'; loaded from F4), where it was applied as 10.
. "$(dirname "$0")/tmuxlib.sh"

prompt_holds() {
    if wait_for '.' 1 && screen | tail -1 | grep -Eq -- "^$2 *\$"; then ok; else
        fail "$1: the footer is not /$2/: $(screen | tail -1)"
    fi
}
WHY='is not an integer \(digits alone'   # (the dialog wraps the rest)

tui_start --seed 3
keys Tab
check "sidebar focus" 'Enter +type a value'
keys Down Down             # temperature, top-p, top-k
keys Enter
check "top-k prompt" 'top-k \[0\.\.65536\]'
for v in 1e1 5. +5; do
    re=$(printf '%s' "$v" | sed 's/[.+]/\\&/g')
    keys C-u
    type_text "$v"
    keys Enter
    check "top-k $v refused" "top-k: '$re' $WHY"
    prompt_holds "top-k $v: the prompt holds it" "top-k \\[0\\.\\.65536\\]: $re"
    check "top-k $v: unchanged" 'top-k +0 *$'
done
keys C-u
type_text "10"
keys Enter
check_not "the dialog went" 'correct it, then Enter'
check "digits set" 'top-k +10 *$'
# max-tokens, four rows down
keys Down Down Down Down
keys Enter
check "max-tokens prompt" 'max-tokens \[1\.\.1000000\]'
keys C-u
type_text "2.0"
keys Enter
check "max-tokens 2.0 refused" "max-tokens: '2\\.0' $WHY"
prompt_holds "max-tokens: the prompt holds 2.0" 'max-tokens \[1\.\.1000000\]: 2\.0'
keys Escape
check_not "Esc: the dialog goes" 'correct it, then Enter'
check "max-tokens unchanged" 'max-tokens +1000 *$'
keys Tab
tui_quit

# --- a preset row holding one (written by hand): refused where it is read ----
v='temperature=1 top_p=0.3 top_k=1e1 presence=0.5 frequency=0.5 decay=0.996 max_tokens=1000'
sqlite3 "$DB" "insert into presets(name, builtin, sampling) values('bad', 0, '$v chunk=256 seed=0')" ||
    fail "preset row not written"
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'preset: bad\n' >"$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start --seed 3
check "the config's preset refused at start" "preset 'bad' from the config: top-k: '1e1' $WHY"
check "top-k not set from it" 'top-k +0 *$'
keys F4
check "presets menu" ' Presets '
type_text "bad"
keys Enter
check "F4: the preset refused" "top-k: '1e1' $WHY"
check "top-k still not set" 'top-k +0 *$'
tui_quit
tui_finish
