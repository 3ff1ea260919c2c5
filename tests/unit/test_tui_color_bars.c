/*
** test_tui_color_bars.c -- a bar a theme sets apart from the screen (the
** status line) stays apart at 8 and 16 colours (tui/theme.c:
** theme_map_style).  The dark theme's status bar, grey 236 on a dark
** screen, became black at 8 colours (TERM=linux): the bar melted into the
** screen, its text floating on it.  For every shipped theme, at 8 and 16
** colours, the status roles' background is not the screen's own, and
** text and background differ.  A grey the theme keeps close to the
** screen (235, the dark menus inside their borders) keeps its colour.
*/
#include "../harness.h"
#include "../../tui/theme.h"

int
main(void)
{
    static const char *shipped[] = { "themes/default.yaml", "themes/dark.yaml",
                                     "themes/light.yaml", "themes/mono.yaml" };
    static const int bars[] = { THEME_ROLE_STATUS, THEME_ROLE_STATUS_DEMO };

    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        theme t;
        char msg[512];
        int light;

        TEST_CONDF(theme_load_file(shipped[i], &t, msg, sizeof msg) == 0, "%s: %s",
                   shipped[i], msg);
        light = theme_is_light(&t);
        for (int n = 8; n <= 16; n += 8) {
            int screen = light ? (n == 8 ? 7 : 15) : 0;
            for (size_t b = 0; b < sizeof bars / sizeof bars[0]; b++) {
                const theme_style *s = &t.role[bars[b]];
                int fg, bg;
                unsigned at;
                if (s->bg < 0)
                    continue;            /* (mono: reverse video, no colour) */
                theme_map_style(s, n, light, &fg, &bg, &at);
                TEST_CONDF(bg != screen, "%s at %d: %s on the screen's colour %d",
                           shipped[i], n, theme_role_name(bars[b]), bg);
                TEST_CONDF(fg != bg, "%s at %d: %s text on its own colour %d",
                           shipped[i], n, theme_role_name(bars[b]), bg);
            }
        }
    }
    {
        theme_style menu = { 252, 235, 0 };
        int fg, bg;
        unsigned at;
        theme_map_style(&menu, 8, 0, &fg, &bg, &at);
        TEST_CONDF(bg == 0 && fg == 7, "235 (near the screen) at 8: %d/%d", fg, bg);
    }
    return TEST_REPORT();
}
