"""The kiosk as a running service: its process and restarts (READY again on the console),
the keys players must not be able to escape with (Ctrl+Alt+Del, SysRq, VT switches, the
Power and Sleep keys), the display drivers the image claims, and the director menu's keys
(open it with the PIN, open a page or an entry by its row, confirm a change, leave it)."""
import json
import time

from .common import DISPLAY_DRIVERS_LOADED, KEY_CODES_DELIVERED, NAVY, READY, check
from .screens import expect_ready, hexc, near


def kiosk_pid(vm):
    """The kiosk's main PID as systemd reports it ("0" while it is not running)."""
    rc, out = vm.sh("systemctl show -P MainPID wordjudge")
    return out.strip()


def ready_after(vm, script="systemctl restart wordjudge", timeout=90):
    """Runs `script` in the guest (something that restarts the kiosk), then waits for the next
    READY line on the console. Returns (seconds since power-on or None, when the script returned)."""
    n_ready = vm.console_text().count(READY)
    vm.sh(script)
    sent = time.monotonic()
    return vm.wait_console(READY, count=n_ready + 1, timeout=timeout), sent


def boot_state(vm):
    """(boot id, kiosk pid, whether the system is running)."""
    rc, out = vm.sh("cat /proc/sys/kernel/random/boot_id; systemctl show -P MainPID wordjudge; systemctl is-system-running")
    parts = out.split() + ["?", "?", "?"]
    return parts[0], parts[1], parts[2]


def reboot_keys(vm):
    """Players' keyboard: Ctrl+Alt+Del and Alt+SysRq+B must not reboot, Ctrl+Alt+F2 must
    not take the screen away from the kiosk."""
    def combo(*keys):
        vm.chord(*keys)
        time.sleep(1.5)
    rc, before = vm.sh("cat /proc/sys/kernel/random/boot_id; systemctl show -P MainPID wordjudge")
    n_ready = vm.console_text().count(READY)
    combo("ctrl", "alt", "delete")
    combo("alt", "sysrq", "b")
    vm.wait_screen(NAVY, "after-ctrl-alt-del", timeout=20)
    rc, after = vm.sh("cat /proc/sys/kernel/random/boot_id; systemctl show -P MainPID wordjudge; "
                      "systemctl is-active wordjudge; cat /proc/sys/kernel/sysrq")
    b_id, b_pid = before.split()
    a_vals = after.split()
    check("Ctrl+Alt+Del and Alt+SysRq+B do not reboot (ctrl-alt-del.target masked, kernel.sysrq=0); kiosk on screen",
          a_vals[0] == b_id and a_vals[2:] == ["active", "0"], f"boot id kept: {a_vals[0] == b_id}, kiosk {a_vals[2:3]}, sysrq {a_vals[3:]}")
    combo("ctrl", "alt", "backspace")
    vm.wait_screen(NAVY, "after-ctrl-alt-backspace", timeout=20)
    pid_now = kiosk_pid(vm)
    # Slint's linuxkms backend quits its event loop on these; the kiosk swallows them.
    check("Ctrl+Alt+Del and Ctrl+Alt+Backspace do not end the kiosk (same process)",
          a_vals[1] == b_pid and pid_now == b_pid, f"pid {b_pid} -> {a_vals[1]} -> {pid_now}")
    if pid_now != b_pid:
        vm.wait_console(READY, count=n_ready + 1, timeout=30)
    combo("ctrl", "alt", "f2")
    colour, share = vm.screen("after-ctrl-alt-f2")
    rc, vt = vm.sh("cat /sys/class/tty/tty0/active")
    check("Ctrl+Alt+F2 leaves the kiosk on screen", near(colour, NAVY), f"active VT {vt}, screen {hexc(colour)} on {share:.0%}")
    combo("ctrl", "alt", "f1")


