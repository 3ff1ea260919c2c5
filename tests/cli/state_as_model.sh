#!/usr/bin/env bash
# tests/cli/state_as_model.sh -- a state-tuning file (only
# blocks.N.att.time_state tensors) given as --model is named for what it is:
# one line "PATH: a state file (blocks.N.att.time_state), not a model: give
# it as --state, with the model it was made for as --model", exit 1.  It
# used to say "unknown RWKV version (no RWKV-4/5/6/7 attention keys ...)",
# which sends the user looking for a newer program.  A file with other
# unknown tensors still gets that line.  A small state file is written here
# (safetensors, python3's standard library); the pip-made one is a fixture.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
python3 - "$TMP/st.safetensors" <<'PY'
import json, struct, sys
H, N, L = 1, 64, 2
header, blobs, off = {}, [], 0
for l in range(L):
    data = struct.pack("<%df" % (H * N * N), *([0.01] * (H * N * N)))
    header["blocks.%d.att.time_state" % l] = {"dtype": "F32", "shape": [H, N, N],
                                              "data_offsets": [off, off + len(data)]}
    blobs.append(data)
    off += len(data)
h = json.dumps(header).encode()
h += b" " * ((8 - len(h) % 8) % 8)
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
PY
STATE_LINE='a state file \(blocks\.N\.att\.time_state\), not a model: give it as --state, with the model it was made for as --model$'
S=$TMP/st.safetensors
expect_fail "info --model STATE" "^rwkv-tui: $S: $STATE_LINE" "$T" info --model "$S"
expect_fail "chat --model STATE" "^rwkv-tui: $S: $STATE_LINE" \
    sh -c 'timeout 60 "$0" chat --model "$1" </dev/null' "$T" "$S"
expect_fail "generate --model STATE" "^rwkv-tui: $S: $STATE_LINE" \
    timeout 60 "$T" generate --model "$S" --prompt hi --max-tokens 1
expect_fail "eval --model STATE" "^rwkv-tui: $S: $STATE_LINE" \
    timeout 60 "$T" eval --model "$S" --tokens 1 --out "$TMP/o.f32"
# not a state file: the version line as before
python3 "$(dirname "$0")/mkst.py" "$TMP/odd.safetensors" --only-unknown
expect_fail "info --model (unknown tensors)" "unknown RWKV version" "$T" info --model "$TMP/odd.safetensors"

# the pip package's own state file (torch.save), with and without '.pth'
if have_fixture states/state-7v0-A.pth 2; then
    P=$FX/states/state-7v0-A.pth
    expect_fail "info --model pip STATE" "^rwkv-tui: $P: $STATE_LINE" "$T" info --model "$P"
    expect_fail "chat --model pip STATE" "$STATE_LINE" \
        sh -c 'timeout 60 "$0" chat --model "$1" </dev/null' "$T" "${P%.pth}"
fi

# the reverse mistakes: a model as --state, a model or a state file as
# --vocab, told before anything loads (they said "missing tensor
# 'blocks.0.att.time_state'" and "M.pth:1: expected a token id"); a usage
# error, exit 2
M=$TMP/m.pth
"$T" bench --shape demo --save "$M" >/dev/null 2>&1 && ok || fail "bench --save a model"
# expect_usage DESC PATTERN CMD...: expect_fail with exit status 2
expect_usage() {
    local desc=$1 pat=$2 rc; shift 2
    "$@" >/dev/null 2>&1 </dev/null
    rc=$?
    [ $rc = 2 ] || { fail "$desc: exit $rc, not 2"; return; }
    expect_fail "$desc" "$pat" "$@"
}
MODEL_AS_STATE='a model, not a state file: give it as --model \(--state takes a state-tuning file, blocks\.N\.att\.time_state\)$'
VOCAB='not a vocabulary file \(rwkv_vocab_v20230424\.txt\): give it as'
expect_usage "generate --state MODEL" "^rwkv-tui: generate: --state $M: $MODEL_AS_STATE" \
    timeout 60 "$T" generate --model "$M" --state "$M" --prompt hi --max-tokens 1
expect_usage "info --state MODEL" "^rwkv-tui: info: --state $M: $MODEL_AS_STATE" \
    timeout 60 "$T" info --model "$M" --state "$M"
expect_usage "eval --state MODEL" "^rwkv-tui: eval: --state $M: $MODEL_AS_STATE" \
    timeout 60 "$T" eval --model "$M" --state "$M" --tokens 1 --out "$TMP/o.f32"
expect_usage "chat --state MODEL" "^rwkv-tui: chat: --state $M: $MODEL_AS_STATE" \
    timeout 60 "$T" chat --model "$M" --state "$M"
expect_usage "client --state MODEL" "^rwkv-tui: --state $M: $MODEL_AS_STATE" \
    timeout 60 "$T" --model "$M" --state "$M"
expect_usage "generate --vocab MODEL" "^rwkv-tui: generate: --vocab $M: a model, $VOCAB --model$" \
    timeout 60 "$T" generate --model "$M" --vocab "$M" --prompt hi --max-tokens 1
expect_usage "generate --vocab STATE" "^rwkv-tui: generate: --vocab $S: a state file, $VOCAB --state$" \
    timeout 60 "$T" generate --model "$M" --vocab "$S" --prompt hi --max-tokens 1
expect_usage "tokenize --vocab MODEL" "^rwkv-tui: tokenize: --vocab $M: a model, $VOCAB --model$" \
    timeout 60 "$T" tokenize --vocab "$M" --text hi
finish
