#!/usr/bin/env bash
# tests/tui/model.sh -- the client on real checkpoints from the fixtures:
# a tiny byte-level RWKV-7 (with and without a state-tuning file) and a
# World-vocabulary RWKV-7 (random weights) with CJK input, and F5 to it with
# the vocabulary from $RWKV_VOCAB.
. "$(dirname "$0")/tmuxlib.sh"

M=$FX/models
if ! have_fixture models/tiny-7v0-fp32.pth 22; then   # every check here needs them
    tui_finish
    exit
fi

NODEMO=1 tui_start --model "$M/tiny-7v0-fp32.pth" --db "$DB" --max-tokens 24 --seed 1
check "model name in the status line" 'tiny-7v0-fp32\.pth \| cpu fp32'
check_not "no demo label" 'DEMO MODEL'
type_text "Hello"
send
check "reply from the checkpoint" '^RWKV'
check "speeds" 'decode [0-9.]+ tok/s'

# the models menu: another checkpoint from the same folder, then a strategy
keys F5
check "models menu" 'Models'
check "current model listed" 'tiny-7v0-fp32\.pth \(in use\)'
type_text "tiny-6v0-fp32"
keys Enter
check "switched model" 'tiny-6v0-fp32\.pth \| cpu fp32'
check "new session after a switch" 'session: new'
wait_idle
type_text "Hello again"
send
check "reply from the new model" '^RWKV'
keys F5 C-s
check "strategy prompt" 'strategy: cpu fp32'
keys C-u
type_text "cpu bf16"
keys Enter
check "strategy changed" 'tiny-6v0-fp32\.pth \| cpu bf16'
wait_idle
keys F5 C-s C-u
type_text "warp drive"
keys Enter
check "bad strategy refused" 'warp'
check "model kept" 'tiny-6v0-fp32\.pth \| cpu bf16'
keys Escape Escape              # the refused strategy's prompt stays open to correct it; then F5
tui_quit

NODEMO=1 tui_start --model "$M/tiny-7v0-fp32.pth" --state "$FX/states/state-7v0-A.pth" \
    --db "$DB" --max-tokens 8
check "state file in the status line" 'state: state-7v0-A\.pth'
check "state defaults (top-p 0.2)" 'top-p +0\.2'
type_text "Hi"
send
check "reply under the state" '^RWKV'
tui_quit

if have_fixture models/world-7v0-rand-bf16.pth 4 && have_fixture rwkv_vocab_v20230424.txt 4; then
    NODEMO=1 tui_start --model "$M/world-7v0-rand-bf16.pth" --vocab "$FX/rwkv_vocab_v20230424.txt" \
        --db "$DB" --max-tokens 16 --seed 2
    check "world model loaded" 'world-7v0-rand-bf16\.pth'
    type_text "你好，世界"
    keys Enter
    check "CJK message" '^  你好，世界'
    wait_idle
    check "reply" '^RWKV'
    tui_quit
fi
# F5 to a World model: the vocabulary is found the way the start-up finds it
# ($RWKV_VOCAB here; it is not next to the model)
if have_fixture models/world-7v0-rand-bf16.pth 2 && have_fixture rwkv_vocab_v20230424.txt 2; then
    TUI_ENV="RWKV_VOCAB=$FX/rwkv_vocab_v20230424.txt" NODEMO=1 \
        tui_start --model "$M/tiny-7v0-fp32.pth" --db "$DB" --max-tokens 8
    keys F5
    type_text "world-7v0-rand"
    keys Enter
    check "switched to the World model (\$RWKV_VOCAB)" 'world-7v0-rand-bf16\.pth \| cpu fp32'
    check_not "no vocabulary error" 'vocabulary'
    tui_quit
fi
tui_finish
