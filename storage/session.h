/*
** session.h -- the session runtime: the chat engine (core/chat/chat.h) and the
** session store (store.h) driven together, once, for both front ends (the
** line chat, cli/cmd_chat.c, and the full-screen client, tui/).  No stdio,
** no curses: problems come back as status + message (rwkv_err), and what a
** user should be told (a replay, a session re-created, a failed save that
** the chat survives) through the `note` callback.
**
** A sess owns its chat (sess_chat) and, when saving, its own store
** connection (sess_store): the full-screen client browses the database on
** another connection from the UI thread while a reply is saved from the
** worker thread.
**
** Layout of a session in the store:
**   [system turn: the greeting's ids; snapshot = state after it]  when fed
**     user turn (ids of "User: ...\n\nAssistant:"; snapshot = before the reply)
**       assistant turn (reply ids; snapshot = state after the reply)
**         user turn ...
** A regenerated reply is a sibling assistant turn; an edited message a
** sibling user turn.  The tree holds what the chat fed, so a replay gives
** the chat's state: a conversation fed after the greeting is under its
** system turn, one fed without it (a session imported with its first
** message at the root, a conversation replayed under another start) is
** not; a session without turns (its whole conversation deleted) goes on as
** a new one of its framing -- the greeting fed, its turn written with the
** next message.
**
** Persistence of a reply (all automatic, inside sess_run through the chat's
** callbacks, on the thread that runs it):
**   the message is sent -> the user turn and a begun reply row marked
**                         interrupted (once the greeting is fed: else at
**                         generation start), so a crash during a long
**                         prefill keeps the message; a cancel before the
**                         reply starts removes them again (not sess_abandon:
**                         the abandon rule below);
**   generation starts  -> the state before the reply on the user turn (the
**                         rows written now if not yet);
**   text streams       -> the partial reply, at most every SESS_SAVE_EVERY_S;
**   the reply ends     -> the reply completed with the state after it;
**   a continuation     -> the same reply row begun again (sess_continue).
** While a reply runs, its row's lease names the process writing it
** (store_turn_writing; refreshed at least every SESS_SAVE_EVERY_S, its
** prefill included): an open of the session in another window that finds
** it being written goes on from the turn before its message, a new branch
** beside it, said in one line (session_db.c, branch_head); a reply whose
** writer died (kill -9) is resumed as cut, as below.
** A write lock another program holds past the busy time is waited for once
** a reply (store_busy_once, from sess_submit / sess_regen / sess_continue to
** the end of sess_run, or to their own failure: no reply, no wait-once
** mode left behind): the rows that then fail are kept out and written
** first, in order, with the next message -- or, quitting, by sess_flush,
** which both front ends call on their way out (what then still fails is
** counted, for the front end to ask or say: nothing is lost silently) --
** and nothing else drops them (the leaving rule below).
** So kill -9 at any moment of a reply keeps the message and the streamed part
** (marked interrupted), the first message of a new session included: the
** session row is created with the first message's rows.
**
** The abandon rule (sess_abandon: a quit, a hang-up, stopping a reply to
** leave): nothing sent is lost.  A reply cut after it began stays as far as
** it went (interrupted, continuable), as after a cancel.  A message cut
** before its reply began stays too, with an empty interrupted reply, as
** after a crash: when its rows were written at submit they stay in the
** store (the chat drops it, sess_started 0: as before); when they were not
** -- their save failed (the lock above, a full disk), or the greeting was
** still to be fed -- the memory is all there is of it, so it stays in the
** chat, as a reply cut at its first token (sess_started 1), and counts as
** kept out: the quit's sess_flush writes it (a new session's greeting turn
** first, stateless when the greeting was never fed), sess_unsaved counts it
** for the front end's question, sess_export has it.  Its prompt was not fed
** (the abandon cut that): when the chat goes on after all (the front end's
** "back to the chat"), the next message feeds it first, a regeneration or
** continuation of it feeds it as a resume would, so the states match the
** saved tokens (the replay rule).
**
** The leaving rule (the only one): whatever leaves the conversation
** without quitting -- a new session (sess_new), an open or a sibling step
** (sess_open, sess_step_sibling), a fork, a reset, a state-file switch
** without replay, a model switch, another greeting or role names
** (sess_set_framing) -- first writes what a failed save kept out, as
** sess_flush does (its one bounded wait for a lock).  When some of it is
** still not saved the step does not happen: RWKV_EDB, its line saying how
** many, how to quit (cfg->quit_key) and why ("2 exchanges are not saved,
** so this chat stays: try again, or quit with F10 (PATH: database is
** locked)"), the conversation as it was; asked again, it tries again.  (A
** switch with replay saves the whole conversation, those exchanges
** included, as the new session.)  Nothing kept out: nothing is done, no
** wait.  The check comes before anything costly: a model switch makes it
** before the new model is loaded (sess_leave_check, sess_set_model).
** The database file is looked at first (sess_db_check: a stat): one lost
** in use -- deleted, replaced, truncated -- since the last save is found
** then, not after the step dropped what only memory holds.  With the file
** lost, trying again cannot work, and the refusal says so: "2 exchanges
** are only in memory, so this chat stays: quit with F10 and export it (e),
** or go on here; no retry can save it (PATH: while in use, the session
** database was deleted)" (cfg->keep_way; without one, "quit with /quit
** (it is lost then)").
**
** The fork rule (one rule everywhere: /fork, the TUI's edit, `sessions
** fork`): forking at a USER turn continues from its parent (the message is
** to be written again); at any other turn, from that turn.
**
** The replay rule (sess_replay, the only one): the state after a turn is the
** nearest usable snapshot above it plus the stored tokens after it, fed as
** they were first fed: system and user segments in chunks of the sampling
** `chunk`, each segment on its own; assistant segments one token at a time.
** So a resume by replay continues bit for bit like one uninterrupted process.
**
** The cancel rule (the only one; both front ends call sess_expect_reply
** where the user sends and sess_cancel where the user cancels): a reply is
** expected from the moment the user sends a message or asks for a
** regeneration or continuation (sess_expect_reply, or else the reply's own
** start: sess_submit, sess_regen, sess_regen_n, sess_continue) until it
** ends (sess_run returns; a batch, sess_regen_n; or its start fails, the
** front end's included: sess_expect_clear).  A
** cancel at any moment of that -- queued behind a job that runs first (the
** greeting), not started yet by the worker, or running -- stops that reply:
** one before it starts stops it at its first step, with the same result as
** one sent then (a message's prefill cut: message dropped, or with
** sess_abandon kept; a regeneration with nothing in it: nothing changed; a
** continuation: as it was).  A cancel while nothing is expected or running
** is void: it never carries over to the next reply.  Opening a session,
** stepping to a sibling or switching the state file (sess_open,
** sess_step_sibling, sess_switch_state) is expected the same way, from
** sess_expect_reply until it returns: a cancel before it starts cuts its
** replay at the first step (RWKV_ECANCEL: nothing changed), and one that
** needs no replay goes on.  The cancel is the sess's, not a chat's: one
** that lands while the thread running the sess swaps its chat for another
** (an open or a sibling step under other framing, a framing or model
** switch) holds for the chat that runs next and never touches the one
** being destroyed.
**
** Threads: one thread at a time calls the sess_* functions of one sess
** (sess_cancel, sess_abandon, sess_expect_reply and sess_expect_clear
** excepted: any thread or a signal handler).  Callbacks run on that thread.
*/
#ifndef RWKV_SESSION_H
#define RWKV_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "../core/chat/chat.h"
#include "../core/rwkv.h"
#include "../core/status.h"
#include "../core/text/tokenizer.h"
#include "framing.h"
#include "store.h"

