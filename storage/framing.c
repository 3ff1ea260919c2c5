/*
** framing.c -- the chat's framing as a value: defaults, checks, the text
** forms for editing and the JSON form for the database and exports.  See
** framing.h.
*/
#include "framing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/text/utf8.h"
#include "store_int.h"

void
framing_init(framing *f)
{
    memset(f, 0, sizeof *f);
}

void
framing_fini(framing *f)
{
    free(f->greeting);
    free(f->ban);
    framing_init(f);
}

int
framing_copy(framing *dst, const framing *src, rwkv_err *err)
{
    framing t = *src;

    t.greeting = NULL;
    t.ban = NULL;
    if (src->greeting && (t.greeting = strdup(src->greeting)) == NULL)
        goto oom;
    if (src->n_ban > 0) {
        t.ban = malloc(src->n_ban * sizeof *t.ban);
        if (t.ban == NULL)
            goto oom;
        memcpy(t.ban, src->ban, src->n_ban * sizeof *t.ban);
    }
    framing_fini(dst);
    *dst = t;
    return RWKV_OK;
oom:
    free(t.greeting);
    return rwkv_errf(err, RWKV_ENOMEM, "framing: out of memory");
}

int
framing_same_prompt(const framing *a, const framing *b)
{
    if (strcmp(framing_user(a), framing_user(b)) != 0 || strcmp(framing_bot(a), framing_bot(b)) != 0)
        return 0;
    if ((a->greeting == NULL) != (b->greeting == NULL))
        return 0;
    return a->greeting == NULL || strcmp(a->greeting, b->greeting) == 0;
}

unsigned
framing_diff(const framing *a, const framing *b)
{
    unsigned d = 0;
    size_t i;

    if ((a->greeting == NULL) != (b->greeting == NULL) ||
        (a->greeting != NULL && strcmp(a->greeting, b->greeting) != 0))
        d |= FRAMING_GREETING;
    if (strcmp(framing_user(a), framing_user(b)) != 0 || strcmp(framing_bot(a), framing_bot(b)) != 0)
        d |= FRAMING_NAMES;
    if (framing_think(a) != framing_think(b))
        d |= FRAMING_THINK;
    for (i = 0; a->n_stop == b->n_stop && i < a->n_stop; i++)
        if (strcmp(a->stop[i], b->stop[i]) != 0)
            break;
    if (a->n_stop != b->n_stop || i < a->n_stop)
        d |= FRAMING_STOP;
    if (a->n_ban != b->n_ban ||
        (a->n_ban > 0 && memcmp(a->ban, b->ban, a->n_ban * sizeof *a->ban) != 0))
        d |= FRAMING_BAN;
    return d;
}

int
framing_equal(const framing *a, const framing *b)
{
    return framing_diff(a, b) == 0;
}

/* framing_merge (ALL 0: only the fields OVER sets) and framing_take (ALL
** 1: the fields as OVER has them, unset ones too). */
static int
merge(framing *dst, const framing *over, unsigned mask, int all, rwkv_err *err)
{
    framing t;
    int rc;

    framing_init(&t);
    if ((rc = framing_copy(&t, dst, err)) != RWKV_OK)
        return rc;
    if ((mask & FRAMING_GREETING) && (all || over->greeting) &&
        (rc = framing_set_greeting(&t, over->greeting, err)) != RWKV_OK)
        goto fail;
    if ((mask & FRAMING_NAMES) && (all || over->user[0]))
        memcpy(t.user, over->user, sizeof t.user);
    if ((mask & FRAMING_NAMES) && (all || over->bot[0]))
        memcpy(t.bot, over->bot, sizeof t.bot);
    if ((mask & FRAMING_THINK) && (all || over->think[0]))
        memcpy(t.think, over->think, sizeof t.think);
    if ((mask & FRAMING_STOP) && (all || over->n_stop > 0)) {
        memcpy(t.stop, over->stop, sizeof t.stop);
        t.n_stop = over->n_stop;
    }
    if ((mask & FRAMING_BAN) && all && over->n_ban == 0) {
        free(t.ban);
        t.ban = NULL;
        t.n_ban = 0;
    } else if ((mask & FRAMING_BAN) && over->n_ban > 0) {
        int32_t *v = malloc(over->n_ban * sizeof *v);
        if (v == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "framing: out of memory");
            goto fail;
        }
        memcpy(v, over->ban, over->n_ban * sizeof *v);
        free(t.ban);
        t.ban = v;
        t.n_ban = over->n_ban;
    }
    framing_fini(dst);
    *dst = t;
    return RWKV_OK;
