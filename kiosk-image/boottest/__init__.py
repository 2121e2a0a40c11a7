"""Boot test of the wordjudge appliance image under QEMU, run by test-boot.sh as
`python3 -m boottest IMAGE [WORK]` (what it checks: main.py; see docs/architecture.md, "The boot test").

Modules, one subject each:
  main     the order of the checks (main) and the totals and exit status (run)
  common   arguments, settings, colours and paths; log, check, the results; host_tool
  vm       JsonSocket (QMP, guest agent); VM, one QEMU run (console, keys, screendumps,
           guest shell, USB hot-plug)
  screens  screendump colours, PNG copies, judging a challenge by its verdict colour
  kiosk    the kiosk service: restarts, escape keys, display drivers, director menu keys
  gpio     the [gpio] config and the GPIO backends (gpio-sim, PL061, no chip)
  sticks   stick images, plugging a stick into a menu item, journal/audit/mount readers
  usb      the USB parts in order (import, switch, pull, restart) and the clean-up
  export   "Export the audit log to USB" to ext4 (verified on the host) and exFAT
  picard   the Pi card checked in the image: boot files per model, Pi 5 trees, initrd, RP1 GPIO
  pi4      the Pi card on QEMU's Pi 4 board model (-M raspi4b)
"""
