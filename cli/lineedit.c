/*
** lineedit.c -- the line chat's line editor.  See lineedit.h.
**
** Three parts: the keys (ledit_feed: bytes to edits of the client's input
** box, tui/input.h), the view (ledit_view: which bytes fit beside the
** prompt), and the terminal (ledit_read: its modes, the signals that touch
** them, the read and the drawing).  Only the last touches the terminal, so
** the first two are tested without one (tests/unit/test_lineedit.c).
*/
#include "lineedit.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <sys/ioctl.h>

#include "../core/clock.h"
#include "../core/status.h"
#include "../tui/history.h"
#include "../tui/input.h"
#include "../tui/text.h"

#define LEDIT_ESC_MS   50      /* an ESC with nothing after it this long: Esc alone */
#define LEDIT_PASTE_MS 3000    /* a paste with nothing more this long: its end mark lost */
#define LEDIT_IN_MAX   4096    /* bytes read at once */
#define PASTE_END      "\033[201~"

_Static_assert(LEDIT_TEXT_MAX == TUI_INPUT_MAX, "lineedit.h says the input box's size");

struct ledit {
    tui_input in;          /* the text, its cursor and the history */
    size_t    lost;        /* characters the text had no room for (TUI_INPUT_MAX) */
    size_t    seg;         /* bytes read since the last CR or LF */
    int       cut;         /* a LEDIT_TTY_LINE-byte segment ended by LF: cut */
    /* the key scanner */
    int       esc;         /* after an ESC: a sequence (or Alt-key) under way */
    tui_esc   sc;
    char      seq[TUI_ESC_MAX];   /* its bytes after the ESC */
    size_t    nseq;
    int       paste;       /* inside a bracketed paste */
    size_t    pend;        /* ... the bytes of its end mark matched so far */
    char      part[4];     /* a UTF-8 sequence cut between two reads */
    size_t    npart;
    /* the terminal (ledit_read) */
    char      inbuf[LEDIT_IN_MAX];   /* read and not yet fed: the next line's */
    size_t    inpos, inlen;
    size_t    first;       /* the view's first byte (ledit_view) */
    int       cols;
    int       clear;       /* C-l: the screen cleared at the next draw */
    tui_buf   out;         /* a draw the terminal has not taken yet (C-s) */
    size_t    outoff;      /* ... its bytes written */
};

ledit *
ledit_create(void)
{
    ledit *e = calloc(1, sizeof *e);

    if (e == NULL)
        return NULL;
    tui_input_init(&e->in);
    tui_buf_init(&e->out);
    return e;
}

void
ledit_destroy(ledit *e)
{
    if (e == NULL)
        return;
    tui_input_fini(&e->in);
    tui_buf_fini(&e->out);
    free(e);
}

int
ledit_history_load(ledit *e)
{
    char path[4096];
    rwkv_err err;

    if (tui_history_path(path, sizeof path) != 0)
        return -1;
    return tui_history_load(&e->in, path, &err) < 0 ? -1 : 0;
}

/* ---- the keys -------------------------------------------------------------- */

/* Bytes of the UTF-8 sequence lead byte C starts (1 for a stray byte). */
static size_t
utf8_need(unsigned char c)
{
    return c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf8 ? 4 : 1;
}

static void
put(ledit *e, const char *s, size_t n)
{
    e->lost += tui_input_insert(&e->in, s, n);
}

/* A sequence cut between two reads that will not be completed: in as it is. */
static void
part_flush(ledit *e)
{
    if (e->npart > 0)
        put(e, e->part, e->npart);
    e->npart = 0;
}

