/*
** app.h -- the full-screen client: one `struct app` holds all of its state
** (house style G7).  Modules:
**   app.c      setup/teardown, the poll() loop, key dispatch
**   view.c     drawing (the only file besides app.c that calls curses)
**   worker.c   the worker thread (replies, replays, free generation) and
**              its event queue
**   session.c  the transcript from the session runtime (storage/session.h,
**              which saves, resumes, forks and replays for both front ends),
**              the runtime's jobs, free generation
**   menus.c    the menus' table and common keys (menus.h); one file per
**              menu (menu_sessions.c, menu_branches.c, menu_states.c,
**              menu_presets.c, menu_models.c, menu_framing.c, menu_log.c,
**              menu_help.c), each a class built on tui/menu.c
**   model_load.c  opening the model and tokenizer (start-up, F5)
**   notice.c   the footer's notice and the message log
**   quit.c     quitting with exchanges a failed save kept out: one more
**              try, the question (r retry, e export, q quit anyway), stderr
**   search.c   search within the transcript (C-f): matches, the current one
**   clip.c     the OSC 52 clipboard sequences (M-c, M-k)
** Calls go down from app.c, never back into it: the menus, the session
** glue and the loader reach the notice (notice.c) and each other, and the
** loader's progress goes through a->load_progress, set by app.c.
**
** Threads: the UI thread owns curses, the transcript and its own store
** connection (a->st: menus, the transcript).  A worker thread runs one job
** at a time on the session runtime (a->sess, which saves through a second
** connection) and only posts events (worker.c); while it runs, the UI thread
** touches the runtime only through sess_cancel().
*/
#ifndef RWKV_TUI_APP_H
#define RWKV_TUI_APP_H

#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "../core/chat/chat.h"
#include "../core/chat/freegen.h"
#include "../core/chat/params.h"
#include "../core/rwkv.h"
#include "../core/text/tokenizer.h"
#include "../storage/session.h"
#include "../storage/store.h"
#include "config.h"
#include "i18n.h"
#include "input.h"
#include "menu.h"
#include "search.h"
#include "history.h"
#include "sidebar.h"
#include "text.h"
#include "theme.h"
#include "transcript.h"

#define PROG_NAME_TUI "rwkv-tui"
#define TUI_MIN_COLS 20          /* below this a "terminal too small" notice */
#define TUI_MIN_ROWS 6
#define TUI_SIDEBAR_COLS 24      /* parameter sidebar width */
#define TUI_SIDEBAR_MIN_COLS 60  /* sidebar hidden automatically below this */
#define TUI_INPUT_MAX_ROWS 8     /* the input box grows up to this many rows */
#define TUI_NOTICE 512
#define TUI_LOCK_KEYS 32         /* keys typed during a lock wait, held back
                                    (app.c, lock_hook) and given back to
                                    curses' input queue (ungetch) after it:
                                    well within that queue (137 in ncurses) */
#define TUI_LOG_MAX 200          /* messages kept for the log (M-l) */
#define TUI_NOTES_MAX 16         /* transcript notes kept over a rebuild */
#define TUI_WHEEL_ROWS 3         /* rows (menu items) one wheel step scrolls */
#define TUI_STATE_IMPORT_MAX (256ul << 20)  /* largest state file imported */
#define TUI_STATE_NONE_ID    (-2)           /* the state menu's "(none)" item */
#define TUI_SESSION_IMPORT_MAX (1ul << 30)  /* largest session file imported (F2 C-o) */

/* Key codes of our own, beyond Unicode and the config's codes. */
#define TUI_K_ENTER     0x130001
#define TUI_K_ALT_ENTER 0x130002
#define TUI_K_ESC       0x130003
#define TUI_K_PASTE_BEG 0x130004
#define TUI_K_PASTE_END 0x130005

/* What the app was started with (cmd_tui.c fills it). */
typedef struct tui_launch {
    const char   *model, *strategy, *vocab, *state, *db, *config, *theme;
    int           threads, demo;
    rwkv_sampling samp;
    unsigned      samp_set;
    long          max_frames;    /* > 0: quit after this many frames (sanitizer runs) */
    int           no_db;         /* --no-db: nothing saved */
    /* the chat's framing (--greeting, --no-greeting, --user, --bot, --stop,
    ** --ban), borrowed; fields it leaves unset come from the config */
    const framing *frame;
    int           resume;        /* --resume: the most recently used session */
    int64_t       session_id;    /* --session ID */
    int64_t       resume_id;     /* (set by tui_run) the session to open */
    /* (optional) find the World vocabulary when neither --vocab nor the
    ** config names one (cli_vocab_lookup: $RWKV_VOCAB, the model's folder,
    ** the data folder): writes OUT and returns 0, or returns 1 with one line
    ** in WHY.  Keeps tui/ free of cli/ includes. */
    int         (*find_vocab)(const char *flag, const char *model, char *out, size_t cap,
                              char *why, size_t why_cap);
} tui_launch;

/* Run the client; returns the process exit status. */
int tui_run(const tui_launch *launch);
/* Every key of the full-screen client with its default binding, the same
** rows as F1, one FN call each (`rwkv-tui --help-ui`). */
typedef void (*tui_help_row_fn)(void *ud, const char *key, const char *what);
void tui_help_keys(tui_help_row_fn fn, void *ud);

