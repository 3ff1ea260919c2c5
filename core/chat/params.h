/*
** params.h -- the sampling parameters, as one table (house style G11).
**
** The table drives the CLI options (--temperature ...), the chat REPL's
** /set and /show, the TUI sidebar, the config file and the preset rows in
** the session database.  Defaults are the chat demo's (API_DEMO_CHAT.py).
*/
#ifndef RWKV_PARAMS_H
#define RWKV_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "../status.h"

typedef struct rwkv_sampling {
    float    temperature;   /* 0 = greedy (the reference's rule) */
    float    top_p;
    int      top_k;         /* 0 = off */
    float    presence;      /* alpha_presence */
    float    frequency;     /* alpha_frequency */
    float    decay;         /* penalty_decay per generated token */
    int      max_tokens;    /* reply length cap */
    int      chunk;         /* prefill chunk length (CHUNK_LEN) */
    uint64_t seed;          /* RNG seed (only meaningful when seed_set) */
} rwkv_sampling;

enum params_type { PARAMS_FLOAT, PARAMS_INT, PARAMS_U64 };

typedef struct params_entry {
    const char      *name;      /* "temperature"; CLI option is "--" + cli */
    const char      *cli;       /* "temperature", "top-p", ... */
    enum params_type type;
    size_t           offset;    /* offsetof(rwkv_sampling, field) */
    double           min, max, step, def;
    const char      *help;
} params_entry;

/* The table, terminated by an entry with name == NULL. */
extern const params_entry params_table[];

/* Bit for entry I of the table, for "which values did the user set" masks. */
#define PARAMS_BIT(i) (1u << (i))

/* Fill S with the defaults. */
void params_defaults(rwkv_sampling *s);
/* Index of the entry whose name or cli spelling is NAME, or -1. */
int  params_find(const char *name);
/* Parse TEXT into entry I of S, checking type and bounds (an integer
** entry's TEXT by params_int_check's rule, blanks around it allowed). */
int  params_set(rwkv_sampling *s, int i, const char *text, rwkv_err *err);

/*
** The one spelling of an integer value, for the CLI's integer options
** (cli_int_check) and the integer sampling values (params_set: /set, the
** sidebar, presets, imports) alike: decimal digits alone, a '-' before them
** for a value below 0.  TEXT is LEN bytes (borrowed, no NUL needed).
** PARAMS_INT_OK when it is an integer in [MIN, MAX] (MIN >= -LLONG_MAX),
** its magnitude in *MAG and 1 in *NEG when below 0 (either may be NULL);
** PARAMS_INT_NOT when it is not an integer so written ("1e1", "+5", "5.",
** "0x10", " 5", "-0", ""); PARAMS_INT_RANGE when it is one outside.
*/
enum { PARAMS_INT_OK = 0, PARAMS_INT_NOT = -1, PARAMS_INT_RANGE = -2 };
int  params_int_check(const char *text, size_t len, long long min, unsigned long long max,
                      unsigned long long *mag, int *neg);
/* Value of entry I as double. */
double params_get(const rwkv_sampling *s, int i);
/* Entry I of SRC into DST, the other entries untouched. */
void params_copy(rwkv_sampling *dst, const rwkv_sampling *src, int i);
/* Format entry I's value into BUF ("0.3", "256"). */
void params_format(const rwkv_sampling *s, int i, char *buf, size_t cap);

/* The chat demo's adjusted defaults when a state file is used: top_p 0.2,
** presence 0.3, frequency 0.3; only entries not in USER_SET are changed. */
void params_apply_state_defaults(rwkv_sampling *s, unsigned user_set);
/* The reverse, when a state file is left: the entries that the state
** defaults change go back to the demo's (params_defaults) unless in USER_SET. */
void params_apply_demo_defaults(rwkv_sampling *s, unsigned user_set);

#endif
