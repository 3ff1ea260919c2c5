#!/usr/bin/env python3
"""po/po2c.py: the full-screen client's message catalog (po/zh_CN.po) as C.

  python3 po/po2c.py CATALOG.po OUT.c
      writes the sorted table tui/i18n.h declares (tui_tr_zh); fails (exit 1,
      one line per problem) on a PO syntax error, a duplicate msgid, plural
      forms or msgctxt (not supported), or a msgstr whose printf conversions
      differ from its msgid's (number, order or type).
  python3 po/po2c.py --check CATALOG.po FILE.c...
      the same checks, and against the sources: every string marked TR() or
      TR_NOOP() (or the format of tui_notice() and tui_menu_say(), the
      label of tui_prompt_open()) in FILEs
      under tui/ that has a letter outside its conversions needs a non-empty translation (missing),
      and every msgid must be marked in tui/ or be a string literal in one of
      the FILEs (stale).  Exit 1 with one line per problem.

Fuzzy entries ("#, fuzzy") count as untranslated, as msgfmt treats them.
"""
import re
import sys

ESC = {'n': '\n', 't': '\t', '"': '"', '\\': '\\', 'a': '\a', 'r': '\r', "'": "'", '?': '?'}
LIT = r'"(?:[^"\\\n]|\\.)*"'
CONV = re.compile(r"%(?:(\d+)\$)?[-+ #0']*(\*|\d+)?(?:\.(\*|\d+)?)?"
                  r"(hh|h|ll|l|L|j|z|t)?([diouxXeEfFgGaAcspn%])")


def unescape(body, where):
    """A C / PO string body (between the quotes) with its escapes decoded."""
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != '\\':
            out.append(c)
            i += 1
            continue
        n = body[i + 1] if i + 1 < len(body) else ''
        if n in ESC:
            out.append(ESC[n])
            i += 2
        elif n in '01234567':
            m = re.match(r'[0-7]{1,3}', body[i + 1:]).group(0)
            out.append(chr(int(m, 8)))
            i += 1 + len(m)
        elif n == 'x':
            m = re.match(r'[0-9a-fA-F]+', body[i + 2:])
            if not m:
                raise ValueError('%s: bad \\x escape' % where)
            out.append(chr(int(m.group(0), 16)))
            i += 2 + len(m.group(0))
        elif n == 'u' and re.match(r'[0-9a-fA-F]{4}', body[i + 2:]):
            out.append(chr(int(body[i + 2:i + 6], 16)).encode('utf-8').decode('latin-1'))
            i += 6
        else:
            raise ValueError('%s: unknown escape \\%s' % (where, n))
    s = ''.join(out)
    # \ooo and \xhh in C are bytes: a run of them may be UTF-8
    try:
        return s.encode('latin-1').decode('utf-8')
    except (UnicodeEncodeError, UnicodeDecodeError):
        return s


def parse_po(path):
    """[(msgid, msgstr, line, fuzzy)] of PATH (the header entry left out)."""
    entries, cur, key, fuzzy, errs = [], None, None, False, []

    def close():
        nonlocal cur
        if cur is not None and 'msgid' in cur:
            if cur['msgid'] != '':
                entries.append((cur['msgid'], cur.get('msgstr', ''), cur['line'], cur['fuzzy']))
        cur = None

    for no, raw in enumerate(open(path, encoding='utf-8'), 1):
        line = raw.strip()
        where = '%s:%d' % (path, no)
        if not line:
            close()
            fuzzy = False
            continue
        if line.startswith('#'):
            if line.startswith('#,') and 'fuzzy' in line:
                fuzzy = True
            continue
        m = re.match(r'(msgid|msgstr|msgctxt|msgid_plural|msgstr\[\d+\])\s+(' + LIT + r')$', line)
        if m:
            if m.group(1) not in ('msgid', 'msgstr'):
                errs.append('%s: %s is not supported (reword to avoid plurals)' % (where, m.group(1)))
                continue
            if m.group(1) == 'msgid':
                close()
                cur = {'line': no, 'fuzzy': fuzzy}
                fuzzy = False
            elif cur is None:
                errs.append('%s: msgstr without a msgid' % where)
                continue
            key = m.group(1)
            cur[key] = unescape(m.group(2)[1:-1], where)
        elif re.match(LIT + '$', line) and cur is not None and key in cur:
            cur[key] += unescape(line[1:-1], where)
        else:
            errs.append('%s: not a PO line: %s' % (where, line[:60]))
    close()
    return entries, errs