/* Text S[0..N) (no control byte) at the cursor; a UTF-8 sequence cut at its
** end waits for the rest (the next read). */
static void
put_text(ledit *e, const char *s, size_t n)
{
    size_t i = 0, t = n;

    while (e->npart > 0 && i < n) {
        if (((unsigned char)s[i] & 0xc0) != 0x80) {
            part_flush(e);          /* ill-formed: kept as it came */
            break;
        }
        e->part[e->npart++] = s[i++];
        if (e->npart == utf8_need((unsigned char)e->part[0])) {
            put(e, e->part, e->npart);
            e->npart = 0;
        }
    }
    for (size_t k = 1; k <= 3 && i + k <= n; k++) {
        unsigned char c = (unsigned char)s[n - k];
        if (c >= 0xc0) {
            if (utf8_need(c) > k)
                t = n - k;
            break;
        }
        if (c < 0x80)
            break;
    }
    if (t > i)
        put(e, s + i, t - i);
    memcpy(e->part + e->npart, s + t, n - t);
    e->npart += n - t;
}

/* Set the cursor to byte POS (a character boundary). */
static void
go(ledit *e, size_t pos)
{
    e->in.sel = 0;
    e->in.cur = pos;
}

/* Up/Down step through the history whatever line of a pasted text the
** cursor is on (one row is drawn: there is no line above to go to). */
static void
hist_step(ledit *e, int up)
{
    size_t cur = e->in.cur;

    e->in.cur = up ? 0 : e->in.len;
    if (up ? tui_input_up(&e->in) : tui_input_down(&e->in))
        go(e, e->in.len);
    else
        e->in.cur = cur;
}

enum { A_NONE, A_LEFT, A_RIGHT, A_UP, A_DOWN, A_HOME, A_END, A_DEL, A_WLEFT, A_WRIGHT,
       A_KWNEXT, A_KWPREV, A_PASTE };

static void
act(ledit *e, int a)
{
    tui_input *in = &e->in;

    switch (a) {
    case A_LEFT: tui_input_left(in); break;
    case A_RIGHT: tui_input_right(in); break;
    case A_UP: hist_step(e, 1); break;
    case A_DOWN: hist_step(e, 0); break;
    case A_HOME: go(e, 0); break;
    case A_END: go(e, in->len); break;
    case A_DEL: tui_input_delete(in); break;
    case A_WLEFT: tui_input_word_left(in); break;
    case A_WRIGHT: tui_input_word_right(in); break;
    case A_KWNEXT: tui_input_kill_word_next(in); break;
    case A_KWPREV: tui_input_kill_word_prev(in); break;
    case A_PASTE: e->paste = 1; e->pend = 0; break;
    default: break;
    }
}

/* The sequence after an ESC (or the Alt-key) just ended: its action.  1
** when it is a key of ours. */
static int
esc_done(ledit *e)
{
    static const struct { const char *seq; int act; } keys[] = {
        { "[A", A_UP },      { "[B", A_DOWN },   { "[C", A_RIGHT },   { "[D", A_LEFT },
        { "OA", A_UP },      { "OB", A_DOWN },   { "OC", A_RIGHT },   { "OD", A_LEFT },
        { "[H", A_HOME },    { "[F", A_END },    { "OH", A_HOME },    { "OF", A_END },
        { "[1~", A_HOME },   { "[7~", A_HOME },  { "[4~", A_END },    { "[8~", A_END },
        { "[3~", A_DEL },    { "[200~", A_PASTE },
        { "[1;5C", A_WRIGHT }, { "[1;5D", A_WLEFT }, { "[1;3C", A_WRIGHT }, { "[1;3D", A_WLEFT },
        { "b", A_WLEFT },    { "f", A_WRIGHT },  { "d", A_KWNEXT },   { "\177", A_KWPREV },
        { "\b", A_KWPREV },
    };

    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strlen(keys[i].seq) == e->nseq && memcmp(keys[i].seq, e->seq, e->nseq) == 0) {
            act(e, keys[i].act);
            return 1;
        }
    return 0;
}

