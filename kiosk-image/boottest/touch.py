"""The station by touch on the real stack (the PC): a virtual touchscreen (QEMU's
virtio-multitouch-pci) hot-plugged into the empty PCIe port vm.py leaves for it, seen by
udev as a touchscreen, read by libinput inside Slint's linuxkms backend. The kiosk shows
its touch targets when it starts with a touchscreen (`touch = "auto"`), so it is restarted
after the plug and after the unplug; every other check sees a station without one.

Taps go in over QMP as the kernel's multitouch protocol B (input-send-event, "mtt"
events: a slot, a tracking id, the position; BTN_TOUCH), in screen fractions (the
device's axes run 0..32767). Checked: a challenge tapped whole (count, letters, JUDGE),
with a second finger landing on a letter mid-word (it types nothing), is judged with the
words tapped and recorded with the trigger `touch`; the director's corner held 3 s, the
PIN on the digit pad and Back take the director into the menu and out again."""
import os
import time

from . import common
from .common import GREEN, KIOSK_JOURNAL, NAVY, READY, check, log
from .screens import expect_ready, hexc, near, read_ppm

# The targets on the PC's 1280x800 screen, in pixels, as the kiosk lays them out at that
# size (ui/touch.slint and the screens' .slint files; the screendumps of this test show
# them): Ready's count buttons 1 to 8 in one row; the keyboard's three QWERTY rows of 10, 9
# and 7 letters, the third shifted by one and a half keys; JUDGE top right; the station's
# name, the corner the director holds. The count buttons' row moves up when Ready shows
# the last challenge's slip, so its height is found on a screendump (count_row).
SCREEN = (1280, 800)
COUNT_X0, COUNT_STEP = 103, 153.4
# A target's fill (the theme's `Palette.field`), as the screendumps show it.
FIELD = (0x1F, 0x2A, 0x40)
KEY_ROWS = ("QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM")
KEY_Y, KEY_X0, KEY_STEP = (562, 649, 736), 82, 123.7
JUDGE = (1160, 132)
CORNER = (78, 33)
# The director menu's "Leave the menu", top right.
MENU_LEAVE = (1128, 124)


def count_row(vm):
    """The height of Ready's count buttons: the middle of the tallest run of a target's
    fill down a column through the first button, on a screendump of Ready now."""
    vm.screen("touch-ready")
    w, h, pixels = read_ppm(os.path.join(common.WORK, f"{vm.tag}-touch-ready.ppm"))
    x = int(COUNT_X0) + 35  # beside the digit's glyph
    best, start = (0, 0), None
    for y in range(h + 1):
        i = (y * w + x) * 3
        inside = y < h and near(tuple(pixels[i:i + 3]), FIELD, tol=6)
        if inside and start is None:
            start = y
        elif not inside and start is not None:
            best, start = max(best, (y - start, start)), None
    return best[1] + best[0] // 2 if best[0] else None


def count_at(n, y):
    return COUNT_X0 + (n - 1) * COUNT_STEP, y


def letter_at(letter):
    for row, letters in enumerate(KEY_ROWS):
        if letter.upper() in letters:
            column = letters.index(letter.upper()) + (1.5 if row == 2 else 0)
            return KEY_X0 + column * KEY_STEP, KEY_Y[row]
    raise ValueError(letter)


AXIS_MAX = 32767


def _mtt(kind, slot, tid, axis="x", value=0):
    return {"type": "mtt", "data": {"type": kind, "slot": slot, "tracking-id": tid, "axis": axis, "value": value}}


def _btn(down):
    return {"type": "btn", "data": {"down": down, "button": "touch"}}


