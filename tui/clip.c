/*
** clip.c -- OSC 52 clipboard sequences.  See clip.h.
*/
#include "clip.h"

#include <string.h>

void
tui_base64(tui_buf *out, const void *in, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = in;
    char q[4];

    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = tab[v >> 18 & 63];
        q[1] = tab[v >> 12 & 63];
        q[2] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? tab[v & 63] : '=';
        tui_buf_add(out, q, 4);
    }
    if (n == 0)
        tui_buf_add(out, "", 0);
}

void
tui_clip_osc52(tui_buf *out, const char *text, size_t n, int in_tmux)
{
    tui_buf_adds(out, "\033]52;c;");
    tui_base64(out, text, n);
    tui_buf_adds(out, "\a");
    if (in_tmux) {
        /* the same through tmux's passthrough: its ESC doubled */
        tui_buf_adds(out, "\033Ptmux;\033\033]52;c;");
        tui_base64(out, text, n);
        tui_buf_adds(out, "\a\033\\");
    }
}