/* ---- internal: shared between the tui/ modules ---------------------------- */

enum tui_focus { TUI_FOCUS_INPUT, TUI_FOCUS_SIDEBAR, TUI_FOCUS_MENU, TUI_FOCUS_PROMPT,
                 TUI_FOCUS_SEARCH };

enum tui_menu_kind {
    TUI_MENU_NONE, TUI_MENU_HELP, TUI_MENU_SESSIONS, TUI_MENU_BRANCHES,
    TUI_MENU_STATES, TUI_MENU_PRESETS, TUI_MENU_MODELS, TUI_MENU_STATE_ASK, TUI_MENU_LOG,
    TUI_MENU_FRAMING, TUI_MENU_THEMES
};

enum tui_prompt_kind { TUI_PROMPT_NONE, TUI_PROMPT_RENAME, TUI_PROMPT_DELETE,
                       TUI_PROMPT_PRESET_SAVE, TUI_PROMPT_PARAM, TUI_PROMPT_STRATEGY,
                       TUI_PROMPT_SAVE_STATE, TUI_PROMPT_GEN, TUI_PROMPT_PRUNE,
                       TUI_PROMPT_EXPORT, TUI_PROMPT_IMPORT, TUI_PROMPT_FRAMING,
                       TUI_PROMPT_ALTS, TUI_PROMPT_BUDGET,
                       TUI_PROMPT_UNSAVED, TUI_PROMPT_UNSAVED_EXPORT,
                       TUI_PROMPT_OTHER_MODEL };

/* A transcript note a rebuild puts back (tui_session_note says where). */
#define TUI_NOTE_RUN      0
#define TUI_NOTE_PENDING  (-1)
#define TUI_NOTE_DEMO     (-2)
#define TUI_NOTE_MODEL    (-3)
typedef struct tui_note {
    int     role;            /* TUI_TURN_INFO or TUI_TURN_ERROR */
    int64_t turn;            /* TUI_NOTE_* or a saved user turn's id */
    char   *text;            /* owned */
    size_t  len;
} tui_note;

enum tui_ev_type { TUI_EV_TEXT, TUI_EV_PHASE, TUI_EV_DONE, TUI_EV_STATS, TUI_EV_END,
                   TUI_EV_NOTE, TUI_EV_ALT, TUI_EV_SESSION };

typedef struct tui_event {
    struct tui_event *next;
    int               type;
    char             *text;      /* TEXT; NOTE; SESSION (its title): owned by the event */
    size_t            len;
    int               phase;     /* PHASE; NOTE: 1 = an error; ALT: alternative K;
                                    STATS: 1 = a replay's progress */
    int               job;       /* NOTE: the worker's job when it was posted
                                    (enum tui_job); TUI_JOB_NONE: posted by a
                                    runtime call of the UI thread while no job
                                    ran (a save retried on C-n, F5, F8) */
    int               n_alt;     /* ALT: of N (sess_regen_n) */
    int64_t           sid;       /* SESSION: the runtime's session now (0: none) */
    chat_stats        stats;     /* DONE, STATS */
    int               stop;      /* DONE: enum chat_stop */
    int               rc;        /* END: status of the job */
    rwkv_err          err;       /* END */
} tui_event;

/* Jobs of the worker thread.  OPEN, SIBLING and SWITCH are session-runtime
** calls that may replay a conversation (progress bar, Esc cancels).  NONE:
** no job (before the first, after one's END was taken, a job that could
** not start). */
enum tui_job { TUI_JOB_NONE = -1, TUI_JOB_SUBMIT, TUI_JOB_REGEN, TUI_JOB_PRIME, TUI_JOB_GEN,
               TUI_JOB_GEN_MORE, TUI_JOB_OPEN, TUI_JOB_SIBLING, TUI_JOB_SWITCH,
               TUI_JOB_CONTINUE };

typedef struct tui_worker {
    pthread_t       thread;
    int             running;      /* a thread was started and not yet joined */
    int             job;          /* enum tui_job: the job started last, from
                                     tui_worker_start until its END is taken
                                     (tui_worker_end); else TUI_JOB_NONE.
                                     Written by the UI thread only while no
                                     thread runs */
    char           *msg;          /* SUBMIT: the message, owned; SWITCH: the path or NULL */
    int64_t         arg1, arg2;   /* SUBMIT: arg1 > 0 = fork at that turn first;
                                     OPEN: session, head (-1 its own); SIBLING: turn, dir;
                                     SWITCH: arg1 = library row, arg2 = replay;
                                     REGEN: arg1 = how many alternatives */
    int             started;      /* SUBMIT: generation began (set at END) */
    int64_t         seen_sid;     /* the runtime's session as last posted (SESSION):
                                     set by tui_worker_start, then the job's thread's */
    sess           *sess;         /* the runtime the job drives (borrowed) */
    /* free generation (GEN: msg = the prompt; GEN_MORE continues it), outside
    ** the conversation and never saved (core/chat/freegen.h) */
    fgen           *gen;          /* owned, NULL before the first GEN */
    rwkv_model     *gen_model;    /* borrowed, set by the UI before a GEN */
    const tok      *gen_tok;
    uint64_t        n_gen;        /* generations so far (their seeds) */
    volatile sig_atomic_t gen_cancel; /* the client's cancel of the job queued last
                                     (Esc, C-c: set by the UI, cleared by
                                     tui_worker_start): GEN/GEN_MORE poll it */
    pthread_mutex_t lock;         /* guards head/tail */
    tui_event      *head, *tail;
    int             pipe_r, pipe_w;   /* wake-up pipe (non-blocking) */
    /* a replay's rate (tui_worker_progress, the job's thread): its first
    ** report's time and count, and the last count (a smaller one: a new
    ** replay) */
    double          prog_t0;
    uint64_t        prog_done0, prog_last;
} tui_worker;

