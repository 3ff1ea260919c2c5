/*
** config.c -- config file loading (libcyaml) and key names.  See config.h.
*/
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cyaml/cyaml.h>

#include "text.h"
#include "yamlerr.h"

static const struct {
    const char *name;
    int         def;
    const char *help;
} action_table[CFG_ACT_COUNT] = {
#define CFG_TAB_(e, k, d, h) { k, d, h },
    CFG_ACTIONS(CFG_TAB_)
#undef CFG_TAB_
};

const char *
cfg_action_name(int act)
{
    return act >= 0 && act < CFG_ACT_COUNT ? action_table[act].name : "?";
}

const char *
cfg_action_help(int act)
{
    return act >= 0 && act < CFG_ACT_COUNT ? action_table[act].help : "";
}

void
cfg_defaults(tui_config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < CFG_ACT_COUNT; i++)
        c->keys[i] = action_table[i].def;
}

int
cfg_action_for_key(const tui_config *c, int key)
{
    for (int i = 0; i < CFG_ACT_COUNT; i++)
        if (c->keys[i] == key)
            return i;
    return -1;
}

int
cfg_key_parse(const char *s)
{
    size_t n = strlen(s);

    if (n == 1 && (unsigned char)s[0] >= 0x20 && (unsigned char)s[0] < 0x7f)
        return (unsigned char)s[0];
    if (strcmp(s, "Tab") == 0 || strcmp(s, "tab") == 0)
        return '\t';
    if ((s[0] == 'F' || s[0] == 'f') && n >= 2 && n <= 3 && isdigit((unsigned char)s[1])) {
        char *end;
        long k = strtol(s + 1, &end, 10);
        if (*end == '\0' && k >= 1 && k <= 12)
            return CFG_KEY_F((int)k);
        return -1;
    }
    if (s[0] == '^' && n == 2 && isalpha((unsigned char)s[1]))
        return CFG_KEY_CTRL(tolower((unsigned char)s[1]));
    if (strncmp(s, "C-", 2) == 0 || strncmp(s, "Ctrl-", 5) == 0 ||
        strncmp(s, "ctrl-", 5) == 0) {
        const char *c = s[1] == '-' ? s + 2 : s + 5;
        if (strlen(c) == 1 && isalpha((unsigned char)c[0]))
            return CFG_KEY_CTRL(tolower((unsigned char)c[0]));
        return -1;
    }
    if (strncmp(s, "M-", 2) == 0 || strncmp(s, "Alt-", 4) == 0 ||
        strncmp(s, "alt-", 4) == 0) {
        const char *c = s[1] == '-' ? s + 2 : s + 4;
        if (strlen(c) == 1 && (unsigned char)c[0] > 0x20 && (unsigned char)c[0] < 0x7f)
            return CFG_KEY_ALT((unsigned char)c[0]);
        return -1;
    }
    return -1;
}

void
cfg_key_name(int key, char *buf, size_t cap)
{
    if (key >= CFG_KEY_F(1) && key <= CFG_KEY_F(12))
        snprintf(buf, cap, "F%d", key - CFG_KEY_F(0));
    else if (key == '\t')
        snprintf(buf, cap, "Tab");
    else if (key >= 1 && key < 0x20)
        snprintf(buf, cap, "C-%c", key + 'a' - 1);
    else if (key >= CFG_KEY_ALT(0) && key < CFG_KEY_ALT(0x100))
        snprintf(buf, cap, "M-%c", key & 0xff);
    else if (key >= 0x20 && key < 0x7f)
        snprintf(buf, cap, "%c", key);
    else
        snprintf(buf, cap, "?");
}

void
cfg_default_path(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");

    if (xdg && *xdg)
        snprintf(buf, cap, "%s/rwkv-tui/config.yaml", xdg);
    else if (home && *home)
        snprintf(buf, cap, "%s/.config/rwkv-tui/config.yaml", home);
    else if (cap)
        buf[0] = '\0';
}

/* ---- schema ------------------------------------------------------------ */

typedef struct keys_y {
#define CFG_MEMBER_(e, k, d, h) char *e;
    CFG_ACTIONS(CFG_MEMBER_)
#undef CFG_MEMBER_
} keys_y;

