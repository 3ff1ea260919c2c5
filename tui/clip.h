/*
** clip.h -- copying to the clipboard of the terminal with OSC 52 (house
** style G12: no curses; app.c writes the bytes between two frames).
**
** ESC ] 52 ; c ; BASE64 BEL asks the terminal to put the text on the
** clipboard.  It works over SSH, since the terminal does it, on xterm
** (allowWindowOps / disallowedWindowOps), kitty, WezTerm, foot, iTerm2,
** Windows Terminal, Alacritty.  Inside tmux: with `set -g set-clipboard on`
** tmux takes the plain sequence, makes a paste buffer of it and passes it on
** to the outer terminal; with tmux's default (external) it ignores it, so
** the sequence is also sent wrapped in tmux's passthrough (ESC P tmux; ...
** ESC \, every ESC doubled), which reaches the outer terminal when
** `set -g allow-passthrough on`.
*/
#ifndef RWKV_TUI_CLIP_H
#define RWKV_TUI_CLIP_H

#include <stddef.h>

#include "text.h"

#define TUI_CLIP_MAX (75u * 1024)   /* bytes of text copied at most: 100 KiB of
                                       base64, what terminals take in one OSC */

/* Standard base64 (RFC 4648, '=' padded) of N bytes of IN, appended to OUT. */
void tui_base64(tui_buf *out, const void *in, size_t n);

/*
** The bytes that put N bytes of TEXT on the clipboard, appended to OUT: the
** OSC 52 sequence and, when IN_TMUX, the same wrapped in tmux's passthrough.
** N must be at most TUI_CLIP_MAX (the caller says so when it is not).
*/
void tui_clip_osc52(tui_buf *out, const char *text, size_t n, int in_tmux);

#endif
