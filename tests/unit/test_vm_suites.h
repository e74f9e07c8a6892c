// SPDX-License-Identifier: MIT
// The test tables of the virtual-module unit test binary (one per file).
#ifndef GBVP_TESTS_UNIT_TEST_VM_SUITES_H
#define GBVP_TESTS_UNIT_TEST_VM_SUITES_H

#include "tests/unit/unit.h"

extern const unit_test vmt_interface_tests[];
extern const unit_test vmt_behaviour_tests[];
extern const unit_test vmt_gpio_tests[];
extern const unit_test vmt_i2c_tests[];
extern const unit_test vmt_loopback_tests[];
extern const unit_test vmt_power_supply_tests[];
extern const unit_test vmt_uart_tests[];
extern const unit_test vmt_hid_tests[];
extern const unit_test vmt_light_tests[];
extern const unit_test vmt_vibrator_tests[];
extern const unit_test vmt_robustness_tests[];
extern const unit_test vmt_commands_tests[];
extern const unit_test vmt_pwm_tests[];
extern const unit_test vmt_lograw_tests[];
extern const unit_test vmt_spi_tests[];
extern const unit_test vmt_spi_nor_tests[];
extern const unit_test vmt_firmware_tests[];
extern const unit_test vmt_sdio_tests[];
extern const unit_test vmt_usb_tests[];
extern const unit_test vmt_camera_tests[];
extern const unit_test vmt_audio_tests[];

#endif
