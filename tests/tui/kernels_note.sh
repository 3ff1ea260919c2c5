#!/usr/bin/env bash
# tests/tui/kernels_note.sh -- RWKV_KERNELS naming no kernel set is said in
# the client (the transcript and M-l), as the line commands say it on
# stderr; it was ignored in silence.  So is a value of the engine's other
# settings that is not followed (core/env.h).
. "$(dirname "$0")/tmuxlib.sh"

TUI_ENV="RWKV_KERNELS=avx-512" tui_start
check "said at start" 'RWKV_KERNELS=avx-512 is not a kernel set \(portable, avx2'
keys M-l
check "in the log" 'error: RWKV_KERNELS=avx-512 is not a kernel set'
keys Escape
tui_quit
# the engine's other settings too
TUI_ENV="RWKV_WEIGHT_CACHE=maybe" tui_start
check "RWKV_WEIGHT_CACHE said" 'RWKV_WEIGHT_CACHE=maybe is not 0/off/no/false'
tui_quit
tui_start
check_not "unset: nothing said" 'RWKV_KERNELS|RWKV_WEIGHT' 1
tui_quit
tui_finish
