// SPDX-License-Identifier: MIT
// The DME attributes of a virtual interface that the SVC reads and writes on the AP's
// behalf (DME_PEER_GET/SET): DDBL1 identity, the Toshiba GMP ids and init status, and the
// few standard UniPro attributes an SVC looks at. Values per docs/greybus.md,
// "DME attributes".
// Source for attribute ids: MIPI UniPro 1.6 (DDBL1, PA, N, T layers) and Linux 6.1
// drivers/greybus/interface.c (Toshiba vendor attributes).
#ifndef GBVP_VIRTUAL_MODULES_DME_H
#define GBVP_VIRTUAL_MODULES_DME_H

#include <stdint.h>

#define VM_DME_T_TST_SRC_INCREMENT 0x4083 /* ES2 init status */
#define VM_DME_DDBL1_REVISION 0x5000
#define VM_DME_DDBL1_LEVEL 0x5001
#define VM_DME_DDBL1_DEVICECLASS 0x5002
#define VM_DME_DDBL1_MANUFACTURERID 0x5003
#define VM_DME_DDBL1_PRODUCTID 0x5004
#define VM_DME_DDBL1_LENGTH 0x5005
#define VM_DME_TOSHIBA_GMP_VID 0x6000
#define VM_DME_TOSHIBA_GMP_PID 0x6001
#define VM_DME_TOSHIBA_GMP_SN0 0x6002
#define VM_DME_TOSHIBA_GMP_SN1 0x6003
#define VM_DME_TOSHIBA_INIT_STATUS 0x6101

#define VM_DME_PA_AVAILTXDATALANES 0x1520
#define VM_DME_PA_AVAILRXDATALANES 0x1540
#define VM_DME_PA_ACTIVETXDATALANES 0x1560
#define VM_DME_PA_TXGEAR 0x1568
#define VM_DME_PA_TXTERMINATION 0x1569
#define VM_DME_PA_HSSERIES 0x156a
#define VM_DME_PA_PWRMODE 0x1571
#define VM_DME_PA_ACTIVERXDATALANES 0x1580
#define VM_DME_PA_RXGEAR 0x1583
#define VM_DME_PA_RXTERMINATION 0x1584
#define VM_DME_N_DEVICEID 0x3000
#define VM_DME_N_DEVICEID_VALID 0x3001
#define VM_DME_T_NUMCPORTS 0x4020
#define VM_DME_T_NUMTESTFEATURES 0x4021

typedef struct vm_dme vm_dme;

typedef struct vm_dme_ids {
    uint32_t manufacturer_id, product_id; /* DDBL1 */
    uint32_t vendor_id, gmp_product_id;   /* Toshiba GMP */
    uint64_t serial_number;
    uint32_t init_status;
    uint16_t num_cports;
} vm_dme_ids;

vm_dme *vm_dme_new(const vm_dme_ids *ids); /* NULL when out of memory */
void vm_dme_free(vm_dme *d);
/* Both return a UniPro ConfigResultCode (VM_DME_* in vm_interface.h). */
uint16_t vm_dme_get(const vm_dme *d, uint16_t attr, uint16_t selector, uint32_t *value);
uint16_t vm_dme_set(vm_dme *d, uint16_t attr, uint16_t selector, uint32_t value);
/* Boot: init status (0x6101, and 0x4083 for ES2 product ids) set to its boot value. */
void vm_dme_rearm_init_status(vm_dme *d);

#endif