typedef struct sess sess;      /* opaque: sess_create / sess_destroy */

/* Seconds between saves of a running reply's partial text. */
#define SESS_SAVE_EVERY_S 1.0
/* Longest name of the quit key or command (sess_config.quit_key) kept,
** with its NUL: a key name ("F10", "C-q") or a command is a few bytes. */
#define SESS_QUIT_KEY_MAX 32
/* Longest sess_config.keep_way kept, with its NUL: a short clause. */
#define SESS_KEEP_WAY_MAX 96
/* Longest session title taken from a first message (bytes). */
#define SESS_AUTO_TITLE_MAX STORE_AUTO_TITLE_MAX   /* (store_title_auto) */
/* The full-screen client's way to save nothing (sess_config.nodb_hint). */
#define SESS_NODB_HINT "--no-db to save nothing"
/* the model path a session made with the built-in demo model records */
#define SESS_DEMO_PATH "(demo)"

typedef struct sess_config {
    const char    *db_path;      /* NULL = nothing saved (an ephemeral chat) */
    rwkv_model    *model;        /* borrowed: outlives the sess (or sess_set_model) */
    const tok     *tok;          /* borrowed, likewise */
    const char    *model_path;   /* checkpoint as given (made absolute); NULL = demo */
    const char    *vocab_path;   /* World vocabulary used, NULL = byte-level */
    chat_config    chat;         /* greeting, stops, bans, sampling + user-set mask;
                                    chat.state_path = the state file to start from */
    unsigned       config_set;   /* of chat.samp_set, the values that came from a
                                    config file (the full-screen client's default
                                    preset): they hold for a new chat but do not
                                    win over a resumed session's own values, as
                                    those given on the command line do */
    const framing *launch_frame; /* of chat's framing, what the command line gave:
                                    its stops, bans and think mode win over a
                                    resumed session's own at its first open, its
                                    greeting and names are named in a note; the
                                    rest (a config file's keys and preset) holds
                                    for new chats only.  NULL: all of it was
                                    given (the line chat) */
    const char    *expect_state; /* resuming: the state file the user named (not
                                    loaded; sess_open refuses a session that does
                                    not start from it) */
    chat_callbacks cb;           /* the front end's (sess forwards to them) */
    /* Optional, UD = cb.ud: a line for the user (IS_ERR: something failed
    ** that the chat survives); replay progress (tokens fed, of TOTAL). */
    void         (*note)(void *ud, int is_err, const char *msg);
    void         (*progress)(void *ud, uint64_t done, uint64_t total);
    /* Optional: the notes' English format strings (and the words put into
    ** them) in the front end's language, with the same conversions in the
    ** same order; returns MSGID itself or a static string.  NULL: English. */
    const char  *(*tr)(const char *msgid);
    /* Optional: how the user quits, as the front end names it (the
    ** client's quit key, "F10"; the line chat's "/quit"): the leaving
    ** rule's refusal says it.  Copied; longer than SESS_QUIT_KEY_MAX - 1
    ** bytes: sess_create fails (RWKV_EINVAL).  NULL: "quit" alone. */
    const char    *quit_key;
    /* Optional: how the user keeps a conversation no save can write any
    ** more (its database lost in use: deleted, replaced, truncated), as
    ** the front end says it -- the client's "quit with F10 and export it
    ** (e)": the refusal of the leaving rule says it then.  Copied; longer
    ** than SESS_KEEP_WAY_MAX - 1 bytes: sess_create fails (RWKV_EINVAL).
    ** NULL: "quit with QUIT_KEY (it is lost then)". */
    const char    *keep_way;
    /* Optional: the front end's way to chat without saving, for the hint
    ** of the line refusing a database it cannot write (store_open_opts.
    ** nodb: "use a writable --db, or NODB").  NULL: the full-screen
    ** client's, "--no-db to save nothing". */
    const char    *nodb_hint;
} sess_config;

