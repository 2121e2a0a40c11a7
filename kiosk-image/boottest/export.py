"""The director menu's "Export the audit log to NAME" (its USB stick page): to an ext4 stick
whose export folder is read on the host (debugfs) and verified by the host's wordjudge, and
to an exFAT stick read back and verified in the guest."""
import glob
import os
import shutil
import subprocess
import time

from . import common
from .common import WJ, check, host_binary, host_tool
from .kiosk import leave_to_ready
from .sticks import STICK_EXPORT, audit_lines, journal_count, plug_and_choose, wait_journal


def usb_export(vm, images, word, verdicts):
    """Exports the audit log to an ext4 stick; the export verifies on the host and holds at
    least `verdicts` records of `word`."""
    n_exported, n_ejected = journal_count(vm, "usb: exported"), journal_count(vm, "usb: ejected")
    n_export_records = len(audit_lines(vm, '"event":"export"'))
    if not plug_and_choose(vm, "export", images["export"], "WJEXPORT", "ext4 stick", STICK_EXPORT):
        return False
    t0 = time.monotonic()
    t, line = wait_journal(vm, "usb: exported", n_exported, timeout=120)
    t2, line2 = wait_journal(vm, "usb: ejected", n_ejected, timeout=max(5, 120 - (time.monotonic() - t0)))
    records = audit_lines(vm, '"event":"export"')
    vm.screen("usb-exported")
    check("director menu: USB stick -> Export the audit log to the stick -> 'usb: exported', 'usb: ejected', "
          "audit record export",
          t is not None and t2 is not None and len(records) > n_export_records,
          f"{line or 'no usb: exported'}; {line2 or 'no usb: ejected'} (120 s); export records "
          f"{n_export_records} -> {len(records)}")
    vm.unplug("export")
    out = os.path.join(common.WORK, "usb-export")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    p = subprocess.run([host_tool("debugfs"), "-R", f"rdump /wordjudge {out}", images["export"]],
                       capture_output=True, text=True)
    folders = sorted(glob.glob(os.path.join(out, "wordjudge", "wordjudge-export-*")))
    ended = t2 is not None
    if not check("the stick holds one export folder wordjudge/wordjudge-export-*", len(folders) == 1,
                 f"{[os.path.basename(f) for f in folders]}; debugfs: {p.stderr.strip()[-200:]}"):
        leave_to_ready(vm, 3)  # the Done screen -> the USB stick page -> the first page -> leave
        return False
    folder = folders[0]
    jsonl = sorted(glob.glob(os.path.join(folder, "audit", "audit-*.jsonl")))
    missing = [n for n in ("audit.csv", "verify.txt", "station-key.pub", "checkpoint.txt")
               if not os.path.isfile(os.path.join(folder, n))] + ([] if jsonl else ["audit/audit-*.jsonl"])
    check("export folder: audit/ (audit-*.jsonl), audit.csv, verify.txt, station-key.pub, checkpoint.txt",
          not missing, f"{os.path.basename(folder)}: {sorted(os.listdir(folder))}; missing: {missing or 'none'}")
    host_bin = host_binary()
    if os.path.exists(host_bin):
        v = subprocess.run([host_bin, "audit", "verify", os.path.join(folder, "audit"),
                            "--pubkey", os.path.join(folder, "station-key.pub"),
                            "--checkpoint", os.path.join(folder, "checkpoint.txt")],
                           capture_output=True, text=True, timeout=120)
        verified, detail = v.returncode == 0, f"exit {v.returncode}: {(v.stdout + v.stderr).strip()[-250:]}"
    else:
        verified, detail = False, f"no host binary {host_bin}"
    text = ""
    for f in jsonl:
        with open(f, errors="replace") as fh:
            text += fh.read()
    hits = [l for l in text.splitlines() if f'"{word}"' in l]
    check(f"its files verify on the host (wordjudge audit verify --pubkey --checkpoint) and hold the {word} verdicts",
          verified and len(hits) >= verdicts,
          f"{detail}; {len(hits)} records with \"{word}\"".replace("\n", " | "))
    leave_to_ready(vm, 3)  # the Done screen -> the USB stick page -> the first page -> leave
    return ended


def usb_export_exfat(vm, images):
    """The export to an exFAT stick (mounted with the kiosk's uid/gid and fmask/dmask):
    once the kiosk has ejected it, root mounts it read-only in the guest and
    `wordjudge audit verify` checks the folder with its key and checkpoint."""
    n_exported, n_ejected = journal_count(vm, "usb: exported"), journal_count(vm, "usb: ejected")
    if not plug_and_choose(vm, "exfat", images["exfat"], "WJEXFAT", "exFAT stick", STICK_EXPORT):
        return False
    t, line = wait_journal(vm, "usb: exported", n_exported, timeout=120)
    t2, line2 = wait_journal(vm, "usb: ejected", n_ejected, timeout=60)
    rc, out = vm.sh("mkdir -p /run/exfat-check && mount -o ro -t exfat /dev/disk/by-label/WJEXFAT /run/exfat-check && "
                    "d=$(ls -d /run/exfat-check/wordjudge/wordjudge-export-* | head -n1) && echo \"folder $d\" && "
                    f"{WJ} audit verify \"$d/audit\" --pubkey \"$d/station-key.pub\" --checkpoint \"$d/checkpoint.txt\"; "
                    "rc=$?; umount /run/exfat-check; exit $rc", timeout=120)
    check("exFAT stick: the export lands, the stick is ejected, and its folder verifies (read back read-only in the guest)",
          t is not None and t2 is not None and rc == 0,
          f"{line or 'no usb: exported'}; {line2 or 'no usb: ejected'}; exit {rc}: {out[-250:]}".replace("\n", " | "))
    vm.unplug("exfat")
    leave_to_ready(vm, 3)  # the Done screen -> the USB stick page -> the first page -> leave
    return t2 is not None