struct app {
    tui_launch      launch;
    tui_config      cfg;
    theme           th;
    char            theme_name[CFG_PATH];  /* the theme in use as asked for: a
                                              name or a path (M-T marks it) */
    char            notice[TUI_NOTICE];  /* one-line message in the footer */
    int             notice_err;
    int             notice_cut;          /* the notice holds only the start of the
                                            message (TUI_NOTICE bytes): the log
                                            has it whole */
    int             notice_popup;        /* the notice, an error too long for the
                                            footer, is shown in a dialog (view.c
                                            sets it; the next key closes it) */
    /* a lock wait of a write the UI thread makes (app.c, lock_hook, the
    ** store's busy hook on both connections): ui_thread, the one thread it
    ** acts on; lock_line, the waiting line it put in the footer ("" none),
    ** lock_secs its seconds; lock_prev*, the notice it covered, put back
    ** once the write is over unless another notice took its place;
    ** lock_gave_up: Esc gave the wait up, the key's later waits give up at
    ** once; lock_keys, the keys typed meanwhile, given back in order after.
    ** UI thread only, but for job_stop: set by a quit before it takes the
    ** job it stopped, read by the hook on the worker's thread, where a
    ** wait of the job's own then gives up at once (the quit's flush waits
    ** instead, on the screen, where Esc reaches it) */
    pthread_t       ui_thread;
    atomic_int      job_stop;
    atomic_int      lock_said;     /* a job's wait (worker thread) was said */
    int             lock_hooked;
    char            lock_line[TUI_NOTICE];
    int             lock_secs;
    char            lock_prev[TUI_NOTICE];
    int             lock_prev_err, lock_prev_cut;
    int             lock_gave_up;
    int             lock_keys[TUI_LOCK_KEYS];
    int             lock_nkeys;
    /* every notice, newest last (a ring of TUI_LOG_MAX; M-l shows them whole) */
    char           *log[TUI_LOG_MAX];    /* owned: "HH:MM:SS  text" */
    /* 1: that entry is an error, its "error: " put in front when M-l shows
    ** it (tui_log_entry), in the language of then: an entry made before
    ** the config set the language (its own error) reads as the rest */
    unsigned char   log_err[TUI_LOG_MAX];
    /* the transcript's notes that a rebuild (resume, branch switch) puts
    ** back, oldest first (tui_session_note) */
    tui_note        notes[TUI_NOTES_MAX];
    int             n_notes;
    int             log_n, log_next;
    /* the footer's line of the job running or last run (tui_notice_job),
    ** "" = none: its lines join it while the footer shows it; its first
    ** job_lead bytes are what the action that started the job said of it
    ** (tui_notice_lead), kept first */
    char            job_line[TUI_NOTICE];
    size_t          job_lead;
    long            log_dropped;         /* oldest entries the ring let go */

    /* engine */
    rwkv_model     *model;
    tok            *tok;
    sess           *sess;          /* the session runtime: owns the chat */
    chat           *chat;          /* sess_chat(sess), borrowed */
    rwkv_sampling   samp;          /* values shown in the sidebar */
    unsigned        samp_set;
    unsigned        samp_config;   /* of samp_set at launch, those from the config's
                                      preset (a resumed session's own values win) */
    unsigned        samp_pending;  /* of samp_set, those the user set while a job ran:
                                      they win over the values it ends with
                                      (tui_session_sync) */
    int             samp_once;     /* the next reply samples with SAMP_ONCE_V, set by
                                      chat.py's words in its message (tui_send) */
    rwkv_sampling   samp_once_v;
    unsigned        samp_once_set;
    char            model_label[128];
    char            model_path[1024];   /* "" for the demo model */
    char            vocab_path[STORE_PATH_MAX]; /* World vocabulary in use, "" = bytes */
    char            state_path[1024];   /* state file in use, "" = none */
    int             busy;          /* a worker job is running */
    int             job_noted;     /* the runtime posted a note during the job */
    int64_t         job_sid;       /* the session when a reply job started */
    int             phase;         /* chat phase reported by the worker */
    int             reply_turn;    /* transcript index of the streaming reply */
    int             alt_k, alt_n;  /* a batch of alternatives (M-R): the one
                                      streaming, of how many; alt_n 0 = none */
    chat_stats      last_stats;
    int             stats_replay;  /* last_stats are a replay's progress (the
                                      runtime's, tui_worker_progress), not a
                                      prompt's prefill */
    uint64_t        ctx_tokens;    /* tokens in the conversation's context
                                      (greeting + every turn), at the last sync */
    uint64_t        ctx_greeting;  /*   of them the greeting's (tui_session_tokens) */
    uint64_t        ctx_greet_due; /*   of those the ones still to be fed */
    char           *queued;        /* message sent while priming, owned */
    char           *sent;          /* the last message sent, as typed (owned): what
                                      goes back to the box when it fails to start */
    int             blank_noted;   /* the "blank lines joined" notice was shown */
    int             copy_turn;     /* M-k: the reply whose code block was copied last */
    size_t          copy_block;    /*   and that block's index (M-k again: the next) */
    int             mouse_off;     /* M-m: mouse reporting off (the terminal selects) */
    int             pasting;       /* inside a bracketed paste (until ESC[201~) */
    size_t          paste_got, paste_cut; /* its characters taken / dropped */
    int             paste_cr;      /* its last key was CR (a CR LF is one newline) */
    int             paste_nl;      /* a newline pasted into a one-line prompt: a
                                      space if more text follows */
    double          paste_tail;    /* when a paste without markers last paused
                                      (mono_now_s), 0 = none: a burst of keys
                                      soon after is its next part */

