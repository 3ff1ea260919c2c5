/*
** fuzz_theme.c -- libFuzzer harness: the YAML theme loader (tui/theme.c
** theme_load_file) on a file holding the input.
**
**   make fuzz && build-fuzz/fuzz_theme -dict=tests/fuzz/theme.dict tests/fuzz/corpus/theme
**
** Invariants: theme_load_file returns 0 or -1; on -1 the message reports
** every problem, one line each, every line starting with the file's name
** ("theme.yaml:LINE: ...", as the config's), and *OUT is untouched
** (parsed into a temporary, swapped in only when valid: a bad theme never
** leaves the UI half coloured); on 0 the name is NUL-terminated and every role's colours map
** to curses colours without reading outside the tables.
*/
#include <stdint.h>

#include "../../tui/theme.h"
#include "fuzz_tmp.h"

#include "fuzz_entry.h"

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    static theme t, before;
    char path[512], msg[512];
    int rc;

    fuzz_path(path, sizeof path, "theme.yaml");
    if (!fuzz_put(path, data, size))
        return 0;
    theme_default(&t);
    memcpy(&before, &t, sizeof t);
    msg[0] = '\0';
    rc = theme_load_file(path, &t, msg, sizeof msg);
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc != 0) {
        /* libcyaml refused it, or a value: the walk (or its last-resort
        ** line) said why, each line at the file */
        FUZZ_CHECK(msg[0] != '\0');
        for (const char *p = msg; p != NULL; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
            FUZZ_CHECK(strncmp(p, path, strlen(path)) == 0);
        FUZZ_CHECK(memcmp(&t, &before, sizeof t) == 0);
    } else {
        FUZZ_CHECK(memchr(t.name, '\0', sizeof t.name) != NULL);
        for (int r = 0; r < THEME_ROLE_COUNT; r++) {
            static const int ncolors[] = { 0, 8, 16, 88, 256, 0x1000000 };
            int fg, bg;
            unsigned attrs;
            for (size_t k = 0; k < sizeof ncolors / sizeof ncolors[0]; k++)
                for (int light = 0; light <= 1; light++) {
                    theme_map_style(&t.role[r], ncolors[k], light, &fg, &bg, &attrs);
                    FUZZ_CHECK(fg >= -1 && bg >= -1);
                }
        }
        (void)theme_is_light(&t);
        theme_strip_colors(&t);
    }
    return 0;
}
