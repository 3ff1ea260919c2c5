/*
** yamlerr.h -- turn libcyaml's log lines into one message that names the
** file, the line and the field (shared by theme.c and config.c).
*/
#ifndef RWKV_TUI_YAMLERR_H
#define RWKV_TUI_YAMLERR_H

#include <stdarg.h>
#include <stddef.h>

#include <cyaml/cyaml.h>

#define TUI_YAML_LOG 2048   /* bytes of libcyaml log kept per load */

typedef struct tui_yaml_log {
    char   text[TUI_YAML_LOG];
    size_t len;
} tui_yaml_log;

/* A cyaml_config_t for strict loading that logs into LOG (borrowed). */
void tui_yaml_config(cyaml_config_t *cfg, tui_yaml_log *log);

/*
** Compose "PATH:LINE: field 'F' in 'P': MESSAGE" (parts left out when
** unknown) from LOG and the libcyaml status ERR into MSG.  TEXT (the file's
** contents) locates an unexpected key, which libcyaml reports only by the
** line of its enclosing mapping.
*/
void tui_yaml_message(const tui_yaml_log *log, const char *path, const char *text,
                      cyaml_err_t err, char *msg, size_t cap);

/* Read a whole file of at most MAX bytes (malloc'ed, NUL terminated, owned
** by caller) or NULL with MSG set. */
char *tui_read_file(const char *path, size_t max, size_t *len, char *msg, size_t cap);

#endif
