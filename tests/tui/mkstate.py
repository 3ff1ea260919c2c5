# mkstate.py -- write RWKV-7 state-tuning files for the demo model as
# safetensors (blocks.N.att.time_state [heads, n, n] float32), standard
# library only:  python3 mkstate.py OUT LAYERS [MUL MOD]
# Values are 0.01 * ((i * MUL + layer) % MOD - MOD // 2): distinct files for
# distinct MUL/MOD, small enough to keep the demo model finite.
import json, struct, sys

def write(path, layers, mul=7, mod=13, heads=2, n=64, val=0.01):
    hdr, blobs, off = {}, [], 0
    for l in range(layers):
        cnt = heads * n * n
        data = struct.pack('<%df' % cnt, *[val * ((i * mul + l) % mod - mod // 2) for i in range(cnt)])
        hdr['blocks.%d.att.time_state' % l] = {'dtype': 'F32', 'shape': [heads, n, n],
                                               'data_offsets': [off, off + len(data)]}
        blobs.append(data); off += len(data)
    h = json.dumps(hdr).encode()
    h += b' ' * ((8 - len(h) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h))); f.write(h)
        for b in blobs: f.write(b)

if __name__ == '__main__':
    a = sys.argv[1:]
    write(a[0], int(a[1]), *(int(x) for x in a[2:4]))