    /* store */
    store          *st;            /* the UI thread's connection (menus, transcript) */
    sess_info       resume;        /* --resume / --session: the session found */
    int64_t         model_id;
    int64_t         sid;           /* current session, 0 = not yet created */
    int64_t         head;          /* current leaf turn in the store */
    int64_t         fork_turn;     /* with fork_pending: the user turn being edited
                                      (the next message forks at it) */
    int             fork_pending;
    char           *edit_draft;    /* owned, NULL = none: the box's text when an
                                      edit began (M-e, F6), back in the box when
                                      the edit ends (tui_edit_end) */
    char            session_title[STORE_TITLE_MAX];
    /* an OPEN job's session, read when it starts (tui_session_job): the
    ** status line names it, with its branch's tokens, while it replays */
    int64_t         open_sid;
    char            open_title[STORE_TITLE_MAX];
    uint64_t        open_tokens;
    /* the framing's role names ("" = unset) and think mode as the screen
    ** shows them: the UI thread's copies (tui_session_sync), since an open,
    ** a sibling step or a state switch replaces the runtime's framing on the
    ** worker thread while the screen redraws (tui_session_swapping) */
    char            fr_user[CHAT_MAX_NAME + 1];
    char            fr_bot[CHAT_MAX_NAME + 1];
    int             fr_think;      /* enum chat_think */

    /* UI models */
    tui_transcript  tr;
    tui_input       in;
    tui_menu        menu;          /* the open menu (kind NONE when closed) */
    tui_menu        ask;           /* the state-switch question */
    tui_search      search;        /* C-f: search within the transcript */
    int             focus;         /* enum tui_focus */
    int             prev_focus;
    int             prompt_kind;   /* enum tui_prompt_kind */
    tui_input       prompt;        /* one-line prompt (rename, preset name, value);
                                      its history a copy of phist[its class's] */
    tui_input       phist[TUI_PHIST_N];  /* the prompts' histories (history.h):
                                            only their entries are used; the
                                            search's is search.q's own */
    char            prompt_label[384];  /* in the interface language */
    int64_t         prompt_target; /* session id for rename/delete */
    int             prompt_menu;   /* enum tui_menu_kind: the menu the prompt
                                      came from when Enter closed it and the
                                      prompt is open again (asking, or after
                                      a failure): Esc opens it again */
    /* Why the prompt is open again after its Enter (tui_prompt_accept),
    ** its error shown in a dialog above it until Enter or Esc: 0, it is
    ** not; TUI_RETRY_FAILED (1), the action failed (a write refused...)
    ** and Enter tries the same text again; TUI_RETRY_REFUSED (2), the text
    ** is no value the prompt takes and is there to be corrected. */
    int             prompt_retry;
    char            prompt_error[TUI_NOTICE];
    int             prompt_error_cut;   /* only its start (the log has it whole) */
    int             param_sel;     /* sidebar row */
    tui_sidebar_geom side;         /* where its rows were drawn (clicks) */
    int             show_sidebar;
    int             show_stats;
    int             menu_filtering;/* typing goes to the menu filter */
    size_t          menu_sel_keep; /* branches menu: the stepped turn's depth + 1 (0 = none),
                                      kept over a sibling switch */
    int             sib_pending;   /* sibling steps (+1/-1 each) pressed while one ran: taken
                                      one by one as each ends (a replay can take seconds);
                                      Esc (cancel_or_close) drops them with the one running */
    size_t          sib_depth;     /* ... of the turn at this position + 1 on the path
                                      (F6's selection); 0: of the last turn (M-, / M-.) */
    char            pending_state[1024];
    /* state files from the library (the database's state_files rows) */
    int64_t         state_lib_id;  /* row of the state in use when it was loaded
                                      from the database (imported), else 0 */
    int64_t         pending_lib_id;/* row chosen in the menu, 0 = a path */
    char            lib_name[STORE_TITLE_MAX]; /* its name while it is loaded */