/*
** Create the runtime: the chat (state file loaded when cfg->chat.state_path
** is set) and, with a db_path, the store connection and the model's row.
** Nothing is saved before the first reply starts.  *OUT: sess_destroy.
*/
int  sess_create(const sess_config *cfg, sess **out, rwkv_err *err);
void sess_destroy(sess *s);                       /* NULL is fine */

chat       *sess_chat(sess *s);                   /* borrowed */
/* A free generation's start (+gen, +qa, M-g): *OUT NULL (zeros) or the
** state file's start state (borrowed); a state file not on disk: an error
** line saying so. */
int         sess_gen_start(sess *s, const rwkv_state **out, rwkv_err *err);
store      *sess_store(sess *s);                  /* NULL when not saving */
int64_t     sess_id(const sess *s);               /* 0 = not created yet */
int64_t     sess_head(const sess *s);             /* last saved turn of the branch */
const char *sess_title(const sess *s);
/* The state file in use: its path or library name, "" = none. */
const char *sess_state_label(const sess *s);
/* Its library row when it came from the library, else 0. */
int64_t     sess_state_lib(const sess *s);
/* 1 when the last sess_run reached generation (0: cancelled or refused
** while the message was fed; nothing of it was saved, but after
** sess_abandon; or a regeneration in a saved session cancelled before its
** first token: its empty row went again, the reply before it is back).
** Also 1 for a message sess_abandon cut before its reply whose rows were
** not saved: kept in the chat with an empty interrupted reply (the abandon
** rule above), as one cut at its first token. */
int         sess_started(const sess *s);
/* Store ids of the last exchange (0 = none/not saved). */
void        sess_last_ids(const sess *s, int64_t *user_turn, int64_t *reply_turn);

