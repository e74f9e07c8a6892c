// SPDX-License-Identifier: MIT
// Greybus SVC protocol constants and payload sizes, as Linux 6.1 uses them.
// Source: include/linux/greybus/greybus_protocols.h and drivers/greybus/svc.c of Linux 6.1
// (docs/greybus.md, "SVC operations" and "Spec 1.0 vs Linux 6.1"). Where the 1.0
// specification differs, 6.1 wins:
// response sizes below are the ones the kernel checks with "==".
#ifndef GBVP_GREYBUS_SVC_PROTOCOL_H
#define GBVP_GREYBUS_SVC_PROTOCOL_H

#include <stdint.h>

/* Message header, sizes and GB_OP_* results: greybus/gb_message.h. */
#include "greybus/gb_message.h"

/* Fixed ids. */
#define GB_SVC_DEVICE_ID_SVC 0u
#define GB_SVC_DEVICE_ID_AP 1u
#define GB_SVC_DEVICE_ID_MIN 2u
#define GB_SVC_DEVICE_ID_MAX 31u
#define GB_SVC_CPORT_ID 0u
#define GB_SVC_VERSION_MAJOR 0u
#define GB_SVC_VERSION_MINOR 1u
#define GB_SVC_ENDO_ID_DEFAULT 0x4755u

/* Operation types. */
#define GB_SVC_TYPE_PROTOCOL_VERSION 0x01u
#define GB_SVC_TYPE_SVC_HELLO 0x02u
#define GB_SVC_TYPE_INTF_DEVICE_ID 0x03u
#define GB_SVC_TYPE_INTF_RESET 0x06u
#define GB_SVC_TYPE_CONN_CREATE 0x07u
#define GB_SVC_TYPE_CONN_DESTROY 0x08u
#define GB_SVC_TYPE_DME_PEER_GET 0x09u
#define GB_SVC_TYPE_DME_PEER_SET 0x0au
#define GB_SVC_TYPE_ROUTE_CREATE 0x0bu
#define GB_SVC_TYPE_ROUTE_DESTROY 0x0cu
#define GB_SVC_TYPE_TIMESYNC_ENABLE 0x0du
#define GB_SVC_TYPE_TIMESYNC_DISABLE 0x0eu
#define GB_SVC_TYPE_TIMESYNC_AUTHORITATIVE 0x0fu
#define GB_SVC_TYPE_INTF_SET_PWRM 0x10u
#define GB_SVC_TYPE_INTF_EJECT 0x11u
#define GB_SVC_TYPE_PING 0x13u
#define GB_SVC_TYPE_PWRMON_RAIL_COUNT_GET 0x14u
#define GB_SVC_TYPE_PWRMON_RAIL_NAMES_GET 0x15u
#define GB_SVC_TYPE_PWRMON_SAMPLE_GET 0x16u
#define GB_SVC_TYPE_PWRMON_INTF_SAMPLE_GET 0x17u
#define GB_SVC_TYPE_TIMESYNC_WAKE_PINS_ACQUIRE 0x18u
#define GB_SVC_TYPE_TIMESYNC_WAKE_PINS_RELEASE 0x19u
#define GB_SVC_TYPE_TIMESYNC_PING 0x1au
#define GB_SVC_TYPE_MODULE_INSERTED 0x1fu
#define GB_SVC_TYPE_MODULE_REMOVED 0x20u
#define GB_SVC_TYPE_INTF_VSYS_ENABLE 0x21u
#define GB_SVC_TYPE_INTF_VSYS_DISABLE 0x22u
#define GB_SVC_TYPE_INTF_REFCLK_ENABLE 0x23u
#define GB_SVC_TYPE_INTF_REFCLK_DISABLE 0x24u
#define GB_SVC_TYPE_INTF_UNIPRO_ENABLE 0x25u
#define GB_SVC_TYPE_INTF_UNIPRO_DISABLE 0x26u
#define GB_SVC_TYPE_INTF_ACTIVATE 0x27u
#define GB_SVC_TYPE_INTF_RESUME 0x28u
#define GB_SVC_TYPE_INTF_MAILBOX_EVENT 0x29u
#define GB_SVC_TYPE_INTF_OOPS 0x2au

/* SVC status byte (ACTIVATE, RESUME, RAIL_NAMES). */
#define GB_SVC_OP_SUCCESS 0x00u
#define GB_SVC_OP_UNKNOWN_ERROR 0x01u
#define GB_SVC_INTF_NOT_DETECTED 0x02u
#define GB_SVC_INTF_NO_UPRO_LINK 0x03u
#define GB_SVC_INTF_UPRO_NOT_DOWN 0x04u
#define GB_SVC_INTF_UPRO_NOT_HIBERNATED 0x05u
#define GB_SVC_INTF_NO_V_SYS 0x06u
#define GB_SVC_INTF_NO_REFCLK 0x09u

/* VSYS / REFCLK / UNIPRO result_code. */
#define GB_SVC_INTF_POWER_OK 0x00u
#define GB_SVC_INTF_POWER_FAIL 0x02u
#define GB_SVC_INTF_UNIPRO_NOT_OFF 0x03u