/* Byte C after an ESC: 1 when it was used, 0 when it is to be read again
** (a control byte that ends the sequence before it: ESC begins a new one,
** Enter is Enter). */
static int
esc_byte(ledit *e, int c)
{
    int r = tui_esc_feed(&e->sc, c);

    if (e->nseq < sizeof e->seq)
        e->seq[e->nseq++] = (char)c;
    if (r == TUI_ESC_MORE)
        return 1;
    e->esc = 0;
    if (r == TUI_ESC_DONE) {
        (void)esc_done(e);
        return 1;
    }
    if (e->nseq == 1 && c != 0x1b && esc_done(e))
        return 1;               /* ESC and a key: Alt-key */
    /* anything else is dropped, but a control key (ESC, Enter) is itself */
    return c < 0x20 ? 0 : 1;
}

/* A control byte C typed: LEDIT_MORE, or the key that ends the line. */
static int
ctrl_key(ledit *e, int c)
{
    tui_input *in = &e->in;

    switch (c) {
    case 0x01: go(e, 0); break;                             /* C-a */
    case 0x02: tui_input_left(in); break;                   /* C-b */
    case 0x04:                                              /* C-d */
        if (in->len == 0)
            return LEDIT_EOF;
        tui_input_delete(in);
        break;
    case 0x05: go(e, in->len); break;                       /* C-e */
    case 0x06: tui_input_right(in); break;                  /* C-f */
    case 0x08: case 0x7f: tui_input_backspace(in); break;   /* C-h, Backspace */
    case 0x09: put(e, "\t", 1); break;                      /* Tab: itself */
    case 0x0a: case 0x0d: return LEDIT_ENTER;               /* Enter, C-j */
    case 0x0b: tui_input_kill_eol(in); break;               /* C-k */
    case 0x0c: e->clear = 1; break;                         /* C-l */
    case 0x0e: hist_step(e, 0); break;                      /* C-n */
    case 0x10: hist_step(e, 1); break;                      /* C-p */
    case 0x15: tui_input_kill_all(in); break;               /* C-u */
    case 0x17: tui_input_kill_word(in); break;              /* C-w */
    case 0x19: tui_input_yank(in); break;                   /* C-y */
    case 0x1f: tui_input_undo(in); break;                   /* C-_ */
    case 0x1b:                                              /* ESC */
        e->esc = 1;
        e->nseq = 0;
        tui_esc_start(&e->sc, 1);
        break;
    default: break;             /* others (NUL, C-t, ...): nothing */
    }
    return LEDIT_MORE;
}

/* Length of the run of text bytes (no control byte) at B[0..N). */
static size_t
text_run(const char *b, size_t n)
{
    size_t j = 0;

    while (j < n && (unsigned char)b[j] >= 0x20 && b[j] != 0x7f)
        j++;
    return j;
}

/*
** Inside a paste: B[0..N) goes in as it is up to the end mark -- CR and LF
** as a line break, Tab as itself, other control bytes and escape
** sequences dropped (the screen would take them).  Returns the bytes used.
*/
static size_t
paste_bytes(ledit *e, const char *b, size_t n)
{
    size_t i = 0;

    while (i < n && e->paste) {
        unsigned char c = (unsigned char)b[i];
        size_t k;

        if (e->pend > 0 || c == 0x1b) {
            if (c == (unsigned char)PASTE_END[e->pend]) {
                i++;
                if (++e->pend == sizeof PASTE_END - 1)
                    e->paste = 0;
            } else if (c == 0x1b) {
                e->pend = 1;    /* what matched is dropped; the end may begin here */
                i++;
            } else {
                e->pend = 0;    /* not the end: what matched is dropped, C read again */
            }
            continue;
        }
        if ((k = text_run(b + i, n - i)) > 0) {
            put_text(e, b + i, k);
            i += k;
            continue;
        }
        part_flush(e);
        if (c == '\r' || c == '\n')
            put(e, "\n", 1);
        else if (c == '\t')
            put(e, "\t", 1);
        i++;
    }
    e->pend = e->paste ? e->pend : 0;
    return i;
}

