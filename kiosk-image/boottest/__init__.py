"""Boot test of the wordjudge appliance image under QEMU, run by test-boot.sh as
`python3 -m boottest IMAGE [WORK]` (what it checks: main.py; see docs/architecture.md, "The boot test").

Modules, one subject each:
  main     the order of the checks (main) and the totals and exit status (run)
  common   arguments, settings, colours and paths; log, check, the results; host_tool
  vm       JsonSocket (QMP, guest agent); VM, one QEMU run (console, keys, screendumps,
           guest shell, USB hot-plug)
  screens  screendump colours, PNG copies, judging a challenge by its verdict colour
  kiosk    the kiosk service: restarts, escape keys, display drivers, director menu keys
           (its pages by row, a confirmation's ENTER after its 0.6 s guard, leaving it)
  gpio     the [gpio] config and the GPIO backends (gpio-sim, PL061, no chip)
  sticks   stick images, plugging a stick in and choosing its entry on the menu's USB stick
           page, journal/audit/mount readers
  usb      the USB parts in order (import, switch, pull, restart) and the clean-up
  export   "Export the audit log to ..." to ext4 (verified on the host) and exFAT
  fleet    nothing listens off the loopback; the event's fleet: join (confirmed; the station key code
           the station shows is the laptop's, and `fleet sign` needs it), send, leave
  update   A/B updates (RAUC) tested the way they break: bundles made here and refused,
           installs cut short, installs from the menu's USB stick page, rollbacks
  pifirmware  what the Pi firmware does at power-on, for the runs that cannot run it
  picard   the Pi card checked in the image: boot files per model, Pi 5 trees, initrd, RP1 GPIO
  pi3      the same card on QEMU's Pi 3 board model (-M raspi3b)
  pi4      the Pi card on QEMU's Pi 4 board model (-M raspi4b)
  pi5      the Pi card as the Pi 5 family starts it (no U-Boot, the firmware's one-shot try),
           on -M virt with the Pi 5 firmware emulated (pifirmware.pi5_start)
"""
