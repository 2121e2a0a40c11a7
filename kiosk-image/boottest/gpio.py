"""The GPIO character-device backend against a real kernel GPIO chip: the kernel's gpio-sim
where it has one, else the arm64 virt board's PL061, else (the PC) a wired [gpio] on a
machine without a chip. Owns the station config's [gpio] table (set it, restart the
kiosk, put the config back) and the one press-the-button-and-read-the-lamps check both
chips run."""
import os
import time

from .common import CONFIG, GREEN, NAVY, RED, check
from .kiosk import ready_after
from .screens import judge_and_check, near

GPIO_SIM = "/sys/kernel/config/gpio-sim/wordjudge"


def wire_gpio_command(table):
    """The shell command that adds keys to the station config's [gpio] table (the kiosk
    writes one; a second table would be a broken config), keeping the file aside in
    /run/config.toml.before-gpio, and restarts the kiosk (-M virt and the Pi 4 model)."""
    lines = "\\n".join(table).replace('"', '\\"')
    return (f"cp -p {CONFIG} /run/config.toml.before-gpio && printf \"{lines}\\n\" > /run/gpio-lines && "
            f"if grep -qx '\\[gpio\\]' {CONFIG}; then sed -i '/^\\[gpio\\]$/r /run/gpio-lines' {CONFIG}; "
            f"else printf '\\n[gpio]\\n' >> {CONFIG}; cat /run/gpio-lines >> {CONFIG}; fi; "
            "systemctl restart wordjudge")


def restart_with_gpio(vm, table):
    """wire_gpio_command, then waits for READY."""
    t, _ = ready_after(vm, wire_gpio_command(table))
    rc, desc = vm.sh("journalctl -b -u wordjudge --no-pager -o cat | grep -E 'judge button and lamps:|config problem' | tail -n1")
    return t, desc


def restore_config(vm):
    ready_after(vm, f"cp -p /run/config.toml.before-gpio {CONFIG} && systemctl restart wordjudge")


def gpio_chardev(vm):
    """The GPIO character-device backend, end to end, on a real kernel GPIO chip.

    Debian's 6.1 kernels are built without gpio-sim and gpio-mockup (CONFIG_GPIO_SIM and
    CONFIG_GPIO_MOCKUP are not set), so where gpio-sim is missing the nearest real thing
    is used: on arm64, the virt board's PL061 GPIO controller (kernel driver pl061, the
    same gpiolib and character device as the Pi's pinctrl-bcm2711). Its line 3 is wired
    by QEMU to the board's power button: QMP system_powerdown pulses it high for 100 ms,
    a real edge with a kernel interrupt. gpio-keys is unbound from it first, lines 0-2
    become the lamps, and the kernel reads their levels back (debugfs /sys/kernel/debug/gpio).
    The PC has no GPIO chip at all: there the check is that a wired [gpio] on a machine
    without one leaves the kiosk judging and says why."""
    rc, how = vm.sh("if modprobe gpio-sim 2>/dev/null; then echo gpio-sim; "
                    "else ls -d /sys/bus/amba/devices/*pl061 /sys/bus/platform/devices/*pl061 2>/dev/null | head -n1 | grep . || echo none; fi")
    how = how.strip()
    if how == "gpio-sim":
        gpio_sim(vm)
    elif how.endswith("pl061"):
        gpio_pl061(vm, how)
    else:
        t, desc = restart_with_gpio(vm, ["judge_button = { bcm = 17 }", "green_lamp = { bcm = 22 }"])
        ok = judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE (keyboard) with [gpio] wired and no GPIO chip")
        check("no GPIO chip on this machine (no gpio-sim, no PL061): [gpio] wired -> kiosk judges from the keyboard and says why",
              t and ok and "no GPIO chip" in desc, desc[-160:])
        restore_config(vm)


def debugfs_levels(vm, chip, offsets):
    """Levels ('hi'/'lo') of requested lines, as the kernel reads them from the chip."""
    rc, out = vm.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; cat /sys/kernel/debug/gpio")
    levels, base, inside = {}, None, False
    for line in out.splitlines():
        if line.startswith("gpiochip"):
            inside = line.startswith(chip + ":")
            if inside:
                base = int(line.split("GPIOs ")[1].split("-")[0])
        elif inside and line.strip().startswith("gpio-"):
            num = int(line.strip().split()[0][5:])
            levels[num - base] = line.split()[-1] if line.split()[-1] in ("hi", "lo") else line.split()[-2]
    return [levels.get(o, "?") for o in offsets]


def gpio_press_and_read(vm, words, want, label, press, lamps):
    """Types the challenge without TAB, presses the judge button with `press`, and
    returns (verdict colour right, lamp levels during the verdict, lamp levels after)."""
    vm.wait_screen(NAVY, "gpio-ready", timeout=15)
    vm.type_words(*words)
    time.sleep(0.5)
    press()
    colour, share = vm.wait_screen(want, f"gpio-{label}", timeout=10)
    during = lamps()
    time.sleep(0.6)
    vm.keys("esc")
    vm.wait_screen(NAVY, "gpio-ready", timeout=15)
    time.sleep(0.3)
    return near(colour, want), during, lamps()