int
ledit_feed(ledit *e, const char *b, size_t n, size_t *used)
{
    size_t i = 0;
    int r = LEDIT_MORE;

    while (i < n && r == LEDIT_MORE) {
        unsigned char c = (unsigned char)b[i];
        size_t k;

        if (e->paste) {
            i += paste_bytes(e, b + i, n - i);
        } else if (e->esc) {
            i += (size_t)esc_byte(e, c);
        } else if ((k = text_run(b + i, n - i)) > 0) {
            put_text(e, b + i, k);
            i += k;
        } else {
            part_flush(e);
            r = ctrl_key(e, c);
            i++;
        }
    }
    for (size_t k = 0; k < i; k++) {          /* the line mode's cut (lineedit.h) */
        if (b[k] == '\n' && LEDIT_TTY_LINE > 0 && e->seg == LEDIT_TTY_LINE)
            e->cut = 1;
        e->seg = b[k] == '\n' || b[k] == '\r' ? 0 : e->seg + 1;
    }
    if (used != NULL)
        *used = i;
    return r;
}

void
ledit_timeout(ledit *e)
{
    if (e->esc)
        e->esc = 0;             /* Esc alone, or a sequence cut short: nothing */
    else if (e->paste)
        e->paste = 0;
    e->pend = 0;
}

int
ledit_wait_ms(const ledit *e)
{
    return e->esc ? LEDIT_ESC_MS : e->paste ? LEDIT_PASTE_MS : -1;
}

const char *
ledit_text(const ledit *e, size_t *len, size_t *cur)
{
    if (len != NULL)
        *len = e->in.len;
    if (cur != NULL)
        *cur = e->in.cur;
    return e->in.buf;
}

char *
ledit_take(ledit *e, size_t *len, size_t *lost, int *cut)
{
    char *s = malloc(e->in.len + 1), *t;

    *len = e->in.len;
    *lost = e->lost;
    *cut = e->cut;
    e->lost = 0;
    e->cut = 0;
    e->first = 0;
    if (s == NULL)
        return NULL;
    memcpy(s, e->in.buf, e->in.len + 1);
    if ((t = tui_input_take(&e->in)) == NULL)   /* blank: not in the history */
        tui_input_clear(&e->in);
    free(t);
    return s;
}

/* ---- the view -------------------------------------------------------------- */

/* The character at S[0..N) (N > 0): its bytes and *W its columns; a
** control byte is one column (drawn as one sign: draw_char). */
static size_t
char_at(const char *s, size_t n, int *w)
{
    unsigned char c = (unsigned char)s[0];
    size_t draw;

    if (c < 0x20 || c == 0x7f) {
        *w = 1;
        return 1;
    }
    return tui_cluster(s, n, w, &draw);
}

size_t
ledit_view(const char *s, size_t len, size_t cur, int cols, size_t *first, int *col)
{
    size_t f = *first, p, end;
    int room = cols > 1 ? cols - 1 : 1, w = 0, cw;

    if (cur > len)
        cur = len;
    if (f > cur)
        f = cur;
    while (f > 0 && ((unsigned char)s[f] & 0xc0) == 0x80)
        f--;
    for (p = f; p < cur && w <= room;) {      /* from F to the cursor */
        size_t k = char_at(s + p, len - p, &cw);
        p += k > cur - p ? cur - p : k;
        w += cw;
    }
    if (w > room) {                            /* off the right: the first F that fits */
        for (w = 0, f = cur; f > 0; f = p) {
            p = tui_char_prev(s, f);
            char_at(s + p, f - p, &cw);
            if (w + cw > room)
                break;
            w += cw;
        }
    }
    *first = f;
    *col = w;
    for (end = f, w = 0; end < len;) {         /* what fits after it */
        size_t k = char_at(s + end, len - end, &cw);
        if (w + cw > room)
            break;
        w += cw;
        end += k;
    }
    return end;
}

/* ---- the terminal ---------------------------------------------------------- */

