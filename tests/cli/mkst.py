# mkst.py -- write a tiny random RWKV-7 checkpoint as safetensors, using only
# the Python standard library (struct/json), for the CLI tests of bad input.
#   python3 mkst.py OUT [--drop NAME] [--reshape NAME=D1,D2,..] [--only-unknown]
#                       [--bf16] [--misalign K]
# --bf16 stores BF16 (the same values rounded down to bf16); --misalign K
# pads the JSON header with K more blanks, so no tensor is aligned for its
# dtype when K is odd (writers other than the reference library pad nothing).
import json, random, struct, sys

C, H, N, F, V, L, D = 64, 1, 64, 128, 256, 2, 8

def tensors():
    t = [("emb.weight", [V, C]), ("blocks.0.ln0.weight", [C]), ("blocks.0.ln0.bias", [C])]
    for i in range(L):
        b = "blocks.%d." % i
        t += [(b + "ln1.weight", [C]), (b + "ln1.bias", [C]), (b + "ln2.weight", [C]), (b + "ln2.bias", [C])]
        for x in "rwkvag":
            t.append((b + "att.x_" + x, [1, 1, C]))
        lora = [("w", D), ("a", D), ("g", D)] + ([("v", D)] if i > 0 else [])
        for nm, d in lora:
            if nm != "g":
                t.append((b + "att.%s0" % nm, [1, 1, C]))
            t += [(b + "att.%s1" % nm, [C, d]), (b + "att.%s2" % nm, [d, C])]
        t += [(b + "att.k_k", [1, 1, C]), (b + "att.k_a", [1, 1, C]), (b + "att.r_k", [H, N])]
        for nm in ("receptance", "key", "value", "output"):
            t.append((b + "att.%s.weight" % nm, [C, C]))
        t += [(b + "att.ln_x.weight", [C]), (b + "att.ln_x.bias", [C])]
        t += [(b + "ffn.x_k", [1, 1, C]), (b + "ffn.key.weight", [F, C]), (b + "ffn.value.weight", [C, F])]
    t += [("ln_out.weight", [C]), ("ln_out.bias", [C]), ("head.weight", [V, C])]
    return t

def main():
    out, args = sys.argv[1], sys.argv[2:]
    ts = tensors()
    bf16, misalign = False, 0
    while args:
        a = args.pop(0)
        if a == "--drop":
            name = args.pop(0)
            ts = [x for x in ts if x[0] != name]
        elif a == "--reshape":
            name, dims = args.pop(0).split("=")
            ts = [(n, [int(d) for d in dims.split(",")] if n == name else s) for n, s in ts]
        elif a == "--bf16":
            bf16 = True
        elif a == "--misalign":
            misalign = int(args.pop(0))
        elif a == "--only-unknown":
            ts = [("emb.weight", [V, C]), ("blocks.0.mystery.weight", [C, C]), ("head.weight", [V, C])]
    rnd = random.Random(1)
    header, blobs, off = {}, [], 0
    for name, shape in ts:
        n = 1
        for d in shape:
            n *= d
        data = struct.pack("<%df" % n, *[rnd.uniform(-0.1, 0.1) for _ in range(n)])
        if bf16:
            data = b"".join(data[i + 2:i + 4] for i in range(0, len(data), 4))
        header[name] = {"dtype": "BF16" if bf16 else "F32", "shape": shape,
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8 + misalign)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))

main()
