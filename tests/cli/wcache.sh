#!/usr/bin/env bash
# wcache.sh -- the cache of converted weights through the real binary:
# `info` reports it, a second load hits it, --no-weight-cache and
# RWKV_WEIGHT_CACHE=0 turn it off, generated text is the same with and
# without it, and the fixtures directory is never written.  Without the
# fixtures the same checks run on a model written by `bench --save`.
. "$(dirname "$0")/lib.sh"

M="$FX/models/tiny-6v0-bf16.pth"
if [ ! -e "$M" ] && [ -z "${CI:-}" ]; then
    M=$TMP/gen-v6.pth
    "$RWKV_TUI" bench --shape demo-v6 --save "$M" >/dev/null 2>&1 || fail "bench --save"
fi
S="cpu fp32i8"
D="$TMP/wc"
before=$(ls -A "$FX/models" 2>/dev/null | sort | md5sum)
field() { sed -n 's/^weight cache: *\([a-z]*\).*/\1/p'; }

# forced on (RWKV_WEIGHT_CACHE=1: the fixtures are below the auto threshold)
st1=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
st2=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st1" = writing ] || [ "$st1" = written ]; then ok; else fail "first load: '$st1'"; fi
if [ "$st2" = hit ]; then ok; else fail "second load: '$st2'"; fi
n=$(ls "$D" 2>/dev/null | grep -c '\.rwkvc$')
if [ "$n" = 1 ]; then ok; else fail "$n cache files in $D: $(ls -A "$D")"; fi
if RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | grep -Eq "^weight cache: hit \($D/${M##*/}\.[0-9a-f]{8}\.[0-9a-f]{8}\.rwkvc; (read into memory|mapped)\)$"
then ok; else fail "info does not name the cache file"; fi

# off switches
st=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --no-weight-cache --model "$M" --strategy "$S" | field)
if [ "$st" = off ]; then ok; else fail "--no-weight-cache: '$st'"; fi
st=$(RWKV_WEIGHT_CACHE=0 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = off ]; then ok; else fail "RWKV_WEIGHT_CACHE=0: '$st'"; fi
# auto (the default): a tiny conversion writes nothing
st=$(RWKV_WEIGHT_CACHE_DIR="$TMP/auto" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = none ] && [ ! -e "$TMP/auto" ]; then ok; else fail "auto mode on a tiny model: '$st'"; fi
# nothing to convert (bf16 checkpoint under cpu bf16): no file either
st=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$TMP/inplace" "$RWKV_TUI" info --model "$M" --strategy "cpu bf16" | field)
if [ "$st" = none ] && [ ! -e "$TMP/inplace" ]; then ok; else fail "in-place load: '$st'"; fi

# same text with the cache hit and without any cache
gen() { "$RWKV_TUI" generate --model "$M" --strategy "$S" --prompt "The cache" --max-tokens 12 \
        --temperature 0 "$@" 2>/dev/null; }
a=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" gen)
b=$(gen --no-weight-cache)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else fail "generate differs: cached '$a' vs uncached '$b'"; fi

# a hit read into memory (huge pages, the default) or mapped: RWKV_WEIGHT_CACHE_LOAD
# picks; the logits are the same bytes either way, and the same as without
# the cache (wcache.c, wc_read_huge)
how() { RWKV_WEIGHT_CACHE_LOAD=$1 RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info \
        --model "$M" --strategy "$S" | sed -n 's/^weight cache: hit (.*; \(.*\))$/\1/p'; }
