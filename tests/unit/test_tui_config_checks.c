/*
** test_tui_config_checks.c -- the config file's values checked when it is
** read (tui/config.c), each problem as FILE:LINE:COLUMN and the default
** kept:
**   - a key that types a character ("quit: q", "presets: x", "ü", " ") is
**     refused (it would never reach the message box: "quit: q" ended the
**     client at "a quick question"); M- takes any character, "M-ü" too;
**   - so is a key the client keeps (config.h's CFG_FIXED_KEYS: C-u, C-k,
**     C-y, C-c, C-z, C-d, M-b...), saying what it does; C-q stays quit's;
**   - an empty user or bot name is reported at its line, as --user "";
**     so is an empty think mode ("think: \"\"" was dropped without a word);
**   - a strategy the parser refuses ("cpu fp23", "12345") is said at its
**     line, not as an exit 1 after the file was read; where model, vocab and
**     strategy were set is kept for the errors of a later load;
**   - stop strings are checked item by item, in file order, with the real
**     limits (8 strings of 1..64 bytes; it said "1023 bytes"), and a list of
**     ban ids is not cut at 8;
**   - a relative $XDG_CONFIG_HOME is ignored (the XDG rule), not read from
**     the current folder;
**   - a key the file binds beats another action's default key (a release
**     that adds a default key broke configs: "prev_branch: M-p" was refused
**     once M-p became prev_message's): that action loses it, said in an
**     info line, not an error; two bindings in the file stay an error.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness.h"
#include "../../tui/config.h"
#include "../../tui/theme.h"

static int
count_lines(const char *msg)
{
    int n = msg[0] != '\0';

    for (const char *q = msg; *q; q++)
        n += *q == '\n';
    return n;
}

static void
test_typing_keys(void)
{
    tui_config c;
    char msg[THEME_MSG], buf[32];
    const char *p;

    /* the parser: one character is its code point, typing; M- any character */
    TEST_COND("q types", cfg_key_parse("q") == 'q' && cfg_key_types('q'));
    TEST_COND("space types", cfg_key_parse(" ") == ' ' && cfg_key_types(' '));
    TEST_COND("u-umlaut is one character", cfg_key_parse("\xc3\xbc") == 0xfc && cfg_key_types(0xfc));
    TEST_COND("CJK is one character", cfg_key_parse("\xe4\xb8\xad") == 0x4e2d);
    TEST_COND("two characters: no key", cfg_key_parse("\xc3\xbc\xc3\xbc") == -1 &&
                                        cfg_key_parse("ab") == -1);
    TEST_COND("ill-formed UTF-8: no key", cfg_key_parse("\xc3") == -1);
    TEST_COND("M-u-umlaut", cfg_key_parse("M-\xc3\xbc") == CFG_KEY_ALT(0xfc) &&
                            cfg_key_parse("Alt-\xc3\xa9") == CFG_KEY_ALT(0xe9));
    TEST_COND("M- beyond U+FFFF refused", cfg_key_parse("M-\xf0\x9f\x98\x80") == -1);
    TEST_COND("modified keys do not type", !cfg_key_types(CFG_KEY_ALT('q')) &&
                                           !cfg_key_types(CFG_KEY_CTRL('q')) &&
                                           !cfg_key_types('\t') && !cfg_key_types(CFG_KEY_F(2)));
    cfg_key_name(CFG_KEY_ALT(0xfc), buf, sizeof buf);
    TEST_CONDF(strcmp(buf, "M-\xc3\xbc") == 0, "name of M-u-umlaut: '%s'", buf);
    cfg_key_name(CFG_KEY_ALT('R'), buf, sizeof buf);
    TEST_CONDF(strcmp(buf, "M-R") == 0, "name of M-R: '%s'", buf);

    p = test_write_tmp("k.yaml", "model: m\n"
                            "keys:\n"
                            "  quit: q\n"
                            "  presets: \"x\"\n"
                            "  sessions: \"\xc3\xbc\"\n"
                            "  help: \" \"\n"
                            "  stats: \"1\"\n"
                            "  mouse: \"\xf0\x9f\x98\x80\"\n"
                            "  states: M-\xc3\xbc\n"
                            "  framing: M-\xf0\x9f\x98\x80\n");
    TEST_COND("typing keys reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    {
        static const char *const want[] = {
            "k.yaml:3:9: field 'quit' in 'keys': 'q' types a character: bind M-q, C-q or an "
            "F-key; 'quit' keeps F10",
            "k.yaml:4:12: field 'presets' in 'keys': 'x' types a character: bind M-x, C-x or an "
            "F-key; 'presets' keeps F4",
            "k.yaml:5:13: field 'sessions' in 'keys': '\xc3\xbc' types a character: bind "
            "M-\xc3\xbc or an F-key; 'sessions' keeps F2",
            "k.yaml:6:9: field 'help' in 'keys': ' ' types a character: bind an F-key, C-x or "
            "M-x; 'help' keeps F1",
            "k.yaml:7:10: field 'stats' in 'keys': '1' types a character: bind M-1 or an F-key; "
            "'stats' keeps F9",
            "k.yaml:8:10: field 'mouse' in 'keys': '\xf0\x9f\x98\x80' types a character: bind an "
            "F-key, C-x or M-x; 'mouse' keeps M-m",
            "k.yaml:10:12: field 'framing' in 'keys': unknown key 'M-\xf0\x9f\x98\x80' (M- takes "
            "a character below U+10000)",
        };
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            TEST_CONDF(strstr(msg, want[i]) != NULL, "missing '%s' in:\n%s", want[i], msg);
        TEST_CONDF(count_lines(msg) == 7, "%d lines:\n%s", count_lines(msg), msg);
    }
    TEST_COND("typing keys: the defaults kept", c.keys[CFG_ACT_QUIT] == CFG_KEY_F(10) &&
                                                c.keys[CFG_ACT_PRESETS] == CFG_KEY_F(4) &&
                                                c.keys[CFG_ACT_SESSIONS] == CFG_KEY_F(2) &&
                                                c.keys[CFG_ACT_HELP] == CFG_KEY_F(1) &&
                                                c.keys[CFG_ACT_MOUSE] == CFG_KEY_ALT('m'));
    TEST_COND("typing keys: M-u-umlaut bound", c.keys[CFG_ACT_STATES] == CFG_KEY_ALT(0xfc));
    TEST_COND("typing keys: the model kept", strcmp(c.model, "m") == 0);
    TEST_COND("no action on a plain letter", cfg_action_for_key(&c, 'q') < 0 &&
                                             cfg_action_for_key(&c, 'x') < 0);

    /* the unknown-key hint says which forms there are */
    p = test_write_tmp("k2.yaml", "keys:\n  quit: Hyper-q\n");
    TEST_COND("unknown key reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "k2.yaml:2:9: field 'quit' in 'keys': unknown key 'Hyper-q' (F1-F12, "
                           "Tab, C- with a letter, M- with any character: C-q, M-q, M-\xc3\xbc)"),
               "msg: %s", msg);
}