def escape_keys(vm):
    """Ctrl+Alt+Del 10 times within 2 s (systemd's burst would reboot), then the
    keyboard's Power and Sleep keys: the station neither reboots nor sleeps."""
    before = boot_state(vm)
    rc, since = vm.sh("date +%s")
    for _ in range(10):
        vm.chord("ctrl", "alt", "delete", hold=20)
        time.sleep(0.08)
    time.sleep(3)
    after = boot_state(vm)
    check("Ctrl+Alt+Del 10 times in 1.5 s: no reboot, same kiosk (CtrlAltDelBurstAction=none)",
          after[0] == before[0] and after[1] == before[1],
          f"boot id kept: {after[0] == before[0]}, kiosk pid {before[1]} -> {after[1]}, system {after[2]}")
    # Record what the kernel delivers (every input device, as evdev events), to show the
    # keys really arrived; logind itself opens no button at all when every Handle*Key=
    # is "ignore" (manager_all_buttons_ignored), which is the strongest form of ignoring.
    vm.sh("for e in /dev/input/event*; do (timeout 25 cat $e > /run/keys-${e##*/} 2>/dev/null &); done; true")
    time.sleep(0.5)
    for key in ("power", "sleep"):
        vm.keys(key)
        time.sleep(3)
    # The board's own power button (ACPI on the PC, the virt board's PL061 line 3 through
    # gpio-keys on arm64): the same KEY_POWER, which logind is sure to watch.
    vm.qmp.call("system_powerdown")
    time.sleep(4)
    # struct input_event as 12 u16: type, code, value at 9, 10, 11; EV_KEY = 1, press = 1.
    rc, seen = vm.sh("for f in /run/keys-event*; do od -An -tu2 -w24 -v $f | awk '$9==1 && $11==1 {print $10}'; done | sort -un | tr '\\n' ' '")
    codes = seen.split()
    login1 = "busctl get-property org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager"
    rc, pm = vm.sh(f"journalctl --since=@{since.strip()} -k --no-pager -o cat | grep -ciE 'PM: suspend entry|PM: hibernation' ; "
                   f"{login1} HandlePowerKey; {login1} HandleSuspendKey; {login1} HandleHibernateKey")
    after = boot_state(vm)
    lines = pm.split("\n")
    colour, share = vm.screen("after-power-sleep-keys")
    check("Power and Sleep keys and the power button arrive (evdev), and nothing powers off or sleeps (logind Handle*Key=ignore); kiosk on screen",
          after[0] == before[0] and after[1] == before[1] and lines[0].strip() == "0" and near(colour, NAVY)
          and all(code in codes for code in KEY_CODES_DELIVERED),
          f"key codes the kernel delivered: {' '.join(codes) or 'none'} (want {' '.join(KEY_CODES_DELIVERED)}: KEY_POWER 116, KEY_SLEEP 142); suspend entries {lines[0]}; "
          f"{' '.join(l.strip() for l in lines[1:])}; boot id kept: {after[0] == before[0]}; screen {hexc(colour)}")


def display_drivers(vm):
    """The display drivers the image claims load, with no unresolved symbol."""
    script = ("dmesg -C; fails=''; for m in " + " ".join(DISPLAY_DRIVERS_LOADED) + "; do "
              "modprobe $m 2>&1 || fails=\"$fails $m\"; done; "
              "echo loaded: $(for m in " + " ".join(DISPLAY_DRIVERS_LOADED) + "; do lsmod | grep -q \"^$m \" && echo $m; done); "
              "echo failed:$fails; echo unknown-symbols: $(dmesg | grep -c 'Unknown symbol')")
    rc, out = vm.sh(script, timeout=180)
    loaded = out.split("loaded:")[-1].split("\n")[0].split()
    ok = sorted(loaded) == sorted(DISPLAY_DRIVERS_LOADED) and "unknown-symbols: 0" in out
    check(f"display drivers load without unresolved symbols: {' '.join(DISPLAY_DRIVERS_LOADED)}", ok, out.replace("\n", " | ")[-400:])


def kiosk_killed(vm):
    """SIGKILL: systemd restarts the kiosk (Restart=)."""
    pid1 = kiosk_pid(vm)
    t, t_kill = ready_after(vm, "systemctl kill -s KILL wordjudge", timeout=60)
    rc, pid2 = vm.sh("systemctl show -P MainPID wordjudge; systemctl show -P NRestarts wordjudge")
    check("SIGKILLed kiosk is restarted by systemd (READY again)", t and pid2.split()[0] not in ("0", pid1),
          f"pid {pid1} -> {pid2.split()[0]}, NRestarts={pid2.split()[-1]}, READY again {time.monotonic() - t_kill:.1f} s after the kill")


def kiosk_frozen(vm):
    """SIGSTOP: the kiosk stops pinging the watchdog; systemd kills and restarts it."""
    pid = kiosk_pid(vm)
    t, t_stop = ready_after(vm, f"kill -STOP {pid}", timeout=60)
    rc, out = vm.sh("journalctl -b -u wordjudge --no-pager | grep -ci 'watchdog timeout'")
    check("frozen kiosk (SIGSTOP) is killed by the watchdog and restarted", t and int(out or 0) >= 1,
          f"READY again {time.monotonic() - t_stop:.1f} s after SIGSTOP; journal 'watchdog timeout' lines: {out}")


def open_director_menu(vm):
    """Ctrl+Alt+Shift+D, then the PIN 2468 and Enter: the menu's first page, its cursor on
    entry 0."""
    vm.wait_screen(NAVY, "ready", timeout=15)
    vm.chord("ctrl", "alt", "shift", "d")
    time.sleep(1)
    vm.keys("2", "4", "6", "8", "ret")
    time.sleep(2)


# The director menu's first page on the appliance (settings not damaged), in order; "USB
# stick" is there only while a stick is plugged in (or an update bundle is offered).
FIRST_PAGE = ("status", "lexicon", "usb", "fleet", "settings", "power", "leave")