if [ "$(how map)" = mapped ]; then ok; else fail "RWKV_WEIGHT_CACHE_LOAD=map: '$(how map)'"; fi
if [ "$(how '')" = "read into memory" ]; then ok; else fail "the default hit: '$(how '')'"; fi
if [ "$(how copy)" = "read into memory" ]; then ok; else fail "RWKV_WEIGHT_CACHE_LOAD=copy: '$(how copy)'"; fi
evl() { RWKV_WEIGHT_CACHE_LOAD=$1 RWKV_WEIGHT_CACHE=$2 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" eval \
        --model "$M" --strategy "$S" --text "The cache, read or mapped" --all --out "$TMP/ev-$1-$2.bin" \
        >/dev/null 2>&1; }
evl map 1 && evl copy 1 && evl map 0 && [ -s "$TMP/ev-map-1.bin" ] && ok || fail "eval through the cache"
cmp -s "$TMP/ev-map-1.bin" "$TMP/ev-copy-1.bin" && cmp -s "$TMP/ev-map-1.bin" "$TMP/ev-map-0.bin" && ok \
    || fail "logits differ: mapped, read into memory, no cache"
a=$(RWKV_WEIGHT_CACHE_LOAD=copy RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" gen)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else fail "generate differs: read into memory '$a' vs uncached '$b'"; fi

# a damaged cache: still loads, rebuilt, then hit (read into memory: the
# copy is what is checked)
f=$(ls "$D"/*.rwkvc | head -n 1)
sz=$(stat -c %s "$f")
printf 'garbage' | dd of="$f" bs=1 seek=$((sz - 100)) conv=notrunc 2>/dev/null
st=$(RWKV_WEIGHT_CACHE_LOAD=copy RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = writing ] || [ "$st" = written ]; then ok; else fail "damaged data, read into memory: '$st'"; fi
printf 'garbage' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
st=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = writing ] || [ "$st" = written ]; then ok; else fail "damaged cache: '$st'"; fi
truncate -s 1000 "$f"
st=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = writing ] || [ "$st" = written ]; then ok; else fail "truncated cache: '$st'"; fi
st=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = hit ]; then ok; else fail "after the rebuild: '$st'"; fi
if "$RWKV_TUI" info --help | grep -q -- '--no-weight-cache'; then ok; else fail "--help lacks --no-weight-cache"; fi

# The issue-14 scenario: a model edited in place outside the fingerprint's
# sample, its zip CRC fixed up and its mtime set back with `touch -d`, must
# not get the old model's weights from the cache (its CRC-32s and ctime
# changed).
E="$TMP/edit/m.pth"
mkdir -p "$TMP/edit"
"$RWKV_TUI" bench --shape demo --save "$E" >/dev/null 2>&1 || fail "bench --save demo"
ev() {   # ev OUT [env...]: logits of a short prompt through the cache in $TMP/edit/wc
    RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$TMP/edit/wc" "$RWKV_TUI" eval --model "$E" \
        --strategy "$S" --text "hello" --out "$1" >/dev/null 2>&1
}
ev "$TMP/edit/a.bin" && ev "$TMP/edit/b.bin" && cmp -s "$TMP/edit/a.bin" "$TMP/edit/b.bin" && ok \
    || fail "cached eval of the demo model"
mt=$(date -r "$E" '+%Y-%m-%d %H:%M:%S.%N')
python3 - "$E" <<'PY' || fail "python helper (edit) failed"
import sys, zipfile, struct, zlib
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
z = zipfile.ZipFile(p)
# the largest entry (a matrix): one byte halfway between two of the
# fingerprint's 64 sampled slices, then its CRC in both headers
i = max(z.infolist(), key=lambda e: e.file_size)
n, x = struct.unpack_from("<HH", b, i.header_offset + 26)
off = i.header_offset + 30 + n + x
step = (i.file_size - 64) // 63
b[off + (64 + step // 2) | 1] ^= 0x80
crc = zlib.crc32(bytes(b[off:off + i.file_size])) & 0xffffffff
struct.pack_into("<I", b, i.header_offset + 14, crc)
cd = b.find(b"PK\x01\x02")
while cd >= 0:
    nl = struct.unpack_from("<H", b, cd + 28)[0]
    if b[cd + 46:cd + 46 + nl] == i.filename.encode():
        struct.pack_into("<I", b, cd + 16, crc)
        break
    cd = b.find(b"PK\x01\x02", cd + 4)
with open(p, "r+b") as f:    # in place: same inode, same size
    f.write(b)
PY
touch -d "$mt" "$E"
ev "$TMP/edit/c.bin" || fail "eval of the edited model"
RWKV_WEIGHT_CACHE=0 "$RWKV_TUI" eval --model "$E" --strategy "$S" --text "hello" --out "$TMP/edit/d.bin" \
    >/dev/null 2>&1 || fail "uncached eval of the edited model"
if ! cmp -s "$TMP/edit/a.bin" "$TMP/edit/d.bin"; then ok; else fail "the edit does not change the logits"; fi
if cmp -s "$TMP/edit/c.bin" "$TMP/edit/d.bin"; then ok
else fail "edited model with mtime restored: the cache served the old weights"; fi

# safetensors carries no checksums: a copy over the model (new inode, same
# bytes and mtime) rebuilds its cache instead of trusting it
T="$TMP/st/m.safetensors"
mkdir -p "$TMP/st"
python3 "$(dirname "$0")/mkst.py" "$T" || fail "mkst.py"
stf() { RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$TMP/st/wc" "$RWKV_TUI" info --model "$T" --strategy "$S" | field; }
a=$(stf); b=$(stf)
if [ "$b" = hit ]; then ok; else fail "safetensors: second load '$b' (first '$a')"; fi
cp -p "$T" "$T.new" && mv "$T.new" "$T"
c=$(stf); d=$(stf)
if [ "$c" = writing ] || [ "$c" = written ]; then ok; else fail "safetensors copied over: '$c', expected a rebuild"; fi
if [ "$d" = hit ]; then ok; else fail "safetensors after the rebuild: '$d'"; fi

if have_fixture models 1; then
after=$(ls -A "$FX/models" | sort | md5sum)
if [ "$before" = "$after" ]; then ok; else fail "the fixtures directory changed"; fi
fi
finish