static struct termios           tty_saved, tty_raw;   /* the modes before, and ours */
static volatile sig_atomic_t    tty_is_raw;
static volatile sig_atomic_t    sig_winch, sig_redraw;
static struct sigaction         old_winch, old_cont, old_tstp;
static int                      tstp_ours;
/* the signals whose default ends the program (where it is still theirs) */
static const int                fatal_sigs[] = { SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE,
                                                 SIGILL, SIGTRAP, SIGSYS, SIGUSR1, SIGUSR2,
                                                 SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU };
#define N_FATAL (sizeof fatal_sigs / sizeof fatal_sigs[0])
static struct sigaction         old_fatal[N_FATAL];
static int                      fatal_ours[N_FATAL];

static void
on_winch(int sig)
{
    (void)sig;
    sig_winch = 1;
}

/* Continued (fg): our modes again (the shell had the terminal), and a draw. */
static void
on_cont(int sig)
{
    int saved = errno;

    (void)sig;
    if (tty_is_raw)
        (void)tcsetattr(STDIN_FILENO, TCSANOW, &tty_raw);
    sig_redraw = 1;
    errno = saved;
}

/*
** The shell's modes back from a handler, even where the shell already took
** the terminal -- a pipeline's other process stopped at Ctrl-Z before this
** one: with SIGTTOU blocked the change is made, where it stopped us for
** SIGTTOU in the middle of the handler (and fg then let its own stop come
** after the shell had looked: the chat stopped for good).
*/
static void
tty_saved_back(void)
{
    sigset_t set, old;

    sigemptyset(&set);
    sigaddset(&set, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    (void)tcsetattr(STDIN_FILENO, TCSANOW, &tty_saved);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Ctrl-Z: the terminal as it was for the shell, then stopped (through the
** handler that was there, which keeps the stop out of the chat's clocks). */
static void
on_tstp(int sig)
{
    int saved = errno;

    if (tty_is_raw)
        tty_saved_back();
    if (!(old_tstp.sa_flags & SA_SIGINFO) && old_tstp.sa_handler != SIG_DFL &&
        old_tstp.sa_handler != SIG_IGN)
        old_tstp.sa_handler(sig);
    else
        mono_stop_as_default(sig);
    if (tty_is_raw)
        (void)tcsetattr(STDIN_FILENO, TCSANOW, &tty_raw);
    sig_redraw = 1;
    errno = saved;
}

/* A signal that ends the program (its default, not one the program
** handles): the terminal's modes back first. */
static void
on_fatal(int sig)
{
    if (tty_is_raw)
        tty_saved_back();
    signal(sig, SIG_DFL);
    raise(sig);                 /* delivered as the handler returns */
}

/* Ours while the line is read (no SA_RESTART: the wait wakes up). */
static void
handlers_set(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, &old_winch);
    sa.sa_handler = on_cont;
    sigaction(SIGCONT, &sa, &old_cont);
    /* not where Ctrl-Z is ignored (it stays so) */
    tstp_ours = sigaction(SIGTSTP, NULL, &old_tstp) == 0 && old_tstp.sa_handler != SIG_IGN;
    if (tstp_ours) {
        sa.sa_handler = on_tstp;
        sigaction(SIGTSTP, &sa, NULL);
    }
    sa.sa_handler = on_fatal;
    for (size_t i = 0; i < N_FATAL; i++) {
        fatal_ours[i] = sigaction(fatal_sigs[i], NULL, &old_fatal[i]) == 0 &&
                        !(old_fatal[i].sa_flags & SA_SIGINFO) &&
                        old_fatal[i].sa_handler == SIG_DFL;
        if (fatal_ours[i])
            sigaction(fatal_sigs[i], &sa, NULL);
    }
}

static void
handlers_put_back(void)
{
    sigaction(SIGWINCH, &old_winch, NULL);
    sigaction(SIGCONT, &old_cont, NULL);
    if (tstp_ours)
        sigaction(SIGTSTP, &old_tstp, NULL);
    for (size_t i = 0; i < N_FATAL; i++)
        if (fatal_ours[i])
            sigaction(fatal_sigs[i], &old_fatal[i], NULL);
}

/*
** The terminal ours: bytes as they come (no line mode, no echo, CR not
** made LF, no C-v), but ISIG and IXON as they were -- Ctrl-C is the
** chat's SIGINT, Ctrl-Z a stop (on_tstp), C-s / C-q flow control -- and
** output processing kept.  TCSANOW: what was typed ahead stays to be read,
** and a terminal stopped by C-s does not hold us up.  0, or -1 (errno).
*/
static int
tty_take(void)
{
    if (tcgetattr(STDIN_FILENO, &tty_saved) != 0)
        return -1;
    tty_raw = tty_saved;
    tty_raw.c_iflag &= ~(tcflag_t)(ICRNL | INLCR | IGNCR | ISTRIP);
    tty_raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);
    tty_raw.c_cc[VMIN] = 1;
    tty_raw.c_cc[VTIME] = 0;
    handlers_set();
    tty_is_raw = 1;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &tty_raw) != 0) {
        int saved = errno;
        tty_is_raw = 0;
        handlers_put_back();
        errno = saved;
        return -1;
    }
    sig_winch = sig_redraw = 0;
    return 0;
}

