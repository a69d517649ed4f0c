"""The soak's timeline pictures: a PNG per store, written with zlib and CRC-32 from Python's
standard library. One band per minter slot (its minting rate, bars in dark grey, over the faults
that hit that slot shaded in their colour) under a strip of the faults that hit the whole store.
"""

import re
import struct
import zlib

COLOURS = {
    "minter_pause": (255, 214, 102),
    "minter_kill": (239, 83, 80),
    "fork": (186, 104, 200),
    "clock_step": (100, 181, 246),
    "server_kill": (255, 138, 101),
    "server_wipe": (141, 110, 99),
    "server_pause": (255, 241, 118),
    "forget": (77, 182, 172),
    "partition": (144, 164, 174),
    "minter_partition": (96, 125, 139),
    "disk_full": (174, 213, 129),
    "evict": (240, 98, 146),
    "lossy_kill": (229, 115, 115),
    "foreign_lock": (121, 134, 203),
}
WIDTH = 1200
BAND = 48
STRIP = 16
GAP = 4


def write_png(path, width, height, pixels):
    """`pixels`: a bytearray of height * width RGB triples."""
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        raw += pixels[y * width * 3:(y + 1) * width * 3]

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(raw), 9))
    png += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def timeline(path, check, faults, begin, end):
    slots = sorted(set(p.slot for p in check.procs if p.slot >= 0)) or [0]
    height = STRIP + GAP + len(slots) * (BAND + GAP)
    px = bytearray(b"\xff" * (WIDTH * height * 3))
    span = max(1, end - begin)

    def col(t):
        return min(WIDTH - 1, max(0, (t - begin) * WIDTH // span))

    def fill(x0, x1, y0, y1, rgb):
        for y in range(y0, y1):
            row = y * WIDTH * 3
            for x in range(x0, max(x0 + 1, x1)):
                px[row + 3 * x:row + 3 * x + 3] = bytes(rgb)

    band_top = {s: STRIP + GAP + i * (BAND + GAP) for i, s in enumerate(slots)}
    for f in faults:
        rgb = COLOURS.get(f["kind"], (200, 200, 200))
        x0, x1 = col(f["start"]), col(max(f["end"], f["start"] + span // WIDTH))
        m = re.match(r"(slot|clock)(\d+)$", f["target"])
        if m and int(m.group(2)) in band_top:
            y = band_top[int(m.group(2))]
            fill(x0, x1 + 1, y, y + BAND, rgb)
        else:
            fill(x0, x1 + 1, 0, STRIP, rgb)
    for s in slots:
        per_col = [0] * WIDTH
        for p in check.procs:
            if p.slot == s:
                for t, n in zip(p.minted_at, p.counts):
                    per_col[col(t)] += n
        top = max(per_col) or 1
        y0 = band_top[s]
        fill(0, WIDTH, y0 + BAND, y0 + BAND + 1, (0, 0, 0))
        for x, n in enumerate(per_col):
            h = n * (BAND - 2) // top
            if h:
                fill(x, x + 1, y0 + BAND - h, y0 + BAND, (66, 66, 66))
    write_png(path, WIDTH, height, px)


def legend_lines():
    out = ["## Timelines", "",
           "Each picture spans its store's run left to right. The top strip shows the faults "
           "that hit the whole store; below it, one band per minter slot: its IDs per pixel "
           "column (dark grey bars, scaled to the band's busiest column) over the faults that "
           "hit that slot.", "", "| fault | colour |", "|---|---|"]
    for k, (r, g, b) in COLOURS.items():
        out.append(f"| {k} | #{r:02x}{g:02x}{b:02x} |")
    return out + [""]