fail:
    framing_fini(&t);
    return rc;
}

int
framing_merge(framing *dst, const framing *over, unsigned mask, rwkv_err *err)
{
    return merge(dst, over, mask, 0, err);
}

int
framing_take(framing *dst, const framing *src, unsigned mask, rwkv_err *err)
{
    return merge(dst, src, mask, 1, err);
}

const char *
framing_user(const framing *f)
{
    return f->user[0] ? f->user : CHAT_DEFAULT_USER;
}

const char *
framing_bot(const framing *f)
{
    return f->bot[0] ? f->bot : CHAT_DEFAULT_BOT;
}

int
framing_think(const framing *f)
{
    int mode = CHAT_THINK_OFF;

    if (f->think[0])
        chat_think_parse(f->think, &mode, NULL);
    return mode;
}

char *
framing_greeting_text(const framing *f)
{
    return f->greeting ? strdup(f->greeting) : chat_demo_greeting(framing_user(f), framing_bot(f));
}

char *
framing_greeting_fed(const framing *f)
{
    return f->greeting ? chat_greeting_ended(f->greeting)
                       : chat_demo_greeting(framing_user(f), framing_bot(f));
}

/* ---- setters ------------------------------------------------------------- */

int
framing_set_greeting(framing *f, const char *text, rwkv_err *err)
{
    char *g = NULL;
    size_t n = text ? strlen(text) : 0;

    if (text != NULL) {
        if (n > FRAMING_MAX_GREETING)
            return rwkv_errf(err, RWKV_EINVAL, "greeting: %zu bytes (at most %u)", n,
                             FRAMING_MAX_GREETING);
        if (!utf8_valid(text, n))
            return rwkv_errf(err, RWKV_EINVAL, "greeting: not valid UTF-8");
        if ((g = strdup(text)) == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "framing: out of memory");
    }
    free(f->greeting);
    f->greeting = g;
    return RWKV_OK;
}

static int
set_name(char *dst, const char *what, const char *name, rwkv_err *err)
{
    int rc;

    if (name == NULL || name[0] == '\0') {
        dst[0] = '\0';
        return RWKV_OK;
    }
    if ((rc = chat_name_check(what, name, err)) != RWKV_OK)
        return rc;
    snprintf(dst, CHAT_MAX_NAME + 1, "%s", name);
    return RWKV_OK;
}

int
framing_set_user(framing *f, const char *name, rwkv_err *err)
{
    return set_name(f->user, "user name", name, err);
}

int
framing_set_bot(framing *f, const char *name, rwkv_err *err)
{
    return set_name(f->bot, "bot name", name, err);
}

int
framing_set_think(framing *f, const char *name, rwkv_err *err)
{
    int mode, rc;

    if (name == NULL || name[0] == '\0') {
        f->think[0] = '\0';
        return RWKV_OK;
    }
    if ((rc = chat_think_parse(name, &mode, err)) != RWKV_OK)
        return rc;
    snprintf(f->think, sizeof f->think, "%s", chat_think_name(mode));
    return RWKV_OK;
}

/* framing_add_stop; CHECK_UTF8 0 for a stop string read back from a saved
** framing (one an older version took unchecked must not lock its session). */
static int
add_stop(framing *f, const char *s, int check_utf8, rwkv_err *err)
{
    size_t n = strlen(s);

    if (f->n_stop == CHAT_MAX_STOP)
        return rwkv_errf(err, RWKV_EINVAL, "stop: at most %d stop strings", CHAT_MAX_STOP);
    if (n == 0 || n > CHAT_MAX_STOP_LEN)
        return rwkv_errf(err, RWKV_EINVAL, "stop: a stop string must have 1..%d bytes",
                         CHAT_MAX_STOP_LEN);
    /* as the greeting and the role names: the JSON a session is saved and
    ** exported in holds UTF-8 only */
    if (check_utf8 && !utf8_valid(s, n))
        return rwkv_errf(err, RWKV_EINVAL, "stop: not valid UTF-8");
    memcpy(f->stop[f->n_stop++], s, n + 1);
    return RWKV_OK;
}