/* What a saved session needs before a model is loaded. */
typedef struct sess_info {
    int64_t id;
    char    title[STORE_TITLE_MAX];
    char    model_path[STORE_PATH_MAX];   /* "" = none on record, SESS_DEMO_PATH = demo */
    char    vocab_path[STORE_PATH_MAX];   /* "" = none on record */
    char    strategy[128];
    int64_t head_turn;
    int64_t n_turns;                      /* messages in the whole tree (TURNS) */
} sess_info;
/* Session SID (0 = the most recently used) of the database DB (NULL = the
** default path); RWKV_EINVAL "no saved sessions ..." when there is none.
** The database is opened as the chat will open it, for writing: one this
** process may not write is refused here, before a model loads, with
** NODB's hint (sess_config.nodb_hint; sess_lookup: the client's). */
int  sess_lookup(const char *db, int64_t sid, sess_info *out, rwkv_err *err);
int  sess_lookup_ex(const char *db, int64_t sid, const char *nodb, sess_info *out,
                    rwkv_err *err);
/*
** A launch without a model (the one hint of both front ends): when the
** database DB (NULL = the default path) holds saved sessions, one line into
** BUF (CAP bytes) saying how many, the latest's title and that --resume
** continues it (no --model needed: the session knows its own); returns 1.
** Only looked at (store_open_peek): nothing is made or changed, and a lock
** held elsewhere is waited for SESS_HINT_BUSY_MS at most -- then, or with
** no database or no session, "" and 0.
*/
#define SESS_HINT_BUSY_MS 200
int  sess_saved_hint(const char *db, char *buf, size_t cap);
/*
** What a resume of INFO launches with where the command line said nothing
** (the one rule of both front ends): unless *MODEL or *DEMO is set, the
** session's checkpoint (or the demo; *MODEL stays NULL when none is on
** record) -- and with it, unless *STRATEGY is set, the session's strategy,
** so its states are used as saved instead of replayed under another
** precision; unless *VOCAB is set, its vocabulary.  Pointers into INFO
** (borrowed: valid while INFO is).
*/
void sess_info_launch(const sess_info *info, const char **model, int *demo,
                      const char **strategy, const char **vocab);
/*
** The state file a resume of INFO starts from (the one rule of both front
** ends, with sess_info_launch; before the model loads), GIVEN the --state
** named (NULL = none), in database DB (NULL = the default; NODB as for
** sess_lookup_ex).  A state file is its content: GIVEN holding the
** session's state file (the same bytes, store_statefile_digest: a copy,
** the file moved) is it, and the session records its path from now on;
** GIVEN holding another state, or given to a session without one, is
** refused (RWKV_EINVAL, one line: how to go on).  Without GIVEN, the
** session's file not on disk is no obstacle: the session goes on from its
** saved states, and only what needs its start (a replay from there, its
** first reply again, a new chat) is refused, naming the file; its path
** holding other bytes than the session was made with (a state saved over
** the old name) is "PATH: holds another state than session N was made
** with (...)".  On
** RWKV_OK *GIVEN is NULL: the session's own row names the file sess_open
** loads; ERR->msg is a note for the user ("" when none).  A row made
** before digests were kept, whose file is gone, takes GIVEN when it fits
** the session's model, with that note; its file there gives it a digest.
*/
int  sess_resume_state(const char *db, const sess_info *info, const char **given,
                       const char *nodb, rwkv_err *err);
/*
** The model session SID of store ST needs in a client running the model
** INF describes (the client's F2; a launch takes it by sess_info_launch):
** OUT->other 0 when this model opens it (sess_open checks the rest); 1
** when it was made with a model of another shape, which sess_open refuses
** (the one rule: check_model) -- OUT->model is that model's row
** (OUT->demo: the demo model's), OUT->info what sess_info_launch takes to
** load it.  Checked here, before any load: its file is still there with the
** size on record, and the session's state file as sess_open checks it;
** else one line (RWKV_EINVAL) and nothing is to be loaded.
*/
typedef struct sess_need {
    int         other;        /* made with a model of another shape */
    int         demo;         /* that model is the demo model (no file) */
    store_model model;        /* that model's row */
    sess_info   info;         /* for sess_info_launch */
} sess_need;
int  sess_model_need(store *st, int64_t sid, const rwkv_info *inf, sess_need *out,
                     rwkv_err *err);
/* NEED's model loaded (INF): RWKV_OK when it is the file the session was
** made with (fingerprint, and digest where both have one), else one line:
** the file at that path was replaced since. */
int  sess_need_loaded(const sess_need *need, const rwkv_info *inf, rwkv_err *err);
/* A model that failed to load (ERR), MODEL with STRATEGY: when either is
** INFO's, as sess_info_launch took it (INFO NULL: no resume), ERR's line
** says where it came from and which option gives another. */
void sess_info_load_hint(const sess_info *info, const char *model, const char *strategy,
                         rwkv_err *err);

