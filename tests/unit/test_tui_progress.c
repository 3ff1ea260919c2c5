/*
** test_tui_progress.c -- what the status line's progress bars are made of:
**   - tui_progress_bar: exact cells for given fractions (eighth blocks);
**   - chat_stats.prefill_total / prefill_tokens from the chat engine on the
**     tiny RWKV-7 (byte tokenizer: one token a byte), against the demo's
**     prompt format: greeting + "User: " + MSG + "\n\nAssistant:";
**   - rwkv_open_opts.progress: called while a checkpoint loads, ending at 1.
*/
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/chat/chat.h"
#include "../../tui/text.h"
#include "../harness.h"

#define FULL "\xe2\x96\x88"
#define SHADE "\xe2\x96\x91"
#define HALF "\xe2\x96\x8c"      /* U+258C left half block = 4/8 */
#define ONE8 "\xe2\x96\x8f"      /* U+258F left one eighth */

struct seen {
    int      n;
    uint64_t total, last_done, first_done;
    int      monotonic, total_steady;
};

static void
on_stats(void *ud, const chat_stats *st)
{
    struct seen *s = ud;

    if (st->gen_tokens > 0)
        return;                          /* only the prefill */
    if (s->n == 0) {
        s->total = st->prefill_total;
        s->first_done = st->prefill_tokens;
        s->monotonic = 1;
        s->total_steady = 1;
    } else {
        if (st->prefill_tokens <= s->last_done)
            s->monotonic = 0;
        if (st->prefill_total != s->total)
            s->total_steady = 0;
    }
    s->last_done = st->prefill_tokens;
    s->n++;
}

struct load {
    int    n, monotonic;
    double last;
};

static void
on_load(void *ud, double frac, const char *what)
{
    struct load *l = ud;

    if (l->n > 0 && frac < l->last)
        l->monotonic = 0;
    if (what == NULL)
        l->monotonic = 0;
    l->last = frac;
    l->n++;
}