int
framing_add_stop(framing *f, const char *s, rwkv_err *err)
{
    return add_stop(f, s, 1, err);
}

/* The ids of LIST ("1,2,3") appended to *V (*N of them); F for limits. */
static int
parse_ids(const char *list, int32_t **v, size_t *n, rwkv_err *err)
{
    const char *p = list;

    while (*p) {
        char *end;
        long id;
        int32_t *nv;
        errno = 0;
        id = strtol(p, &end, 10);
        if (errno || end == p || id < 0 || id > 0x7fffffff || (*end != ',' && *end != '\0'))
            return rwkv_errf(err, RWKV_EINVAL, "ban: '%.80s' is not a comma-separated list of "
                             "token ids", list);
        if (*n == FRAMING_MAX_BAN)
            return rwkv_errf(err, RWKV_EINVAL, "ban: more than %d ids", FRAMING_MAX_BAN);
        nv = realloc(*v, (*n + 1) * sizeof **v);
        if (nv == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "framing: out of memory");
        *v = nv;
        (*v)[(*n)++] = (int32_t)id;
        p = *end ? end + 1 : end;
    }
    return RWKV_OK;
}

/* The ids of LIST after F's own (APPEND) or instead of them. */
static int
ban_parse(framing *f, const char *list, int append, rwkv_err *err)
{
    int32_t *v = NULL;
    size_t n = append ? f->n_ban : 0;
    int rc;

    if (n > 0) {
        if ((v = malloc(n * sizeof *v)) == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "framing: out of memory");
        memcpy(v, f->ban, n * sizeof *v);
    }
    if ((rc = parse_ids(list, &v, &n, err)) != RWKV_OK) {
        free(v);
        return rc;
    }
    free(f->ban);
    f->ban = v;
    f->n_ban = n;
    return RWKV_OK;
}

int
framing_add_ban(framing *f, const char *list, rwkv_err *err)
{
    return ban_parse(f, list, 1, err);
}

/* ---- text forms ----------------------------------------------------------- */

