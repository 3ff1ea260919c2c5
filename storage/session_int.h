/*
** session_int.h -- internals shared by the two halves of the session runtime
** (not a public API; see session.h for that):
**
**   session.c     the runtime around the chat: its config and callbacks, the
**                 start of a conversation (state files), framing, sampling,
**                 state-file and model switches, submit / run / cancel;
**   session_db.c  its persistence: the session row and the turns saved as a
**                 reply runs, a branch read back and its state rebuilt
**                 (snapshot + the replay rule), the checks on a stored
**                 session, open / lookup / fork / sibling steps.
**
** Both take a sess as the caller gives it (one thread at a time); nothing
** here allocates on behalf of the caller unless it says so.
*/
#ifndef RWKV_SESSION_INT_H
#define RWKV_SESSION_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "../core/chat/rng.h"
#include "framing.h"
#include "session.h"

/* Where a conversation starts: a state file by path, a library row, or
** none (zeros + the greeting). */
typedef struct sess_start {
    char    path[STORE_PATH_MAX];      /* referenced state file, "" = none */
    int64_t lib_id;                    /* library row (imported bytes or a path) */
    char    label[STORE_PATH_MAX];     /* what the user is shown */
    int     gone;                      /* LIB_ID's file not on disk, its bytes not kept:
                                       ** the session goes on from its saved states;
                                       ** what needs the start itself is refused
                                       ** (start_file: one line naming the file) */
} sess_start;

/*
** How the conversation in the chat began -- what the root of its branch in
** the store is, or is to be (session_db.c, greeting_row: the one rule that
** writes a greeting turn).  What the chat fed is what the tree says, so a
** replay rebuilds the same state:
**   SESS_ROOT_NEW       the chat's own start: its greeting (fed here, so
**                       chat_state_start is the state after it; or still to
**                       be fed) -- a new session, or an empty one (its
**                       conversation deleted): a greeting turn goes first;
**   SESS_ROOT_GREETING  a saved branch from its greeting turn: the greeting
**                       was fed, the state after it is not in memory (the
**                       branch's state was restored whole);
**   SESS_ROOT_BARE      a saved branch whose first turn is a message (an
**                       import may have that): no greeting was fed, and a
**                       session made from it gets no greeting turn.
*/
enum sess_root { SESS_ROOT_NEW = 0, SESS_ROOT_GREETING, SESS_ROOT_BARE };

/*
** A session opened under another model than the one it was made with (its
** file content: a copy elsewhere is the same model) or another strategy
** precision (session_db.c, other_made).  Its row names one model and one
** strategy for all its turns, and a turn records neither, so the turns
** this runtime computes are not written there: the first write forks the
** conversation, from the point it was opened at, as a new session of this
** model and strategy (check_alive; session_create says it in one note).
*/
enum sess_other_kind { SESS_OTHER_NONE = 0, SESS_OTHER_MODEL, SESS_OTHER_FILE, SESS_OTHER_PREC };
typedef struct sess_other {
    int64_t sid;                       /* the session opened, 0 = none */
    int     kind;                      /* enum sess_other_kind */
    char    was[STORE_PATH_MAX];       /* its model's path, or its strategy */
    int     fork;                      /* forked now: the new session's note says so */
    int     copying;                   /* its turns being copied into the new session:
                                          written without their speeds (reply_row), which
                                          the other model or precision made */
} sess_other;

/*
** The session this conversation was saved in, lost to another window or
** program (session_db.c, check_alive: deleted, a turn of it deleted, or the
** file replaced): the conversation goes on in a new session, and the one
** line that says why replaces that session's "new session N: TITLE" line
** (session_create) -- said once the new session is there, never before.
*/
enum sess_gone_kind { SESS_GONE_SESSION = 1, SESS_GONE_TURN, SESS_GONE_REPLACED };
typedef struct sess_gone {
    int64_t sid;                       /* the session lost, 0 = none pending */
    int64_t turn;                      /* SESS_GONE_TURN: the turn deleted */
    int     kind;                      /* enum sess_gone_kind */
} sess_gone;

/*
** The save bookkeeping of a regeneration just before it writes its rows:
** taken by regen_one (session.c), again by begin_rows (session_db.c) once
** what was kept out before the regenerated exchange is written, so that a
** regeneration that makes nothing takes back exactly its own rows -- the
** begun reply, and the message row it wrote itself when that message had
** been kept out (a failed save) -- and what is kept out is as it was.
*/
typedef struct sess_regen_undo {
    int64_t head;                 /* the head: its rows went under it */
    int64_t user;                 /* the message row it wrote, 0 = none */
    int64_t last_user, last_reply;
    size_t  unsaved;              /* sess.unsaved, unsaved_user, unsaved_reply */
    int64_t unsaved_user, unsaved_reply;
} sess_regen_undo;