/* Ctrl keys the terminal sends for Enter (C-m), the box's new line (C-j)
** and Backspace (C-h on many terminals): a binding never acted (C-m) or took
** the key from the message box; C-i is Tab and fine. */
static void
test_editing_keys(void)
{
    tui_config c;
    char msg[THEME_MSG];
    const char *p;

    p = test_write_tmp("e.yaml", "keys:\n"
                                 "  quit: C-m\n"
                                 "  regen: C-j\n"
                                 "  new: ^h\n");
    TEST_COND("editing keys reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    {
        static const char *const want[] = {
            "e.yaml:2:9: field 'quit' in 'keys': 'C-m' is Enter in terminals: bind another C-x, "
            "M-x or an F-key; 'quit' keeps F10",
            "e.yaml:3:10: field 'regen' in 'keys': 'C-j' is the message box's new line in "
            "terminals: bind another C-x, M-x or an F-key; 'regen' keeps C-r",
            "e.yaml:4:8: field 'new' in 'keys': '^h' is Backspace in terminals: bind another "
            "C-x, M-x or an F-key; 'new' keeps C-n",
        };
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            TEST_CONDF(strstr(msg, want[i]) != NULL, "missing '%s' in:\n%s", want[i], msg);
        TEST_CONDF(count_lines(msg) == 3, "%d lines:\n%s", count_lines(msg), msg);
    }
    TEST_COND("editing keys: the defaults kept", c.keys[CFG_ACT_QUIT] == CFG_KEY_F(10) &&
                                                 c.keys[CFG_ACT_REGEN] == CFG_KEY_CTRL('r') &&
                                                 c.keys[CFG_ACT_NEW] == CFG_KEY_CTRL('n'));
    TEST_COND("C-i is Tab", cfg_key_parse("C-i") == '\t');
    TEST_COND("no action on Enter, C-j or C-h", cfg_action_for_key(&c, CFG_KEY_CTRL('m')) < 0 &&
                                                cfg_action_for_key(&c, CFG_KEY_CTRL('j')) < 0 &&
                                                cfg_action_for_key(&c, CFG_KEY_CTRL('h')) < 0);
}

