/*
** test_tui_theme.c -- theme and config files (tui/theme.c, tui/config.c):
** the shipped themes load, broken files give one message naming the line
** and the field and leave the defaults in place, key names parse.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness.h"
#include "../../tui/config.h"
#include "../../tui/theme.h"

static void
test_theme(void)
{
    theme t, def;
    char msg[512];
    const char *p;
    static const char *shipped[] = { "themes/default.yaml", "themes/dark.yaml",
                                     "themes/light.yaml", "themes/mono.yaml" };

    theme_default(&def);
    TEST_COND("role names", strcmp(theme_role_name(THEME_ROLE_USER_HEADER), "user_header") == 0);
    for (size_t i = 0; i < 4; i++)
        TEST_CONDF(theme_load_file(shipped[i], &t, msg, sizeof msg) == 0,
                   "%s: %s", shipped[i], msg);
    theme_load_file("themes/dark.yaml", &t, msg, sizeof msg);
    TEST_COND("dark: name", strcmp(t.name, "dark") == 0);
    TEST_COND("dark: user_header fg 81 bold",
              t.role[THEME_ROLE_USER_HEADER].fg == 81 &&
              (t.role[THEME_ROLE_USER_HEADER].attrs & THEME_BOLD));
    theme_load_file("themes/mono.yaml", &t, msg, sizeof msg);
    TEST_COND("mono: status has no colour",
              t.role[THEME_ROLE_STATUS].fg == -1 && t.role[THEME_ROLE_STATUS].bg == -1 &&
              t.role[THEME_ROLE_STATUS].attrs == THEME_REVERSE);

    p = test_write_tmp("bad_colour.yaml", "name: x\nroles:\n  user:\n    fg: purpel\n");
    theme_default(&t);
    t.role[0].fg = 5;   /* must stay untouched on failure */
    TEST_COND("unknown colour fails", theme_load_file(p, &t, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, ":4:") && strstr(msg, "'fg'") && strstr(msg, "'user'") &&
               strstr(msg, "purpel"), "msg: %s", msg);
    TEST_COND("failed load leaves theme alone", t.role[0].fg == 5);

    p = test_write_tmp("bad_key.yaml", "name: x\nroles:\n  user:\n    fg: red\n    blink: true\n");
    TEST_COND("unknown key fails", theme_load_file(p, &t, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "blink") && strstr(msg, ":5") && strstr(msg, "'user'"), "msg: %s", msg);

    p = test_write_tmp("bad_role.yaml", "roles:\n  usr: { fg: red }\n");
    TEST_COND("unknown role fails", theme_load_file(p, &t, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "usr") && strstr(msg, ":2"), "msg: %s", msg);

    p = test_write_tmp("bad_syntax.yaml", "roles:\n  user: [1\n");
    TEST_COND("syntax error fails", theme_load_file(p, &t, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "bad_syntax.yaml:2") != NULL, "msg: %s", msg);

    p = test_write_tmp("big_num.yaml", "roles:\n  status: { fg: 300 }\n");
    TEST_COND("colour 300 fails", theme_load_file(p, &t, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, ":2:") && strstr(msg, "300"), "msg: %s", msg);

    p = test_write_tmp("binary.yaml", "\x01\x02garbage: [\n");
    TEST_COND("binary junk fails cleanly", theme_load_file(p, &t, msg, sizeof msg) != 0);

    p = test_write_tmp("empty.yaml", "");
    TEST_CONDF(theme_load_file(p, &t, msg, sizeof msg) == 0, "empty: %s", msg);

    TEST_COND("missing file fails", theme_load_file("/nonexistent/x.yaml", &t, msg, sizeof msg) != 0);
    TEST_COND("missing file message", strstr(msg, "/nonexistent/x.yaml") != NULL);

    /* lookup by name in $XDG_CONFIG_HOME/rwkv-tui/themes */
    {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/rwkv-tui", test_tmp_dir());
        mkdir(dir, 0700);
        snprintf(dir, sizeof dir, "%s/rwkv-tui/themes", test_tmp_dir());
        mkdir(dir, 0700);
        test_write_tmp("rwkv-tui/themes/mine.yaml", "name: mine\nroles:\n  error: { fg: 200 }\n");
        setenv("XDG_CONFIG_HOME", test_tmp_dir(), 1);
        TEST_CONDF(theme_load("mine", &t, msg, sizeof msg) == 0 && t.role[THEME_ROLE_ERROR].fg == 200,
                   "user theme: %s", msg);
        TEST_COND("unknown name -> default + message",
                  theme_load("nosuch", &t, msg, sizeof msg) != 0 && strstr(msg, "nosuch") &&
                  memcmp(&t, &def, sizeof t) == 0);
        TEST_COND("default without a file", theme_load("default", &t, msg, sizeof msg) == 0);
    }
    theme_default(&t);
    theme_strip_colors(&t);
    TEST_COND("NO_COLOR strips", t.role[THEME_ROLE_STATUS].bg == -1 &&
                                 t.role[THEME_ROLE_STATUS].attrs == THEME_REVERSE);
    TEST_COND("colour names", theme_parse_color("cyan") == 6 && theme_parse_color("255") == 255 &&
                              theme_parse_color("256") == -2 && theme_parse_color("x") == -2);
}

