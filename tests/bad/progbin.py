"""Reading, editing and writing prog.bin images (docs/program-format.md) for
the bad-input corpus: sections by tag, the CRC footer recomputed, so that a
deliberate change reaches the check it targets instead of the checksum."""
import struct
import zlib

HEADER = 16
TAGS = ["HWCF", "MODL", "CODE", "DATA", "TENS", "LAYR"]


def parse(b):
    """The (tag, payload) sections of a prog.bin, in file order."""
    count = struct.unpack_from("<I", b, 12)[0]
    pos, out = HEADER, []
    for _ in range(count):
        tag = b[pos:pos + 4].decode()
        size = struct.unpack_from("<Q", b, pos + 8)[0]
        pos += 16
        out.append([tag, bytes(b[pos:pos + size])])
        pos += (size + 7) // 8 * 8
    return out


def build(sections, magic=b"SNOWPROG", version=1, count=None, fix_crc=True):
    """A prog.bin from (tag, payload) pairs, padded and with a valid CRC."""
    b = bytearray(magic + struct.pack("<II", version, len(sections) if count is None else count))
    for tag, payload in sections:
        b += tag.encode("latin-1")[:4].ljust(4, b"\0") + struct.pack("<IQ", 0, len(payload))
        b += payload + b"\0" * ((-len(payload)) % 8)
    crc = zlib.crc32(bytes(b)) if fix_crc else 0
    return bytes(b) + struct.pack("<I", crc)


def fix_crc(b):
    b = bytes(b[:-4])
    return b + struct.pack("<I", zlib.crc32(b))


def tensor(name, addr, c, h, w, frac):
    n = name.encode()
    return struct.pack("<I", len(n)) + n + struct.pack("<QIIII", addr, c, h, w, frac)


def parse_tens(payload):
    """[(name, addr, c, h, w, frac)] x 2."""
    out, pos = [], 0
    for _ in range(2):
        n = struct.unpack_from("<I", payload, pos)[0]
        name = payload[pos + 4:pos + 4 + n].decode()
        pos += 4 + n
        out.append([name, *struct.unpack_from("<QIIII", payload, pos)])
        pos += 24
    return out


def get(sections, tag):
    return next(p for t, p in sections if t == tag)


def put(sections, tag, payload):
    return [[t, payload if t == tag else p] for t, p in sections]
