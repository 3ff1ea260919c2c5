#!/usr/bin/env python3
"""tests/tui/sgr.py -- the colour and attributes tmux drew a piece of text in.

Reads `tmux capture-pane -p -e` output on stdin and prints, for the first
occurrence of TEXT (after the escape sequences are taken out), the SGR state
in force at its first character:  "fg=36 bg=49 bold=1 dim=0".  Colours are
given the way SGR writes them: 30-37, 90-97, 38;5;N, 38;2;R;G;B, 39 default;
then " rev=0 ul=0" (reverse video, underline).
Prints "absent" when TEXT is not on the screen.  With --all, prints
the "fg/bg" pair (with " dim" when dim) of every non-blank cell on the
screen, each once, for checks such as "nothing black on black".
"""
import re
import sys

SGR = re.compile(r'\x1b\[([0-9;:]*)m')


def apply(state, params):
    p = [x for x in re.split(r'[;:]', params)] if params else ['0']
    i = 0
    while i < len(p):
        c = int(p[i]) if p[i] else 0
        if c == 0:
            state.update(fg='39', bg='49', bold=0, dim=0, rev=0, ul=0)
        elif c == 1:
            state['bold'] = 1
        elif c == 2:
            state['dim'] = 1
        elif c == 22:
            state['bold'] = state['dim'] = 0
        elif c == 4:
            state['ul'] = 1
        elif c == 24:
            state['ul'] = 0
        elif c == 7:
            state['rev'] = 1
        elif c == 27:
            state['rev'] = 0
        elif 30 <= c <= 37 or 90 <= c <= 97 or c == 39:
            state['fg'] = str(c)
        elif 40 <= c <= 47 or 100 <= c <= 107 or c == 49:
            state['bg'] = str(c)
        elif c in (38, 48):
            key = 'fg' if c == 38 else 'bg'
            rest = [x for x in p[i + 1:]]
            if rest and rest[0] == '5':
                state[key] = '%d;5;%s' % (c, rest[1])
                i += 2
            elif rest and rest[0] == '2':
                # 38;2;R;G;B, or 38:2::R:G:B with an empty colour-space id
                cs = 1 if rest[1:2] == [''] else 0
                vals = rest[1 + cs:4 + cs]
                state[key] = '%d;2;%s' % (c, ';'.join(vals))
                i += 1 + cs + len(vals)
        i += 1


def cells(line):
    """(char, state) for every character of LINE."""
    state = dict(fg='39', bg='49', bold=0, dim=0, rev=0, ul=0)
    out = []
    pos = 0
    for m in SGR.finditer(line):
        for ch in line[pos:m.start()]:
            out.append((ch, dict(state)))
        apply(state, m.group(1))
        pos = m.end()
    for ch in line[pos:]:
        out.append((ch, dict(state)))
    return out


def fmt(s):
    return 'fg=%s bg=%s bold=%d dim=%d rev=%d ul=%d' % (s['fg'], s['bg'], s['bold'], s['dim'],
                                                         s['rev'], s['ul'])


def main():
    text = sys.stdin.read()
    # tmux resets the state at every line
    lines = [cells(l) for l in text.split('\n')]
    if sys.argv[1] == '--all':
        seen = set()
        for l in lines:
            for ch, s in l:
                if ch != ' ':
                    seen.add('%s/%s%s' % (s['fg'], s['bg'], ' dim' if s['dim'] else ''))
        print('\n'.join(sorted(seen)))
        return
    want = sys.argv[1]
    for l in lines:
        plain = ''.join(ch for ch, _ in l)
        k = plain.find(want)
        if k >= 0:
            print(fmt(l[k][1]))
            return
    print('absent')


main()
