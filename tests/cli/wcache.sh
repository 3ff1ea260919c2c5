#!/usr/bin/env bash
# wcache.sh -- the cache of converted weights through the real binary:
# `info` reports it, a second load hits it, --no-weight-cache and
# RWKV_WEIGHT_CACHE=0 turn it off, generated text is the same with and
# without it, and the fixtures directory is never written.
. "$(dirname "$0")/lib.sh"

M="$FX/models/tiny-6v0-bf16.pth"
S="cpu fp32i8"
D="$TMP/wc"
before=$(ls -A "$FX/models" | sort | md5sum)
field() { sed -n 's/^weight cache: *\([a-z]*\).*/\1/p'; }

# forced on (RWKV_WEIGHT_CACHE=1: the fixtures are below the auto threshold)
st1=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
st2=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st1" = writing ] || [ "$st1" = written ]; then ok; else fail "first load: '$st1'"; fi
if [ "$st2" = hit ]; then ok; else fail "second load: '$st2'"; fi
n=$(ls "$D" 2>/dev/null | grep -c '\.rwkvc$')
if [ "$n" = 1 ]; then ok; else fail "$n cache files in $D: $(ls -A "$D")"; fi
if RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | grep -Eq "^weight cache: hit \($D/tiny-6v0-bf16\.pth\.[0-9a-f]{8}\.[0-9a-f]{8}\.rwkvc\)$"
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
        --temperature 0 --vocab "$FX/rwkv_vocab_v20230424.txt" "$@" 2>/dev/null; }
a=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" gen)
b=$(gen --no-weight-cache)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else fail "generate differs: cached '$a' vs uncached '$b'"; fi

# a damaged cache: still loads, rebuilt, then hit
f=$(ls "$D"/*.rwkvc | head -n 1)
printf 'garbage' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
st=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = writing ] || [ "$st" = written ]; then ok; else fail "damaged cache: '$st'"; fi
truncate -s 1000 "$f"
st=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = writing ] || [ "$st" = written ]; then ok; else fail "truncated cache: '$st'"; fi
st=$(RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$D" "$RWKV_TUI" info --model "$M" --strategy "$S" | field)
if [ "$st" = hit ]; then ok; else fail "after the rebuild: '$st'"; fi
if "$RWKV_TUI" info --help | grep -q -- '--no-weight-cache'; then ok; else fail "--help lacks --no-weight-cache"; fi

after=$(ls -A "$FX/models" | sort | md5sum)
if [ "$before" = "$after" ]; then ok; else fail "the fixtures directory changed"; fi
finish