/*
** Continue session SID after turn HEAD (-1 = its current head): the model is
** checked (another shape or vocabulary is refused, naming the session's
** model), the session's state file loaded (or none), its sampling values
** taken (those set at launch win: cfg->chat.samp_set less cfg->config_set;
** the seed sequence continues),
** the chat's records and state rebuilt (sess_replay); a reply or greeting
** head without a saved state (a reply cut by a crash or kill -9) keeps the
** state its replay rebuilt, so the next open takes it.  The state before
** the last message (what sess_regen, sess_regen_n and sess_continue start
** from) is taken when that replay passes it; else it is rebuilt, said and
** kept (under the budget) only when one of them first needs it, so a resume
** whose budget kept the head's state alone replays nothing.  A user turn
** without its reply as HEAD continues before it.  On failure nothing changes; a
** cancel (sess_cancel: during it, or since sess_expect_reply -- the cancel
** rule above) cuts its replay: RWKV_ECANCEL.  It ends the expectation.
** It leaves the conversation (the leaving rule above).
*/
int  sess_open(sess *s, int64_t sid, int64_t head, rwkv_err *err);
/* Leave the session: the next message starts a new one (from the current
** start: the greeting or the state file in use).  Fails only by the
** leaving rule above (RWKV_EDB: nothing changed). */
int  sess_new(sess *s, rwkv_err *err);
/* Create the session row TITLE now (the line chat's --new), with the
** greeting's turn when it was fed; the note "new session N: TITLE" once
** it is all there.  A failed save (a full disk, a lock held) is a note,
** said once, and RWKV_EDB with its reason: the chat goes on as one whose
** save failed -- TITLE is kept, and the session is made, under it, with
** the first message that saves. */
int  sess_begin(sess *s, const char *title, rwkv_err *err);
/* Rename session ID TITLE (store_session_rename: its rules and errors); when
** ID is the session in use, its title here (sess_title, which the runtime
** goes on with) follows, cleaned as stored.  The one way a front end renames
** the session it has open; not while a job runs on S. */
int  sess_rename(sess *s, int64_t id, const char *title, rwkv_err *err);
/* Back to the start of the conversation; in a saved session the next message
** starts a new branch of it.  The leaving rule above. */
int  sess_reset(sess *s, rwkv_err *err);
/* The fork rule above: continue session's TURN (a turn of the current
** session).  *AT (may be NULL): the turn continued from.  The leaving
** rule above. */
int  sess_fork(sess *s, int64_t turn, int64_t *at, rwkv_err *err);
/* The turn a fork at TURN of session SID continues from (the rule above),
** for callers that copy (`sessions fork`).  *AT 0 = the session's start.
** RWKV_EINVAL, naming TURN, when it is not a turn of SID. */
int  sess_fork_point(store *st, int64_t sid, int64_t turn, int64_t *at, rwkv_err *err);
/* sess_fork_point, and *LIVE (may be NULL): the reply still being written
** on the way that moved the fork point before its message, else 0. */
int  sess_fork_point_ex(store *st, int64_t sid, int64_t turn, int64_t *at, int64_t *live,
                        rwkv_err *err);
/* Why the fork point moved (sess_fork_point_ex's *LIVE): the one wording of
** every front end (/fork, `sessions fork`, F2's fork), "reply LIVE is still
** being written in another window: branched before its message MSG", into
** BUF (CAP bytes), in ST's language (store_set_tr: the front end's; none
** set, as `sessions fork`: English).  Returns MSG, 0 when LIVE could not be
** read (the line then names no message). */
int64_t sess_fork_live_why(store *st, int64_t live, char *buf, size_t cap);
/* The previous (DIR -1) / next (+1) sibling of TURN, down to its newest leaf
** (sess_open: a cancel and the leaving rule as there). */
int  sess_step_sibling(sess *s, int64_t turn, int dir, rwkv_err *err);

