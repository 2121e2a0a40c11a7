"""What every part of the boot test shares: the command-line arguments, the settings from
the environment, the colours and paths, the PASS/FAIL record (log, check, results) and
host_tool.

IMG and WORK are set by parse_args() and results grows as checks run: other modules read
them through the module (common.WORK, common.results), never with `from .common import
WORK`, which would keep the value from before parse_args(). Everything else here is a
constant and may be imported by name.
"""
import os
import shutil
import time

IMG = None  # the image under test: parse_args()
WORK = "/tmp/wordjudge-boot-test"  # scratch directory: parse_args()
READY = b"WORDJUDGE READY"
# Boots of the PC image that hung after the firmware and were reset once (vm.VM.wait_console):
# "tag: diagnosis", reported at the end of the run.
HANGS = []
GREEN, RED, NAVY = (0x1E, 0x7B, 0x34), (0xB0, 0x1C, 0x1C), (0x10, 0x18, 0x27)
# KVM where it works; this project's machines have only kvm-pvm, which cannot run
# ordinary guests (OVMF dies with "emulation failure"), so the default is TCG.
ACCEL = os.environ.get("ACCEL", "tcg")
ARCH = os.environ.get("ARCH", "amd64")
# How much of the boot test runs (BOOT_TESTS): "full", every check (an operator's release
# check, and the default), or "ci", what fits CI's hour beside the builds: the checks of
# every boot path once, without the ones that repeat a path at the cost of more reboots
# (the PC: the power cut mid-install, the kiosk killed and the disk filled mid-install, the
# rollback and the downgrade; the Pi: its update, its panicking releases and the Pi 5's
# firmware path). docs/architecture.md, "The boot test", lists both.
SCOPE = os.environ.get("BOOT_TESTS", "full")
if SCOPE not in ("full", "ci"):
    raise SystemExit(f"BOOT_TESTS must be full or ci, not {SCOPE!r}")
FULL = SCOPE == "full"
# Display drivers each image claims to support (kept by customize.sh).
# Key codes the guest's kernel must see from the Power and Sleep keys and the power button:
# KEY_POWER 116, KEY_SLEEP 142. QEMU's USB keyboard (arm64 virt has no PS/2) only has the
# HID keyboard page, which holds Power but not Sleep; the PC's PS/2 keyboard has both.
KEY_CODES_DELIVERED = {"amd64": ["116", "142"], "arm64": ["116"]}[ARCH]
DISPLAY_DRIVERS = {"amd64": ["i915", "amdgpu", "nouveau", "radeon"], "arm64": ["vc4", "v3d"]}[ARCH]
# Those loaded in the guest: loading all four PC drivers under TCG takes over two minutes,
# so BOOT_TESTS=ci loads the first (the image build checks every one's symbols statically).
DISPLAY_DRIVERS_LOADED = DISPLAY_DRIVERS if FULL or ARCH != "amd64" else DISPLAY_DRIVERS[:1]
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"


def virt_uboot():
    """arm64: U-Boot's qemu_arm64 build from the same u-boot release as the card's, which the
    image build leaves beside the image (kiosk-image/build.sh): -M virt's firmware."""
    return os.path.join(os.path.dirname(os.path.abspath(IMG)), "boot", "u-boot-qemu_arm64.bin")
T0 = time.monotonic()
results = []  # (check name, passed), in order

# Host paths: kiosk-image/ (this package's parent), the repository (REPO, set by
# test-boot.sh) and the licensed word lists beside it.
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.environ.get("REPO", "")
SHARED_LEXICONS = os.path.join(os.environ.get("REPO", os.path.join(HERE, "..")), "..", "shared", "lexicons")

# Guest paths and commands.
CONFIG = "/var/lib/wordjudge/config.toml"
LEXICON_DIR = "/var/lib/wordjudge/lexicons"
AUDIT_FILES = "/var/lib/wordjudge/audit/audit-*.jsonl"
WJ = "runuser -u wordjudge -- wordjudge"
WJ_CONFIG = f"{WJ} --config {CONFIG}"
KIOSK_JOURNAL = "journalctl -b -u wordjudge -o cat --no-pager"


def parse_args(argv):
    """test-boot.sh passes the image and the scratch directory."""
    global IMG, WORK
    IMG = argv[1]
    WORK = argv[2] if len(argv) > 2 else "/tmp/wordjudge-boot-test"


def log(msg):
    print(f"[{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


def check(name, ok, detail=""):
    results.append((name, bool(ok)))
    log(f"{'PASS' if ok else 'FAIL'}: {name}{' -- ' + detail if detail else ''}")
    return ok


def host_tool(name):
    return shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.path.exists(p)), None)


def host_binary():
    """The wordjudge the image was built from, on the host (PROFILE as in test-boot.sh)."""
    pdir = "debug" if os.environ.get("PROFILE", "release") == "dev" else os.environ.get("PROFILE", "release")
    return os.path.join(REPO, "target", pdir, "wordjudge")
