// SPDX-License-Identifier: MIT
// The virtual-module unit test binary: one suite per test file.
#include "tests/unit/test_vm_suites.h"

int main(int argc, char **argv)
{
    const unit_suite suites[] = {
        {"vm_interface", vmt_interface_tests, 0, 0},
        {"vm_behaviour", vmt_behaviour_tests, 0, 0},
        {"vm_gpio", vmt_gpio_tests, 0, 0},
        {"vm_i2c", vmt_i2c_tests, 0, 0},
        {"vm_loopback", vmt_loopback_tests, 0, 0},
        {"vm_power_supply", vmt_power_supply_tests, 0, 0},
        {"vm_uart", vmt_uart_tests, 0, 0},
        {"vm_hid", vmt_hid_tests, 0, 0},
        {"vm_light", vmt_light_tests, 0, 0},
        {"vm_vibrator", vmt_vibrator_tests, 0, 0},
        {"vm_robustness", vmt_robustness_tests, 0, 0},
        {"vm_commands", vmt_commands_tests, 0, 0},
        {"vm_pwm", vmt_pwm_tests, 0, 0},
        {"vm_lograw", vmt_lograw_tests, 0, 0},
        {"vm_spi", vmt_spi_tests, 0, 0},
        {"vm_spi_nor", vmt_spi_nor_tests, 0, 0},
        {"vm_firmware", vmt_firmware_tests, 0, 0},
        {"vm_sdio", vmt_sdio_tests, 0, 0},
        {"vm_usb", vmt_usb_tests, 0, 0},
        {"vm_camera", vmt_camera_tests, 0, 0},
        {"vm_audio", vmt_audio_tests, 0, 0},
        UNIT_SUITES_END,
    };
    return unit_run(suites, argc, argv);
}
