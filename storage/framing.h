/*
** framing.h -- the chat's framing as one value, kept with every session and
** preset: the greeting (the demo's, another text, or none), the role names
** of the prompt format ("{user}: {msg}\n\n{bot}:"), the think mode of G1
** models (core/chat/chat.h: how each new message's prompt ends), the stop
** strings and the banned tokens.  Owned by storage/: the line chat (cli/frame.c), the
** full-screen client (tui/framing.c) and the session runtime (session.c)
** parse, show, save and compare it through these functions only.
**
** Defaults are the chat demo's, byte for byte: the demo greeting, "User" and
** "Assistant", think off, the stop string "\n\n", nothing banned.  A default field is
** kept as "unset" (greeting NULL, name "", no stop), so the demo greeting
** follows the names: "{user}: hi\n\n{bot}: Hi. I am your assistant ...".
**
** In the database (schema v4) and in a JSON export it is one JSON object
**     {"greeting": null | S, "user": S, "bot": S, "stop": [S...], "ban": [N...],
**      "think": "on" | "short" | "long" | "skip"}
** with every member optional (absent = the default; "think" is written only
** when it is not off, so a framing without it reads as before);
** sessions.framing NULL (a database made before v4) reads as the defaults.
**
** The think mode, like the stop strings and bans, applies to a conversation
** in place: it changes how the next message's prompt is written, never a
** turn already written, so it is not part of framing_same_prompt.
*/
#ifndef RWKV_FRAMING_H
#define RWKV_FRAMING_H

#include <stddef.h>
#include <stdint.h>

#include "../core/chat/chat.h"
#include "../core/io/json.h"
#include "../core/status.h"
#include "store.h"

#define FRAMING_MAX_BAN      4096          /* banned ids: far more than anyone types */
#define FRAMING_MAX_GREETING (64u << 10)   /* bytes of a greeting */

typedef struct framing {
    char    *greeting;                   /* owned; NULL = the demo's, "" = none */
    char     user[CHAT_MAX_NAME + 1];    /* "" = CHAT_DEFAULT_USER */
    char     bot[CHAT_MAX_NAME + 1];     /* "" = CHAT_DEFAULT_BOT */
    char     think[8];                   /* a think mode's name; "" = off */
    char     stop[CHAT_MAX_STOP][CHAT_MAX_STOP_LEN + 1];
    size_t   n_stop;                     /* 0 = CHAT_DEFAULT_STOP */
    int32_t *ban;                        /* owned */
    size_t   n_ban;
} framing;

/* The defaults (nothing allocated); fini frees and leaves the defaults. */
void framing_init(framing *f);
void framing_fini(framing *f);
/* DST (initialised) becomes a copy of SRC; on failure DST is unchanged. */
int  framing_copy(framing *dst, const framing *src, rwkv_err *err);
/* 1 when A and B are the same framing (unset = its default value). */
int  framing_equal(const framing *a, const framing *b);
/* 1 when A and B write the conversation the same way (greeting and names):
** turns made under one continue correctly under the other. */
int  framing_same_prompt(const framing *a, const framing *b);

/* The fields of OVER in MASK (FRAMING_*) that OVER sets replace DST's (the
** config under the command line, the session's under the launch options).
** On failure DST is unchanged. */
enum { FRAMING_GREETING = 1, FRAMING_NAMES = 2, FRAMING_STOP = 4, FRAMING_BAN = 8,
       FRAMING_THINK = 16, FRAMING_ALL = 31 };
int  framing_merge(framing *dst, const framing *over, unsigned mask, rwkv_err *err);
/* The fields (FRAMING_*) in which A and B differ (unset = its default). */
unsigned framing_diff(const framing *a, const framing *b);
/* The fields of SRC in MASK replace DST's as SRC has them, an unset one
** too (a change made back to the default).  On failure DST is unchanged. */
int  framing_take(framing *dst, const framing *src, unsigned mask, rwkv_err *err);