typedef struct config_y {
    char   *model, *strategy, *vocab, *state_dir, *preset, *theme, *db;
    keys_y *keys;
} config_y;

static const cyaml_schema_field_t key_fields[] = {
#define CFG_FIELD_(e, k, d, h)                                                  \
    CYAML_FIELD_STRING_PTR(k, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, keys_y, e, 1, 32),
    CFG_ACTIONS(CFG_FIELD_)
#undef CFG_FIELD_
    CYAML_FIELD_END
};

#define STR_FIELD(name)                                                        \
    CYAML_FIELD_STRING_PTR(#name, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,    \
                           config_y, name, 0, CFG_PATH - 1)

static const cyaml_schema_field_t config_fields[] = {
    STR_FIELD(model), STR_FIELD(strategy), STR_FIELD(vocab), STR_FIELD(state_dir),
    STR_FIELD(preset), STR_FIELD(theme), STR_FIELD(db),
    CYAML_FIELD_MAPPING_PTR("keys", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
                            config_y, keys, key_fields),
    CYAML_FIELD_END
};

static const cyaml_schema_value_t config_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, config_y, config_fields),
};

/* 1-based line of the first line whose first word is "KEY:" after "keys:". */
static long
key_line(const char *text, const char *key)
{
    long line = 1;
    int in_keys = 0;
    size_t kl = strlen(key);

    for (const char *p = text; *p; line++) {
        const char *l = p;
        while (*l == ' ' || *l == '\t')
            l++;
        if (strncmp(l, "keys:", 5) == 0)
            in_keys = 1;
        else if (in_keys && strncmp(l, key, kl) == 0 && l[kl] == ':')
            return line;
        p += strcspn(p, "\n");
        if (*p)
            p++;
    }
    return 0;
}

static void
put(char *dst, const char *src)
{
    if (src)
        snprintf(dst, CFG_PATH, "%s", src);
}

int
cfg_load(const char *path, tui_config *out, char *msg, size_t msg_cap)
{
    char defpath[CFG_PATH + 64];
    cyaml_config_t cfg;
    tui_yaml_log log;
    config_y *cy = NULL;
    tui_config tmp;
    char *text;
    size_t len;
    cyaml_err_t e;
    int rc = -1;

    msg[0] = '\0';
    cfg_defaults(out);
    if (path == NULL) {
        cfg_default_path(defpath, sizeof defpath);
        if (defpath[0] == '\0' || access(defpath, F_OK) != 0)
            return 0;
        path = defpath;
    }
    text = tui_read_file(path, CFG_MAX_BYTES, &len, msg, msg_cap);
    if (text == NULL)
        return -1;
    tui_yaml_config(&cfg, &log);
    e = cyaml_load_data((const uint8_t *)text, len, &cfg, &config_schema, (void **)&cy, NULL);
    if (e != CYAML_OK) {
        tui_yaml_message(&log, path, text, e, msg, msg_cap);
        goto out;
    }
    cfg_defaults(&tmp);
    if (cy != NULL) {
        put(tmp.model, cy->model);
        put(tmp.strategy, cy->strategy);
        put(tmp.vocab, cy->vocab);
        put(tmp.state_dir, cy->state_dir);
        put(tmp.preset, cy->preset);
        put(tmp.theme, cy->theme);
        put(tmp.db, cy->db);
        if (cy->keys) {
            char *const k[CFG_ACT_COUNT] = {
#define CFG_PTR_(e2, k2, d, h) cy->keys->e2,
                CFG_ACTIONS(CFG_PTR_)
#undef CFG_PTR_
            };
            for (int i = 0; i < CFG_ACT_COUNT; i++) {
                int code;
                if (k[i] == NULL)
                    continue;
                code = cfg_key_parse(k[i]);
                if (code < 0) {
                    snprintf(msg, msg_cap,
                             "%s:%ld: field '%s' in 'keys': unknown key '%.32s' "
                             "(F1-F12, C-x, M-x, Tab or one character)",
                             path, key_line(text, action_table[i].name),
                             action_table[i].name, k[i]);
                    goto out;
                }
                tmp.keys[i] = code;
            }
        }
    }
    *out = tmp;
    rc = 0;
out:
    if (cy)
        cyaml_free(&cfg, &config_schema, cy, 0);
    free(text);
    return rc;
}
