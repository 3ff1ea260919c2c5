#!/usr/bin/env python3
"""man/keys.py BINARY [--write]: the KEYS section of man/rwkv-tui.1, made
from `BINARY --help-ui` (the same rows as F1, default bindings), between the
lines '.\\" keys: begin' and '.\\" keys: end'.  Without --write it prints
whether the page is up to date (exit 1 when not); with --write it updates
the page.  `make man-keys` runs it with --write; tests/cli/docs.sh checks it.
"""
import os
import subprocess
import sys

BEGIN = '.\\" keys: begin (made by man/keys.py from --help-ui; do not edit)'
END = '.\\" keys: end'
KEY_COL = 28          # --help-ui's description column (cli_help_row)


def rows(binary):
    # in English whatever the desktop's language (the page is English)
    env = {k: v for k, v in os.environ.items() if k not in ('LANGUAGE', 'LC_MESSAGES')}
    env['LANGUAGE'] = 'en'
    out = subprocess.run([binary, '--help-ui'], capture_output=True, text=True, check=True,
                         env=env).stdout
    lines = out.split('\n')
    start = next(i for i, l in enumerate(lines) if l.startswith('Keys of the full-screen client'))
    body = lines[start + 2:]
    res = []
    for l in body:
        if not l.strip():
            continue
        if l.startswith(' ' * KEY_COL):
            res[-1][1] += ' ' + l.strip()
        elif l.startswith('  ') and not l.startswith('   '):
            key, what = l[2:KEY_COL].rstrip(), l[KEY_COL:].strip()
            if not what:                      # a long key on a line of its own
                key = l.strip()
            res.append([key, what])
    return res


def roff(s):
    s = s.replace('\\', '\\e').replace('-', '\\-')
    return '\\&' + s if s.startswith(('.', "'")) else s


def section(binary):
    out = [BEGIN, '.SH KEYS',
           'The full-screen client\'s keys with their default bindings, as F1 and',
           '.B "rwkv-tui \\-\\-help\\-ui"',
           'list them; the first group are actions the config file\'s',
           '.B keys:',
           'section rebinds (see',
           '.BR rwkv-tui-config (5)).']
    for key, what in rows(binary):
        out += ['.TP', '.B ' + roff(key), roff(what)]
    out.append(END)
    return '\n'.join(out)


def main():
    binary = sys.argv[1]
    page = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'rwkv-tui.1')
    text = open(page, encoding='utf-8').read()
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < 0:
        sys.exit('man/keys.py: no keys markers in ' + page)
    new = text[:a] + section(binary) + text[b + len(END):]
    if '--write' in sys.argv[2:]:
        if new != text:
            open(page, 'w', encoding='utf-8').write(new)
        return 0
    if new != text:
        print('man/rwkv-tui.1: the KEYS section differs from --help-ui (run make man-keys)')
        return 1
    return 0


sys.exit(main())