/* The keys the client keeps (config.h's CFG_FIXED_KEYS: the message box's
** editing keys, C-c, C-z, C-d, C-q): "sessions: C-u" made C-u open the
** sessions instead of clearing the box, "branches: C-z" took the suspend,
** "framing: C-c" the stop of a reply, all without a word. */
static void
test_fixed_keys(void)
{
    tui_config c;
    char msg[THEME_MSG];
    const char *p;

    p = test_write_tmp("f.yaml", "keys:\n"
                                 "  sessions: C-u\n"
                                 "  presets: C-a\n"
                                 "  states: C-k\n"
                                 "  models: C-y\n"
                                 "  help: C-d\n"
                                 "  branches: C-z\n"
                                 "  framing: C-c\n"
                                 "  messages: M-b\n"
                                 "  regen: C-q\n"
                                 "  quit: C-q\n"
                                 "  new: C-o\n");
    TEST_COND("fixed keys reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    {
        static const char *const want[] = {
            "f.yaml:2:13: field 'sessions' in 'keys': 'C-u' clears the message box: bind another "
            "C-x, M-x or an F-key; 'sessions' keeps F2",
            "f.yaml:3:12: field 'presets' in 'keys': 'C-a' moves to the start of the line in the "
            "message box: bind another C-x, M-x or an F-key; 'presets' keeps F4",
            "f.yaml:4:11: field 'states' in 'keys': 'C-k' deletes to the end of the line in the "
            "message box: bind another C-x, M-x or an F-key; 'states' keeps F3",
            "f.yaml:5:11: field 'models' in 'keys': 'C-y' puts the text deleted last back in the "
            "message box: bind another C-x, M-x or an F-key; 'models' keeps F5",
            "f.yaml:6:9: field 'help' in 'keys': 'C-d' quits from an empty message box: bind "
            "another C-x, M-x or an F-key; 'help' keeps F1",
            "f.yaml:7:13: field 'branches' in 'keys': 'C-z' suspends the client: bind another "
            "C-x, M-x or an F-key; 'branches' keeps F6",
            "f.yaml:8:12: field 'framing' in 'keys': 'C-c' stops a running reply: bind another "
            "C-x, M-x or an F-key; 'framing' keeps F8",
            "f.yaml:9:13: field 'messages' in 'keys': 'M-b' moves to the start of a word in the "
            "message box: bind another C-x, M-x or an F-key; 'messages' keeps M-l",
            "f.yaml:10:10: field 'regen' in 'keys': 'C-q' quits: bind another C-x, M-x or an "
            "F-key; 'regen' keeps C-r",
        };
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            TEST_CONDF(strstr(msg, want[i]) != NULL, "missing '%s' in:\n%s", want[i], msg);
        TEST_CONDF(count_lines(msg) == 9, "%d lines:\n%s", count_lines(msg), msg);
    }
    TEST_COND("fixed keys: the defaults kept", c.keys[CFG_ACT_SESSIONS] == CFG_KEY_F(2) &&
                                               c.keys[CFG_ACT_PRESETS] == CFG_KEY_F(4) &&
                                               c.keys[CFG_ACT_STATES] == CFG_KEY_F(3) &&
                                               c.keys[CFG_ACT_MODELS] == CFG_KEY_F(5) &&
                                               c.keys[CFG_ACT_HELP] == CFG_KEY_F(1) &&
                                               c.keys[CFG_ACT_BRANCHES] == CFG_KEY_F(6) &&
                                               c.keys[CFG_ACT_FRAMING] == CFG_KEY_F(8) &&
                                               c.keys[CFG_ACT_LOG] == CFG_KEY_ALT('l') &&
                                               c.keys[CFG_ACT_REGEN] == CFG_KEY_CTRL('r'));
    TEST_COND("fixed keys: C-q stays quit's, C-o binds", c.keys[CFG_ACT_QUIT] == CFG_KEY_CTRL('q') &&
                                                         c.keys[CFG_ACT_NEW] == CFG_KEY_CTRL('o'));
    TEST_COND("no action on C-u, C-z, C-c or M-b", cfg_action_for_key(&c, CFG_KEY_CTRL('u')) < 0 &&
                                                  cfg_action_for_key(&c, CFG_KEY_CTRL('z')) < 0 &&
                                                  cfg_action_for_key(&c, CFG_KEY_CTRL('c')) < 0 &&
                                                  cfg_action_for_key(&c, CFG_KEY_ALT('b')) < 0);
    /* the keys a typing key's message offers instead are never fixed ones */
    p = test_write_tmp("f2.yaml", "keys:\n  sessions: u\n  messages: b\n  regen: q\n  quit: q\n");
    TEST_COND("typing keys: fixed ones not offered", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "f2.yaml:2:13: field 'sessions' in 'keys': 'u' types a character: "
                           "bind M-u or an F-key; 'sessions' keeps F2") &&
               strstr(msg, "f2.yaml:3:13: field 'messages' in 'keys': 'b' types a character: "
                           "bind an F-key, C-x or M-x; 'messages' keeps M-l") &&
               strstr(msg, "f2.yaml:4:10: field 'regen' in 'keys': 'q' types a character: "
                           "bind M-q or an F-key; 'regen' keeps C-r") &&
               strstr(msg, "f2.yaml:5:9: field 'quit' in 'keys': 'q' types a character: "
                           "bind M-q, C-q or an F-key; 'quit' keeps F10") &&
               count_lines(msg) == 4, "msg: %s", msg);
}

