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
# a real fixture cut in half
open(T + "/cut.pth", "wb").write(open("$FX/models/tiny-7v0-bf16.pth", "rb").read()[:900000])
open(T + "/empty.pth", "wb").close()
open(T + "/text.pth", "w").write("this is not a model\n")
PY
}
mk
I="$RWKV_TUI info --model"
expect_fail "os.system pickle"  "evil\.pth: pickle refers to global 'os\.system', refused" $I "$TMP/evil.pth"
expect_fail "INST opcode"       "inst\.pth: .*INST.*not allowed" $I "$TMP/inst.pth"
expect_fail "deflated entry"    "deflate\.pth: .*compressed" $I "$TMP/deflate.pth"
expect_fail "no data.pkl"       "nopkl\.pth: .*data\.pkl" $I "$TMP/nopkl.pth"
expect_fail "safetensors header" "hdr\.safetensors: .*header length" $I "$TMP/hdr.safetensors"
expect_fail "truncated fixture" "cut\.pth: " $I "$TMP/cut.pth"
expect_fail "empty file"        "empty\.pth: .*empty" $I "$TMP/empty.pth"
expect_fail "text file"         "text\.pth: not a checkpoint" $I "$TMP/text.pth"
finish