/* INTF_ACTIVATE intf_type. */
#define GB_SVC_INTF_TYPE_UNKNOWN 0x00u
#define GB_SVC_INTF_TYPE_DUMMY 0x01u
#define GB_SVC_INTF_TYPE_UNIPRO 0x02u
#define GB_SVC_INTF_TYPE_GREYBUS 0x03u

/* INTF_SET_PWRM modes and PowerChangeResultCode. */
#define GB_SVC_UNIPRO_FAST_MODE 0x01u
#define GB_SVC_UNIPRO_SLOW_MODE 0x02u
#define GB_SVC_UNIPRO_FAST_AUTO_MODE 0x04u
#define GB_SVC_UNIPRO_SLOW_AUTO_MODE 0x05u
#define GB_SVC_UNIPRO_MODE_UNCHANGED 0x07u
#define GB_SVC_UNIPRO_HIBERNATE_MODE 0x11u
#define GB_SVC_UNIPRO_OFF_MODE 0x12u
#define GB_SVC_SETPWRM_PWR_OK 0x00u
#define GB_SVC_SETPWRM_PWR_LOCAL 0x01u
#define GB_SVC_SETPWRM_PWR_BUSY 0x03u
#define GB_SVC_SETPWRM_PWR_ERROR_CAP 0x04u

/* Power monitor. */
#define GB_SVC_PWRMON_MAX_RAIL_COUNT 254u
#define GB_SVC_PWRMON_RAIL_NAME_BUFSIZE 32u
#define GB_SVC_PWRMON_TYPE_CURR 0x01u
#define GB_SVC_PWRMON_TYPE_VOL 0x02u
#define GB_SVC_PWRMON_TYPE_PWR 0x03u
#define GB_SVC_PWRMON_GET_SAMPLE_OK 0x00u
#define GB_SVC_PWRMON_GET_SAMPLE_INVAL 0x01u
#define GB_SVC_PWRMON_GET_SAMPLE_NOSUPP 0x02u

/* MODULE_INSERTED flags, mailbox values, CONN_CREATE flags. */
#define GB_SVC_MODULE_INSERTED_FLAG_NO_PRIMARY 0x0001u
#define GB_SVC_INTF_MAILBOX_GREYBUS 0x02u
#define GB_SVC_CPORT_FLAG_E2EFC 0x01u
#define GB_SVC_CPORT_FLAG_CSD_N 0x02u
#define GB_SVC_CPORT_FLAG_CSV_N 0x04u

/* Request payload sizes (what 6.1 sends) and response payload sizes (what 6.1 checks). */
#define GB_SVC_VERSION_SIZE 2u
#define GB_SVC_HELLO_SIZE 3u
#define GB_SVC_INTF_DEVICE_ID_SIZE 2u
#define GB_SVC_CONN_CREATE_SIZE 8u
#define GB_SVC_CONN_DESTROY_SIZE 6u
#define GB_SVC_DME_PEER_GET_SIZE 5u
#define GB_SVC_DME_PEER_GET_RESP_SIZE 6u
#define GB_SVC_DME_PEER_SET_SIZE 9u
#define GB_SVC_DME_PEER_SET_RESP_SIZE 2u
#define GB_SVC_ROUTE_CREATE_SIZE 4u
#define GB_SVC_ROUTE_DESTROY_SIZE 2u
#define GB_SVC_INTF_SET_PWRM_SIZE 63u
#define GB_SVC_INTF_SET_PWRM_RESP_SIZE 1u
#define GB_SVC_INTF_ID_SIZE 1u /* VSYS/REFCLK/UNIPRO/ACTIVATE/RESUME/EJECT requests */
#define GB_SVC_RESULT_CODE_RESP_SIZE 1u
#define GB_SVC_INTF_ACTIVATE_RESP_SIZE 2u
#define GB_SVC_PWRMON_SAMPLE_GET_SIZE 2u
#define GB_SVC_PWRMON_SAMPLE_RESP_SIZE 5u
#define GB_SVC_MODULE_INSERTED_SIZE 4u
#define GB_SVC_MODULE_REMOVED_SIZE 1u
#define GB_SVC_INTF_MAILBOX_EVENT_SIZE 7u
#define GB_SVC_INTF_OOPS_SIZE 2u

/* Linux 6.1 handles only these SVC -> AP requests; anything else gets GB_OP_INVALID. */
#define GB_SVC_AP_HANDLES(type)                                                              \
    ((type) == GB_SVC_TYPE_PROTOCOL_VERSION || (type) == GB_SVC_TYPE_SVC_HELLO ||            \
     (type) == GB_SVC_TYPE_INTF_RESET || (type) == GB_SVC_TYPE_MODULE_INSERTED ||            \
     (type) == GB_SVC_TYPE_MODULE_REMOVED || (type) == GB_SVC_TYPE_INTF_MAILBOX_EVENT ||     \
     (type) == GB_SVC_TYPE_INTF_OOPS)

/* The name of an SVC operation type (a response's too), e.g. "CONN_CREATE"; NULL for a type
 * Linux 6.1 does not know (gb_names.c). */
const char *gb_svc_type_name(uint8_t type);

#endif