/* Every key of the one list is refused for an action other than its own
** (the check reads CFG_FIXED_KEYS itself: no second copy to fall behind). */
static void
test_fixed_keys_all(void)
{
    static const struct { int key, act; } fixed[] = {
#define FIX_(e, k, a, w, hk, h) { k, a },
        CFG_FIXED_KEYS(FIX_)
#undef FIX_
    };
    tui_config c;
    char msg[THEME_MSG], yaml[64], kn[32];
    int refused = 0;

    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        int act = fixed[i].act == CFG_ACT_STATS ? CFG_ACT_SIDEBAR : CFG_ACT_STATS;
        cfg_key_name(fixed[i].key, kn, sizeof kn);
        snprintf(yaml, sizeof yaml, "keys:\n  %s: \"%s\"\n", cfg_action_name(act), kn);
        if (cfg_load(test_write_tmp("fa.yaml", yaml), &c, msg, sizeof msg) != 0 &&
            strstr(msg, "bind another C-x") != NULL && c.keys[act] != fixed[i].key)
            refused++;
        else
            TEST_CONDF(0, "'%s' bound to %s: %s", kn, cfg_action_name(act), msg);
    }
    TEST_CONDF(refused == (int)(sizeof fixed / sizeof fixed[0]), "%d of %zu fixed keys refused",
               refused, sizeof fixed / sizeof fixed[0]);
}