/* The effective values: the names ("User"), the greeting (malloc'ed; the
** demo's with the names when unset; "" = none; NULL when out of memory). */
const char *framing_user(const framing *f);
const char *framing_bot(const framing *f);
int         framing_think(const framing *f);      /* enum chat_think */
char       *framing_greeting_text(const framing *f);
/* The greeting as the chat feeds it (chat_greeting_ended: with the blank
** line at its end): what /framing and F8 show.  malloc'ed, NULL when out
** of memory. */
char       *framing_greeting_fed(const framing *f);

/* Setters, each checked (one clear line; on failure F is unchanged).
** TEXT NULL = back to the default. */
int framing_set_greeting(framing *f, const char *text, rwkv_err *err);
int framing_set_user(framing *f, const char *name, rwkv_err *err);
int framing_set_bot(framing *f, const char *name, rwkv_err *err);
/* NAME: "off", "on", "short", "long" or "skip" ("off" given is kept as
** given, so it wins in framing_merge); NULL or "" = unset. */
int framing_set_think(framing *f, const char *name, rwkv_err *err);
/* Append one stop string (taken as is: 1..CHAT_MAX_STOP_LEN bytes). */
int framing_add_stop(framing *f, const char *s, rwkv_err *err);
/* Append the ids of "1,2,3" (the --ban syntax). */
int framing_add_ban(framing *f, const char *list, rwkv_err *err);

/* Text forms for one-line editing (the UI, the config file), OUT/CAP:
**   stops: each escaped (\n \t \\ and \, for a comma), joined by ","; ""
**          when unset.  framing_set_stops_text("") = back to "\n\n".
**   bans:  "1,2,3"; "" when none.  framing_set_ban_text replaces the list. */
void framing_stops_text(const framing *f, char *out, size_t cap);
int  framing_set_stops_text(framing *f, const char *text, rwkv_err *err);
void framing_ban_text(const framing *f, char *out, size_t cap);
int  framing_set_ban_text(framing *f, const char *text, rwkv_err *err);
/* "\n" "\t" "\\" (and "\," when COMMA) escapes of S in place / back. */
void framing_unescape(char *s, int comma);
void framing_escape(const char *s, char *out, size_t cap, int comma);

/* Point CFG's greeting, names, think mode, stops and bans at F (borrowed: F must
** outlive CFG's use). */
void framing_to_config(const framing *f, chat_config *cfg);
/* F from CFG's greeting, names, think mode, stops and bans (checked). */
int  framing_from_config(framing *f, const chat_config *cfg, rwkv_err *err);

/* The JSON object (see the top): malloc'ed, NULL when out of memory. */
char *framing_encode(const framing *f);
/* Parse the JSON object V / TEXT into F (initialised; replaced on success
** only).  WHAT names the input in messages. */
int  framing_from_json(const json_value *v, const char *what, framing *f, rwkv_err *err);
int  framing_decode(const char *text, size_t len, const char *what, framing *f, rwkv_err *err);

/* ---- in the database (store_framing.c) ------------------------------------- */

/* The framing of session SID (the defaults for a session saved before v4). */
int store_session_framing(store *s, int64_t sid, framing *out, rwkv_err *err);
/* The two writes below fail as store.h's writes a user names do: "PATH:
** why" ("PATH: database is locked", "PATH: no session 3"), never the
** action, which the caller names once ("saving the framing: PATH: ..."). */
int store_session_set_framing(store *s, int64_t sid, const framing *f, rwkv_err *err);
/* The framing saved with preset NAME: *HAS 0 when it carries none (OUT then
** untouched). */
int store_preset_framing(store *s, const char *name, framing *out, int *has, rwkv_err *err);
/* Save F with preset NAME (which must exist); F NULL = none. */
int store_preset_set_framing(store *s, const char *name, const framing *f, rwkv_err *err);

#endif