/* The framing keys and model_dir: strings or lists, each checked. */
static void
test_config_framing(void)
{
    tui_config c;
    char msg[THEME_MSG];
    const char *p;

    p = test_write_tmp("fr.yaml", "user: Bob\nbot: Alice\ngreeting: \"\"\nstop: [\"\\n\\nBob:\", END]\n"
                             "ban: [0, 11]\nmodel_dir: /m\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "framing config: %s", msg);
    TEST_COND("names", strcmp(c.user, "Bob") == 0 && strcmp(c.bot, "Alice") == 0);
    TEST_COND("empty greeting given", c.has_greeting && c.greeting[0] == '\0');
    TEST_COND("stop list", c.n_stop == 2 && strcmp(c.stop[0], "\n\nBob:") == 0 &&
                           strcmp(c.stop[1], "END") == 0);
    TEST_COND("ban list joined", strcmp(c.ban, "0,11") == 0);
    TEST_COND("one model_dir", c.n_model_dir == 1 && strcmp(c.model_dir[0], "/m") == 0);
    /* a single-quoted YAML scalar keeps backslashes: \n, \t, \\ read as in --greeting */
    p = test_write_tmp("fr3.yaml", "greeting: 'Bob: hi\\n\\nAlice: yes\\t\\\\n'\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "greeting escapes: %s", msg);
    TEST_CONDF(strcmp(c.greeting, "Bob: hi\n\nAlice: yes\t\\n") == 0, "greeting: '%s'", c.greeting);
    p = test_write_tmp("fr2.yaml", "model_dir: [/a, /b]\nuser: \"a:b\"\nbot: Ann\nban: 1,x\n"
                              "stop: [\"\"]\nusr: Bob\n");
    TEST_COND("bad framing keys reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "fr2.yaml:2:7: field 'user': no ':'") != NULL, "msg: %s", msg);
    TEST_CONDF(strstr(msg, "fr2.yaml:4:6: field 'ban': '1,x' is not") != NULL, "msg: %s", msg);
    TEST_CONDF(strstr(msg, "fr2.yaml:5:8: field 'stop': a stop string must have") != NULL,
               "msg: %s", msg);
    TEST_CONDF(strstr(msg, "unknown field 'usr' (did you mean 'user'?)") != NULL, "msg: %s", msg);
    TEST_COND("valid ones kept", c.n_model_dir == 2 && strcmp(c.model_dir[1], "/b") == 0 &&
                                 strcmp(c.bot, "Ann") == 0 && c.user[0] == '\0' &&
                                 c.ban[0] == '\0' && c.n_stop == 0);
}

static void
test_config(void)
{
    tui_config c;
    char msg[THEME_MSG], buf[32];
    const char *p;

    TEST_COND("key F2", cfg_key_parse("F2") == CFG_KEY_F(2));
    TEST_COND("key C-q", cfg_key_parse("C-q") == 17);
    TEST_COND("key ^Q", cfg_key_parse("^Q") == 17);
    TEST_COND("key M-x", cfg_key_parse("M-x") == CFG_KEY_ALT('x'));
    TEST_COND("key F13 bad", cfg_key_parse("F13") == -1);
    TEST_COND("key C-1 bad", cfg_key_parse("C-1") == -1);
    cfg_key_name(CFG_KEY_F(10), buf, sizeof buf);
    TEST_COND("name F10", strcmp(buf, "F10") == 0);
    cfg_key_name(CFG_KEY_CTRL('r'), buf, sizeof buf);
    TEST_COND("name C-r", strcmp(buf, "C-r") == 0);

    p = test_write_tmp("config.yaml", "model: /m/x.pth\nstrategy: cpu bf16\ntheme: dark\n"
                                 "state_dir: /states\nkeys:\n  quit: C-q\n  sessions: F11\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "config: %s", msg);
    TEST_COND("config values", strcmp(c.model, "/m/x.pth") == 0 &&
                               strcmp(c.strategy, "cpu bf16") == 0 &&
                               strcmp(c.theme, "dark") == 0 && strcmp(c.state_dir, "/states") == 0);
    TEST_COND("config keys", c.keys[CFG_ACT_QUIT] == 17 && c.keys[CFG_ACT_SESSIONS] == CFG_KEY_F(11));
    TEST_COND("framing on F8", c.keys[CFG_ACT_FRAMING] == CFG_KEY_F(8));

    TEST_COND("other keys default", c.keys[CFG_ACT_HELP] == CFG_KEY_F(1));
    TEST_COND("action for key", cfg_action_for_key(&c, 17) == CFG_ACT_QUIT);
    /* one bad binding: reported with line and column, everything else kept */
    p = test_write_tmp("bad1.yaml", "model: x\nkeys:\n  quit: Hyper-q\n  help: F12\n");
    TEST_COND("bad key reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "bad1.yaml:3:9: field 'quit' in 'keys': unknown key 'Hyper-q'") != NULL,
               "msg: %s", msg);
    TEST_COND("bad key: the model is kept", strcmp(c.model, "x") == 0);
    TEST_COND("bad key: quit keeps its default", c.keys[CFG_ACT_QUIT] == CFG_KEY_F(10));
    TEST_COND("bad key: the other binding is kept", c.keys[CFG_ACT_HELP] == CFG_KEY_F(12));

    p = test_write_tmp("bad2.yaml", "model: x\nstrategy: cpu bf16\nmodle: y\n");
    TEST_COND("unknown field reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "bad2.yaml:3:1: unknown field 'modle' (did you mean 'model'?)") != NULL,
               "msg: %s", msg);
    TEST_COND("unknown field: the rest kept", strcmp(c.model, "x") == 0 &&
                                              strcmp(c.strategy, "cpu bf16") == 0);

    p = test_write_tmp("bad3.yaml", "model: [a, b]\ntheme: dark\n");
    TEST_COND("sequence for a string reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "bad3.yaml:1:8: field 'model': expected a string, found a list") != NULL,
               "msg: %s", msg);
    TEST_COND("sequence: the theme is kept", strcmp(c.theme, "dark") == 0 && c.model[0] == '\0');

    /* every problem, each on its own line with file:line:column */
    p = test_write_tmp("many.yaml", "model: /m/a.pth\n"
                               "modle: x\n"
                               "keys:\n"
                               "  quit: Hyper-q\n"
                               "  sesions: F2\n"
                               "  help: [F1]\n"
                               "  regen: C-n\n"
                               "  stats: F3\n"
                               "theme: {a: 1}\n"
                               "db: /tmp/x.db\n");
    TEST_COND("many problems", cfg_load(p, &c, msg, sizeof msg) != 0);
    {
        static const char *const want[] = {
            "many.yaml:2:1: unknown field 'modle' (did you mean 'model'?)",
            "many.yaml:4:9: field 'quit' in 'keys': unknown key 'Hyper-q'",
            "many.yaml:5:3: in 'keys': unknown action 'sesions' (did you mean 'sessions'?)",
            "many.yaml:6:9: field 'help' in 'keys': expected a string, found a list",
            "many.yaml:9:8: field 'theme': expected a string, found a mapping",
        };
        int lines = 1;
        for (const char *q = msg; *q; q++)
            lines += *q == '\n';
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            TEST_CONDF(strstr(msg, want[i]) != NULL, "missing '%s' in:\n%s", want[i], msg);
        TEST_CONDF(lines == 5, "%d lines:\n%s", lines, msg);
        TEST_COND("many: valid settings kept", strcmp(c.model, "/m/a.pth") == 0 &&
                                               strcmp(c.db, "/tmp/x.db") == 0);
        /* a binding onto another action's default key wins (an info line) */
        TEST_COND("many: bindings beat defaults", c.keys[CFG_ACT_REGEN] == CFG_KEY_CTRL('n') &&
                                                 c.keys[CFG_ACT_STATS] == CFG_KEY_F(3) &&
                                                 c.keys[CFG_ACT_NEW] == CFG_KEY_NONE &&
                                                 c.keys[CFG_ACT_STATES] == CFG_KEY_NONE);
    }

    /* two file bindings on one key: the later one gives way */
    p = test_write_tmp("conflict.yaml", "keys:\n  quit: F12\n  help: F12\n");
    TEST_COND("conflict reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "conflict.yaml:3:9: field 'help' in 'keys': F12 is already bound to 'quit'") &&
               !strchr(msg, '\n'), "msg: %s", msg);
    TEST_COND("conflict: first binding kept", c.keys[CFG_ACT_QUIT] == CFG_KEY_F(12) &&
                                             c.keys[CFG_ACT_HELP] == CFG_KEY_F(1));
    /* a swap is no conflict */
    p = test_write_tmp("swap.yaml", "keys:\n  quit: F1\n  help: F10\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "swap: %s", msg);
    TEST_COND("swap applied", c.keys[CFG_ACT_QUIT] == CFG_KEY_F(1) && c.keys[CFG_ACT_HELP] == CFG_KEY_F(10));

    /* a syntax error: reported with its column; settings before it kept */
    p = test_write_tmp("syntax.yaml", "model: /m/b.pth\nkeys:\n  quit: F12\n  help: [F1\n");
    TEST_COND("syntax error reported", cfg_load(p, &c, msg, sizeof msg) != 0);
    /* (at the end of the file: its last line, not the one after it) */
    TEST_CONDF(strstr(msg, "syntax.yaml:4:12: YAML syntax error at the end of the file") != NULL,
               "msg: %s", msg);
    TEST_COND("syntax error: earlier settings kept", strcmp(c.model, "/m/b.pth") == 0 &&
                                                    c.keys[CFG_ACT_QUIT] == CFG_KEY_F(12));

    p = test_write_tmp("twice.yaml", "model: a\nmodel: b\n");
    TEST_COND("a field given twice is reported", cfg_load(p, &c, msg, sizeof msg) != 0 &&
                                                strstr(msg, "twice.yaml:2:1: field 'model' given twice"));
    TEST_COND("the last one is used", strcmp(c.model, "b") == 0);

    p = test_write_tmp("list.yaml", "- a\n- b\n");
    TEST_COND("a list for the whole file", cfg_load(p, &c, msg, sizeof msg) != 0 &&
                                          strstr(msg, "list.yaml:1:1: expected a mapping"));
    p = test_write_tmp("nokeys.yaml", "model: m\nkeys:\n# quit: C-q\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0 && strcmp(c.model, "m") == 0,
               "empty keys: %s", msg);
    p = test_write_tmp("empty.yaml", "# nothing\n");
    TEST_CONDF(cfg_load(p, &c, msg, sizeof msg) == 0, "comments only: %s", msg);

    /* a flood of errors stays within the message buffer, with a count */
    {
        char big[8192] = "";
        size_t bl = 0;
        for (int i = 0; i < 100; i++)
            bl += (size_t)snprintf(big + bl, sizeof big - bl, "bogus%d: 1\n", i);
        p = test_write_tmp("flood.yaml", big);
        TEST_COND("flood reported", cfg_load(p, &c, msg, sizeof msg) != 0);
        TEST_CONDF(strlen(msg) < sizeof msg && strstr(msg, "more problems"), "msg: %s", msg);
    }

    setenv("XDG_CONFIG_HOME", "/nonexistent-dir", 1);
    TEST_COND("no default config is fine", cfg_load(NULL, &c, msg, sizeof msg) == 0);
    TEST_COND("explicit missing config fails", cfg_load("/nonexistent/c.yaml", &c, msg, sizeof msg) != 0);
}

int
main(void)
{
    if (test_tmpdir("rwkv-theme-test") == NULL)
        return 1;
    test_theme();
    test_config();
    test_config_framing();
    test_rm_rf(test_tmp_dir());
    return TEST_REPORT();
}
