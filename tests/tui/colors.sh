#!/usr/bin/env bash
# tests/tui/colors.sh -- the shipped themes on terminals with 8, 16, 88, 256
# colours and direct RGB: the real binary under tmux, colours read back with
# `capture-pane -e` (tests/tui/sgr.py).  On 8 colours a grey is dim or bold
# white (never black on the background), a blue stays blue, nothing is
# drawn in the colour of its background.  The 16/88/direct terminals are
# terminfo entries compiled here with tic (xterm with more colours).
. "$(dirname "$0")/tmuxlib.sh"
SGR="python3 $(dirname "$0")/sgr.py"

if ! command -v tic >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    echo "tic or python3 not found: skipping"
    echo "0 passed, 0 failed"
    exit 0
fi
export TERMINFO_DB=$TMP/terminfo
cat > "$TMP/test.ti" <<'EOF'
rwkvtest-16color|16 colours,
	colors#16, pairs#256,
	setaf=\E[%?%p1%{8}%<%t%p1%{30}%+%e%p1%{82}%+%;%dm,
	setab=\E[%?%p1%{8}%<%t%p1%'('%+%e%p1%{92}%+%;%dm,
	use=xterm,
rwkvtest-88color|88 colours,
	colors#88, pairs#7744,
	setaf=\E[%?%p1%{8}%<%t3%p1%d%e%p1%{16}%<%t9%p1%{8}%-%d%e38;5;%p1%d%;m,
	setab=\E[%?%p1%{8}%<%t4%p1%d%e%p1%{16}%<%t10%p1%{8}%-%d%e48;5;%p1%d%;m,
	use=xterm,
rwkvtest-direct|direct RGB colour,
	colors#0x1000000, pairs#0x10000, RGB,
	setaf=\E[%?%p1%{8}%<%t3%p1%d%e38:2::%p1%{65536}%/%d:%p1%{256}%/%{255}%&%d:%p1%{255}%&%d%;m,
	setab=\E[%?%p1%{8}%<%t4%p1%d%e48:2::%p1%{65536}%/%d:%p1%{256}%/%{255}%&%d:%p1%{255}%&%d%;m,
	use=xterm,
EOF
if ! tic -x -o "$TERMINFO_DB" "$TMP/test.ti" 2>"$TMP/tic.err"; then
    fail "tic: $(head -1 "$TMP/tic.err")"
fi

# start TERM THEME: the binary on terminal type TERM with theme THEME
# (NCURSES_GPM_TERMS empty: for TERM=linux ncurses would load libgpm for
# the mouse, whose allocation LeakSanitizer reports; the console is only
# emulated here anyway)
start() {
    TUI_ENV="TERMINFO=$TERMINFO_DB TERM=$1 NCURSES_GPM_TERMS=" tui_start --theme "$2"
    wait_for 'F10 quit' 10
}
# expect DESC TEXT PATTERN: the SGR state of TEXT matches PATTERN
expect() {
    local got
    got=$(tmx capture-pane -p -e | $SGR "$2")
    if printf '%s\n' "$got" | grep -Eq -- "$3"; then ok; else fail "$1: '$2' drawn $got, want /$3/"; fi
}
# none DESC PATTERN: no fg/bg pair on screen matches PATTERN (sgr.py --all)
none() {
    local got
    got=$(tmx capture-pane -p -e | $SGR --all | grep -E -- "$2")
    if [ -z "$got" ]; then ok; else fail "$1: $(echo $got)"; fi
}

# ---- 8 colours: screen (tmux's and GNU screen's default), xterm, linux ----
# (the linux console's terminfo has no dim: its greys are plain white)
for T in screen xterm linux; do
    start $T dark
    dim='dim=1'
    [ $T = linux ] && dim='dim=0'
    expect "$T dark: footer key 81 is cyan, not red" 'F10' 'fg=36 .*bold=1'
    expect "$T dark: sidebar label grey 244 is dim white" 'temperature' "fg=37 .*$dim"
    expect "$T dark: placeholder grey is dim white" 'Type a message' "fg=37 .*$dim"
    # the status bar (236: apart from the dark screen) stays apart: no
    # dark grey at 8 colours, so it is drawn the other way round
    expect "$T dark: status 255 on 236 is black on white, not on the screen's black" 'demo |' 'fg=30 bg=47 bold=0'
    expect "$T dark: info 110 is blue" 'Demo model' 'fg=34'
    none "$T dark: nothing black on the dark background" '^30/(49|40)'
    none "$T dark: only 8 colours used" '(38;|48;|^9[0-7]|/10[0-7])'
    tui_quit
done

start screen default
expect "default at 8: bright_black label is dim white (was black)" 'temperature' 'fg=37 .*dim=1'
expect "default at 8: status black on cyan" 'demo |' 'fg=30 bg=46'
none "default at 8: nothing black on the background" '^30/(49|40)'
tui_quit

start xterm light
expect "light at 8: grey label is dim black" 'temperature' 'fg=30 .*dim=1'
none "light at 8: nothing white on the light background" '^37/49'
none "light at 8: only 8 colours used" '(38;|48;|^9[0-7]|/10[0-7])'
tui_quit

start linux mono
none "mono at 8: no colours" '^(3[0-7]|9[0-7]|38;)|/(4[0-7]|10[0-7]|48;)'
tui_quit

# ---- every shipped theme at 8, 16, 88 and 256 colours: fg never == bg ----
for T in screen rwkvtest-16color rwkvtest-88color xterm-256color; do
    for TH in default dark light mono; do
        start $T $TH
        check "$T $TH: starts" 'F10 quit'
        none "$T $TH: text in its background's colour" '^(3([0-7])/4\2|9([0-7])/10\3|38;5;([0-9]+)/48;5;\4)( dim)?$'
        tui_quit
    done
done

# ---- 16, 88, 256 colours and direct RGB: the nearest colour ----
start rwkvtest-16color dark
expect "16 colours: 81 is bright cyan" 'F10' 'fg=96'
expect "16 colours: grey 244 is bright black" 'temperature' 'fg=90'
tui_quit
start rwkvtest-88color dark
expect "88 colours: 81 is the 88-palette's nearest (43)" 'F10' 'fg=38;5;43'
expect "88 colours: grey 244 is 88-palette grey 37" 'temperature' 'fg=38;5;37'
tui_quit
start xterm-256color dark
expect "256 colours: 81 as is" 'F10' 'fg=38;5;81'
expect "256 colours: 244 as is" 'temperature' 'fg=38;5;244'
tui_quit
start rwkvtest-direct dark
expect "direct colour: 81 as RGB" 'F10' 'fg=38;2;95;215;255'
expect "direct colour: status bg 236 as RGB" 'demo |' 'bg=48;2;48;48;48'
tui_quit

# a theme with #rrggbb colours: exact on direct colour, nearest on 256
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui/themes"
cat > "$XDG_CONFIG_HOME/rwkv-tui/themes/rgb.yaml" <<'YAML'
name: rgb
roles:
  footer_key: { fg: "#ff8700", bold: true }
YAML
start rwkvtest-direct rgb
expect "#rrggbb on direct colour" 'F10' 'fg=38;2;255;135;0'
tui_quit
start xterm-256color rgb
expect "#rrggbb on 256 colours: nearest (208)" 'F10' 'fg=38;5;208'
tui_quit
start screen rgb
expect "#rrggbb on 8 colours: by hue (yellow)" 'F10' 'fg=3[13]'
tui_quit
# COLORTERM=truecolor on a 256-colour type that can set colours (xterm's
# ccc/initc): the colour gets a palette slot of its own, set to it exactly
TUI_ENV="COLORTERM=truecolor TERM=xterm-256color" tui_start --theme rgb
expect "COLORTERM=truecolor: #rrggbb in a slot of its own" 'F10' 'fg=38;5;255'
expect "COLORTERM=truecolor: palette colours as they are" 'temperature' 'fg=90'
tui_quit

tui_finish