/*
** Start from another state file: PATH, or library row LIB_ID (imported bytes
** or a referenced path), or none (PATH NULL, LIB_ID 0: the greeting).  With
** REPLAY the conversation so far is fed again under the new start and saved
** as a new session; else the next message starts a new session (the
** leaving rule above).
*/
int  sess_switch_state(sess *s, const char *path, int64_t lib_id, int replay, rwkv_err *err);
/*
** The chat's framing (storage/framing.h) is the session's: saved with it
** when it is created, used again when it is opened (a session saved before
** the framing was kept has the defaults), and kept by a new session.  At
** the first sess_open the stop strings, bans and think mode of the config
** win; a greeting or names given there that differ are named in a note.
*/
const framing *sess_framing(const sess *s);   /* borrowed */
/*
** Use framing F (copied) from the next message on.  Other stop strings,
** bans or another think mode keep the conversation (and are saved with the
** session); another greeting or other names leave it -- the next message
** starts a new session: the leaving rule above -- and *LEFT is 1 when
** there was a conversation to leave.  IDLE only; on failure nothing
** changes.
*/
int  sess_set_framing(sess *s, const framing *f, int *left, rwkv_err *err);

/*
** The greeting rule with a state file (the demo's: API_DEMO_CHAT.py feeds
** no greeting when a state is loaded): the framing keeps its greeting, but
** a chat that starts from a state file does not feed it.  1 when this
** chat's start feeds the framing's greeting, 0 when a state file replaces
** it -- what the framing views (/framing, F8) show.  SESS_GREETING_UNUSED
** is their words for it; sess_create and sess_switch_state say it in a
** note when a greeting of one's own (--greeting, the config, F8, a preset)
** is set and a state file starts the chat.
*/
int  sess_greeting_used(const sess *s);
#define SESS_GREETING_UNUSED "(not fed: a state file is in use)"

/* 1 when the chat's state holds the greeting's tokens (fed, or fed with
** the first message), 0 on a branch saved without one (its first message a
** root: an imported session) or before the greeting is fed. */
int  sess_holds_greeting(const sess *s);

/* Tokens a replay under another state would feed (IDLE). */
uint64_t sess_replay_cost(sess *s);

/*
** Feed the greeting now (chat_prime), or take the state it leaves from the
** database without a prefill: the greeting turn of a saved session that fed
** the same tokens to this model file under the same strategy string gives
** the same numbers (a long greeting or a slow model starts at once).
** *SAVED (may be NULL): 1 when it came from there.  sess_submit does the
** same for a greeting still pending.
*/
int  sess_prime(sess *s, int *saved, rwkv_err *err);
/* A message (chat_submit) / a regenerated last reply (chat_regen), then
** sess_run until the reply ends. */
int  sess_submit(sess *s, const char *msg, size_t len, rwkv_err *err);
int  sess_regen(sess *s, rwkv_err *err);
/* Most alternatives one sess_regen_n makes (a batch of the peers' size:
** RWKV_APP and loom offer a handful; each costs a whole reply of time). */
#define SESS_MAX_ALTS 16
/*
** N (1..SESS_MAX_ALTS) alternative replies to the last message, one after
** another from the state before the reply (no prefill but, after a resume
** without that snapshot, the first one's): each is sess_regen + sess_run,
** so each is a sibling reply saved as it streams, with its own seed -- the
** next of the chat's per-reply seeds, recorded on its row: with a fixed
** seed, the same seeds as N regenerations one by one, so the same command
** in the same conversation gives the same N replies.  EACH (may be NULL)
** is called (cb.ud, K, N) on this thread before alternative K (1-based)
** starts.  sess_cancel / sess_abandon stop the batch: the finished
** alternatives and the cut one stay (the cut one interrupted, continuable)
** -- unless it was cut before its first token: a reply with nothing in it
** is not kept (sess_run), the chat is left on the one before.
** *DONE (may be NULL): the alternatives that reached generation.  The chat
** is left on the last one.  N out of range: RWKV_EINVAL, nothing done.
*/
int  sess_regen_n(sess *s, int n, void (*each)(void *ud, int k, int n), int *done,
                  rwkv_err *err);