int
main(void)
{
    char b[512];

    if (setlocale(LC_ALL, "C.UTF-8") == NULL)
        setlocale(LC_ALL, "en_US.UTF-8");

    /* ---- the bar ---- */
    tui_progress_bar(b, sizeof b, 0.0, 4, 1);
    TEST_COND("0%: all shade", strcmp(b, SHADE SHADE SHADE SHADE) == 0);
    tui_progress_bar(b, sizeof b, 1.0, 4, 1);
    TEST_COND("100%: all full", strcmp(b, FULL FULL FULL FULL) == 0);
    tui_progress_bar(b, sizeof b, 0.5, 4, 1);
    TEST_COND("50% of 4", strcmp(b, FULL FULL SHADE SHADE) == 0);
    tui_progress_bar(b, sizeof b, 0.625, 4, 1);        /* 2.5 cells */
    TEST_COND("62.5%: a half block", strcmp(b, FULL FULL HALF SHADE) == 0);
    tui_progress_bar(b, sizeof b, 1.0 / 32, 4, 1);     /* 1/8 of a cell */
    TEST_COND("1/32: one eighth", strcmp(b, ONE8 SHADE SHADE SHADE) == 0);
    tui_progress_bar(b, sizeof b, 2.0, 3, 1);
    TEST_COND("clamped above", strcmp(b, FULL FULL FULL) == 0);
    tui_progress_bar(b, sizeof b, -1.0, 3, 0);
    TEST_COND("clamped below, ASCII", strcmp(b, "---") == 0);
    tui_progress_bar(b, sizeof b, NAN, 3, 0);
    TEST_COND("NaN is 0", strcmp(b, "---") == 0);
    tui_progress_bar(b, sizeof b, 0.7, 10, 0);
    TEST_COND("ASCII 70%", strcmp(b, "#######---") == 0);
    for (int w = 1; w <= 40; w++) {
        int ok = 1;
        for (int k = 0; k <= 100; k += 7) {
            tui_progress_bar(b, sizeof b, k / 100.0, w, 1);
            if (tui_str_width(b, strlen(b)) != w)
                ok = 0;
        }
        TEST_CONDF(ok, "width %d: always %d columns", w, w);
    }
    tui_progress_bar(b, 7, 1.0, 4, 1);                 /* room for 2 cells only */
    TEST_COND("small buffer: whole cells, terminated", strcmp(b, FULL FULL) == 0);

    /* ---- prefill progress from the engine ---- */
    {
        char path[1024];
        rwkv_model *m = NULL;
        tok *t = NULL;
        chat *c = NULL;
        rwkv_err err;
        chat_config cfg;
        struct seen s;
        struct load l = { 0, 1, 0 };
        rwkv_open_opts oo;
        static const char msg[] = "count every byte of this message, please";
        const size_t greet = strlen(CHAT_DEMO_GREETING);
        const size_t prompt = strlen("User: ") + strlen(msg) + strlen("\n\nAssistant:");

        memset(&oo, 0, sizeof oo);
        oo.progress = on_load;
        oo.progress_ud = &l;
        /* the engine checks below: 20, on the fixture model */
        if (!test_have_fixture("models/tiny-7v0-fp32.pth", 20))
            return TEST_REPORT();
        test_fixture_path(path, sizeof path, "models/tiny-7v0-fp32.pth");
        if (rwkv_model_open(path, &oo, &m, &err) != RWKV_OK) {
            TEST_CONDF(0, "open %s: %s", path, err.msg);
            return TEST_REPORT();
        }
        TEST_COND("load progress reported", l.n >= 2 && l.monotonic && l.last == 1.0);
        TEST_COND("byte tokenizer", tok_create_bytes(&t, &err) == RWKV_OK);
        chat_config_init(&cfg);
        cfg.samp.max_tokens = 2;
        cfg.samp.chunk = 8;
        {
            chat_callbacks cb = { .ud = &s, .stats = on_stats };
            memset(&s, 0, sizeof s);
            TEST_COND("create", chat_create(m, t, &cfg, &cb, &c, &err) == RWKV_OK);
        }
        /* first turn: the greeting is fed with the prompt */
        TEST_COND("submit", chat_submit(c, msg, strlen(msg), &err) == RWKV_OK);
        TEST_COND("total known before any chunk", chat_phase(c) == CHAT_PREFILL);
        TEST_COND("run", chat_run(c, &err) == RWKV_OK);
        TEST_CONDF(s.total == greet + prompt, "first turn: total %llu, want %zu",
                   (unsigned long long)s.total, greet + prompt);
        TEST_COND("first report: one chunk done", s.first_done == 8);
        TEST_COND("counts grow, total steady", s.monotonic && s.total_steady);
        TEST_COND("ends at the total", s.last_done == s.total);
        TEST_COND("one report a chunk", s.n == (int)((greet + 7) / 8 + (prompt + 7) / 8));
        TEST_COND("the turn's stats keep the total",
                  chat_turn_at(c, 0)->stats.prefill_total == greet + prompt &&
                      chat_turn_at(c, 0)->stats.prefill_tokens == greet + prompt);

        /* second turn: only the prompt, after the demo's "\n\n" separator
        ** when the first reply ended at max_tokens; none when its two sampled
        ** tokens (a random seed) were the stop string itself, which is fed */
        {
            size_t sep = chat_turn_at(c, 0)->stop == CHAT_STOP_STRING ? 0 : 2;
            memset(&s, 0, sizeof s);
            TEST_COND("submit 2", chat_submit(c, msg, strlen(msg), &err) == RWKV_OK);
            TEST_COND("run 2", chat_run(c, &err) == RWKV_OK);
            TEST_CONDF(s.total == sep + prompt, "second turn: total %llu, want %zu",
                       (unsigned long long)s.total, sep + prompt);
        }
        TEST_COND("second turn ends at the total", s.last_done == s.total && s.monotonic);
        chat_destroy(c);
        c = NULL;

        /* chat_prime reports the greeting's progress too */
        {
            chat_callbacks cb = { .ud = &s, .stats = on_stats };
            memset(&s, 0, sizeof s);
            TEST_COND("create 2", chat_create(m, t, &cfg, &cb, &c, &err) == RWKV_OK);
            TEST_COND("prime", chat_prime(c, &err) == RWKV_OK);
            TEST_COND("prime: total = greeting", s.total == greet && s.last_done == greet &&
                                                     s.monotonic && s.total_steady);
            TEST_COND("prime leaves no last stats", chat_last_stats(c)->prefill_tokens == 0);
        }
        chat_destroy(c);
        tok_close(t);
        rwkv_model_close(m);
    }
    return TEST_REPORT();
}
