"""USB sticks from the director menu (boot 2), in order: a lexicon installed from a FAT32
stick and switched to, a stick pulled mid-import, the exports (export.py), the kiosk
restarted with a stick attached; and the clean-up that brings the kiosk back to Ready
after a part that stopped early."""
import os
import re
import time

from .common import ARCH, GREEN, LEXICON_DIR, NAVY, RED, SHARED_LEXICONS, WJ, WJ_CONFIG, check, log
from .export import usb_export, usb_export_exfat
from .kiosk import kiosk_pid, leave_to_ready, menu_choose, menu_confirm, menu_open_page, ready_after
from .screens import judge_and_check
from .sticks import (STICK_INSTALL, audit_lines, baseline_word, guest_mounts, journal_count, lexicon_hashes,
                     make_stick_images, plug_and_choose, wait_journal, wait_stick_seen)


def usb_import(vm, images, state):
    """Installs NWL2018 from a FAT32 stick through the director menu (USB stick page,
    "Install lexicons from ..."), then ejects it. Sets state["installed"]; returns whether
    the kiosk ended where the next part expects it (on the director menu's first page, its
    cursor on entry 0, no stick)."""
    before_hashes = lexicon_hashes(vm)
    n_ready, n_installed, n_ejected = (journal_count(vm, s) for s in
                                       ("usb: import list ready", "usb: installed NWL2018", "usb: ejected"))
    if not plug_and_choose(vm, "import", images["import"], "WJIMPORT", "USB stick (FAT32, NWL2018.txt)", STICK_INSTALL):
        return False
    t, line = wait_journal(vm, "usb: import list ready", n_ready, timeout=180)
    vm.screen("usb-import-list")
    rc, units = vm.sh("systemctl list-units --all --no-legend --plain 'wordjudge-stick-*' | cut -c1-120")
    found = f"after {t:.1f} s: {line}" if t is not None else "no 'usb: import list ready' within 180 s"
    if not check("director menu: USB stick -> Install lexicons from the stick -> the stick is mounted (import unit) "
                 "and listed",
                 t is not None, f"{found}; units: {units}".replace("\n", " | ")):
        return False
    vm.keys("ret")  # the first row, NWL2018.txt: the import list asks for ENTER again
    time.sleep(1)
    vm.keys("ret")
    t, line = wait_journal(vm, "usb: installed NWL2018", n_installed, timeout=60)
    vm.screen("usb-installed")
    records = audit_lines(vm, '"event":"lexicon_installed"', "NWL2018")
    rc, listed = vm.sh(f"{WJ} lexicon list 2>&1 | grep -w NWL2018")
    after_hashes = lexicon_hashes(vm)
    kept = set(before_hashes.splitlines()) <= set(after_hashes.splitlines())
    installed = (t is not None and any("Verified official" in r for r in records)
                 and "verified official" in listed.lower())
    state["installed"] = installed
    check("NWL2018.txt from the stick installed: journal, audit record lexicon_installed (Verified official), "
          "`wordjudge lexicon list`", installed,
          f"journal: {line or 'no usb: installed NWL2018 within 60 s'}; audit: {(records[-1] if records else 'none')[-200:]}; "
          f"list: {listed.strip()}; lexicon files {len(before_hashes.splitlines())} -> {len(after_hashes.splitlines())}"
          f"{'' if kept else ', AN EXISTING FILE CHANGED'}")
    vm.keys("esc")  # leaves the list: the kiosk ejects the stick
    t, line = wait_journal(vm, "usb: ejected", n_ejected, timeout=60)
    stick_mounts, usb_mounts = guest_mounts(vm)  # before the stick is pulled: eject must have unmounted it
    vm.screen("usb-eject-done")
    check("Esc ejects the stick: journal 'usb: ejected', then nothing mounted at /run/wordjudge/stick or "
          "/run/wordjudge-usb (before it is pulled)", t is not None and not stick_mounts and usb_mounts == 0,
          f"{line or 'no usb: ejected within 60 s'}; /run/wordjudge/stick: {stick_mounts or 'not mounted'}; "
          f"mounts under /run/wordjudge-usb: {usb_mounts}")
    vm.unplug("import")
    vm.keys("esc")  # the Done screen returns to the USB stick page (now only "◀ Back") on any key
    time.sleep(1)
    vm.keys("esc")  # the USB stick page -> the first page
    time.sleep(1)
    return t is not None