/* user and bot: "" is refused at its line as --user "" is (it was dropped
** without a word, the man page saying 1 to 64 bytes); the default and
** the other settings kept. */
static void
test_empty_names(void)
{
    tui_config c;
    char msg[THEME_MSG];
    const char *p;

    p = test_write_tmp("n.yaml", "user: \"\"\nbot: ''\nthink: on\n");
    TEST_COND("empty names reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "n.yaml:1:7: field 'user': a role name has 1..64 bytes") &&
               strstr(msg, "n.yaml:2:6: field 'bot': a role name has 1..64 bytes") &&
               count_lines(msg) == 2 && c.user[0] == '\0' && c.bot[0] == '\0' &&
               strcmp(c.think, "on") == 0, "msg: %s", msg);
    /* think: "" (and "think:" with nothing after it) is no mode: said at
    ** its line as "think: deep" is, the default kept */
    p = test_write_tmp("t.yaml", "think: \"\"\nuser: Bob\n");
    TEST_COND("empty think reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "t.yaml:1:8: field 'think': '' is not off, on, short, long or skip") &&
               count_lines(msg) == 1 && c.think[0] == '\0' && strcmp(c.user, "Bob") == 0,
               "msg: %s", msg);
    p = test_write_tmp("t2.yaml", "think:\nbot: Ann\n");
    TEST_COND("think with no value reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "t2.yaml:1:7: field 'think': '' is not off, on, short, long or skip") &&
               count_lines(msg) == 1 && c.think[0] == '\0' && strcmp(c.bot, "Ann") == 0,
               "msg: %s", msg);
}

static void
test_strategy(void)
{
    tui_config c;
    char msg[THEME_MSG], want[600];
    const char *p;

    p = test_write_tmp("s.yaml", "model: /m/x.pth\nvocab: /m/v.txt\nstrategy: cpu fp23\ntheme: dark\n");
    TEST_COND("bad strategy reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "s.yaml:3:11: field 'strategy': invalid strategy 'cpu fp23': unknown "
                           "dtype 'fp23'") != NULL && count_lines(msg) == 1, "msg: %s", msg);
    TEST_COND("bad strategy: the default kept", c.strategy[0] == '\0' && c.strategy_at[0] == '\0');
    TEST_COND("bad strategy: the rest kept", strcmp(c.model, "/m/x.pth") == 0 &&
                                             strcmp(c.theme, "dark") == 0);
    snprintf(want, sizeof want, "%s/s.yaml:1:8", test_tmp_dir());
    TEST_CONDF(strcmp(c.model_at, want) == 0, "model_at '%s'", c.model_at);
    snprintf(want, sizeof want, "%s/s.yaml:2:8", test_tmp_dir());
    TEST_CONDF(strcmp(c.vocab_at, want) == 0, "vocab_at '%s'", c.vocab_at);

    p = test_write_tmp("s2.yaml", "strategy: 12345\n");
    TEST_COND("a number for a strategy", cfg_load(p, &c, msg, sizeof msg) != 0 &&
                                         strstr(msg, "s2.yaml:1:11: field 'strategy': invalid "
                                                     "strategy '12345'") != NULL);
    p = test_write_tmp("s3.yaml", "strategy: cpu bf16 -> cpu fp32 *2\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "good strategy: %s", msg);
    snprintf(want, sizeof want, "%s/s3.yaml:1:11", test_tmp_dir());
    TEST_CONDF(strcmp(c.strategy, "cpu bf16 -> cpu fp32 *2") == 0 &&
               strcmp(c.strategy_at, want) == 0 && c.model_at[0] == '\0',
               "strategy '%s' at '%s'", c.strategy, c.strategy_at);
}

/* A greeting takes what --greeting and F8 take (64 KiB once its \n escapes
** are read), not the 1023 bytes of a path. */
static void
test_greeting_limit(void)
{
    tui_config c;
    char msg[THEME_MSG];
    size_t cap = 2 * CFG_GREETING + 64, n;
    char *text = malloc(cap);
    const char *p;

    if (text == NULL)
        return;
    /* 5000 bytes, plain */
    n = (size_t)snprintf(text, cap, "greeting: \"");
    memset(text + n, 'g', 5000);
    snprintf(text + n + 5000, cap - n - 5000, "\"\n");
    p = test_write_tmp("g1.yaml", text);
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "5000-byte greeting: %s", msg);
    TEST_COND("5000-byte greeting kept", c.has_greeting && strlen(c.greeting) == 5000);

    /* 65536 new lines written as \n: 131072 bytes in the file, 64 KiB read */
    n = (size_t)snprintf(text, cap, "greeting: '");
    for (size_t i = 0; i < CFG_GREETING; i++, n += 2)
        memcpy(text + n, "\\n", 2);
    snprintf(text + n, cap - n, "'\n");
    p = test_write_tmp("g2.yaml", text);
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "64 KiB greeting: %s", msg);
    TEST_COND("64 KiB greeting kept", c.has_greeting && strlen(c.greeting) == CFG_GREETING &&
                                      c.greeting[0] == '\n');

    /* one byte more: said at its line, and no greeting set */
    n = (size_t)snprintf(text, cap, "user: Bob\ngreeting: \"");
    memset(text + n, 'g', CFG_GREETING + 1);
    snprintf(text + n + CFG_GREETING + 1, cap - n - CFG_GREETING - 1, "\"\n");
    p = test_write_tmp("g3.yaml", text);
    TEST_COND("long greeting reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "g3.yaml:2:11: field 'greeting': 65537 bytes (at most 65536)") &&
               !strstr(msg, "greeting: 65537") &&
               count_lines(msg) == 1, "msg: %s", msg);
    TEST_COND("long greeting: none set, the rest kept", !c.has_greeting &&
                                                          strcmp(c.user, "Bob") == 0);
    free(text);
}

