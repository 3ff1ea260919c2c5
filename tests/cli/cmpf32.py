# cmpf32.py -- compare two little-endian float32 files (standard library only).
#   python3 cmpf32.py GOT REF TOL [OFFSET_FLOATS COUNT]
# Exit 0 and print the max abs difference when within TOL, else exit 1.
import struct, sys

def load(p):
    b = open(p, "rb").read()
    return struct.unpack("<%df" % (len(b) // 4), b)

got, ref, tol = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
if len(sys.argv) > 5:
    o, n = int(sys.argv[4]), int(sys.argv[5])
    ref = ref[o:o + n]
if len(got) != len(ref):
    print("length %d != %d" % (len(got), len(ref)))
    sys.exit(1)
d = max(abs(a - b) for a, b in zip(got, ref)) if got else 0.0
print("max abs diff %g" % d)
sys.exit(0 if d <= tol else 1)