def usb_switch_lexicon(vm, word):
    """On the director menu's first page (no stick now): opens "Lexicon and event rule",
    whose rows are "◀ Back" then the installed lexicons in `lexicon list` order; picks
    NWL2018, confirms the switch (ENTER 1.5 s after its confirmation appeared), leaves the
    menu, and the baseline word is now UNACCEPTABLE."""
    rc, out = vm.sh(f"{WJ} lexicon list 2>/dev/null")
    rows = []
    for l in out.splitlines():
        if l.startswith("("):
            break
        if l.strip():
            rows.append(l)
    index = next((i for i, l in enumerate(rows) if re.search(r"\bNWL2018\b", l)), None)
    if not check("NWL2018 is among the installed lexicons the menu lists", index is not None, " | ".join(rows)):
        return False
    before = len(audit_lines(vm, '"event":"lexicon_switched"', '"to":"NWL2018"'))
    menu_open_page(vm, "lexicon")
    menu_choose(vm, 1 + index)  # row 0 is "◀ Back": opens "Switch from ... to NWL2018?"
    vm.screen("usb-switch-confirm")
    menu_confirm(vm)
    time.sleep(1)
    vm.screen("usb-switched")
    records = audit_lines(vm, '"event":"lexicon_switched"', '"to":"NWL2018"')
    check(f"director menu switches to NWL2018 (Lexicon page row {1 + index}, confirmed): audit record "
          "lexicon_switched to NWL2018",
          len(records) > before, (records[-1] if records else "no lexicon_switched record to NWL2018")[-200:])
    leave_to_ready(vm, 2)  # the Lexicon page -> the first page -> leave
    judge_and_check(vm, [word], RED, "UNACCEPTABLE with NWL2018")
    return True