/*
** The last reply goes on (chat_continue: as if it had never been cut).  The
** same reply row is extended, not a new turn: marked interrupted (begun)
** again with its snapshot dropped when the continuation starts, its text
** and tokens saved as they stream, completed with the state after it -- so
** kill -9 keeps the old text plus what streamed, continuable again.  A
** reply with turns after it in the tree is refused (they were written after
** its old end).  Then sess_run.
*/
int  sess_continue(sess *s, rwkv_err *err);
/* chat_run, saving as described at the top.  A cancelled regeneration whose
** prompt was being fed again, or that was cut before its first token (its
** empty row goes), takes the saved branch back: nothing changed, as
** sess_started says.  Where what it replaced was kept out by a failed save,
** the rows it wrote go (its message's too, when it wrote that) and the
** exchange is back as it was, still kept out.  (Not saving, the chat keeps
** the empty reply.) */
int  sess_run(sess *s, rwkv_err *err);
/*
** The user sent: a message, a regeneration or a continuation is on its way
** to sess_submit / sess_regen / sess_regen_n / sess_continue, or asked to
** open a session or step to a sibling (sess_open, sess_step_sibling; the
** cancel rule above) -- call it where the job is queued, before the thread that
** runs it starts (in the line chat, before that call).  A cancel before it
** is void; one from it on stops that reply.  Called again before the reply
** ends it changes nothing (a message queued behind the greeting is then
** sent).  Async-signal-safe.
*/
void sess_expect_reply(sess *s);
/* The job expected will not run: the front end could not start it (no
** thread).  The expectation ends as at the end of a reply, so a cancel sent
** for it, or later while idle, is void at the next start, never carried over
** to it.  Async-signal-safe. */
void sess_expect_clear(sess *s);
/* Stop the reply (expected or in flight: the cancel rule above), prefill
** or replay (async-signal-safe; it reads no chat, so it is safe while the
** worker thread swaps sess_chat for another). */
void sess_cancel(sess *s);
/* Stop as sess_cancel, for leaving (a quit, a hang-up): a message whose
** prefill is cut stays with an empty interrupted reply, as after a crash,
** instead of going -- saved, or kept out for sess_flush when its save
** failed (the abandon rule above).  Async-signal-safe. */
void sess_abandon(sess *s);

/*
** Leaving (a quit, EOF, a hang-up; no reply running): the exchanges a
** failed save kept out (top) are written now, as the next message would
** write them -- in order, on the same branch, rows without states -- with
** that message's one wait for another program's lock (store_busy_once),
** and a note says so when it worked ("saving works again: ...").  Returns
** the exchanges still not saved (0: all in the store, or nothing kept out:
** then nothing is done, no I/O; or nothing saved: no database, or its file
** lost, which a note said); WHY (CAP bytes, may be NULL) then gets the
** failure's line ("PATH: disk full (nothing was saved)").  Called again,
** it tries again; nothing is ever written twice.  A message sess_abandon
** kept unsaved is one of them (the abandon rule above).  The front end
** asks or says what becomes of the rest: a quit never loses them silently.
** (The runtime's own ways of leaving make the same try first: the leaving
** rule above.)
*/
size_t sess_flush(sess *s, char *why, size_t cap);
/* The exchanges kept out now: what sess_flush would write (no I/O); a
** message sess_abandon kept before its reply counts. */
size_t sess_unsaved(const sess *s);
/*
** Where the LEFT exchanges sess_flush could not save are, for the end of
** the front ends' leaving line ("leaving with 2 exchanges not saved (WHY):
** " BUF, CAP bytes): "they are not in the session"; or, where the first
** one's message row was saved before its reply's save failed, what of it
** is ("... but the first one's message is, with an empty reply marked
** interrupted").  English: a line on stderr.
*/
void sess_unsaved_where(const sess *s, size_t left, char *buf, size_t cap);
/*
** The database file looked at now (store_check_file: a stat, and the
** header read through SQLite's handle): one lost in use -- deleted,
** replaced by another file, truncated, overwritten -- is found as a save
** would find it: the runtime goes on as with --no-db and every exchange in
** memory counts as kept out (sess_unsaved), so a quit asks or says what
** becomes of them.  LEAVING (a quit): no "goes on without saving" note --
** the quit's own line says it -- except when the chat has no exchange,
** which gets one note ("PATH: while in use, the session database was
** deleted (this chat had nothing in it to lose)"): a quit is never silent
** about a file gone.  Both front ends call it on the way out, before
** sess_unsaved; the leaving rule calls it first.  1 when the file is lost
** (now or before), 0 otherwise (no database: 0).  On the thread that runs
** the sess, no reply running.
*/
int    sess_db_check(sess *s, int leaving);
/* 1 when the database file was lost in use (sess_db_check, a save):
** nothing can be saved again in this process. */
int    sess_db_lost(const sess *s);
/*
** The conversation as it is in memory -- its greeting and every exchange,
** the ones kept out included -- in the bytes `sessions export` writes for
** a saved session (FMT: Markdown, or JSON that `sessions import` takes
** back as a new session, its states rebuilt by replay): the front ends'
** "save elsewhere" when saving fails.  *BUF (*LEN bytes) owned by caller
** (free).
*/
int    sess_export(const sess *s, enum store_format fmt, char **buf, size_t *len,
                   rwkv_err *err);

