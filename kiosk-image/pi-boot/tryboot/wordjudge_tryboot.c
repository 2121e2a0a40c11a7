// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wordjudge_tryboot: lets Debian's kernel set the Raspberry Pi firmware's one-shot
 * "tryboot" flag, so that the next boot (and only the next) reads tryboot.txt instead of
 * config.txt from the boot partition. The Pi card's A/B update on the Pi 5 family uses it
 * to try a new slot once, counted by the firmware before any kernel runs: a slot whose
 * kernel panics or hangs is left by the next reset, which reads config.txt again.
 *
 * Why a module of ours: Raspberry Pi's own kernel sends the flag from its firmware driver
 * when the reboot argument holds " tryboot"; the mainline driver, which Debian's kernel
 * carries, does not (the series "firmware: raspberrypi: Add support for the tryboot
 * mode" was reviewed upstream and has not landed). The mainline driver does export the
 * property call, so this module is a thin parameter over it and drops out the day the
 * kernel does it itself (docs/decisions/2026-11-28-pi5-firmware-tryboot.md).
 *
 * Interface: /sys/module/wordjudge_tryboot/parameters/tryboot (root only)
 *   write 1   the next boot reads tryboot.txt, once (SET_REBOOT_FLAGS = 1)
 *   write 0   the next boot reads config.txt (SET_REBOOT_FLAGS = 0)
 *   read      the flag as the firmware holds it now (GET_REBOOT_FLAGS)
 * Whether the running boot was a try is the firmware's own answer in the device tree:
 * /proc/device-tree/chosen/bootloader/tryboot.
 *
 * Loading fails with ENODEV on a machine without the Raspberry Pi firmware (a PC, QEMU's
 * virt board): there is no flag to set, and the caller must know it.
 *
 * Built by kiosk-image/customize.sh against the kernel the image ships (Kbuild beside).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <soc/bcm2835/raspberrypi-firmware.h>

/* The firmware's property tags (raspberrypi/firmware wiki, "Mailbox property
 * interface"; the Raspberry Pi kernel's raspberrypi-firmware.h). Named here: the
 * mainline header does not list them. */
#define WJ_GET_REBOOT_FLAGS 0x00030064
#define WJ_SET_REBOOT_FLAGS 0x00038064
#define WJ_REBOOT_FLAG_TRYBOOT 0x1

/* One property call, with the firmware looked up each time: a parameter given on
 * modprobe's command line is set before this module's init has run. */
static int wj_firmware_property(u32 tag, u32 *value)
{
	struct device_node *node = rpi_firmware_find_node();
	struct rpi_firmware *fw;
	int ret;

	if (!node)
		return -ENODEV;
	fw = rpi_firmware_get(node);
	of_node_put(node);
	if (!fw)
		return -EAGAIN; /* the firmware driver has not bound yet */
	ret = rpi_firmware_property(fw, tag, value, sizeof(*value));
	rpi_firmware_put(fw);
	return ret;
}

static int wj_tryboot_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	u32 flags;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	flags = on ? WJ_REBOOT_FLAG_TRYBOOT : 0;
	ret = wj_firmware_property(WJ_SET_REBOOT_FLAGS, &flags);
	if (ret) {
		pr_err("wordjudge_tryboot: the firmware did not take the flag: %d\n", ret);
		return ret;
	}
	pr_info("wordjudge_tryboot: the next boot reads %s\n", on ? "tryboot.txt, once" : "config.txt");
	return 0;
}

static int wj_tryboot_get(char *buf, const struct kernel_param *kp)
{
	u32 flags = 0;
	int ret = wj_firmware_property(WJ_GET_REBOOT_FLAGS, &flags);

	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", (flags & WJ_REBOOT_FLAG_TRYBOOT) ? 1 : 0);
}

static const struct kernel_param_ops wj_tryboot_ops = {
	.set = wj_tryboot_set,
	.get = wj_tryboot_get,
};
module_param_cb(tryboot, &wj_tryboot_ops, NULL, 0600);
MODULE_PARM_DESC(tryboot, "1: the next boot reads tryboot.txt once; 0: config.txt");

static int __init wj_tryboot_init(void)
{
	struct device_node *node = rpi_firmware_find_node();

	if (!node)
		return -ENODEV;
	of_node_put(node);
	return 0;
}

static void __exit wj_tryboot_exit(void)
{
}

module_init(wj_tryboot_init);
module_exit(wj_tryboot_exit);
MODULE_DESCRIPTION("The Raspberry Pi firmware's one-shot tryboot flag, for wordjudge's A/B boot");
MODULE_AUTHOR("wordjudge");
MODULE_LICENSE("GPL");
