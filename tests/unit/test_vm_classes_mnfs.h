// SPDX-License-Identifier: MIT
// A manifest (text) with a bundle for each class a behaviour file configures: GPIO, I2C and
// UART in a bridged-PHY bundle, loopback, power supply, light, vibrator and HID, on CPorts
// 1..8. Shared by the handler robustness test and the behaviour fuzz target, which append
// to it or use it as it is.
#ifndef GBVP_TESTS_UNIT_TEST_VM_CLASSES_MNFS_H
#define GBVP_TESTS_UNIT_TEST_VM_CLASSES_MNFS_H

#define VMT_CLASSES_MNFS                                                                     \
    "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"                              \
    "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"                  \
    "[string-descriptor 1]\nstring = gbvp\n[string-descriptor 2]\nstring = all\n"            \
    "[bundle-descriptor 1]\nclass = 0x0a\n"                                                  \
    "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x02\n"                                    \
    "[cport-descriptor 2]\nbundle = 1\nprotocol = 0x03\n"                                    \
    "[cport-descriptor 3]\nbundle = 1\nprotocol = 0x04\n"                                    \
    "[bundle-descriptor 2]\nclass = 0x11\n[cport-descriptor 4]\nbundle = 2\nprotocol = 0x11\n" \
    "[bundle-descriptor 3]\nclass = 0x08\n[cport-descriptor 5]\nbundle = 3\nprotocol = 0x08\n" \
    "[bundle-descriptor 4]\nclass = 0x10\n[cport-descriptor 6]\nbundle = 4\nprotocol = 0x10\n" \
    "[bundle-descriptor 5]\nclass = 0x0f\n[cport-descriptor 7]\nbundle = 5\nprotocol = 0x0f\n" \
    "[bundle-descriptor 6]\nclass = 0x05\n[cport-descriptor 8]\nbundle = 6\nprotocol = 0x05\n"

#endif
