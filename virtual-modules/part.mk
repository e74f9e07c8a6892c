# SPDX-License-Identifier: MIT
# virtual-modules/: module and interface models: manifests (text and binary readers,
# writers, checks), behaviour files, the control protocol and the class protocols with
# their backends, the backend command table, the module catalog.
VM_MANIFEST_SRCS := virtual-modules/manifest.c virtual-modules/manifest_binary.c \
	virtual-modules/manifest_check.c virtual-modules/manifest_diag.c \
	virtual-modules/manifest_ini.c virtual-modules/manifest_text.c \
	virtual-modules/manifest_text_write.c
VM_SRCS := $(VM_MANIFEST_SRCS) virtual-modules/vm_error.c virtual-modules/behaviour.c \
	virtual-modules/dme.c virtual-modules/vm_interface.c virtual-modules/control.c \
	virtual-modules/vm_class.c virtual-modules/gpio.c virtual-modules/i2c.c \
	virtual-modules/uart.c virtual-modules/uart_pty.c virtual-modules/loopback.c \
	virtual-modules/power_supply.c virtual-modules/vibrator.c virtual-modules/light.c \
	virtual-modules/hid.c virtual-modules/pwm.c virtual-modules/log_protocol.c virtual-modules/raw.c \
	virtual-modules/spi.c virtual-modules/spi_nor.c virtual-modules/fw_image.c virtual-modules/bootrom.c \
	virtual-modules/fw_download.c virtual-modules/fw_mgmt.c virtual-modules/authentication.c \
	virtual-modules/vm_module.c virtual-modules/backend_cmd.c virtual-modules/vm_reply.c virtual-modules/vm_store.c \
	virtual-modules/sd_card.c virtual-modules/sdio.c \
	virtual-modules/usb.c virtual-modules/camera.c \
	virtual-modules/audio.c virtual-modules/audio_data.c virtual-modules/audio_stream.c \
	virtual-modules/audio_topology.c
$(eval $(call library,vm,$(VM_SRCS)))
