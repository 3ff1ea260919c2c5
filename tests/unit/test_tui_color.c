/*
** test_tui_color.c -- theme colours on terminals with fewer colours
** (tui/theme.c: theme_map_style).  Every shipped theme at 8, 16, 88, 256
** colours and direct RGB: colours stay in range, hues stay hues (the dark
** theme's blue does not turn red), greys stay visible on 8 colours (white
** with dim/bold, never black on the background), foreground and
** background never merge.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/theme.h"

#define DIRECT 0x1000000

static const int depths[] = { 8, 16, 88, 256, DIRECT };

/* The hue angle (0-360) of an RGB colour, -1 for a grey; written again
 * here, independently of theme.c, to check its answers. */
static double
hue_of(int rgb)
{
    int r = rgb >> 16 & 255, g = rgb >> 8 & 255, b = rgb & 255;
    int mx = r > g ? (r > b ? r : b) : (g > b ? g : b);
    int mn = r < g ? (r < b ? r : b) : (g < b ? g : b);
    double h;

    if (mx - mn < 0x30)
        return -1;
    if (mx == r)
        h = 60.0 * (g - b) / (mx - mn);
    else if (mx == g)
        h = 120.0 + 60.0 * (b - r) / (mx - mn);
    else
        h = 240.0 + 60.0 * (r - g) / (mx - mn);
    if (h < 0)
        h += 360;
    return h;
}

/* A mapped colour keeps the hue when it is within half a sector (30
 * degrees: the 8/16-colour hues are 60 apart) of the theme's. */
static int
same_hue(int a, int b)
{
    double ha = hue_of(a), hb = hue_of(b), d;

    if (ha < 0)
        return 1;
    if (hb < 0)
        return 0;
    d = ha > hb ? ha - hb : hb - ha;
    if (d > 180)
        d = 360 - d;
    return d <= 30.5;
}

/* The RGB a terminal with NCOLORS shows for a mapped colour C. */
static int
shown_rgb(int c, int ncolors)
{
    static const unsigned char cube4[4] = { 0, 139, 205, 255 };
    static const unsigned char grey88[8] = { 46, 92, 115, 139, 162, 185, 208, 231 };

    if (ncolors == DIRECT)
        return c < 8 ? theme_color_rgb(c) : c;
    if (ncolors == 88 && c >= 16) {
        if (c >= 80)
            return grey88[c - 80] * 0x10101;
        c -= 16;
        return cube4[c / 16] << 16 | cube4[c / 4 % 4] << 8 | cube4[c % 4];
    }
    return theme_color_rgb(c);
}

static void
check_theme(const char *path)
{
    theme t;
    char msg[512];
    int light;

    TEST_CONDF(theme_load_file(path, &t, msg, sizeof msg) == 0, "%s: %s", path, msg);
    light = theme_is_light(&t);
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        int n = depths[d], bad = 0;
        for (int r = 0; r < THEME_ROLE_COUNT; r++) {
            const theme_style *s = &t.role[r];
            int fg, bg;
            unsigned at;
            theme_map_style(s, n, light, &fg, &bg, &at);
            /* range: -1 exactly when the theme says default */
            if ((s->fg < 0) != (fg < 0) || (s->bg < 0) != (bg < 0) ||
                (n < DIRECT && (fg >= n || bg >= n))) {
                TEST_CONDF(0, "%s at %d: role %s out of range: %d/%d", path, n,
                           theme_role_name(r), fg, bg);
                bad++;
                continue;
            }
            if (n == 256 && (fg != s->fg || bg != s->bg)) {
                TEST_CONDF(0, "%s at 256: role %s changed", path, theme_role_name(r));
                bad++;
            }
            if (n == DIRECT && fg >= 0 && theme_color_rgb(s->fg) != shown_rgb(fg, n)) {
                TEST_CONDF(0, "%s direct: role %s rgb %06x", path, theme_role_name(r), fg);
                bad++;
            }
            /* fg and bg that differ in the theme differ on screen */
            if (fg >= 0 && fg == bg && s->fg != s->bg) {
                TEST_CONDF(0, "%s at %d: role %s fg == bg (%d)", path, n,
                           theme_role_name(r), fg);
                bad++;
            }
            /* a coloured foreground keeps its hue */
            if (s->fg >= 0 && n < 256 &&
                !same_hue(theme_color_rgb(s->fg), shown_rgb(fg, n))) {
                TEST_CONDF(0, "%s at %d: role %s colour %d -> %d changes hue", path, n,
                           theme_role_name(r), s->fg, fg);
                bad++;
            }
            /* a foreground on the terminal's own background is never the
             * background's colour (black on a dark theme, white on a light) */
            if (n == 8 && s->fg >= 0 && s->bg < 0 && fg == (light ? 7 : 0) &&
                s->fg != fg) {
                TEST_CONDF(0, "%s at 8: role %s (colour %d) invisible", path,
                           theme_role_name(r), s->fg);
                bad++;
            }
        }
        TEST_CONDF(bad == 0, "%s at %d colours: %d problems", path, n, bad);
    }
}

