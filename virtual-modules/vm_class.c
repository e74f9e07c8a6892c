// SPDX-License-Identifier: MIT
// Protocol id -> class handler table.
#include "virtual-modules/vm_class.h"

#include "greybus/gb_protocols.h"

static const vm_class_ops *const classes[] = {
    &vm_gpio_class,     &vm_i2c_class,      &vm_uart_class,  &vm_loopback_class,
    &vm_power_supply_class, &vm_vibrator_class, &vm_light_class, &vm_hid_class,
    &vm_pwm_class,      &vm_log_class,      &vm_raw_class,   &vm_spi_class,
    &vm_bootrom_class,  &vm_fw_download_class, &vm_fw_mgmt_class,
    &vm_cap_class,
    &vm_sdio_class,
    &vm_usb_class,      &vm_camera_class,
    &vm_audio_mgmt_class, &vm_audio_data_class,
};

const vm_class_ops *vm_class_find(uint8_t protocol)
{
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (classes[i]->protocol == protocol)
            return classes[i];
    return NULL;
}