    /* terminal */
    void           *screen;        /* the curses SCREEN (newterm) */
    int             rows, cols;
    int             tr_rows;       /* transcript view height of the last draw */
    int             has_colors;
    long            frames;
    int             quit;
    double          db_checked;    /* when idle_db_check last looked (mono s) */
    /* --session/--resume: the open at start runs (open_at_start); when it
    ** fails the client ends with its line (start_fail) and exit status 1, as
    ** the line chat does -- a blank chat went on, and the next message made
    ** another session with the defaults */
    int             open_at_start;
    char            start_fail[RWKV_ERR_MSG + 64];
    /* quitting with exchanges a failed save kept out (quit.c) */
    size_t          unsaved;       /* still not saved at the last try */
    char            unsaved_why[RWKV_ERR_MSG];  /* ... and why */
    /* what was said while quitting that the screen may not have shown: the
    ** errors of the job a quit stopped (taken with a->quitting set) and the
    ** runtime's lines at each try; on stderr once the screen is gone, or
    ** the message log's alone when the chat goes on (tui_quit_back) */
    tui_buf         quit_said;
    int             quitting;      /* the job a quit stopped is being taken */
    int             quit_anyway;   /* the question was answered q, or e (exported) */
    char            quit_export[1200];   /* the file they went to, "" = none */
    int             dirty;
    tui_worker      w;

    /* model loading (startup and model switch): the bar in the status line */
    int             loading;       /* 1 while rwkv_model_open runs */
    double          load_frac;     /* [0,1] from rwkv_open_opts.progress */
    char            load_what[64]; /* what the loader is doing */
    char            load_name[128];/* the checkpoint being loaded */
    int             load_pct;      /* last percentage drawn (throttle) */
    /* the loader's progress callback (app.c: the bar, Ctrl-C while loading) */
    void          (*load_progress)(void *ud, double frac, const char *what);
};

/* worker.c: the worker gets its queue and the session runtime, nothing else */
extern const chat_callbacks tui_worker_callbacks_proto;  /* ud = the tui_worker */
int  tui_worker_init(tui_worker *w);
void tui_worker_fini(tui_worker *w);
/* Start JOB of runtime S on a new thread (takes ownership of MSG; ARG1/ARG2
** as in tui_worker), on the UI thread: a cancel from here on is this job's,
** one from before is void (gen_cancel cleared; OPEN, SIBLING, SWITCH: the
** runtime's sess_expect_reply).  0, or -1 when no thread could be started:
** the runtime then expects nothing (sess_expect_clear), the caller's
** expectation included. */
int  tui_worker_start(tui_worker *w, sess *s, int job, char *msg, int64_t arg1, int64_t arg2);
/* The session runtime's note and progress callbacks (ud = the tui_worker):
** they post NOTE / STATS events. */
void tui_worker_note(void *ud, int is_err, const char *msg);
void tui_worker_progress(void *ud, uint64_t done, uint64_t total);
/* Pop every queued event (the caller frees them with tui_event_free). */
tui_event *tui_worker_drain(tui_worker *w);
void tui_event_free(tui_event *e);
/* Join a finished thread. */
void tui_worker_join(tui_worker *w);
/* The job's END was taken (UI thread): its thread joined, and no job from
** here (w->job TUI_JOB_NONE).  Returns the job that ended. */
int  tui_worker_end(tui_worker *w);

/* session.c (UI thread, no job running) */
/* The sidebar's values to the runtime (not while a job runs). */
void tui_apply_sampling(struct app *a);
/* The user set the values BITS (PARAMS_BIT) of a->samp (the sidebar, a
** preset): to the runtime now, or, while a job runs, when it ends -- over
** the values it brings (an open: the session's), kept and saved as an edit
** made after it would be. */
void tui_sampling_edited(struct app *a, unsigned bits);
/* Run a session-runtime JOB (OPEN, SIBLING, SWITCH) on the worker thread;
** PATH (SWITCH) is copied.  0, or -1 with a notice (busy). */
int  tui_session_job(struct app *a, int job, int64_t arg1, int64_t arg2, const char *path);
/* Feed the greeting on the worker thread when it is still pending (busy
** meanwhile); when the thread cannot start, a notice says so and the
** runtime feeds it with the first message. */
void tui_session_prime(struct app *a);
/* 1 after a notice when the job running (OPEN, SIBLING, SWITCH) may make the
** session a new chat and framing, freeing the ones in use (sess_open): what
** reads a->chat or sess_framing on the UI thread waits for it; else 0.
** Drawing cannot wait: it reads the copies tui_session_sync takes. */
int  tui_session_swapping(struct app *a);