def first_page_row(entry, stick):
    """The row of `entry` (a FIRST_PAGE name) on the director menu's first page, with or
    without a stick plugged in: 0 Station status, 1 Lexicon and event rule, [2 USB stick],
    then Event fleet, Station settings, Restart or power off, Leave the director menu."""
    rows = [e for e in FIRST_PAGE if stick or e != "usb"]
    return rows.index(entry)


def menu_choose(vm, row):
    """On a director-menu page (every page opens with its cursor on entry 0): Down `row`
    times and ENTER, which opens that entry's page, its stick work, its preview or its
    confirmation. A negative row counts from the page's end (-1 its last entry): 12 Downs
    (more than the first page's entries; the cursor stops at the last one), then Up."""
    if row >= 0:
        moves = ["down"] * row
    else:
        moves = ["down"] * 12 + ["up"] * (-row - 1)
    vm.keys(*moves, "ret", gap=0.1)
    time.sleep(1)


def menu_open_page(vm, entry, stick=False):
    """From the director menu's first page (cursor on entry 0), opens the page `entry`
    (a FIRST_PAGE name; `stick`: whether a stick is plugged in, which adds "USB stick")."""
    menu_choose(vm, first_page_row(entry, stick))


def menu_confirm(vm):
    """On a confirmation screen just opened: waits 1.5 s (it ignores ENTER for its first
    0.6 s, and QEMU is slow), then ENTER, which makes the change it names."""
    time.sleep(1.5)
    vm.keys("ret")
    time.sleep(1)


def leave_to_ready(vm, presses=2):
    """ESC `presses` times, a second apart (ESC on a page goes back to the first page, ESC
    on the first page leaves the menu; any key leaves a stick's result screen for its
    page), then waits for the Ready screen."""
    for _ in range(presses):
        vm.keys("esc")
        time.sleep(1)
    expect_ready(vm, "not back on the Ready screen")


# Keys that type the clock prompt's characters (QMP qcodes; ':' is Shift+;).
CLOCK_KEYS = {"-": ("minus",), " ": ("spc",), ":": ("shift", "semicolon")}


def director_sets_clock(vm, ahead=7200):
    """Station settings, "Set the clock", as a director does it in a hall without network:
    the prompt starts from the station's time (the first key typed replaces it); the time
    `ahead` seconds on (in UTC, the image's zone and the station's unless a director chose
    another), ENTER, and ENTER at the confirmation. The kiosk asks systemd-timedated (polkit),
    though systemd-timesyncd runs. Checks the guest's clock moved and the audit's records of
    the setting and of the jump it caused, then leaves the menu. Ends on the Ready screen."""
    rc, out = vm.sh("date -u +%s; timedatectl show -P NTP")
    parts = out.split()
    before = int(parts[0])
    wanted = before + ahead
    typed = time.strftime("%Y-%m-%d %H:%M", time.gmtime(wanted))
    open_director_menu(vm)
    menu_open_page(vm, "settings")
    menu_choose(vm, 2)  # 0 Back, 1 Rename the station, 2 Set the clock
    vm.screen("director-clock-prompt")
    for ch in typed:
        vm.chord(*CLOCK_KEYS.get(ch, (ch,)), hold=40)
        time.sleep(0.08)
    vm.keys("ret")
    time.sleep(1)
    vm.screen("director-clock-confirm")
    menu_confirm(vm)
    sent = time.monotonic()
    rc, out = vm.sh("date -u +%s")
    after = int(out.strip() or 0)
    # The clock reads the typed minute plus the seconds since ENTER (and up to a minute
    # lost to the prompt's minutes).
    expected = (wanted // 60) * 60 + (time.monotonic() - sent)
    check("director menu sets the clock (timedatectl set-time through polkit, timesyncd running)",
          abs(after - expected) < 90,
          f"typed {typed} UTC; guest clock {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(after))} UTC, "
          f"{after - before:+d} s; NTP unit as timedated sees it: {parts[1:] or ['?']}")
    rc, lines = vm.sh("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -E '\"event\":\"(setting_changed|setting_refused|clock_jumped)\"'")
    records = [json.loads(l) for l in lines.splitlines() if l.startswith("{")]
    setting = [r for r in records if r.get("setting") == "clock"]
    jumps = [r for r in records if r["event"] == "clock_jumped" and "director" in (r.get("cause") or "")]
    check("the clock setting and its jump are audit records (setting_changed clock, clock_jumped by the director)",
          setting and setting[-1]["event"] == "setting_changed" and setting[-1].get("value") == typed and jumps
          and abs(jumps[-1]["seconds"] - ahead) < 180,
          f"last clock setting {setting[-1] if setting else None}; director's jumps {[j['seconds'] for j in jumps]}")
    leave_to_ready(vm)