struct sess {
    rwkv_model      *m;                /* borrowed */
    const tok       *t;                /* borrowed */
    chat            *c;                /* owned */
    /* the config, kept to create the chat again (sess_set_model) */
    framing          fr;               /* the framing in use (the session's) */
    framing          launch_fr;        /* as given at launch: its stops and bans win
                                          at the first sess_open */
    int              launch_frame;     /* no session opened or created yet */
    int              no_stop;
    rwkv_sampling    cli_samp;         /* values given at launch ... */
    unsigned         cli_set;          /* ... and which (they win over stored ones) */
    chat_callbacks   cb;               /* the front end's */
    void           (*note)(void *ud, int is_err, const char *msg);
    const char    *(*tr)(const char *msgid);       /* cfg.tr, NULL = English */
    char             quit_key[SESS_QUIT_KEY_MAX];   /* cfg.quit_key, "" = not named */
    char             keep_way[SESS_KEEP_WAY_MAX];   /* cfg.keep_way, "" = none */
    void           (*progress)(void *ud, uint64_t done, uint64_t total);

    /* saving; st == NULL: nothing is saved */
    store           *st;               /* owned connection */
    int              lock_said;        /* this lock wait was said (sess_lock_note) */
    int              in_open;          /* an open's writes run (open_branch): ... */
    int              open_said;        /* ... and one of them said it failed */
    store_state_meta meta;
    char             model_path[STORE_PATH_MAX];
    char             vocab_path[STORE_PATH_MAX];
    int64_t          model_id;
    int64_t          sid;              /* 0 = created at the first reply */
    int64_t          created_ms;       /* of session sid: with the id, its identity
                                          (-1 = unknown: not checked) */
    sess_other       other;            /* session sid made with another model */
    sess_gone        gone;             /* the session lost elsewhere (check_alive) */
    char             title[STORE_TITLE_MAX];
    int64_t          head;             /* last saved turn of the branch */
    /* a message's rows watch the head (begin_rows): while HEAD_WATCH is
    ** set, the first of them written compares the head it replaced in the
    ** file (store_turn_head_before) with WATCH_HEAD, the head this process
    ** left there (note_moved) */
    int              head_watch;
    int64_t          watch_head;
    int64_t          last_user;        /* user turn of the last exchange */
    int64_t          reply_id;         /* the begun reply row, 0 = none */
    int64_t          last_reply;       /* the last finished reply row */
    int              regen;            /* the running reply is a regeneration */
    sess_regen_undo  regen_undo;       /* ... and the save bookkeeping before its
                                          rows: what goes back when it makes no
                                          token (sess_drop_empty_regen) */
    struct sess_regen_keep *kept;      /* ... and what it replaces in the chat, put
                                          back when it makes nothing (session.c) */
    int              cont;             /* ... a continuation (sess_continue) */
    int              started;          /* the running reply reached generation */
    double           last_save;
    double           last_alive;       /* the last lease refresh alone (sess_save_alive) */
    int              progress_failed;

    int              root;             /* enum sess_root: how the chat's
                                          conversation began */
    sess_start       start;            /* the state file in use */
    int              launch_state;     /* start is the expect_state of the config:
                                          the first sess_open must match it */

    /* explicit seed: the per-reply seed sequence, mirrored so a resumed
    ** session goes on with it */
    int              seeded;
    rng              seeds, seeds_after;

    atomic_int       cancel;           /* sess_cancel: stop the reply or replay */
    atomic_int       chat_cancel;      /* the cancel flag of every chat of the sess
                                          (chat_config.cancel): sess_cancel sets it
                                          and never reads C, which the worker
                                          thread may be swapping for another chat
                                          (sess_open, a sibling step, a framing or
                                          model switch) and destroying */
    atomic_int       expect;           /* a reply is on its way or running (the
                                          cancel rule, session.h): its start keeps
                                          CANCEL and KEEP instead of voiding them */

    /* the message being sent was saved at submit (sess_save_submit): its
    ** rows stay until the reply starts (or the process dies), and go again
    ** when it is cancelled first, unless KEEP (sess_abandon) */
    int              early;
    int64_t          undo_sid, undo_head, undo_user, undo_reply;
    char             undo_title[STORE_TITLE_MAX];   /* what a session made for */
    int              undo_launch_state, undo_launch_frame;  /* it changed */
    atomic_int       keep;