static void
check_one(const char *what, int fgc, int bgc, int n, int light, int want_fg, int want_bg,
          unsigned want_attrs)
{
    theme_style s = { fgc, bgc, 0 };
    int fg, bg;
    unsigned at;

    theme_map_style(&s, n, light, &fg, &bg, &at);
    TEST_CONDF(fg == want_fg && bg == want_bg && at == want_attrs,
               "%s: %d/%d at %d -> %d/%d attrs %u (want %d/%d attrs %u)", what, fgc, bgc, n,
               fg, bg, at, want_fg, want_bg, want_attrs);
}

int
main(void)
{
    static const char *shipped[] = { "themes/default.yaml", "themes/dark.yaml",
                                     "themes/light.yaml", "themes/mono.yaml" };
    theme t;

    for (size_t i = 0; i < 4; i++)
        check_theme(shipped[i]);

    /* the cases of the bug report, on an 8-colour terminal */
    check_one("dark: sky blue 81 is cyan", 81, -1, 8, 0, 6, -1, 0);
    check_one("dark: 110 is blue", 110, -1, 8, 0, 4, -1, 0);
    check_one("dark: 203 is red", 203, -1, 8, 0, 1, -1, 0);
    check_one("dark: 114 is green", 114, -1, 8, 0, 2, -1, 0);
    check_one("dark: 221 is yellow", 221, -1, 8, 0, 3, -1, 0);
    check_one("grey 244 label: dim white", 244, -1, 8, 0, 7, -1, THEME_DIM);
    check_one("bright_black border: dim white", 8, -1, 8, 0, 7, -1, THEME_DIM);
    check_one("255 on 236 (a bar): black on white, not on the screen's black", 255, 236, 8, 0,
              0, 7, 0);
    check_one("light: 242 label: dim black", 242, -1, 8, 1, 0, -1, THEME_DIM);
    check_one("bright_red: bold red", 9, -1, 8, 0, 1, -1, THEME_BOLD);
    check_one("grey on grey stays apart", 250, 252, 8, 0, 0, 7, THEME_DIM);
    check_one("16: 81 bright cyan", 81, -1, 16, 0, 14, -1, 0);
    check_one("16: 240 bright black", 240, -1, 16, 0, 8, -1, 0);
    check_one("16: 124 red", 124, -1, 16, 0, 1, -1, 0);
    check_one("88: 81", 81, -1, 88, 0, 43, -1, 0);
    check_one("88: ANSI kept", 12, -1, 88, 0, 12, -1, 0);
    check_one("256: kept", 81, 236, 256, 0, 81, 236, 0);
    check_one("direct: 81 as RGB", 81, -1, DIRECT, 0, 0x5fd7ff, -1, 0);
    check_one("direct: ANSI red kept", 1, -1, DIRECT, 0, 1, -1, 0);
    check_one("fewer than 8: none", 1, 2, 2, 0, -1, -1, 0);
    /* colours apart in the theme, one on the terminal: apart at every count */
    check_one("256: #3a3a3a on #3b3b3b (both grey 237) apart", THEME_RGB(0x3a, 0x3a, 0x3a),
              THEME_RGB(0x3b, 0x3b, 0x3b), 256, 0, 7, 237, 0);
    check_one("256: 21 on #0000ff apart", 21, THEME_RGB(0, 0, 0xff), 256, 0, 7, 21, 0);
    check_one("256: #eeeeee on 255 apart", THEME_RGB(0xee, 0xee, 0xee), 255, 256, 1, 0, 255, 0);
    check_one("88: 21 on #0000ff apart", 21, THEME_RGB(0, 0, 0xff), 88, 0, 7, 19, 0);
    check_one("direct: 21 on #0000ff apart", 21, THEME_RGB(0, 0, 0xff), DIRECT, 0, 7, 0x0000ff, 0);
    check_one("256: one colour twice stays (the theme's choice)", 21, 21, 256, 0, 21, 21, 0);

    /* #rrggbb */
    TEST_COND("#rrggbb parses", theme_parse_color("#5fd7ff") == THEME_RGB(0x5f, 0xd7, 0xff));
    TEST_COND("#rgb refused", theme_parse_color("#fff") == -2 &&
                              theme_parse_color("#12345g") == -2);
    check_one("#5fd7ff at 256 is 81", THEME_RGB(0x5f, 0xd7, 0xff), -1, 256, 0, 81, -1, 0);
    check_one("#808080 at 256 is grey 244", THEME_RGB(0x80, 0x80, 0x80), -1, 256, 0, 244, -1, 0);
    check_one("#ff0000 at 8 is red", THEME_RGB(0xff, 0, 0), -1, 8, 0, 1, -1, 0);
    check_one("#123456 direct", THEME_RGB(0x12, 0x34, 0x56), -1, DIRECT, 0, 0x123456, -1, 0);

    theme_load_file("themes/light.yaml", &t, (char[512]){ 0 }, 512);
    TEST_COND("light theme is light", theme_is_light(&t));
    theme_load_file("themes/dark.yaml", &t, (char[512]){ 0 }, 512);
    TEST_COND("dark theme is dark", !theme_is_light(&t));
    return TEST_REPORT();
}
