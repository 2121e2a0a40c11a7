"""Reading the kiosk's screen: the dominant colour of a QMP screendump (PPM), PNG copies for
people, colour comparison, and judging a challenge from the keyboard by its verdict colour."""
import struct
import time
import zlib

from .common import NAVY, check, log


def read_ppm(ppm):
    """A binary PPM screendump: (width, height, its RGB bytes)."""
    with open(ppm, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6", fields
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h * 3]


def dominant(ppm):
    """The most common colour of a binary PPM screendump, and its share of the pixels."""
    w, h, pixels = read_ppm(ppm)
    counts = {}
    step = 3 * 7  # sample every 7th pixel: plenty for a full-screen background
    for i in range(0, len(pixels) - 2, step):
        key = pixels[i:i + 3]
        counts[key] = counts.get(key, 0) + 1
    best = max(counts, key=counts.get)
    return tuple(best), counts[best] / sum(counts.values())


def ppm_to_png(ppm):
    """Writes the screendump beside itself as PNG, for people to look at."""
    with open(ppm, "rb") as f:
        data = f.read()
    head = data.split(maxsplit=3)
    w, h = int(head[1]), int(head[2])
    px = data[len(data) - w * h * 3:]
    raw = b"".join(b"\x00" + px[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    with open(ppm[:-4] + ".png", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def near(colour, want, tol=12):
    return all(abs(a - b) <= tol for a, b in zip(colour, want))


def hexc(c):
    return "#%02X%02X%02X" % c


def expect_ready(vm, problem):
    """Waits up to 15 s for the navy Ready screen; logs `problem` if it does not come."""
    colour, _ = vm.wait_screen(NAVY, "ready", timeout=15)
    if not near(colour, NAVY):
        log(f"{problem} (dominant {hexc(colour)})")


def judge_and_check(vm, words, want, label):
    expect_ready(vm, f"not on the Ready screen before {words}")
    vm.type_challenge(*words)
    colour, share = vm.wait_screen(want, f"{label}-{'_'.join(words)}".replace(" ", "_"), timeout=8)
    ok = near(colour, want) and share > 0.5
    check(f"{' '.join(words)} -> {label} screen", ok, f"dominant {hexc(colour)} on {share:.0%} of the screen (want {hexc(want)})")
    time.sleep(0.6)  # the verdict ignores keys for verdict_guard_seconds (0.5), then any key goes home
    vm.keys("esc")
    return ok