/*
** A note in the transcript (ROLE TUI_TURN_INFO or TUI_TURN_ERROR), kept so
** that a rebuild puts it back: TURN is TUI_NOTE_RUN (a note of this run: a
** config error; at the top), TUI_NOTE_DEMO (the demo model's note: at the
** top while it runs), TUI_NOTE_MODEL (what the loader of the model in use
** printed: at the top until another model is loaded, see
** tui_session_model_note), TUI_NOTE_PENDING (about the message being sent: it
** follows the message's saved turn, or goes when the message is not saved),
** or the saved user turn it stands before.  TEXT (LEN bytes) is copied.
*/
void tui_session_note(struct app *a, int role, int64_t turn, const char *text, size_t len);
/* A model was loaded: what its loader printed (TEXT, LEN bytes, copied;
** LEN 0: nothing) replaces the last model's TUI_NOTE_MODEL note.  Kept, not
** shown: tui_session_fresh or a rebuild shows it. */
void tui_session_model_note(struct app *a, const char *text, size_t len);
/* A message was saved: its pending notes now stand before its user turn. */
void tui_session_note_saved(struct app *a);
/* Session NEW_SID was made as a copy of the branch root..TURN
** (store_session_fork, C-y in F2): the notes kept for those turns are kept
** for the copy's turns too, so its transcript says what the original's
** does. */
void tui_session_notes_fork(struct app *a, int64_t turn, int64_t new_sid);
/* 1 when a kept note stands before saved turn TURN. */
int  tui_session_has_note(const struct app *a, int64_t turn);
void tui_session_notes_fini(struct app *a);

/* The app's copies (sid, head, title, state label, the framing's names and
** think mode, sampling) from the runtime; while no job runs. */
void tui_session_sync(struct app *a);
/* a->ctx_tokens from the chat: the greeting's tokens (fed, or fed with the
** next message: a new session reads the same after C-n as at a start) and
** every turn's prompt and reply tokens.  While no job runs. */
void tui_session_tokens(struct app *a);
/* The tokens the context holds now, as the status line counts them: at
** rest a->ctx_tokens; while a message and its reply (or a regenerated
** reply, each alternative in turn) are written, the exchanges before it,
** its message's tokens as they are fed and the reply's so far (an edit's
** replay up to its message adds nothing: those are the exchanges before
** it); while an OPEN job runs, those of the branch it opens. */
uint64_t tui_session_tokens_now(const struct app *a);
/* The session the status line names: while an OPEN job runs, the one it
** opens; else the current one ("new" before it has a row).  Borrowed from
** A, valid until its next job or sync. */
const char *tui_session_status_title(const struct app *a);
/* A reply's F9 stats into TU: its TOKENS, prefill and decode rates and
** whether MAX_TOKENS cut it; a reply that fed nothing (a regenerated one
** starts from the prompt's saved state) has no prefill item ("prefill 0
** tok/s" said nothing true).  One form for live and saved replies. */
void tui_turn_stats(tui_turn *tu, uint64_t tokens, double prefill_tps, double decode_tps,
                    int max_tokens);
/* The transcript again from the saved branch (or the chat's records). */
void tui_session_rebuild(struct app *a);
/* After a reply: store ids on the streamed turns, sibling positions. */
void tui_session_mark_reply(struct app *a);
/* C-n: a new session (the runtime's), its transcript as tui_session_fresh;
** refused, with the runtime's line, while exchanges a failed save kept out
** still cannot be written (the leaving rule, storage/session.h). */
void tui_session_new(struct app *a);
/* The runtime has started a new session (tui_session_new, a model switch):
** the transcript holds the notes at the top only; the app's copies synced. */
void tui_session_fresh(struct app *a);
void tui_session_siblings(struct app *a, int64_t turn, int *index, int *count);
/* Import the state file PATH into the library (its bytes kept in the
** database) after checking that it fits the model; *ID the new row.  0, or
** -1 with a notice. */
int  tui_session_import_state(struct app *a, const char *path, int64_t *id);
/* The whole regular file PATH (at most MAX bytes) into *OUT (owned by the
** caller, NUL-terminated), *LEN its length.  0, or -1 with ERR one line. */
int  tui_session_read_file(const char *path, size_t max, char **out, size_t *len, rwkv_err *err);
/* BUF [LEN] as the file PATH, replaced whole or not at all (rwkv_atomic,
** MODE, FLAGS: RWKV_ATOMIC_SYNC for a file that may be the only copy);
** 0 or -1 with ERR (menu_sessions.c: the exports). */
int  tui_write_file(const char *path, const char *buf, size_t len, int mode, int flags,
                    rwkv_err *err);

/* menus.c (each menu is a class in its own menu_*.c file, menus.h) */
void tui_menu_open(struct app *a, int kind);
/* Open the menu that config action ACT opens; 0 when no menu has it. */
int  tui_menu_open_action(struct app *a, int act);
void tui_menu_close(struct app *a);
/* A key while a menu is open; returns 1 if used. */
int  tui_menu_key(struct app *a, int key, int is_fkey);
/* The open menu's bottom line (its keys) for WIDTH columns, borrowed until
** the next call. */
const char *tui_menu_hint(const struct app *a, int width);
/* LABEL is a message id (i18n.h): shown in the interface language. */
void tui_prompt_open(struct app *a, int kind, const char *label, const char *init);
/* Enter (or y): the prompt closes and its class's accept runs; one that
** failed after the typing opens again holding the text (menus.h). */
void tui_prompt_accept(struct app *a);
/* Esc, C-c (or n in a confirmation): the prompt closes without its action;
** one opened from a menu goes back to that menu (the one rule: F2's and
** F6's, F3's, F4's, F5's and F8's prompts alike). */
void tui_prompt_cancel(struct app *a);
/* 1 when prompt KIND is a confirmation (y accepts, n cancels). */
int  tui_prompt_yesno(int kind);