static void
test_stop_limits(void)
{
    tui_config c;
    char msg[THEME_MSG], text[4096];
    const char *p;
    int n = 0;

    /* one 2000-byte string: the 64-byte limit, not the path buffer's */
    n = snprintf(text, sizeof text, "stop: \"");
    memset(text + n, 'y', 2000);
    snprintf(text + n + 2000, sizeof text - (size_t)n - 2000, "\"\n");
    p = test_write_tmp("st1.yaml", text);
    TEST_COND("long stop reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "st1.yaml:1:7: field 'stop': a stop string must have 1..64 bytes") &&
               !strstr(msg, "1023") && count_lines(msg) == 1, "msg: %s", msg);
    TEST_COND("long stop: the default kept", c.n_stop == 0);

    /* nine items: the ninth said at its place, with the real limit */
    p = test_write_tmp("st2.yaml", "stop: [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]\n");
    TEST_COND("ninth stop reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "st2.yaml:1:40: field 'stop': at most 8 stop strings") &&
               !strstr(msg, "1023") && count_lines(msg) == 1, "msg: %s", msg);
    TEST_COND("nine stops: the first eight kept", c.n_stop == 8 && strcmp(c.stop[7], "h") == 0);

    /* a bad item before the surplus ones: reported first (file order) */
    p = test_write_tmp("st3.yaml", "stop: [\"a\", \"\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", \"i\", "
                              "\"j\", \"k\"]\n");
    TEST_COND("stop problems reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    {
        const char *e = strstr(msg, "st3.yaml:1:13: field 'stop': a stop string must have");
        const char *s1 = strstr(msg, "st3.yaml:1:52: field 'stop': at most 8 stop strings");
        const char *s2 = strstr(msg, "st3.yaml:1:57: field 'stop': at most 8 stop strings");
        TEST_CONDF(e && s1 && s2 && e < s1 && s1 < s2 && count_lines(msg) == 3, "msg: %s", msg);
    }
    TEST_COND("stop: the good ones kept", c.n_stop == 8 && strcmp(c.stop[0], "a") == 0 &&
                                          strcmp(c.stop[1], "c") == 0 &&
                                          strcmp(c.stop[7], "i") == 0);

    /* escapes count once unescaped: 64 "\n" are 128 bytes written, 64 read */
    n = snprintf(text, sizeof text, "stop: '");
    for (int i = 0; i < 64; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "\\n");
    snprintf(text + n, sizeof text - (size_t)n, "'\n");
    p = test_write_tmp("st4.yaml", text);
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0 && c.n_stop == 1, "64 newlines: %s", msg);

    /* ban: a list of more than 8 ids is fine (the list limit was model_dir's) */
    p = test_write_tmp("b.yaml", "ban: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0 &&
               strcmp(c.ban, "1,2,3,4,5,6,7,8,9,10,11") == 0, "ban list: %s / %s", msg, c.ban);
    p = test_write_tmp("b2.yaml", "ban: [1, x, 3]\n");
    TEST_COND("bad ban id reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "b2.yaml:1:10: field 'ban': the list item 'x' is not a token id") != NULL &&
               strcmp(c.ban, "1,3") == 0, "msg: %s / ban '%s'", msg, c.ban);

    /* model_dir: more than 8 folders says so */
    p = test_write_tmp("d.yaml", "model_dir: [a, b, c, d, e, f, g, h, i]\n");
    TEST_COND("ninth folder reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "d.yaml:1:37: field 'model_dir': at most 8 folders") != NULL &&
               c.n_model_dir == 8, "msg: %s", msg);
}