/*
** The current state as a state file at PATH (rwkv_state_save_file: what
** the pip package loads, plus what makes a reload exact): the front ends'
** state save (the client's C-w in the state-files menu, the line chat's
** /save).  It is the state of the conversation as shown: a message
** sess_abandon kept before its prompt was fed (the abandon rule above) is
** fed first, as the next message would feed it (that one then does not) --
** the greeting too when it was still to be fed -- so the file holds the
** state its saved tokens give, as a resume's replay would; after a reply
** cut by max-tokens or a cancel, with the "\n\n" the next message is fed
** after (chat_state_next), so `--state FILE` goes on as this chat does.
** Cancellable
** while it feeds (sess_cancel: RWKV_ECANCEL, nothing written, the chat as
** it was but for a greeting fed).  Refused while a reply runs, where
** sess_output_check refuses, and where PATH is a device or a pipe (no file
** that --state loads: /dev/null, /dev/stdout); a failed write leaves PATH
** as it was.  On the
** thread that runs the sess.
*/
int  sess_state_save(sess *s, const char *path, rwkv_err *err);
/*
** Whether a front end may write PATH (a saved state, an export of this
** conversation): store_output_check with the sess's database (the one it
** saves to, if any) and its inputs -- the model, the vocabulary and the
** state file in use.  RWKV_EINVAL with one line ("x.pth is the model in
** use: not written over"), nothing done; RWKV_OK otherwise.
*/
int  sess_output_check(sess *s, const char *path, rwkv_err *err);

/* New sampling values (chat_set_sampling); an explicitly set seed starts
** the saved session's per-reply seed sequence again from it. */
void sess_set_sampling(sess *s, const rwkv_sampling *samp, unsigned samp_set);
/*
** The next reply alone samples with SAMP / SAMP_SET (chat.py's inline
** "-temp=" and "-top_p=": chat_inline_sampling): the chat's own values are
** kept aside -- the session saves those, never these -- and come back when
** that reply ends: sess_run (or a sess_regen_n batch) returns, or the
** sess_submit that starts it fails.  A front end that starts anything else
** with it (a free generation) or fails before sess_submit (a fork refused)
** ends it itself: sess_reply_sampling_end (nothing to end: a no-op).
** While idle, on the thread that runs the sess.
*/
void sess_reply_sampling(sess *s, const rwkv_sampling *samp, unsigned samp_set);
void sess_reply_sampling_end(sess *s);
/*
** The sampling values sess_open of session SID (branch HEAD) takes, read
** through ST: *V and *SET, the values in use, become the session's (the
** values given at launch winning, the seed kept), or stay when it has none.
** It reads nothing of S but its launch values, which never change, so a
** front end may ask on its own thread, with its own connection, while the
** open runs (the values to show meanwhile).  RWKV_OK or a read error.
*/
int  sess_open_sampling(const sess *s, store *st, int64_t sid, int64_t head, rwkv_sampling *v,
                        unsigned *set, rwkv_err *err);

/*
** The leaving rule (above) on its own: what a failed save kept out is
** written now (sess_flush's one bounded wait for a lock, its notes), and
** RWKV_EDB with the refusal line when some of it still is not -- then
** leave nothing.  Nothing kept out: RWKV_OK, no I/O.  The runtime's ways of
** leaving make it first; a front end makes it itself before a costly step
** of its own that comes before the runtime's call: a model switch before
** it loads the new model (sess_set_model), so a refused one loads nothing.
*/
int  sess_leave_check(sess *s, rwkv_err *err);

/*
** Another model (the TUI's F5): a new chat on M/T with the same config and
** sampling, the model's row under PATH; the session is left (the next
** message starts a new one: the leaving rule above, checked again before
** anything changes).  Call sess_leave_check before loading M: a switch
** refused by the rule then costs no load (here, it finds nothing kept
** out: no I/O).  On failure nothing changes.
*/
int  sess_set_model(sess *s, rwkv_model *m, const tok *t, const char *path,
                    const char *vocab_path, rwkv_err *err);

/*
** The state after TURN of the current session (0 = its start: zeros or its
** state file) into OUT, by the replay rule.  Cancellable (RWKV_ECANCEL).
** *REPLAYED: tokens fed; NOTE (may be NULL): why snapshots were not used.
*/
int  sess_replay(sess *s, int64_t turn, rwkv_state *out, size_t *replayed, char *note,
                 size_t note_cap, rwkv_err *err);

#endif