/* menu_branches.c: after a reply or regeneration ended (the worker owned the
** runtime, so F6 opened meanwhile could not mark its turns): F6, when open,
** is filled again; the selection stays on turn SEL, or follows the head when
** SEL was the head OLD_HEAD before the reply. */
void tui_branches_follow(struct app *a, int64_t old_head, int64_t sel);
/* Step turn TURN to its sibling DIR (-1/+1), F6 following it; while a step
** runs, queued (a->sib_pending) and taken when it ends. */
void tui_branches_step(struct app *a, int64_t turn, int dir);

/* menu_framing.c: the chat's framing (F8 menu, launch, presets) */
/* The framing of a new chat at launch: the config keys, replaced by the
** config preset's when it has one, the options over them.  0 or 1 (printed).
** Only the options' (launch.frame) win over a resumed session's own. */
int  tui_framing_launch(struct app *a, framing *out);
/* After preset NAME was saved / loaded: its framing too. */
void tui_framing_preset_save(struct app *a, const char *name);
/* The think key: the session's think mode steps to the next one. */
void tui_framing_next_think(struct app *a);
void tui_framing_preset_load(struct app *a, const char *name);
/* 1 when the F8 field being edited takes "\n" escapes (the greeting, the
** stop strings): a newline pasted into it is written as one. */
int  tui_framing_field_escapes(const struct app *a);

/* termcheck.c: 1 if curses can drive the terminal on FD ($TERM known) */
int  tui_term_usable(int fd);

/* view.c */
void tui_view_init_colors(struct app *a);
/* Theme T (loaded, copied) in use from now on, NAME (a name or a path, as
** theme_load took it) its name; NO_COLOR and the terminal's colours apply
** to it as at the start, and the whole screen is drawn again. */
void tui_view_set_theme(struct app *a, const theme *t, const char *name);
void tui_view_draw(struct app *a);
/* A frame while a model loads (a->loading): the whole view when a model is
** already there (a switch), else the status line and a centred bar. */
void tui_view_draw_loading(struct app *a);
/* Status line text for a bar: "LABEL [bar] 42% DETAIL" into OUT; BAR_W cells. */
void tui_view_bar_text(char *out, size_t cap, const char *label, double frac, int bar_w,
                       const char *detail);
int  tui_role_attr(const struct app *a, int role);

/* The screen as last measured is below TUI_MIN_COLS x TUI_MIN_ROWS: only
** the "terminal too small" line is drawn (view.c), and the keys that would
** act on what is not in sight are dropped (app.c). */
#define tui_too_small(a) ((a)->cols < TUI_MIN_COLS || (a)->rows < TUI_MIN_ROWS)
/* Columns the message box wraps its text to (the "> " mark takes two): the
** drawing and Up/Down's rows are the same rows. */
#define tui_input_cols(a) ((a)->cols - 2)