    /* the message being sent was NOT saved at submit (its save failed, or
    ** the greeting was still to be fed): a copy of its chat turn, so that
    ** sess_abandon cutting its prefill keeps it (session.c, keep_unsent)
    ** instead of the chat dropping it; taken by sess_submit, dropped by
    ** sess_run.  HAS_SENT: SENT holds one (at index SENT_AT of the chat). */
    chat_turn        sent;
    size_t           sent_at;
    int              has_sent;
    /* the chat's last turn is a message kept that way, with an empty
    ** interrupted reply, whose prompt was never fed (nor the greeting before
    ** it, when chat_greeting_fed says so): the chat's state is the one
    ** before it.  Fed before anything goes on from there (session.c,
    ** feed_kept); a replay, a reset, or a generation that fed it ends it. */
    int              unfed;
    /* the state before the last message, left by the open to be rebuilt
    ** when something first starts from it (session_db.c, sess_lazy_prev):
    ** the open's replay to the head did not pass it (a budget kept the
    ** head's state alone).  LAZY 0 = none pending; it holds while the chat
    ** (LAZY_CHAT, of session LAZY_SID) has the LAZY_N turns the open gave
    ** it and no state before its last message of its own */
    int              lazy;
    int64_t          lazy_turn;        /* the turn it is after (0 = the start) */
    int64_t          lazy_sid;
    size_t           lazy_n;
    const chat      *lazy_chat;

    /* a save that failed part-way (a full disk, the file-size limit, a lock
    ** held past the busy timeout): chat turns [unsaved - 1, n) are not in
    ** the store, the first of them maybe half (its user row UNSAVED_USER,
    ** its begun reply row UNSAVED_REPLY); 0 = every turn saved.  The next
    ** saves write them first (session_db.c, catch_up). */
    size_t           unsaved;
    int64_t          unsaved_user, unsaved_reply;
    /* the session's own sampling values (store_session_sampling) as this
    ** process last wrote or read them; SAMP_KNOWN 0: not known (none read,
    ** a write failed), so sess_save_sampling writes the chat's */
    rwkv_sampling    samp_saved;
    int              samp_known;
    /* sess_reply_sampling: the chat samples with one reply's values; its
    ** own (ONCE_OWN, ONCE_SET) come back at the reply's end and are what
    ** sess_save_sampling keeps meanwhile */
    int              once;
    rwkv_sampling    once_own;
    unsigned         once_set;
    int              fail_said;        /* a failed save was said since one worked */
    int              nostate_said;     /* a reply saved without its state was said
                                          since one was saved with it */
    int              db_lost;          /* the file was lost in use (file_lost): st is
                                          NULL for good, nothing saves again */
    char             fail_why[RWKV_ERR_MSG];   /* the last failure's line (sess_flush) */
};


/* ---- session.c ---------------------------------------------------------------------------- */

/* MSGID (a note's format or a word for it) through cfg.tr. */
const char *sess_tr(const sess *s, const char *msgid)
#if defined(__GNUC__)
    __attribute__((format_arg(2)))
#endif
    ;