static void
tty_give_back(void)
{
    int saved = errno;

    (void)tcsetattr(STDIN_FILENO, TCSANOW, &tty_saved);
    tty_is_raw = 0;
    handlers_put_back();
    errno = saved;
}

static int
term_cols(void)
{
    struct winsize ws;

    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* Write what is drawn while the terminal takes it at once: 1 when all is
** out, 0 when the rest waits (output stopped), -1 on an error. */
static int
out_try(ledit *e)
{
    while (e->outoff < e->out.len) {
        struct pollfd pf = { .fd = STDOUT_FILENO, .events = POLLOUT, .revents = 0 };
        ssize_t w;

        if (poll(&pf, 1, 0) <= 0 || !(pf.revents & POLLOUT))
            return 0;
        w = write(STDOUT_FILENO, e->out.p + e->outoff, e->out.len - e->outoff);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            return 0;
        if (w < 0)
            return -1;
        e->outoff += (size_t)w;
    }
    tui_buf_clear(&e->out);
    e->outoff = 0;
    return 1;
}

/* One character S[0..N) as drawn: a line break as one sign, Tab as a
** space, other control bytes and ill-formed UTF-8 as '?'. */
static void
draw_char(ledit *e, const char *s, size_t n)
{
    unsigned char c = (unsigned char)s[0];
    uint32_t cp;

    if (c == '\n')
        tui_buf_adds(&e->out, MB_CUR_MAX > 1 ? "\xe2\x8f\x8e" : "|");   /* U+23CE */
    else if (c == '\t')
        tui_buf_adds(&e->out, " ");
    else if (c < 0x20 || c == 0x7f)
        tui_buf_adds(&e->out, "?");
    else if (tui_next_cp(s, n, &cp) && (cp == 0xfffd || (cp >= 0x80 && cp < 0xa0)))
        tui_buf_adds(&e->out, "?");
    else
        tui_buf_add(&e->out, s, n);
}

/* The prompt and the line's view, the cursor put where it is. */
static void
draw(ledit *e, const char *prompt)
{
    size_t len, cur, end, p;
    const char *s = ledit_text(e, &len, &cur);
    int pw = tui_str_width(prompt, strlen(prompt)), avail = e->cols - pw, col;
    char mv[32];

    if (e->outoff == 0)             /* a draw not begun: this one replaces it */
        tui_buf_clear(&e->out);
    if (avail < 2)
        avail = 2;
    end = ledit_view(s, len, cur, avail, &e->first, &col);
    if (e->clear)
        tui_buf_adds(&e->out, "\033[H\033[2J");
    e->clear = 0;
    tui_buf_adds(&e->out, "\r");
    tui_buf_adds(&e->out, prompt);
    for (p = e->first; p < end;) {
        int w;
        size_t k = char_at(s + p, end - p, &w), draw_n = k;
        if ((unsigned char)s[p] >= 0x20 && s[p] != 0x7f)
            tui_cluster(s + p, end - p, &w, &draw_n);   /* the bytes that keep its width */
        draw_char(e, s + p, draw_n);
        p += k;
    }
    snprintf(mv, sizeof mv, "\033[K\r\033[%dC", pw + col);
    tui_buf_adds(&e->out, pw + col > 0 ? mv : "\033[K\r");
    (void)out_try(e);
}

/*
** The output is stopped (C-s) as the line ends: what is drawn goes into
** stdout's buffer, to go out with what the caller prints next -- a write
** now would wait for C-q, and a Ctrl-C meanwhile would be one at the
** prompt, not the cancel of the reply this line asks for.  The line's end
** goes as NEL (ESC E: to the next line's start), so the line-buffered
** stream does not write it at once for a '\n'.
*/
static void
out_later(ledit *e)
{
    size_t n = e->out.len - e->outoff;
    const char *p = e->out.p + e->outoff;

    if (n >= 2 && memcmp(p + n - 2, "\r\n", 2) == 0) {
        fwrite(p, 1, n - 2, stdout);
        fputs("\033E", stdout);
    } else {
        fwrite(p, 1, n, stdout);
    }
}

/* The loop of ledit_read: keys until the line ends. */
static int
read_keys(ledit *e, const char *prompt, volatile sig_atomic_t *stop)
{
    for (;;) {
        struct pollfd pf[2];
        int r, dirty = 0;

        if (*stop)
            return LEDIT_STOP;
        if (e->inpos < e->inlen) {
            size_t used;
            r = ledit_feed(e, e->inbuf + e->inpos, e->inlen - e->inpos, &used);
            e->inpos += used;
            if (r != LEDIT_MORE)
                return r;
            dirty = 1;
        }
        if (sig_winch) {
            sig_winch = 0;
            e->cols = term_cols();
            dirty = 1;
        }
        if (sig_redraw) {
            sig_redraw = 0;
            dirty = 1;
        }
        if (dirty)
            draw(e, prompt);
        pf[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN, .revents = 0 };
        pf[1] = (struct pollfd){ .fd = e->out.len > 0 ? STDOUT_FILENO : -1, .events = POLLOUT,
                                 .revents = 0 };
        r = poll(pf, 2, ledit_wait_ms(e));
        if (r < 0 && errno != EINTR)
            return LEDIT_ERROR;
        if (r == 0) {
            ledit_timeout(e);
            continue;
        }
        if (r < 0)
            continue;
        if (pf[1].revents & POLLOUT)
            (void)out_try(e);
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(STDIN_FILENO, e->inbuf, sizeof e->inbuf);
            if (n == 0)
                return LEDIT_EOF;
            if (n < 0 && errno != EINTR && errno != EAGAIN)
                return LEDIT_ERROR;
            e->inpos = 0;
            e->inlen = n > 0 ? (size_t)n : 0;
        }
    }
}

int
ledit_read(ledit *e, const char *prompt, volatile sig_atomic_t *stop)
{
    int rc;

    fflush(stdout);
    if (tty_take() != 0)
        return LEDIT_ERROR;
    e->first = 0;
    e->cols = term_cols();
    draw(e, prompt);
    rc = read_keys(e, prompt, stop);
    if (rc != LEDIT_ERROR)
        draw(e, prompt);        /* the line as it ends (the last keys' edits) */
    if (rc == LEDIT_ENTER)
        tui_buf_adds(&e->out, "\r\n");   /* the next line under it */
    if (out_try(e) == 0 && e->out.len > e->outoff)
        out_later(e);
    tui_buf_clear(&e->out);
    e->outoff = 0;
    tty_give_back();
    return rc;
}