void
framing_unescape(char *s, int comma)
{
    char *o = s;

    for (; *s; s++) {
        if (*s == '\\' && (s[1] == 'n' || s[1] == 't' || s[1] == '\\' || (comma && s[1] == ','))) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

void
framing_escape(const char *s, char *out, size_t cap, int comma)
{
    size_t o = 0;

    if (cap == 0)
        return;
    for (; *s; s++) {
        char e[3] = { '\\', 0, 0 };
        const char *put = e;
        if (*s == '\n')
            e[1] = 'n';
        else if (*s == '\t')
            e[1] = 't';
        else if (*s == '\\' || (comma && *s == ','))
            e[1] = *s;
        else
            e[0] = *s;
        if (o + strlen(put) >= cap)
            break;
        memcpy(out + o, put, strlen(put));
        o += strlen(put);
    }
    out[o] = '\0';
}

void
framing_stops_text(const framing *f, char *out, size_t cap)
{
    size_t o = 0;

    if (cap)
        out[0] = '\0';
    for (size_t i = 0; i < f->n_stop && o + 1 < cap; i++) {
        if (i > 0)
            out[o++] = ',';
        framing_escape(f->stop[i], out + o, cap - o, 1);
        o += strlen(out + o);
    }
}

int
framing_set_stops_text(framing *f, const char *text, rwkv_err *err)
{
    framing t;
    char buf[CHAT_MAX_STOP * (2 * CHAT_MAX_STOP_LEN + 1) + 1];
    const char *p = text;
    int rc;

    framing_init(&t);
    while (*p) {
        size_t k = 0;
        /* one item: up to a comma that is not escaped */
        while (p[k] && p[k] != ',')
            k += p[k] == '\\' && p[k + 1] ? 2 : 1;
        if (k >= sizeof buf)
            return rwkv_errf(err, RWKV_EINVAL, "stop: a stop string must have 1..%d bytes",
                             CHAT_MAX_STOP_LEN);
        memcpy(buf, p, k);
        buf[k] = '\0';
        framing_unescape(buf, 1);
        if ((rc = framing_add_stop(&t, buf, err)) != RWKV_OK)
            return rc;
        p += k;
        if (*p == ',')
            p++;
    }
    memcpy(f->stop, t.stop, sizeof t.stop);
    f->n_stop = t.n_stop;
    return RWKV_OK;
}

void
framing_ban_text(const framing *f, char *out, size_t cap)
{
    size_t o = 0;

    if (cap)
        out[0] = '\0';
    for (size_t i = 0; i < f->n_ban && o + 12 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%ld", i ? "," : "", (long)f->ban[i]);
}

int
framing_set_ban_text(framing *f, const char *text, rwkv_err *err)
{
    return ban_parse(f, text, 0, err);
}

/* ---- the chat's config -------------------------------------------------------- */

void
framing_to_config(const framing *f, chat_config *cfg)
{
    cfg->greeting = f->greeting;
    cfg->user_name = f->user[0] ? f->user : NULL;
    cfg->bot_name = f->bot[0] ? f->bot : NULL;
    cfg->think = f->think[0] ? f->think : NULL;
    for (size_t i = 0; i < f->n_stop; i++)
        cfg->stop[i] = f->stop[i];
    cfg->n_stop = f->n_stop;
    cfg->banned = f->ban;
    cfg->n_banned = f->n_ban;
}

int
framing_from_config(framing *f, const chat_config *cfg, rwkv_err *err)
{
    framing t;
    int rc;

    framing_init(&t);
    if ((rc = framing_set_greeting(&t, cfg->greeting, err)) != RWKV_OK ||
        (rc = framing_set_user(&t, cfg->user_name, err)) != RWKV_OK ||
        (rc = framing_set_bot(&t, cfg->bot_name, err)) != RWKV_OK ||
        (rc = framing_set_think(&t, cfg->think, err)) != RWKV_OK)
        goto fail;
    for (size_t i = 0; i < cfg->n_stop; i++)
        if ((rc = framing_add_stop(&t, cfg->stop[i], err)) != RWKV_OK)
            goto fail;
    if (cfg->n_banned > 0) {
        if ((t.ban = malloc(cfg->n_banned * sizeof *t.ban)) == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "framing: out of memory");
            goto fail;
        }
        memcpy(t.ban, cfg->banned, cfg->n_banned * sizeof *t.ban);
        t.n_ban = cfg->n_banned;
    }
    framing_fini(f);
    *f = t;
    return RWKV_OK;
fail:
    framing_fini(&t);
    return rc;
}

/* ---- JSON ----------------------------------------------------------------------- */

char *
framing_encode(const framing *f)
{
    struct sbuf b = { 0 };
    char num[24];

    sb_puts(&b, "{\"greeting\": ");
    if (f->greeting)
        sb_json_str(&b, f->greeting);
    else
        sb_puts(&b, "null");
    sb_puts(&b, ", \"user\": ");
    sb_json_str(&b, framing_user(f));
    sb_puts(&b, ", \"bot\": ");
    sb_json_str(&b, framing_bot(f));
    sb_puts(&b, ", \"stop\": [");
    for (size_t i = 0; i < f->n_stop; i++) {
        if (i)
            sb_puts(&b, ", ");
        sb_json_clean(&b, f->stop[i]);    /* (one saved unchecked: valid JSON all the same) */
    }
    sb_puts(&b, "], \"ban\": [");
    for (size_t i = 0; i < f->n_ban; i++) {
        snprintf(num, sizeof num, "%s%ld", i ? ", " : "", (long)f->ban[i]);
        sb_puts(&b, num);
    }
    sb_puts(&b, "]");
    if (framing_think(f) != CHAT_THINK_OFF) {
        sb_puts(&b, ", \"think\": ");
        sb_json_str(&b, chat_think_name(framing_think(f)));
    }
    sb_puts(&b, "}");
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* ERR's message as "WHAT: framing: message", RWKV_EFORMAT. */
static int
in_what(rwkv_err *err, const char *what)
{
    char tmp[RWKV_ERR_MSG];

    snprintf(tmp, sizeof tmp, "%s", err ? err->msg : "");
    return rwkv_errf(err, RWKV_EFORMAT, "%s: framing: %s", what, tmp);
}

/* A string member KEY of V: *OUT (NULL when absent or null); RWKV_EFORMAT
** when it is there but not a string without NULs. */
static int
str_member(const json_value *v, const char *key, const char *what, const char **out,
           rwkv_err *err)
{
    const json_value *x = json_get(v, key);

    *out = NULL;
    if (x == NULL || x->type == JSON_NULL)
        return RWKV_OK;
    if (x->type != JSON_STRING)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: framing \"%s\" must be a string", what, key);
    if (strlen(x->str) != x->len)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: framing \"%s\" holds a NUL (\\u0000)", what, key);
    *out = x->str;
    return RWKV_OK;
}

static int
lists_from_json(const json_value *v, const char *what, framing *t, rwkv_err *err)
{
    const json_value *st = json_get(v, "stop"), *ban = json_get(v, "ban");
    int rc;

    if (st != NULL && st->type != JSON_NULL) {
        if (st->type != JSON_ARRAY)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: framing \"stop\" must be a list", what);
        for (size_t i = 0; i < st->len; i++) {
            const json_value *e = st->items[i];
            if (e->type != JSON_STRING)
                return rwkv_errf(err, RWKV_EFORMAT, "%s: framing \"stop\" holds a non-string",
                                 what);
            if (strlen(e->str) != e->len)
                return rwkv_errf(err, RWKV_EFORMAT, "%s: framing \"stop\" holds a NUL (\\u0000)",
                                 what);
            if ((rc = add_stop(t, e->str, 0, err)) != RWKV_OK)
                return in_what(err, what);
        }
    }
    if (ban != NULL && ban->type != JSON_NULL) {
        if (ban->type != JSON_ARRAY || ban->len > FRAMING_MAX_BAN)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: framing \"ban\" must be a list of at most "
                             "%d token ids", what, FRAMING_MAX_BAN);
        if (ban->len > 0 && (t->ban = malloc(ban->len * sizeof *t->ban)) == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "framing: out of memory");
        for (size_t i = 0; i < ban->len; i++) {
            const json_value *e = ban->items[i];
            if (e->type != JSON_NUMBER || !e->is_int || e->i64 < 0 || e->i64 > 0x7fffffff)
                return rwkv_errf(err, RWKV_EFORMAT, "%s: framing \"ban\" holds a bad token id",
                                 what);
            t->ban[t->n_ban++] = (int32_t)e->i64;
        }
    }
    return RWKV_OK;
}

