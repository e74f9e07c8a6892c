// SPDX-License-Identifier: MIT
// Text commands for the backends of an interface, so that scenarios, the control socket
// and `gbvp sim`'s stdin can drive modules without C (docs/modules.md, "Commands").
//
//   gpio set LINE 0|1           gpio get LINE                 gpio stats
//   i2c temp ADDR [MILLIDEGC]   i2c read ADDR OFFSET LEN      i2c write ADDR OFFSET HEX
//   uart send TEXT...           uart inject HEX               uart recv       uart state
//   battery set PROP VALUE [SUPPLY [quiet]]   battery get PROP [SUPPLY]
//   battery notify              battery stats
//   hid report HEX              hid key USAGE                 hid state
//   vibrator state              light get CHANNEL             pwm get CHANNEL
//   loopback ping | transfer LEN | sink LEN | stats
//   log send TEXT...            raw send HEX                  raw recv
//   spi queue HEX               spi recv                      spi stats
//   spi flash [CS]              spi flash read OFFSET LEN [CS]
//   usb connect PORT [high|full|low]   usb disconnect PORT   usb status
//   camera status               camera frame
//   sdio insert [PATH]          sdio remove   sdio wp on|off  sdio stats
//   audio state                 audio stats   audio jack insert|remove
//   audio button press|release [1..4]
//   pm TYPE STATUS              (control: answer BUNDLE_SUSPEND etc. with STATUS)
//   interface stats             (what the interface received, sent and dropped)
//
// A class name may carry a CPort: `gpio@3 set 0 1`; without it the first CPort of that
// protocol is used. Numbers are decimal or 0x hex; PROP is a property name such as
// `capacity` or `voltage-now`, or its number. Every answer is a line of text and the same
// as named values (vm_reply.h): the typed commands of the scenarios and the control socket
// (gbvp.gpio_get, {"cmd":"gpio_get"} ...) are these commands with their values.
#ifndef GBVP_VIRTUAL_MODULES_BACKEND_CMD_H
#define GBVP_VIRTUAL_MODULES_BACKEND_CMD_H

#include <stddef.h>

#include "virtual-modules/vm_interface.h"
#include "virtual-modules/vm_reply.h"

/* Returned when the interface has no CPort of the command's class (another interface of
 * the same module may have one). */
#define VM_BACKEND_NO_CLASS (-2)

/* Runs one command line. Returns 0 with the answer in reply (text "" when there is nothing
 * to say), VM_BACKEND_NO_CLASS, or -1 with the text saying what is wrong. `now` is the
 * simulated time (used by the vibrator's on-time). */
int vm_backend_command(vm_interface *intf, const char *line, sim_time now, vm_reply *reply);

#endif