/*
** Each problem names its field once ("field 'user': user: no ':'..." said
** it twice), a YAML list's item is said to be one (not "a comma-separated
** list of token ids"), and an unknown action under keys: that begins with
** an action's name gets it as a hint ("regenerate" -> "regen"), as unknown
** fields get the nearest name.
*/
static void
test_said_once(void)
{
    tui_config c;
    char msg[THEME_MSG];
    const char *p;

    p = test_write_tmp("o1.yaml", "# the tester's file\n\n\n\n\n\n\nban: [1, x, -5]\n");
    TEST_COND("ban items reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "o1.yaml:8:10: field 'ban': the list item 'x' is not a token id") &&
               strstr(msg, "o1.yaml:8:13: field 'ban': the list item '-5' is not a token id") &&
               !strstr(msg, "ban: ") && !strstr(msg, "comma-separated") && count_lines(msg) == 2 &&
               strcmp(c.ban, "1") == 0, "msg: %s / ban '%s'", msg, c.ban);
    /* a string is a comma-separated list: said so, the field once */
    p = test_write_tmp("o2.yaml", "ban: \"1,x\"\n");
    TEST_COND("ban string reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "o2.yaml:1:6: field 'ban': '1,x' is not a comma-separated list of token "
                           "ids") && !strstr(msg, "ban: '") && count_lines(msg) == 1, "msg: %s", msg);

    p = test_write_tmp("o3.yaml", "user: \"a:b\"\nbot: \" Bo\"\n");
    TEST_COND("role names reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "o3.yaml:1:7: field 'user': no ':', newline or control character") &&
               strstr(msg, "o3.yaml:2:6: field 'bot': ' Bo': no blank at either end") &&
               !strstr(msg, "user: no") && !strstr(msg, "bot ' Bo'") && count_lines(msg) == 2 &&
               c.user[0] == '\0' && c.bot[0] == '\0', "msg: %s", msg);

    p = test_write_tmp("o4.yaml", "keys:\n  regenerate: C-r\n  alt: M-R\n  zzzzzz: F3\n");
    TEST_COND("unknown actions reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "o4.yaml:2:3: in 'keys': unknown action 'regenerate' (did you mean "
                           "'regen'?)") &&
               strstr(msg, "o4.yaml:3:3: in 'keys': unknown action 'alt' (did you mean "
                           "'alternatives'?)") &&
               strstr(msg, "o4.yaml:4:3: in 'keys': unknown action 'zzzzzz'") &&
               !strstr(msg, "'zzzzzz' (did") &&
               count_lines(msg) == 3, "msg: %s", msg);
    /* a field too: "model_directory" is model_dir */
    p = test_write_tmp("o5.yaml", "model_directory: /tmp\n");
    TEST_COND("unknown field reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "unknown field 'model_directory' (did you mean 'model_dir'?)") != NULL,
               "msg: %s", msg);
}

/* The default config's place: $XDG_CONFIG_HOME when it is an absolute path,
** else ~/.config -- a relative one is ignored, the XDG rule the data, state
** and cache folders follow (it was taken from the current folder). */
static void
test_default_path(void)
{
    char buf[256];

    setenv("HOME", "/h", 1);
    setenv("XDG_CONFIG_HOME", "/x", 1);
    cfg_default_path(buf, sizeof buf);
    TEST_CONDF(strcmp(buf, "/x/rwkv-tui/config.yaml") == 0, "absolute: %s", buf);
    setenv("XDG_CONFIG_HOME", "rel", 1);
    cfg_default_path(buf, sizeof buf);
    TEST_CONDF(strcmp(buf, "/h/.config/rwkv-tui/config.yaml") == 0, "relative: %s", buf);
    setenv("XDG_CONFIG_HOME", "", 1);
    cfg_default_path(buf, sizeof buf);
    TEST_CONDF(strcmp(buf, "/h/.config/rwkv-tui/config.yaml") == 0, "empty: %s", buf);
    unsetenv("XDG_CONFIG_HOME");
}

