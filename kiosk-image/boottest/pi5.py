"""The card as a Pi 5 family board starts it: no U-Boot, the firmware loads the slot's own
kernel, initrd and command line from its folder on the boot partition (config.txt [pi5]
os_prefix=), and a new slot gets the firmware's one-shot try (tryboot.txt, read once while
the tryboot flag is set). There is no Pi 5 model in QEMU: -M virt plays the board and
pifirmware.pi5_start plays its firmware at every power-on and reset (the flag, which the
real firmware keeps in the board, is a file on the card here: the card's update back-end,
kiosk-image/update/rauc-pi-tryboot, is told so on the command line). Everything after the
firmware is the card's own: the kernel, the mount that gives RAUC the Pi 5 back-end (it
looks for brcm,bcm2712 in the tree, which the emulation adds), RAUC, the boot check.

  pi5_rollback  a fresh copy of the card as built boots slot A from config.txt; the director
                installs the release whose kernel panics from the menu; hands off, the
                firmware reads tryboot.txt once (slot B), the kernel panics and resets the
                board, the firmware reads config.txt (slot A), READY; the boot check records
                the rollback once and marks B bad, and tryboot.txt is gone."""
import os
import subprocess

from . import common
from .common import READY, WJ_CONFIG, check, log
from .update import menu_confirm_install, rauc_status, wait_audit
from .vm import VM

STATE = ("cat /proc/cmdline; echo; findmnt -no SOURCE,TARGET /etc/rauc/system.conf; "
         "grep -E '^(bootloader|bootloader-custom-backend)=' /etc/rauc/system.conf")


def pi5_rollback(img, sticks, versions):
    card = os.path.join(common.WORK, "pi5-card.img")
    subprocess.run(["cp", "--sparse=always", img, card], check=True)
    vm = VM(card, "pi5", firmware="pi5")
    try:
        t, detail = vm.wait_ready("pi5")
        rc, state = vm.sh(STATE)
        st = rauc_status(vm)
        console = vm.console_text()
        check("Pi 5 (its firmware emulated on -M virt): the card starts slot A's kernel from config.txt's [pi5] "
              "(os_prefix wordjudge-a/, no U-Boot), kiosk READY; RAUC drives the firmware's A/B "
              "(etc-rauc-system.conf.mount: bootloader=custom, rauc-pi-tryboot), booted A, A primary",
              t and vm.pi5_starts == [("config.txt", "wordjudge-a/")] and b"U-Boot" not in console
              and "rauc.slot=A" in state and "bootloader=custom" in state and "rauc-pi-tryboot" in state
              and st.get("booted") == "A" and st.get("boot_primary") == "rootfs.0",
              f"{detail}; starts {vm.pi5_starts}; booted {st.get('booted')}, primary {st.get('boot_primary')}; "
              + state.replace("\n", " | ")[-400:])
        if not t:
            return
        n_ready = vm.console_text().count(READY)
        entered = menu_confirm_install(vm, "upd8", sticks["WJPANIC"], "WJPANIC")
        if entered is None:
            check(f"Pi 5: Install update {versions['panic']} from the director menu", False, "the stick was not seen")
            return
        # Hands off: the kiosk restarts the station; the emulated firmware reads tryboot.txt
        # once, the kernel panics (panic=10 resets the board), config.txt again: READY on A.
        t_back = vm.wait_console(READY, count=n_ready + 1, timeout=900)
        console = vm.console_text()
        panics = console.count(b"Kernel panic")
        rc, state = vm.sh(STATE) if t_back else (1, "")
        check("Pi 5, hands off after the install: the firmware read tryboot.txt once (slot B, its one try), the "
              "kernel panicked and reset the board, the firmware read config.txt (slot A), kiosk READY",
              t_back and vm.pi5_starts == [("config.txt", "wordjudge-a/"), ("tryboot.txt", "wordjudge-b/"),
                                           ("config.txt", "wordjudge-a/")]
              and panics == 1 and "rauc.slot=A" in state,
              f"starts {vm.pi5_starts}; kernel panics on the console: {panics}; "
              f"READY again {round(t_back - (entered - vm.started)) if t_back else 'never'} s after the director confirmed")
        if not t_back:
            return
        # The kiosk turns the boot check's record into update_outcome at its next start.
        wait_audit(vm, "update_outcome", 1, 240)
        rc, out = vm.sh("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -F '\"event\":\"update_outcome\"'")
        outcomes = [l for l in out.splitlines() if l.strip()]
        st = rauc_status(vm)
        states = {k: v.get("boot_status") for s in st.get("slots", []) for k, v in s.items()}
        rc, after = vm.sh("ls /boot/pi; journalctl -b -t wordjudge-boot-check -o cat --no-pager | head -n4")
        check(f"Pi 5: the rollback is recorded once (audit update_outcome rolled-back, slot B, release {versions['panic']}); "
              "B is marked bad, A stays primary, tryboot.txt is gone from the card",
              len(outcomes) == 1 and "rolled-back" in outcomes[0] and versions["panic"] in outcomes[0]
              and '"slot":"B"' in outcomes[0] and st.get("boot_primary") == "rootfs.0"
              and states.get("rootfs.1") == "bad" and "tryboot.txt" not in after.split(),
              f"{outcomes[-1][-200:] if outcomes else 'no update_outcome'}; primary {st.get('boot_primary')}, "
              f"states {states}; {after.replace(chr(10), ' | ')[-500:]}")
        rc, verify = vm.sh(f"{WJ_CONFIG} audit verify >/dev/null 2>&1; echo rc=$?")
        check("Pi 5: the audit log verifies after the rollback", verify.strip().endswith("rc=0"), verify[-80:])
        log(f"Pi 5 (emulated firmware): starts {vm.pi5_starts}")
    finally:
        vm.kill()
        if os.path.exists(card):
            os.unlink(card)