/* notice.c: MSG into the message log (M-l) only, the footer keeping what it
** shows (IS_ERR: an error); a notice (IS_ERR: an error) in the footer (cut
** to TUI_NOTICE bytes) and whole in the message log. */
void tui_log_only(struct app *a, const char *msg);
void tui_log_add(struct app *a, int is_err, const char *msg);
/* Entry K of the log (0: the oldest kept) as M-l shows it: the stamp, then
** an error's "error: " in the interface language, then the message.  The
** caller frees it. */
char *tui_log_entry(const struct app *a, int k);
/* A notice of MSG (translated already) in the footer, into the log only
** when its newest entry is not the same (a search repeated key by key). */
void tui_notice_once(struct app *a, int is_err, const char *msg);
/* The notice shown now is what the action that starts a job says of it
** (its lead: "this reply: temperature ..."), which the job's lines join
** (tui_notice_job); an error (a job's own, set as its line) they leave in
** view.  A job starts with none (start_job, tui_session_job). */
void tui_notice_lead(struct app *a);
/*
** LINE, information of the job running or just ended (a runtime note, the
** job's outcome): in the footer with the job's line while the footer still
** shows it, rather than over it (each line of a job replaced the last: a
** switch's sampling note hid the new session, the first message's "new
** session N" the reply's own values) -- the lead first, then the newest
** line ("new session from state X", "replayed N tokens": a job's outcome
** comes last), then the older ones.  Alone when the footer shows another
** notice or none (a key cleared it); never over the job's own error, which
** stays in view (LINE is only logged then).  The log keeps LINE alone.
*/
void tui_notice_job(struct app *a, const char *line);
void tui_notice(struct app *a, int is_err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* notice.c: before work on the UI thread that takes a visible while by
** itself (F2's fork and delete, F6's delete: megabytes of snapshots copied
** or dropped and given back; a state file written): the footer says at
** once what is being done (FMT, a message id, "...": TR_NOOP at the call)
** and the screen is drawn, instead of the menu or question of the key
** before, frozen.  A wait for another program's lock is said by the lock
** hook (app.c) when it happens, not here.  Not kept in the log: the
** outcome (a notice, or the error naming the same action) is. */
void tui_notice_now(struct app *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* app.c */
void tui_send(struct app *a, const char *text);
/* Edit the saved user message at transcript index TURN (M-e, Enter in F6):
** its text in the input box, the next send forks at it, and the
** transcript scrolled to show it.  What the box held is kept aside
** (edit_draft) when no edit was under way. */
void tui_edit_turn(struct app *a, int turn);
/*
** Edit mode ends: the edit sent (the box empty by then), Esc (SET: the
** edit's text goes), or another action leaving it (a session opened, a
** framing change): the text the box held when the edit began comes back,
** after what the box holds, so an edit never loses a draft.
*/
void tui_edit_end(struct app *a, int set);
/* M-R's prompt offers this many alternatives. */
#define TUI_ALTS_DEFAULT 3
/* N alternatives of the last reply (1 = C-r's regeneration; M-R asks N):
** each streams in the reply's place and is saved as its sibling. */
void tui_regen(struct app *a, int n);

/*
** quit.c: leaving with exchanges a failed save kept out (storage/session.h,
** sess_flush).  On the way out (the worker idle) tui_quit_flush tries once
** more to save them -- "saving ..." drawn first when DRAW -- and, when some
** still fail and ASK (the user quit with a key: someone to ask), opens the
** question (r retry, e export, q quit anyway, Esc back): 1, the loop goes
** on; else 0, leave.  Nothing kept out: 0 at once, nothing done.
** tui_quit_key takes the question's keys (and Esc in its export prompt):
** 1 when taken.  tui_quit_report, the screen gone: the lines on stderr
** (what was said while quitting, a->quit_said; saved at the end; exported;
** not saved: how many and why) and the exit status, 1 when exchanges were
** left unsaved, else 0.
** tui_quit_keep: MSG (IS_ERR: an error, "rwkv-tui: " before it, as the
** line chat prints one) kept for stderr in a->quit_said.  tui_quit_back,
** each turn of the loop: once the question is gone and the chat goes on,
** what was kept is the message log's alone (a later quit starts afresh).
** tui_unsaved_saving: "saving ..." drawn now when exchanges are kept out,
** before a call that tries them and may wait for a lock (sess_flush, or
** one of the runtime's ways of leaving the conversation: the leaving rule,
** storage/session.h).
*/
void tui_unsaved_saving(struct app *a);
int  tui_quit_flush(struct app *a, int ask, int draw);
int  tui_quit_key(struct app *a, int key, int is_fkey);
int  tui_quit_report(struct app *a);
void tui_quit_keep(struct app *a, int is_err, const char *msg);
void tui_quit_back(struct app *a);

/* session.c: free generation (M-g: from PROMPT; PROMPT NULL = M-+ continue it). */
void tui_free_gen(struct app *a, const char *prompt);

/*
** model_load.c: stderr caught while a model loads under the screen (what a
** loader or a library prints there would land on the curses screen), to be
** shown in the transcript.  begin: fd 2 goes to a temporary file (when none
** can be made, nothing is caught and stderr stays); mark: the bytes caught
** so far; end: fd 2 back (again: nothing); text: the bytes FROM..TO (TO -1:
** all) into OUT, cleared first, its trailing newlines dropped; close: end,
** and the file goes.
*/
typedef struct tui_capture {
    FILE *f;                 /* the temporary file (owned); NULL: not caught */
    int   saved;             /* the real stderr (a dup, owned); -1: none */
} tui_capture;
void tui_capture_begin(tui_capture *c);
long tui_capture_mark(const tui_capture *c);
void tui_capture_end(tui_capture *c);
void tui_capture_text(const tui_capture *c, long from, long to, tui_buf *out);
void tui_capture_close(tui_capture *c);

/* model_load.c: load the checkpoint PATH (NULL = the current one) with STRATEGY (NULL =
** the current one) and start a new session on it; on failure nothing
** changes and a notice says why.  Blocking (the status line shows a
** progress bar, drawn from the loader's progress callback).  0; -1 when
** the switch could not begin (a reply running, exchanges kept out: said,
** or queued to be); TUI_SWITCH_LOAD when the load (or its tokenizer)
** refused, said in an error notice before it returns. */
#define TUI_SWITCH_LOAD (-2)
int  tui_switch_model(struct app *a, const char *path, const char *strategy);
/* model_load.c: the same for the model of a session made with another
** shape (F2: NEED from sess_model_need), loaded by the launch's rule
** (sess_info_launch) and checked to be the file the session was made with
** before it replaces the model in use; then that session is opened on it
** (a job) instead of a new one.  Returns as tui_switch_model. */
int  tui_switch_session_model(struct app *a, const sess_need *need);
/* model_load.c: the model and tokenizer of the launch (--model or the
** config's, or --demo), before the session: 0, or the exit status with one
** line on stderr. */
int  tui_model_open(struct app *a);

#endif