/* A key the file binds beats a default key; two file bindings do not. */
static void
test_key_beats_default(void)
{
    char msg[2048];
    tui_config c;
    const char *p;

    p = test_write_tmp("k1.yaml", "keys:\n  prev_branch: M-p\n  next_branch: M-n\n  regen: C-n\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "k1: no problem: %s", msg);
    TEST_CONDF(c.keys[CFG_ACT_PREV_SIB] == CFG_KEY_ALT('p') && c.keys[CFG_ACT_NEXT_SIB] == CFG_KEY_ALT('n') &&
               c.keys[CFG_ACT_REGEN] == CFG_KEY_CTRL('n'), "k1: the file's keys kept");
    TEST_CONDF(c.keys[CFG_ACT_PREV_MSG] == CFG_KEY_NONE && c.keys[CFG_ACT_NEXT_MSG] == CFG_KEY_NONE &&
               c.keys[CFG_ACT_NEW] == CFG_KEY_NONE, "k1: the displaced defaults have no key");
    TEST_CONDF(cfg_action_for_key(&c, CFG_KEY_ALT('p')) == CFG_ACT_PREV_SIB &&
               cfg_action_for_key(&c, CFG_KEY_CTRL('n')) == CFG_ACT_REGEN &&
               cfg_action_for_key(&c, CFG_KEY_NONE) == -1, "k1: keys act as the file says");
    TEST_CONDF(strstr(c.notes, "M-p: prev_branch (your config) replaces the default of prev_message, "
                               "which now has no key") &&
               strstr(c.notes, "C-n: regen (your config) replaces the default of new, which now has no key") &&
               count_lines(c.notes) == 3, "k1 notes: %s", c.notes);
    /* quit keeps C-q, a key the client keeps for it */
    p = test_write_tmp("k2.yaml", "keys: {stats: F10}\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "k2: no problem: %s", msg);
    TEST_CONDF(c.keys[CFG_ACT_STATS] == CFG_KEY_F(10) && c.keys[CFG_ACT_QUIT] == CFG_KEY_CTRL('q') &&
               strstr(c.notes, "F10: stats (your config) replaces the default of quit, which keeps C-q"),
               "k2 notes: %s", c.notes);
    /* two bindings in the file: still an error, the later one refused */
    p = test_write_tmp("k3.yaml", "keys:\n  prev_branch: M-p\n  copy: M-p\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) != 0 &&
               strstr(msg, "k3.yaml:3:9: field 'copy' in 'keys': M-p is already bound to 'prev_branch'; "
                           "'copy' keeps M-c") && count_lines(msg) == 1, "k3: %s", msg);
    TEST_CONDF(c.keys[CFG_ACT_PREV_SIB] == CFG_KEY_ALT('p') && c.keys[CFG_ACT_COPY] == CFG_KEY_ALT('c') &&
               c.keys[CFG_ACT_PREV_MSG] == CFG_KEY_NONE, "k3: keys");
    /* the refused one's default went to the earlier binding: no key, not
    ** "keeps F3" and then "F3 is bound to both ... 'states' wins" */
    p = test_write_tmp("k5.yaml", "keys:\n  stats: F3\n  states: F3\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) != 0 &&
               strstr(msg, "k5.yaml:3:11: field 'states' in 'keys': F3 is already bound to 'stats'; "
                           "'states' now has no key") && count_lines(msg) == 1 &&
               c.keys[CFG_ACT_STATS] == CFG_KEY_F(3) && c.keys[CFG_ACT_STATES] == CFG_KEY_NONE, "k5: %s", msg);
    /* no config binding: no notes */
    p = test_write_tmp("k4.yaml", "keys: {help: F12}\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0 && c.notes[0] == '\0', "k4: %s", c.notes);
}

int
main(void)
{
    if (test_tmpdir("rwkv-config-checks") == NULL)
        return 1;
    test_typing_keys();
    test_editing_keys();
    test_fixed_keys();
    test_fixed_keys_all();
    test_empty_names();
    test_greeting_limit();
    test_strategy();
    test_stop_limits();
    test_said_once();
    test_default_path();
    test_key_beats_default();
    test_rm_rf(test_tmp_dir());
    return TEST_REPORT();
}
