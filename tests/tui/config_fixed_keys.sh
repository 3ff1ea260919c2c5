#!/usr/bin/env bash
# tests/tui/config_fixed_keys.sh -- the config file could bind an action
# onto a key the client keeps (config.h's CFG_FIXED_KEYS) without a word:
# with "sessions: C-u" C-u opened the sessions instead of clearing the
# message box, with "framing: C-c" C-c opened F8 instead of stopping a
# reply.  Such a binding is refused at its line, saying what the key does,
# and the action keeps its default key.  A `user: ""` was dropped silently
# (the man page: 1 to 64 bytes; --user "" is a usage error): it is reported
# at its line.
. "$(dirname "$0")/tmuxlib.sh"

cat >"$TMP/fixed.yaml" <<'EOF'
keys:
  sessions: C-u
  framing: C-c
user: ""
EOF
W=200 H=40 tui_start --config "$TMP/fixed.yaml"
check "sessions: C-u reported at its line" \
    "fixed\\.yaml:2:13: field 'sessions' in 'keys': 'C-u' clears the message box: bind another C-x, M-x or an F-key; 'sessions' keeps F2"
check "framing: C-c reported at its line" \
    "fixed\\.yaml:3:12: field 'framing' in 'keys': 'C-c' stops a running reply: bind another C-x, M-x or an F-key; 'framing' keeps F8"
check "user: \"\" reported at its line" "fixed\\.yaml:4:7: field 'user': a role name has 1\\.\\.64 bytes"
keys Escape     # closes the dialog of the problems (alone: Esc and a key at once are Alt)
sleep 0.3
type_text "a draft to throw away"
check "the text is in the box" '^> a draft to throw away'
keys C-u
check_not "C-u clears the box" 'a draft to throw away' 3
check_not "C-u opens no sessions menu" 'Sessions  \(saved states' 1
keys Escape     # (a menu C-u might have opened: C-c below on its own)
sleep 0.3
keys C-c
check "C-c: nothing to cancel" 'nothing to cancel; F10 or C-q quits'
check_not "C-c opens no framing menu" 'Framing of this session' 1
keys F2
check "F2 still opens the sessions" 'Sessions  \(saved states' 5
keys Escape
sleep 0.3
tui_quit
tui_finish
