#!/usr/bin/env python3
"""ckpt_check.py FILE -- check a torch.save zip checkpoint with the standard
library only (no torch): zipfile reads the central directory, ZIP64 records
and every CRC-32; every entry is stored and its data starts on a 64-byte
boundary; data.pkl disassembles with pickletools and unpickles with a
restricted Unpickler (only OrderedDict, _rebuild_tensor_v2 and the storage
classes) into name -> (storage, offset, shape, stride); every storage entry
has exactly numel * element-size bytes and every view fits its storage.
The fixtures torch wrote pass too.
Prints "ok N tensors" or the first problem (exit 1)."""
import collections
import io
import pickle
import pickletools
import struct
import sys
import zipfile

ELSIZE = {"FloatStorage": 4, "BFloat16Storage": 2, "HalfStorage": 2, "DoubleStorage": 8,
          "LongStorage": 8, "IntStorage": 4, "ByteStorage": 1, "CharStorage": 1,
          "ShortStorage": 2, "BoolStorage": 1}


class Tensor:
    def __init__(self, storage, offset, size, stride, requires_grad, hooks, *rest):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)
        if requires_grad is not False or len(hooks) != 0:
            raise ValueError("unexpected requires_grad / hooks")


class Restricted(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return Tensor
        if module == "torch" and name in ELSIZE:
            return name
        raise pickle.UnpicklingError("global %s.%s refused" % (module, name))

    def persistent_load(self, pid):
        kind, stype, key, location, numel = pid
        if kind != "storage" or stype not in ELSIZE:
            raise pickle.UnpicklingError("bad persistent id %r" % (pid,))
        return (stype, key, location, numel)


def main(path):
    raw = open(path, "rb").read()
    z = zipfile.ZipFile(path)
    bad = z.testzip()
    if bad is not None:
        return "CRC mismatch in " + bad
    names = [i.filename for i in z.infolist()]
    prefix = names[0].split("/")[0]
    if any(not n.startswith(prefix + "/") for n in names):
        return "entries outside the prefix " + prefix
    for i in z.infolist():
        if i.compress_type != zipfile.ZIP_STORED:
            return i.filename + ": not stored"
        lh = i.header_offset
        if raw[lh:lh + 4] != b"PK\x03\x04":
            return i.filename + ": no local header"
        n, e = struct.unpack("<HH", raw[lh + 26:lh + 30])
        if (lh + 30 + n + e) % 64 != 0:
            return i.filename + ": data not 64-byte aligned"
    if prefix + "/byteorder" in names and z.read(prefix + "/byteorder") != b"little":
        return "byteorder record is not 'little'"
    if z.read(prefix + "/version") != b"3\n":
        return "version record is not '3'"
    pkl = z.read(prefix + "/data.pkl")
    pickletools.dis(pkl, out=io.StringIO())
    sd = Restricted(io.BytesIO(pkl)).load()
    if not isinstance(sd, dict):
        return "top level is not a dict"
    for name, t in sd.items():
        stype, key, _, numel = t.storage
        info = z.getinfo(prefix + "/data/" + key)
        if info.file_size != numel * ELSIZE[stype]:
            return "%s: storage %s has %d bytes, expected %d" % (name, key, info.file_size,
                                                                  numel * ELSIZE[stype])
        last = t.offset + sum((s - 1) * st for s, st in zip(t.size, t.stride))
        if all(s > 0 for s in t.size) and last >= numel:
            return "%s: view past its storage" % name
    print("ok %d tensors" % len(sd))
    return None


if __name__ == "__main__":
    problem = main(sys.argv[1])
    if problem:
        print("FAIL " + sys.argv[1] + ": " + problem)
        sys.exit(1)