def button_and_lamps(vm, press, lamps, on, off, names):
    """The judge button and the lamps, whichever chip they are on: `press()` presses the
    button, `lamps()` reads the green, red and service lamp lines, which read `on`/`off`.
    CAT judged by the button (green, the record says button; green lamp on during, all off
    after), then XYZZYQ (red; red lamp on during, all off after), one check each of the
    three `names`. Then the station config is put back."""
    cat_name, lamps_name, xyzzyq_name = names
    shown, during, after = gpio_press_and_read(vm, ["CAT"], GREEN, "acceptable", press, lamps)
    rc, record = vm.sh("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep CAT | tail -n1")
    check(cat_name, shown and '"trigger":"button"' in record, f"record: {record[-160:]}")
    check(lamps_name, during == [on, off, off] and after == [off, off, off], f"during {during}, after {after}")
    shown, during, after = gpio_press_and_read(vm, ["XYZZYQ"], RED, "unacceptable", press, lamps)
    check(xyzzyq_name, shown and during == [off, on, off] and after == [off, off, off], f"during {during}, after {after}")
    restore_config(vm)


def gpio_pl061(vm, device):
    rc, chip = vm.sh(f"ls {device}/ | grep -m1 '^gpiochip'")
    device = os.path.basename(device)
    chip = chip.strip()
    vm.sh("for d in /sys/bus/platform/drivers/gpio-keys/*/; do [ -e \"$d/driver\" ] || continue; "
          "echo $(basename $d) > /sys/bus/platform/drivers/gpio-keys/unbind; done; true")
    t, desc = restart_with_gpio(vm, [f'chip = "/dev/{chip}"', "judge_button = { bcm = 3, active_low = false, pull = \"none\" }",
                                     "green_lamp = { bcm = 0 }", "red_lamp = { bcm = 1 }", "service_lamp = { bcm = 2 }"])
    check(f"--gpio auto picks the GPIO character device (no /dev/gpiomem) on the {device} chip and says so",
          t and "GPIO character device" in desc and chip in desc, desc[-220:])

    def press():
        vm.qmp.call("system_powerdown")  # QEMU's gpio-key: PL061 line 3 high for 100 ms

    button_and_lamps(vm, press, lambda: debugfs_levels(vm, chip, [0, 1, 2]), "hi", "lo", (
        "button press on the PL061 line (kernel edge, debounced) in Entry judges CAT: green screen; the record says button",
        "lamp lines read back by the kernel during/after ACCEPTABLE: green hi, red lo, service lo, then all lo",
        "button judges XYZZYQ: red screen; red lamp hi during, all lo after"))


def gpio_sim(vm):
    """The same with the kernel's gpio-sim, where the kernel has it: a 28-line bank."""
    rc, out = vm.sh(
        f"mkdir -p {GPIO_SIM}/bank0 && echo 28 > {GPIO_SIM}/bank0/num_lines && "
        f"echo wordjudge-sim > {GPIO_SIM}/bank0/label && echo 1 > {GPIO_SIM}/live && "
        f"echo $(cat {GPIO_SIM}/dev_name) $(cat {GPIO_SIM}/bank0/chip_name)")
    if rc != 0 or len(out.split()) != 2:
        check("gpio-sim: the kernel's simulated GPIO chip", False, f"exit {rc}: {out}")
        return
    dev, chip = out.split()
    sysfs = f"/sys/devices/platform/{dev}/{chip}"
    t, desc = restart_with_gpio(vm, ['chip = "wordjudge-sim"', "judge_button = { bcm = 17 }", "green_lamp = { bcm = 22 }",
                                     "red_lamp = { bcm = 27 }", "service_lamp = { bcm = 23 }"])
    check("--gpio auto picks the GPIO character device (no /dev/gpiomem) and says so",
          t and "GPIO character device" in desc and chip in desc, desc[-200:])

    def press():
        vm.sh(f"echo pull-down > {sysfs}/sim_gpio17/pull; sleep 0.15; echo pull-up > {sysfs}/sim_gpio17/pull")

    def lamps():
        rc, out = vm.sh(f"cat {sysfs}/sim_gpio22/value {sysfs}/sim_gpio27/value {sysfs}/sim_gpio23/value")
        return out.split()

    button_and_lamps(vm, press, lamps, "1", "0", (
        "gpio-sim button press (pull set low) in Entry judges CAT: green screen; record says button",
        "lamp lines during/after ACCEPTABLE: green 1, red 0, service 0, then all 0",
        "gpio-sim button judges XYZZYQ: red screen; red lamp 1 during, all 0 after"))