def usb_pull_mid_import(vm, images):
    """A stick pulled while the kiosk reads it: the import fails cleanly and nothing changes."""
    hashes = lexicon_hashes(vm)
    pid = kiosk_pid(vm)
    n_ready, n_failed = journal_count(vm, "usb: import list ready"), journal_count(vm, "usb: failed")
    n_audit_failed = len(audit_lines(vm, '"event":"usb_failed"'))
    if not plug_and_choose(vm, "pull", images["pull"], "WJPULL", "second stick (FAT32, 6 x CSW15, 17 MB)",
                           STICK_INSTALL):
        return False
    # Pulled while it is read: once the import unit has mounted it. A blind wait (2 s after
    # the ENTER) once pulled a stick the kiosk, slowed by a loaded host, had not yet begun
    # to open, and the check then tested nothing; it still pulls after 20 s, and says so.
    t0, mounted = time.monotonic(), ""
    while not mounted and time.monotonic() - t0 < 20:
        mounted, _ = guest_mounts(vm)
        if not mounted:
            time.sleep(0.2)
    when = f"pulled {time.monotonic() - t0:.1f} s after the choice, {'once mounted' if mounted else 'never mounted'}"
    vm.unplug("pull")  # device_del while the kiosk reads the stick
    t, line = wait_journal(vm, "usb: failed", n_failed, timeout=60)
    ready_after_pull = journal_count(vm, "usb: import list ready")
    check("stick pulled while being read: the kiosk says 'usb: failed' and never lists it",
          t is not None and ready_after_pull == n_ready,
          f"{when}; {line or 'no usb: failed within 60 s'}; 'usb: import list ready' lines {n_ready} -> {ready_after_pull}")
    deadline = time.monotonic() + 30  # systemd stops the unit once the device is gone (BindsTo=)
    while True:
        stick_mounts, usb_mounts = guest_mounts(vm)
        if (not stick_mounts and usb_mounts == 0) or time.monotonic() > deadline:
            break
        time.sleep(1)
    rc, tmp = vm.sh(f"ls -a {LEXICON_DIR} | grep -E '^\\.wordjudge-.*\\.tmp$'")
    pid2 = kiosk_pid(vm)
    records = audit_lines(vm, '"event":"usb_failed"')
    rc_verify, verify = vm.sh(f"{WJ_CONFIG} audit verify 2>&1")
    same = lexicon_hashes(vm) == hashes
    check("after the pull: lexicons unchanged, no temporary file, nothing mounted, same kiosk process, "
          "audit record usb_failed, `wordjudge audit verify` passes",
          same and not tmp.strip() and not stick_mounts and usb_mounts == 0 and pid2 == pid
          and len(records) > n_audit_failed and rc_verify == 0,
          f"lexicons unchanged: {same}; temporary files: {tmp.strip() or 'none'}; /run/wordjudge/stick: "
          f"{stick_mounts or 'not mounted'}; under /run/wordjudge-usb: {usb_mounts}; kiosk pid {pid} -> "
          f"{pid2}; usb_failed records {n_audit_failed} -> {len(records)}; audit verify exit {rc_verify}: "
          f"{verify[-120:]}".replace("\n", " | "))
    vm.screen("usb-pulled")
    leave_to_ready(vm, 3)  # the Done screen -> the USB stick page -> the first page -> leave
    return judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE after the pulled stick")


def usb_kiosk_restart_with_stick(vm, images):
    """A kiosk restarted while a stick is attached keeps no copy of it once the stick's unit
    stops (its mount namespace is a copy of the host's taken at start, where a mount that
    covered the stick's could keep the old stick for good). The unit is started and
    stopped as root here; the kiosk's namespace is read through nsenter."""
    vm.plug("export", images["export"])
    seen, props = wait_stick_seen(vm, "WJEXPORT")
    dev = next((p.split("/")[-1] for p in props.split() if p.startswith("DEVNAME=")), "")
    if not check("ext4 stick plugged in again: WORDJUDGE_STICK=1", seen and dev, props):
        return False
    unit = f"wordjudge-stick-export@{dev}.service"
    rc, state = vm.sh(f"systemctl start {unit}; systemctl is-active {unit}; findmnt -rn -o SOURCE,OPTIONS /run/wordjudge/stick")
    t, _ = ready_after(vm)
    pid = kiosk_pid(vm)
    rc, inside_before = vm.sh(f"nsenter -t {pid} -m findmnt -rn -o SOURCE,OPTIONS /run/wordjudge/stick")
    rc, stopped = vm.sh(f"systemctl stop {unit}; systemctl is-active {unit}")
    rc, inside = vm.sh(f"nsenter -t {pid} -m findmnt -rn /run/wordjudge/stick; nsenter -t {pid} -m findmnt -rn "
                       "| grep -c wordjudge-usb")
    stick_mounts, usb_mounts = guest_mounts(vm)
    inside_lines = inside.strip().splitlines()
    clean_inside = len(inside_lines) == 1 and inside_lines[0].strip() == "0"
    check("kiosk restarted while a stick is attached: once the unit stops, the stick is gone from the host and "
          "from the kiosk's own mount namespace", t and clean_inside and not stick_mounts and usb_mounts == 0,
          f"unit {unit}: {state.strip()}; kiosk READY again: {bool(t)}; kiosk namespace while attached: "
          f"{inside_before.strip() or 'nothing'}; after stop ({stopped.strip()}): {inside.strip()}; host: "
          f"{stick_mounts or 'nothing'} / {usb_mounts} under /run/wordjudge-usb".replace("\n", " | "))
    vm.unplug("export")
    vm.wait_screen(NAVY, "ready", timeout=15)
    return bool(t)