def conversions(s):
    """The printf conversions of S as (width*, precision*, length, type)."""
    res = []
    for m in CONV.finditer(s):
        if m.group(5) == '%':
            continue
        res.append(('*' if m.group(2) == '*' else '', '*' if m.group(3) == '*' else '',
                    m.group(4) or '', m.group(5)))
    return res


def check_catalog(path):
    entries, errs = parse_po(path)
    seen = {}
    for mid, mstr, line, fuzzy in entries:
        where = '%s:%d' % (path, line)
        if mid in seen:
            errs.append('%s: msgid given twice (first at line %d): %.50r' % (where, seen[mid], mid))
        seen[mid] = line
        if mstr and not fuzzy and conversions(mid) != conversions(mstr):
            errs.append('%s: msgstr\'s %% conversions %s differ from msgid\'s %s: %.50r'
                        % (where, fmt(conversions(mstr)), fmt(conversions(mid)), mid))
    return entries, errs


def fmt(cs):
    return '[' + ' '.join('%' + w + ('.' + p if p else '') + l + t for w, p, l, t in cs) + ']'


def c_quote(s):
    out = []
    for b in s.encode('utf-8'):
        ch = chr(b)
        if ch in '"\\':
            out.append('\\' + ch)
        elif ch == '\n':
            out.append('\\n')
        elif 32 <= b < 127:
            out.append(ch)
        else:
            out.append('\\%03o' % b)
    return '"' + ''.join(out) + '"'


def write_c(entries, out):
    pairs = sorted(((mid, mstr) for mid, mstr, _, fuzzy in entries if mstr and not fuzzy),
                   key=lambda p: p[0].encode('utf-8'))
    lines = ['/* Made by po/po2c.py from po/zh_CN.po: do not edit. */',
             '#include "tui/i18n.h"', '', 'const tui_tr_pair tui_tr_zh[] = {']
    for mid, mstr in pairs:
        lines.append('    { %s,\n      %s },' % (c_quote(mid), c_quote(mstr)))
    if not pairs:
        lines.append('    { "", "" },')
    lines += ['};', 'const size_t tui_tr_zh_n = %d;' % len(pairs), '']
    with open(out, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines))


def blank_out(text):
    """TEXT with comments and character constants blanked (newlines kept),
    string literals as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            m = re.compile(c + r'(?:[^' + c + r'\\\n]|\\.)*' + c, re.S).match(text, i)
            j = m.end() if m else i + 1
            out.append(text[i:j] if c == '"' else ' ')
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def literals(text):
    """(marked, every) string literals of C source TEXT: marked are the
    arguments of TR() and TR_NOOP() (adjacent literals joined)."""
    text = blank_out(text)
    marked = set()
    for pat in (r'\bTR(?:_NOOP)?\(\s*((?:' + LIT + r'\s*)+)\)',
                # the functions that translate their format (i18n.h)
                r'\b(?:tui_notice|tui_menu_say|tui_prompt_open)\(\s*[^,()]+,\s*[^,()]+,\s*((?:' + LIT + r'\s*)+)'):
        for m in re.finditer(pat, text):
            marked.add(''.join(unescape(x[1:-1], 'source') for x in re.findall(LIT, m.group(1))))
    every = set()
    for m in re.finditer(r'(?:' + LIT + r'\s*)+', text):
        every.add(''.join(unescape(x[1:-1], 'source') for x in re.findall(LIT, m.group(0))))
    return marked, every


def check_sources(entries, files):
    marked, every, errs = {}, set(), []
    for f in files:
        mk, ev = literals(open(f, encoding='utf-8').read())
        every |= ev
        if re.search(r'(^|/)tui/', f):
            for s in mk:
                marked.setdefault(s, f)
    have = {mid: (mstr and not fuzzy) for mid, mstr, _, fuzzy in entries}
    for s, f in sorted(marked.items()):
        if not have.get(s) and re.search(r'[^\W\d_]', CONV.sub('', s)):
            errs.append('%s: %s: %.60r' % (f, 'no translation' if s in have else 'not in the catalog', s))
    for mid, _, line, _ in entries:
        if mid not in marked and mid not in every:
            errs.append('catalog line %d: stale (in no source): %.60r' % (line, mid))
    return errs


def main(argv):
    check = argv[1:2] == ['--check']
    args = argv[2:] if check else argv[1:]
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        entries, errs = check_catalog(args[0])
        if check:
            errs += check_sources(entries, args[1:])
    except (OSError, ValueError) as e:
        errs = [str(e)]
    for e in errs:
        print('po2c: ' + e, file=sys.stderr)
    if errs:
        return 1
    if not check:
        write_c(entries, args[1])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