class Fingers:
    """Touches on the hot-plugged screen; each contact a new tracking id."""

    def __init__(self, vm):
        self.vm, self.next_id, self.slots = vm, 1, {}

    def send(self, *events):
        # No display named: the events go to the input device that takes them, the
        # touchscreen (the one multitouch device; the guest's driver made it active).
        self.vm.qmp.call("input-send-event", events=list(events))

    def down(self, slot, x, y, first=True):
        """A finger down in `slot` at pixel (x, y); `first`: no other finger is down."""
        tid, self.next_id = self.next_id, self.next_id + 1
        self.slots[slot] = tid
        events = [_mtt("begin", slot, tid), _mtt("data", slot, tid, "x", round(x / SCREEN[0] * AXIS_MAX)),
                  _mtt("data", slot, tid, "y", round(y / SCREEN[1] * AXIS_MAX))]
        self.send(*(events + ([_btn(True)] if first else [])))
        return tid

    def move(self, slot, x, y):
        """The finger in `slot` moves to pixel (x, y) ("update" selects its slot: "data"
        moves whichever slot was selected last)."""
        tid = self.slots[slot]
        self.send(_mtt("update", slot, tid), _mtt("data", slot, tid, "x", round(x / SCREEN[0] * AXIS_MAX)),
                  _mtt("data", slot, tid, "y", round(y / SCREEN[1] * AXIS_MAX)))

    def up(self, slot, last=True):
        self.send(*([_mtt("end", slot, -1)] + ([_btn(False)] if last else [])))

    def tap(self, at, hold=0.08):
        self.down(0, *at)
        time.sleep(hold)
        self.up(0)
        time.sleep(0.25)


def plug(vm):
    """Hot-plugs the touchscreen and restarts the kiosk, which then shows its targets.
    Whether udev saw a touchscreen."""
    vm.qmp.call("device_add", driver="virtio-multitouch-pci", id="touch", bus="touchport")
    seen = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not seen:
        rc, out = vm.sh("grep -l '^E:ID_INPUT_TOUCHSCREEN=1' /run/udev/data/c13:* 2>/dev/null | head -n 1")
        seen = bool(out.strip())
        time.sleep(1)
    _restart_kiosk(vm)
    return seen


def unplug(vm):
    """Unplugs the touchscreen (the guest ejects it), then restarts the kiosk without it."""
    vm.qmp.call("device_del", id="touch")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        rc, out = vm.sh("grep -l '^E:ID_INPUT_TOUCHSCREEN=1' /run/udev/data/c13:* 2>/dev/null | head -n 1")
        if not out.strip():
            break
        time.sleep(1)
    _restart_kiosk(vm)


def _restart_kiosk(vm):
    n = vm.console_text().count(READY)
    vm.sh("systemctl restart wordjudge")
    vm.wait_console(READY, count=n + 1, timeout=120)
    time.sleep(2)


# The director's digit pad (1 to 9, then ⌫, 0 and OK, in rows of three) on the PIN prompt.
PAD_X, PAD_Y = (773, 968, 1162), (174, 347, 520, 693)


