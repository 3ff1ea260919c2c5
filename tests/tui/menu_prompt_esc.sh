#!/usr/bin/env bash
# tests/tui/menu_prompt_esc.sh -- Esc in a prompt opened from a menu goes
# back to that menu, with its selection, in every menu.  F2's and F6's
# prompts did so, but F3's C-w, F4's C-s, F5's C-s and F8's fields closed
# their menu before asking, so Esc there dropped the user in the chat.
# Enter still does the action and leaves the menu (the chat is where it
# shows), and a prompt opened again (a preset name that exists: asked
# first) still goes back to its menu on Esc.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 3 --seed 2
type_text "hi"
send
# esc_back KEYS PROMPT MENU: KEYS open the menu and its prompt (PROMPT on
# the screen); Esc shows MENU again, and a second Esc closes it.  Three checks.
esc_back() {
    keys $1
    check "$1: the prompt" "$2"
    keys Escape
    check "$1, Esc: back in its menu" "$3"
    keys Escape
    check_not "$1, Esc again: the menu closed" "$3"
}
esc_back "F2 C-r" 'new title:' '│  Sessions '
esc_back "F3 C-w" 'save the current state as:' '│  State files '
esc_back "F4 C-s" 'save preset as:' '│  Presets '
esc_back "F5 C-s" 'strategy:' '│  Models '
esc_back "F8 Enter" 'greeting \(' '│  Framing of this session'
# F8: the selection is kept (the user name's row, Down from the greeting)
keys F8 Down Enter
check "F8: the user name's prompt" 'user name \(empty = User\):'
keys Escape
check "F8, Esc: back in F8" '│  Framing of this session'
keys Enter
check "F8: Enter on the same row again" 'user name \(empty = User\):'
keys Escape Escape
check_not "F8 closed" '│  Framing of this session'
# Enter does the action and leaves the menu
keys F4 C-s
check "F4 C-s: the prompt" 'save preset as:'
type_text "calm"
keys Enter
check "Enter: saved" "preset 'calm' saved"
check_not "Enter: the menu left" '│  Presets '
# the name again: asked first; Esc goes back to F4 (the menu it came from)
keys F4 C-s
check "F4 C-s again" 'save preset as:'
type_text "calm"
keys Enter
check "an existing preset: asked first" 'Enter replaces it'
keys Escape
check "Esc on the question: back in F4" '│  Presets '
keys Escape
check_not "F4 closed" '│  Presets '
tui_quit
tui_finish