/* A line for the user through cfg.note (nothing when there is none), its
** format in the front end's language (sess_tr). */
void sess_notef(sess *s, int is_err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The next reply's seed from the mirrored sequence (explicit seed only). */
void sess_queue_seed(sess *s);
/* The start state of START (zeros, or its state file) into OUT. */
int  sess_load_start(sess *s, const sess_start *start, rwkv_state *out, rwkv_err *err);
/* The greeting taken as fed from the database (see sess_prime): 0 when the
** chat took a saved state after it, -1 when none fits (nothing changed). */
int  sess_greeting_saved(sess *s);
/* Make the chat start from START (its state file, or the greeting). */
int  sess_chat_start_from(sess *s, const sess_start *start, rwkv_err *err);
/* Session SID's state-file row SF, before it is used (the one rule of a
** resume, sess_resume_state, and of an open in the app): its file holding
** other bytes than its digest on record is refused in one line with the
** way on (AT_LAUNCH: --state PATH; else the launch that gives one); a row
** without a digest records its file's.  RWKV_OK otherwise -- its file not
** on disk too: the session goes on from its saved states (session_start:
** sess_start.gone), only what needs the start itself is refused. */
int  sess_state_check(store *st, int64_t sid, const store_statefile *sf, int at_launch,
                      rwkv_err *err);
/* The one line of START gone (sess_start.gone) where the start itself is
** needed: RWKV_EINVAL naming its file. */
int  sess_start_gone(const sess_start *start, rwkv_err *err);
/* A chat like the current one (sampling, the start in use) with framing FR:
** *OUT owned by caller (chat_destroy). */
int  sess_chat_with_framing(sess *s, const framing *fr, chat **out, rwkv_err *err);
/* The conversation left (the leaving rule checked by the caller): the chat
** back to its start, the next message starting a new session. */
void sess_start_over(sess *s);

/* ---- session_db.c ------------------------------------------------------------------------- */

/* "saving WHAT: <err>" as an error note: the chat goes on.  WHAT (a literal,
** "the reply") goes through cfg.tr as the format does. */
void sess_save_fail(sess *s, const char *what, const rwkv_err *err);
/* The same for a save the next message tries again: said once until a save
** works ("... (the chat goes on; what is not saved is tried again with your
** next message)"), not said when the file went away (file_lost says it). */
void sess_save_failed(sess *s, const char *what, const rwkv_err *err);
/* The chat's sampling values written as the session's own (a value
** changed, a reply run with values given at launch, a new session) when
** they differ from what it holds; a failure is a sess_save_failed note,
** tried again with the next reply and when leaving. */
void sess_save_sampling(sess *s);
/* The title of a session from its first message MSG (at most
** SESS_AUTO_TITLE_MAX bytes, into OUT, CAP bytes). */
void sess_auto_title(const char *msg, char *out, size_t cap);
/* The model's metadata for snapshots, and its row in the store (when saving):
** the row already there is found by a read (no write, so no wait for
** another program's lock); a missing one is written. */
int  sess_model_row(sess *s, rwkv_err *err);
/* The store of CFG->db_path opened for S (CFG->nodb_hint in the line that
** refuses one it may not write), its lock waits said (a busy hook the
** full-screen client replaces by its own once its screen is up): a wait
** that lasts SESS_LOCK_SAY_MS is one note, up front, with its bound. */
int  sess_open_store(sess *s, const sess_config *cfg, rwkv_err *err);
#define SESS_LOCK_SAY_MS 100
/* Feed segment IDS[N] of ROLE into OUT by the replay rule; *DONE counts up
** to TOTAL for the progress callback. */
int  sess_feed_seg(sess *s, const int32_t *ids, size_t n, int role, rwkv_state *out,
                   uint64_t *done, uint64_t total, rwkv_err *err);
/*
** Make the chat continue after turn HEAD of session SID whose start is START:
** its turns become the chat's records, its state the current one.  A user
** turn without its reply as HEAD is replaced by its parent.  Everything is
** computed before the chat changes: on failure nothing changed.
*/
int  sess_load_branch(sess *s, int64_t sid, const sess_start *start, int64_t head,
                      rwkv_err *err);
/*
** The state before the last message, where the open left it to be rebuilt
** (sess.lazy): rebuilt now by the replay rule, said and kept as an open's
** replay is, and made the chat's turn start -- the one place for what
** starts from it (a regeneration or alternative: regen_one; a
** continuation: sess_continue).  Cancellable (RWKV_ECANCEL: nothing
** changed, still pending).  Nothing pending: RWKV_OK, nothing done.
*/
int  sess_lazy_prev(sess *s, rwkv_err *err);
/* Save the chat's records [0, N) under the head (a new session titled from
** the first message when there is none; LAST: the state after the last
** one, NULL = none): 0, or -1 after a note. */
int  sess_save_records(sess *s, size_t n, const rwkv_state *last);
/* Every turn of the chat counts as saved (it was just read from, or
** written whole to, the store; or the chat was reset). */
void sess_unsaved_clear(sess *s);
/* The reply of a message never started and the chat dropped it: a failed
** save's bookkeeping for it goes (its half-written rows too). */
void sess_unsaved_dropped(sess *s);
/* The chat's callbacks' persistence: generation started (the user turn and
** the begun reply), text streamed (the partial reply now and then), the
** reply ended (completed with the state after it).  Failures are notes. */
void sess_save_begin(sess *s);
/* RWKV_OK when the last reply of the chat is the end of its branch in the
** store (no turns after it), else EINVAL saying what to do instead. */
int  sess_reply_is_last(sess *s, rwkv_err *err);
void sess_save_progress(sess *s);
/* The running reply's lease refreshed when no text was saved for
** SESS_SAVE_EVERY_S (its prefill, a slow token): called with the chat's
** stats, after every prefill chunk and token. */
void sess_save_alive(sess *s);
void sess_save_finish(sess *s, const chat_turn *t);
/* A message just submitted (before its prefill): the user turn without its
** state and the begun reply, so that a crash, kill -9 or a hang-up during
** a long prefill keeps what was sent; sess_save_begin completes them.  Only
** once the greeting is fed (a new session's greeting turn needs its state;
** until then the rows wait for the reply as before). */
void sess_save_submit(sess *s);
/* The reply of a message saved at submit never started (cancelled, or an
** error in its prefill): its rows go (the session too when it was made for
** it), as if it had not been sent -- unless sess_abandon asked to keep them. */
void sess_save_unsent(sess *s);
/* A regeneration about to write its rows: the bookkeeping as it is now
** goes to regen_undo (nothing written by it yet). */
void sess_regen_mark(sess *s);
/* A regeneration cut before its first token made nothing: the rows it
** wrote go (its begun reply; the message row too when it wrote that) and
** the head and what is kept out are as they were (regen_undo).  The chat is
** not touched (sess_run takes the branch back, or what keep_take kept).  0
** when the rows went. */
int  sess_drop_empty_regen(sess *s);

#endif