def usb_stick(vm):
    """USB sticks from the director menu (boot 2): install a lexicon from a FAT32 stick and judge
    with it, a stick pulled mid-import, the audit log exported to an ext4 stick. A part that
    stops early or raises is reported, then everything is unplugged and the kiosk restarted
    (a known state: the Ready screen), so the later parts and the power-off step still run."""
    with_lexicons = (all(os.path.isfile(os.path.join(SHARED_LEXICONS, n)) for n in ("NWL2018.txt", "CSW15.txt"))
                     and os.environ.get("EXPECT_LEXICON") == "CSW15")
    if not with_lexicons:
        log("SKIPPED: USB import (needs ../shared/lexicons)")
    try:
        images = make_stick_images(with_lexicons)
    except Exception as e:
        check("USB stick images made on the host (mkfs.vfat, mcopy, mkfs.ext4)", False, f"{type(e).__name__}: {e}")
        return
    word = baseline_word() if with_lexicons else "CAT"
    state = {"installed": False}
    parts = []
    # On arm64, what its own kernel must do (a FAT32, an ext4 and an exFAT stick read and
    # written); the kiosk's side of a switch, a pulled stick and a restart with a stick in
    # is the same program and units, checked on the PC (CI's time: docs/architecture.md).
    pc = ARCH == "amd64"
    if with_lexicons:
        log(f"USB: baseline word {word} (in CSW15, not in NWL2018)")
        parts += [("baseline", lambda: judge_and_check(vm, [word], GREEN, "ACCEPTABLE with CSW15") or True),
                  ("import", lambda: usb_import(vm, images, state))]
        if pc:
            parts += [("switch", lambda: usb_switch_lexicon(vm, word)),
                      ("pull", lambda: usb_pull_mid_import(vm, images))]
        else:  # the import ends in the director menu: back to Ready
            parts.append(("back", lambda: usb_cleanup(vm) or True))
    # The word's verdicts: with the lists, one with CSW15 and (after the switch) one with
    # NWL2018; without them, CAT at least once.
    verdicts = 2 if with_lexicons and pc else 1
    parts.append(("export", lambda: usb_export(vm, images, word, verdicts)))
    parts.append(("export-exfat", lambda: usb_export_exfat(vm, images)))
    if pc:
        parts.append(("restart", lambda: usb_kiosk_restart_with_stick(vm, images)))
    ended_well = True
    for name, part in parts:
        if name == "switch" and not state["installed"]:
            log("USB: NWL2018 was not installed, so no switch to it")
            if ended_well:
                usb_cleanup(vm)  # the import ended in the director menu: back to Ready
            continue
        try:
            ended_well = part()
        except Exception as e:
            check(f"USB {name} part ran to the end", False, f"{type(e).__name__}: {e}")
            ended_well = False
        if ended_well is False:
            usb_cleanup(vm)
    usb_cleanup(vm, restart=False)


def usb_cleanup(vm, restart=True):
    """Pulls whatever is still plugged in, stops the stick units, and (restart) restarts the
    kiosk so it is on the Ready screen whatever screen it was on."""
    for node in list(vm.plugged):
        try:
            vm.unplug(node)
        except Exception as e:
            log(f"unplug {node}: {type(e).__name__}: {e}")
    if not restart:
        return
    try:
        t, _ = ready_after(vm, "systemctl stop 'wordjudge-stick-import@*.service' 'wordjudge-stick-export@*.service'; "
                               "systemctl restart wordjudge")
        log(f"USB cleanup: sticks pulled, kiosk restarted ({'READY again' if t else 'no READY within 90 s'})")
        vm.wait_screen(NAVY, "usb-recovered", timeout=15)
    except Exception as e:
        log(f"USB cleanup: {type(e).__name__}: {e}")
