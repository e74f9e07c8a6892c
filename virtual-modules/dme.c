// SPDX-License-Identifier: MIT
// DME attribute table of a virtual interface (see dme.h).
#include "virtual-modules/dme.h"

#include <stdbool.h>
#include <stdlib.h>

#include "virtual-modules/vm_interface.h"

#define VM_DME_ES2_PRODUCT_ID 0x1000u

typedef struct vm_dme_attr {
    uint16_t id;
    bool writable;
    uint32_t value;
    uint32_t max; /* writes above max are INVALID_MIB_ATTRIBUTE_VALUE */
} vm_dme_attr;

enum { VM_DME_NATTRS = 26 };

struct vm_dme {
    vm_dme_ids ids;
    vm_dme_attr attrs[VM_DME_NATTRS];
    size_t n;
};

static void add(vm_dme *d, uint16_t id, bool writable, uint32_t value, uint32_t max)
{
    if (d->n < VM_DME_NATTRS)
        d->attrs[d->n++] = (vm_dme_attr){id, writable, value, max};
}

vm_dme *vm_dme_new(const vm_dme_ids *ids)
{
    vm_dme *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->ids = *ids;
    /* DDBL1: UniPro 1.6 revision, level, device class "bridge"-less (0), identity */
    add(d, VM_DME_DDBL1_REVISION, false, 0x16, 0);
    add(d, VM_DME_DDBL1_LEVEL, false, 0x06, 0);
    add(d, VM_DME_DDBL1_DEVICECLASS, false, 0, 0);
    add(d, VM_DME_DDBL1_MANUFACTURERID, false, ids->manufacturer_id, 0);
    add(d, VM_DME_DDBL1_PRODUCTID, false, ids->product_id, 0);
    add(d, VM_DME_DDBL1_LENGTH, false, 0, 0);
    add(d, VM_DME_TOSHIBA_GMP_VID, false, ids->vendor_id, 0);
    add(d, VM_DME_TOSHIBA_GMP_PID, false, ids->gmp_product_id, 0);
    add(d, VM_DME_TOSHIBA_GMP_SN0, false, (uint32_t)ids->serial_number, 0);
    add(d, VM_DME_TOSHIBA_GMP_SN1, false, (uint32_t)(ids->serial_number >> 32), 0);
    add(d, VM_DME_TOSHIBA_INIT_STATUS, true, 0, UINT32_MAX);
    add(d, VM_DME_T_TST_SRC_INCREMENT, true, 0, 0xff);
    /* PA: one lane each way, PWM-G1 after reset (PA_PWRMode: SLOWAUTO_MODE 0x55) */
    add(d, VM_DME_PA_AVAILTXDATALANES, false, 1, 0);
    add(d, VM_DME_PA_AVAILRXDATALANES, false, 1, 0);
    add(d, VM_DME_PA_ACTIVETXDATALANES, true, 1, 2);
    add(d, VM_DME_PA_ACTIVERXDATALANES, true, 1, 2);
    add(d, VM_DME_PA_TXGEAR, true, 1, 7);
    add(d, VM_DME_PA_RXGEAR, true, 1, 7);
    add(d, VM_DME_PA_HSSERIES, true, 1, 2);
    add(d, VM_DME_PA_TXTERMINATION, true, 0, 1);
    add(d, VM_DME_PA_RXTERMINATION, true, 0, 1);
    add(d, VM_DME_PA_PWRMODE, true, 0x55, 0xff);
    /* N/T: the SVC assigns the device id; CPort count from the manifest */
    add(d, VM_DME_N_DEVICEID, true, 0, 127);
    add(d, VM_DME_N_DEVICEID_VALID, true, 0, 1);
    add(d, VM_DME_T_NUMCPORTS, false, ids->num_cports, 0);
    add(d, VM_DME_T_NUMTESTFEATURES, false, 0, 0);
    return d;
}

void vm_dme_free(vm_dme *d)
{
    free(d);
}

static vm_dme_attr *find(const vm_dme *d, uint16_t id)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->attrs[i].id == id)
            return (vm_dme_attr *)&d->attrs[i];
    return NULL;
}

uint16_t vm_dme_get(const vm_dme *d, uint16_t attr, uint16_t selector, uint32_t *value)
{
    const vm_dme_attr *a = find(d, attr);
    if (!a)
        return VM_DME_INVALID_MIB_ATTRIBUTE;
    if (selector != 0) /* none of these attributes is indexed */
        return VM_DME_BAD_INDEX;
    *value = a->value;
    return VM_DME_SUCCESS;
}

uint16_t vm_dme_set(vm_dme *d, uint16_t attr, uint16_t selector, uint32_t value)
{
    vm_dme_attr *a = find(d, attr);
    if (!a)
        return VM_DME_INVALID_MIB_ATTRIBUTE;
    if (selector != 0)
        return VM_DME_BAD_INDEX;
    if (!a->writable)
        return VM_DME_READ_ONLY_MIB_ATTRIBUTE;
    if (value > a->max)
        return VM_DME_INVALID_MIB_ATTRIBUTE_VALUE;
    a->value = value;
    return VM_DME_SUCCESS;
}

void vm_dme_rearm_init_status(vm_dme *d)
{
    find(d, VM_DME_TOSHIBA_INIT_STATUS)->value = d->ids.init_status;
    /* ES2 bridges report the init status code in the low byte of T_TstSrcIncrement */
    find(d, VM_DME_T_TST_SRC_INCREMENT)->value =
        d->ids.product_id == VM_DME_ES2_PRODUCT_ID ? d->ids.init_status >> 24 : 0;
}
