#!/usr/bin/env bash
# ckpt_bad.sh -- hostile and broken checkpoint files through the real binary
# (`rwkv-tui info --model F`): each must exit non-zero with ONE stderr line
# that names the file and the problem, and never crash.  The files are made
# here with Python's own zipfile/pickle-free byte strings, i.e. by a writer
# independent of our reader.
. "$(dirname "$0")/lib.sh"

mk() {   # python3 code writing files into $TMP
    python3 - "$TMP" <<PY || fail "python helper failed"
import sys, zipfile, struct
T = sys.argv[1]
# a torch.save-shaped archive whose pickle calls os.system (never executed)
evil = b"\x80\x02cos\nsystem\nX\x0a\x00\x00\x00echo pwned\x85R."
with zipfile.ZipFile(T + "/evil.pth", "w", zipfile.ZIP_STORED) as z:
    z.writestr("evil/data.pkl", evil)
    z.writestr("evil/version", "3\n")
# INST opcode (old-style object construction)
with zipfile.ZipFile(T + "/inst.pth", "w", zipfile.ZIP_STORED) as z:
    z.writestr("inst/data.pkl", b"\x80\x02(ios\nsystem\n.")
# compressed data.pkl
with zipfile.ZipFile(T + "/deflate.pth", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("deflate/data.pkl", b"\x80\x02}." * 100)
# zip without data.pkl
with zipfile.ZipFile(T + "/nopkl.pth", "w") as z:
    z.writestr("nopkl/data/0", b"\0" * 16)
# safetensors whose header length runs past the end
open(T + "/hdr.safetensors", "wb").write(struct.pack("<Q", 1 << 20) + b'{"a":1}')
# a real checkpoint cut in half (one written by bench --save)
open(T + "/cut.pth", "wb").write(open(T + "/gen.pth", "rb").read()[:500000])
open(T + "/empty.pth", "wb").close()
open(T + "/text.pth", "w").write("this is not a model\n")
PY
}
"$RWKV_TUI" bench --shape demo --save "$TMP/gen.pth" >/dev/null 2>&1 || fail "bench --save"
mk
I="$RWKV_TUI info --model"
expect_fail "os.system pickle"  "evil\.pth: pickle refers to global 'os\.system', refused" $I "$TMP/evil.pth"
expect_fail "INST opcode"       "inst\.pth: .*INST.*not allowed" $I "$TMP/inst.pth"
expect_fail "deflated entry"    "deflate\.pth: .*compressed" $I "$TMP/deflate.pth"
expect_fail "no data.pkl"       "nopkl\.pth: .*data\.pkl" $I "$TMP/nopkl.pth"
expect_fail "safetensors header" "hdr\.safetensors: .*header length" $I "$TMP/hdr.safetensors"
expect_fail "truncated checkpoint" "cut\.pth: " $I "$TMP/cut.pth"
expect_fail "empty file"        "empty\.pth: .*empty" $I "$TMP/empty.pth"
expect_fail "text file"         "text\.pth: not a checkpoint" $I "$TMP/text.pth"

# Damaged weight bytes (issue 14): the zip CRC-32 of every entry is checked --
# small entries when the file is opened, a large one when it is converted or
# read into memory to be used as stored, every one with `info --verify` (a
# `cpu bf16` load that keeps bf16 matrices mapped never reads most of them).
W="$FX/models/world-7v0-rand-bf16.pth"
if have_fixture models/world-7v0-rand-bf16.pth 5; then
python3 - "$W" "$TMP" <<'PY' || fail "python helper (damage) failed"
import sys, zipfile, struct
src, T = sys.argv[1], sys.argv[2]
b = bytearray(open(src, "rb").read())
z = zipfile.ZipFile(src)
def data_off(name):
    i = z.getinfo(name)
    n, x = struct.unpack_from("<HH", b, i.header_offset + 26)
    return i.header_offset + 30 + n + x, i.file_size
pre = z.namelist()[0].split("/")[0]
for tag, key in (("big", "68"), ("small", "31")):   # head.weight (8 MiB), a 32 KiB vector
    off, size = data_off(pre + "/data/" + key)
    d = bytearray(b)
    d[off + size // 2 + 1] ^= 0x80                   # a sign bit, mid-entry
    open(T + "/" + tag + ".pth", "wb").write(d)
PY
out=$($RWKV_TUI info --model "$W" --verify 2>&1) && echo "$out" | grep -Eq "^checksums:   every CRC-32 matches \([0-9]+ entries checked\)" \
    && ok || fail "info --verify of a good file: $out"
out=$(RWKV_CHECKPOINT_LOAD=map $RWKV_TUI info --model "$TMP/big.pth" --strategy "cpu bf16" 2>&1) && ok \
    || fail "a load that keeps the matrices mapped reads no head bytes and should load: $out"
CRC='checksum mismatch \(CRC-32 [0-9a-f]{8}, expected [0-9a-f]{8}\): the file is damaged'
expect_fail "damaged large entry, read into memory" "big\.pth: head\.weight: $CRC" \
    env RWKV_CHECKPOINT_LOAD=copy $I "$TMP/big.pth" --strategy "cpu bf16"
expect_fail "damaged large entry, --verify" "big\.pth: head\.weight: $CRC" \
    $I "$TMP/big.pth" --strategy "cpu bf16" --verify
expect_fail "damaged large entry, converted" "big\.pth: head\.weight: $CRC" \
    $I "$TMP/big.pth" --strategy "cpu fp32i8"
python3 "$(dirname "$0")/mkst.py" "$TMP/m.safetensors" || fail "mkst.py"
out=$($RWKV_TUI info --model "$TMP/m.safetensors" --verify 2>&1) && echo "$out" | grep -q "^checksums:   none in this format (0 entries checked)" \
    && ok || fail "info --verify of a safetensors file: $out"
expect_fail "damaged small entry, checked at open" "small\.pth: blocks\.[0-9]+\.[a-z0-9_.]+: $CRC" \
    $I "$TMP/small.pth" --strategy "cpu bf16"
fi
finish
