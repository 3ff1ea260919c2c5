#!/usr/bin/env bash
# tests/cli/ckpt_misaligned.sh -- a checkpoint whose tensors are not aligned
# for their dtype (a safetensors header padded to no multiple of 4, a .pth
# from a zip writer other than torch.save) loads under the strategy of its
# own dtype -- `cpu fp32` of fp32 weights (the default), `cpu bf16` of bf16
# ones -- with the numbers of the aligned file.  The reader copies such
# tensors into memory when it opens the file; reading matrices into memory
# at load then took that copy's address for the file's and failed with
# "'head.weight': cannot read: the file is shorter than when it was opened".
# A flipped byte in such a tensor is still the one checksum line.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
HERE=$(dirname "$0")
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"

# same_logits DESC STRATEGY ALIGNED MISALIGNED: both load, the same bytes
same_logits() {
    local desc=$1 s=$2 a=$3 b=$4 err
    for load in "" map; do
        if ! err=$(RWKV_CHECKPOINT_LOAD=$load "$T" eval --model "$b" --strategy "$s" \
                   --tokens 1,2,3,40 --out "$TMP/b.f32" 2>&1 </dev/null); then
            fail "$desc ${load:-read}: $err"
            continue
        fi
        "$T" eval --model "$a" --strategy "$s" --tokens 1,2,3,40 --out "$TMP/a.f32" </dev/null \
            && cmp -s "$TMP/a.f32" "$TMP/b.f32" && ok \
            || fail "$desc ${load:-read}: logits differ from the aligned file's"
    done
}

python3 "$HERE/mkst.py" "$TMP/f32.safetensors" || fail "mkst.py"
for k in 1 2 3; do
    python3 "$HERE/mkst.py" "$TMP/f32-$k.safetensors" --misalign $k || fail "mkst.py --misalign"
    same_logits "fp32, header +$k, cpu fp32" "cpu fp32" "$TMP/f32.safetensors" "$TMP/f32-$k.safetensors"
done
python3 "$HERE/mkst.py" "$TMP/bf16.safetensors" --bf16 || fail "mkst.py --bf16"
python3 "$HERE/mkst.py" "$TMP/bf16-1.safetensors" --bf16 --misalign 1 || fail "mkst.py --bf16 --misalign"
same_logits "bf16, header +1, cpu bf16" "cpu bf16" "$TMP/bf16.safetensors" "$TMP/bf16-1.safetensors"

# a .pth: every stored entry moved by 2 bytes (a longer archive folder name:
# its storages are no longer 4-aligned), written with python3's zipfile; and
# one weight byte flipped in it
if have_fixture models/tiny-7v0-fp32.pth 5; then
    python3 - "$FX/models/tiny-7v0-fp32.pth" "$TMP/moved.pth" "$TMP/flip.pth" <<'PY' || fail "re-zip"
import sys, zipfile
src = zipfile.ZipFile(sys.argv[1])
odd = 0
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as z:
    for i in src.infolist():
        z.writestr("xy" + i.filename, src.read(i.filename))
z = zipfile.ZipFile(sys.argv[2])
b = bytearray(open(sys.argv[2], "rb").read())
for i in z.infolist():
    at = i.header_offset + 30 + len(i.filename.encode()) + len(i.extra)
    if "/data/" in i.filename and at % 4:
        odd += 1
        last = (at, i.file_size)
if odd == 0:
    sys.exit("no misaligned storage")
b[last[0] + last[1] // 2] ^= 0x40
open(sys.argv[3], "wb").write(b)
PY
    same_logits "torch .pth re-zipped, cpu fp32" "cpu fp32" "$FX/models/tiny-7v0-fp32.pth" "$TMP/moved.pth"
    "$T" eval --model "$FX/models/tiny-7v0-fp32.pth" --strategy "cpu bf16" --tokens 1,2,3,40 \
        --out "$TMP/a.f32" </dev/null && "$T" eval --model "$TMP/moved.pth" --strategy "cpu bf16" \
        --tokens 1,2,3,40 --out "$TMP/b.f32" </dev/null && cmp -s "$TMP/a.f32" "$TMP/b.f32" \
        && ok || fail "re-zipped .pth, cpu bf16: differs or fails"
    expect_fail "a flipped byte in a misaligned tensor" "flip\.pth: [a-z0-9._]+: checksum mismatch .*the file is damaged$" \
        "$T" eval --model "$TMP/flip.pth" --tokens 1,2 --out "$TMP/c.f32"
    expect_fail "the same under RWKV_CHECKPOINT_LOAD=map (info --verify)" \
        "flip\.pth: [a-z0-9._]+: checksum mismatch" env RWKV_CHECKPOINT_LOAD=map "$T" info \
        --model "$TMP/flip.pth" --verify
fi
finish
