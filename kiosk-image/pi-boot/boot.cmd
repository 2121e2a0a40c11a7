# wordjudge: the Raspberry Pi card's A/B boot, counted before the kernel runs.
#
# The Pi firmware loads U-Boot (config.txt: kernel=u-boot.bin) with the device tree it
# prepared (overlays applied, the command line of cmdline-pi3.txt, cmdline-pi4.txt, ... in
# /chosen/bootargs); U-Boot's standard boot finds this script on partition 1 (wjboot).
# It chooses a root slot the way RAUC's U-Boot integration expects (system.conf
# bootloader=uboot):
#   BOOT_ORDER    the slots to try, first first ("B A" after an update into B)
#   BOOT_A_LEFT   tries left for slot A; BOOT_B_LEFT for B
# The first slot of BOOT_ORDER with a try left is booted, and its try is spent and
# written back BEFORE its kernel is loaded: a kernel that panics, hangs until the
# watchdog, or loses its power never gets the try back. RAUC's install puts the new slot
# first with one try (boot-attempts-primary=1); the boot check (update/boot-check)
# gives it back its tries with `rauc status mark-good` once the kiosk is READY and the
# audit log verifies, and on every later boot of a good slot.
#
# The counter lives in wjboot.env on partition 1 (16 KiB, U-Boot's environment format
# with its CRC: `env export -c`), written here with fatwrite and on Linux by RAUC
# through fw_setenv (/etc/fw_env.config). Not in U-Boot's own uboot.env: that file is
# U-Boot's whole environment, and a copy holding only the counter would replace it.
# A missing or damaged counter (bad CRC) reads as "A only, 3 tries": the card's first
# slot, which the image build made.
#
# Compiled by the image build: mkimage -A arm64 -T script -C none -d boot.cmd boot.scr
# The same script runs under QEMU's -M virt in the boot test (qemu_arm64 U-Boot, the card
# on virtio), which is why nothing here names the board's devices except below.

# Set by U-Boot's standard boot for the device this script came from; mmc 0 (the SD
# card) when it is run by hand.
test -n "${devtype}" || setenv devtype mmc
test -n "${devnum}" || setenv devnum 0
setenv wj_counter wjboot.env

setenv BOOT_ORDER
setenv BOOT_A_LEFT
setenv BOOT_B_LEFT
if fatload ${devtype} ${devnum}:1 ${loadaddr} ${wj_counter} && env import -c ${loadaddr} ${filesize} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT; then
  echo "wordjudge-boot: counter BOOT_ORDER=${BOOT_ORDER} A=${BOOT_A_LEFT} B=${BOOT_B_LEFT}"
else
  echo "wordjudge-boot: no readable ${wj_counter}: slot A, 3 tries"
fi
test -n "${BOOT_ORDER}" || setenv BOOT_ORDER "A"
test -n "${BOOT_A_LEFT}" || setenv BOOT_A_LEFT 3
test -n "${BOOT_B_LEFT}" || setenv BOOT_B_LEFT 0

# Where the kernel goes. Debian's arm64 Image is about 50 MiB uncompressed: at U-Boot's
# default kernel_addr_r on the Pi (0x80000) it would run over the script, the tree and
# the initrd. At 4 MiB (2 MiB aligned: booti runs it in place) it has 124 MiB below the
# firmware's device tree; the initrd goes at 256 MiB. -M virt's defaults (RAM from
# 1 GiB) already fit.
if test "${board}" = "rpi"; then
  setenv kernel_addr_r 0x00400000
  setenv ramdisk_addr_r 0x10000000
fi

# The root slots' partitions, by GPT name (fixed numbers if this U-Boot cannot look).
part number ${devtype} ${devnum} wjroot-a wj_part_A || setenv wj_part_A 2
part number ${devtype} ${devnum} wjroot-b wj_part_B || setenv wj_part_B 3

setenv slot
for BOOT_SLOT in "${BOOT_ORDER}"; do
  if test -n "${slot}"; then
    # a slot is chosen: the rest of the order waits
  elif test "${BOOT_SLOT}" = "A" -a ${BOOT_A_LEFT} -gt 0; then
    setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1
    setenv slot A
    setenv rootpart ${wj_part_A}
    setenv rootlabel wjroot-a
  elif test "${BOOT_SLOT}" = "B" -a ${BOOT_B_LEFT} -gt 0; then
    setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1
    setenv slot B
    setenv rootpart ${wj_part_B}
    setenv rootlabel wjroot-b
  fi
done

if test -z "${slot}"; then
  # Every slot spent its tries: start over with both (RAUC's convention). Never a dead
  # station: the worst case is a loop of tries, each on the watchdog's clock.
  echo "wordjudge-boot: no slot has a try left; both get 3 again"
  setenv BOOT_A_LEFT 3
  setenv BOOT_B_LEFT 3
  test -n "${BOOT_ORDER}" || setenv BOOT_ORDER "A B"
  env export -c -s 0x4000 ${loadaddr} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
  fatwrite ${devtype} ${devnum}:1 ${loadaddr} ${wj_counter} 0x4000
  reset
fi

# Spend the try now, before anything that can fail.
echo "wordjudge-boot: slot ${slot} (partition ${rootpart}), tries left after this one: A=${BOOT_A_LEFT} B=${BOOT_B_LEFT}"
env export -c -s 0x4000 ${loadaddr} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
if fatwrite ${devtype} ${devnum}:1 ${loadaddr} ${wj_counter} 0x4000; then
  echo "wordjudge-boot: counter written"
else
  echo "wordjudge-boot: the counter could not be written"
fi

# The command line is the firmware's (cmdline-pi3.txt, cmdline-pi4.txt, ...), with the root
# and the slot of the one chosen. No firmware line (U-Boot run by hand): a plain one.
if fdt addr ${fdt_addr} && fdt get value wj_args /chosen bootargs; then
  setexpr wj_args gsub "root=[^ ]+" "root=PARTLABEL=${rootlabel}"
  setexpr wj_args gsub "rauc.slot=[^ ]+" "rauc.slot=${slot}"
else
  setenv wj_args "console=tty1 root=PARTLABEL=${rootlabel} rauc.slot=${slot} ro rootwait panic=10"
fi
setenv bootargs "${wj_args}"

# The slot's own kernel and initrd, from its root (the kernel hook keeps them in
# /boot/firmware); the device tree stays the firmware's. A load that fails resets: the
# try is already spent, so the next start moves on.
if load ${devtype} ${devnum}:${rootpart} ${kernel_addr_r} /boot/firmware/vmlinuz; then
  if load ${devtype} ${devnum}:${rootpart} ${ramdisk_addr_r} /boot/firmware/initrd.img; then
    booti ${kernel_addr_r} ${ramdisk_addr_r}:${filesize} ${fdt_addr}
  fi
fi
echo "wordjudge-boot: slot ${slot} could not be started; resetting"
reset
