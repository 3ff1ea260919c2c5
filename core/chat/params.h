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
/* Parse TEXT into entry I of S, checking type and bounds. */
int  params_set(rwkv_sampling *s, int i, const char *text, rwkv_err *err);
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