def pad_at(key):
    index = {"0": 10, "ok": 11}.get(key, None)
    index = int(key) - 1 if index is None else index
    return PAD_X[index % 3], PAD_Y[index // 3]


def tapped_challenge(vm):
    """A challenge tapped whole: the count 1, then C and A; a finger rests on Q while a
    second lands on Z, the second lifts, then the first (Slint makes taps of Q of that,
    which the kiosk drops); a pinch from W and O outwards; T; JUDGE. Checks the verdict is on screen and its one record
    has the words CAT and the trigger `touch`; ENTER then leaves the verdict."""
    from .update import audit_events
    fingers = Fingers(vm)
    expect_ready(vm, "not on the Ready screen before the tapped challenge")
    before = len(audit_events(vm, "adjudication"))
    row = count_row(vm)
    fingers.tap(count_at(1, row or 0))
    time.sleep(1)  # the entry takes no tap just after it opens (the same finger twice)
    for letter in "CA":
        fingers.tap(letter_at(letter))
    fingers.down(0, *letter_at("Q"))
    time.sleep(0.15)
    fingers.down(1, *letter_at("Z"), first=False)
    time.sleep(0.15)
    fingers.up(1, last=False)
    time.sleep(0.15)
    fingers.up(0)
    time.sleep(0.3)
    # A pinch: two fingers on W and O, moving apart, then lifting.
    fingers.down(0, *letter_at("W"))
    fingers.down(1, *letter_at("O"), first=False)
    for step in range(1, 4):
        (wx, wy), (ox, oy) = letter_at("W"), letter_at("O")
        fingers.move(0, wx - 30 * step, wy)
        fingers.move(1, ox + 30 * step, oy)
        time.sleep(0.1)
    fingers.up(1, last=False)
    fingers.up(0)
    time.sleep(0.3)
    fingers.tap(letter_at("T"))
    vm.screen("touch-typed")
    fingers.tap(JUDGE)
    colour, share = vm.wait_screen(GREEN, "touch-verdict", timeout=10)
    records = audit_events(vm, "adjudication")[before:]
    got = [(r.get("words"), r.get("trigger"), r.get("verdict")) for r in records]
    check("touch: a challenge tapped through libinput on a virtual touchscreen (virtio-multitouch-pci, hot-plugged) "
          "is judged as tapped, its record's trigger `touch`; a second finger and a pinch typed nothing",
          near(colour, GREEN) and share > 0.5 and got == [(["CAT"], "touch", "ACCEPTABLE")],
          f"count buttons at y={row}; screen {hexc(colour)} on {share:.0%}; records {got}")
    time.sleep(1)
    vm.keys("ret")
    time.sleep(1)


def director_by_touch(vm, leave=MENU_LEAVE):
    """The director's corner held 3.5 s, the PIN 2468 and OK on the digit pad, then the
    menu's "Leave the menu" at `leave` (pixels): into the menu and out again, each
    recorded."""
    from .update import audit_count
    fingers = Fingers(vm)
    expect_ready(vm, "not on the Ready screen before the director's touch")
    accepted, left = audit_count(vm, "pin_accepted"), audit_count(vm, "director_left")
    fingers.down(0, *CORNER)
    time.sleep(3.5)
    fingers.up(0)
    time.sleep(1.5)
    vm.screen("touch-pin-pad")
    for key in ("2", "4", "6", "8", "ok"):
        fingers.tap(pad_at(key))
    time.sleep(2)
    vm.screen("touch-menu")
    opened = audit_count(vm, "pin_accepted") == accepted + 1
    fingers.tap(leave)
    time.sleep(2)
    colour, share = vm.screen("touch-menu-left")
    out = audit_count(vm, "director_left") == left + 1
    check("touch: the director's corner held 3 s, the PIN on the digit pad and \"Leave the menu\" take the director into the "
          "menu and out again (pin_accepted, director_left recorded)",
          opened and out and near(colour, NAVY), f"menu opened {opened}, left {out}; screen {hexc(colour)}")


def touch_checks(vm):
    """Plugs the touchscreen, checks the kiosk shows its targets, taps a challenge and the
    director's way in and out, and unplugs it (the kiosk restarted without targets)."""
    try:
        seen = plug(vm)
        rc, line = vm.sh(f"{KIOSK_JOURNAL} | grep -F 'touch targets:' | tail -n 1")
        if check("touch: a touchscreen hot-plugged is one to udev (ID_INPUT_TOUCHSCREEN=1) and the kiosk, restarted, "
                 "shows its targets (touch = \"auto\")", seen and "touch targets: shown" in line,
                 f"udev: {seen}; kiosk: {line.strip()[-60:]}"):
            tapped_challenge(vm)
            director_by_touch(vm)
    finally:
        unplug(vm)
    rc, line = vm.sh(f"{KIOSK_JOURNAL} | grep -F 'touch targets:' | tail -n 1")
    log(f"touchscreen unplugged; kiosk: {line.strip()[-40:]}")