int
framing_from_json(const json_value *v, const char *what, framing *f, rwkv_err *err)
{
    framing t;
    const char *g, *u, *b, *th;
    int rc;

    if (v == NULL || v->type == JSON_NULL) {
        framing_fini(f);
        return RWKV_OK;
    }
    if (v->type != JSON_OBJECT)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"framing\" must be an object", what);
    framing_init(&t);
    if ((rc = str_member(v, "greeting", what, &g, err)) != RWKV_OK ||
        (rc = str_member(v, "user", what, &u, err)) != RWKV_OK ||
        (rc = str_member(v, "bot", what, &b, err)) != RWKV_OK ||
        (rc = str_member(v, "think", what, &th, err)) != RWKV_OK)
        return rc;
    if ((rc = framing_set_greeting(&t, g, err)) != RWKV_OK ||
        (rc = framing_set_user(&t, u, err)) != RWKV_OK ||
        (rc = framing_set_bot(&t, b, err)) != RWKV_OK ||
        (rc = framing_set_think(&t, th, err)) != RWKV_OK) {
        rc = in_what(err, what);
        goto fail;
    }
    /* the default names are kept as unset, so the demo greeting follows them */
    if (strcmp(t.user, CHAT_DEFAULT_USER) == 0)
        t.user[0] = '\0';
    if (strcmp(t.bot, CHAT_DEFAULT_BOT) == 0)
        t.bot[0] = '\0';
    if (framing_think(&t) == CHAT_THINK_OFF)
        t.think[0] = '\0';
    if ((rc = lists_from_json(v, what, &t, err)) != RWKV_OK)
        goto fail;
    framing_fini(f);
    *f = t;
    return RWKV_OK;
fail:
    framing_fini(&t);
    return rc;
}

int
framing_decode(const char *text, size_t len, const char *what, framing *f, rwkv_err *err)
{
    json_doc *doc = NULL;
    int rc;

    if (text == NULL || len == 0) {
        framing_fini(f);
        return RWKV_OK;
    }
    if ((rc = json_parse(text, len, what, &doc, err)) != RWKV_OK)
        return rc == RWKV_ENOMEM ? rc : RWKV_EFORMAT;
    rc = framing_from_json(json_root(doc), what, f, err);
    json_free(doc);
    return rc;
}
