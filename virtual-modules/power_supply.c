// SPDX-License-Identifier: MIT
// Power supply class handler: batteries with a fixed property set (see power_supply.h).
#include "virtual-modules/power_supply.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

#define PSY_STR 32u
#define DESC_SIZE (3 * PSY_STR + 3) /* 99 bytes */

typedef struct psy_prop_def {
    uint8_t code;
    const char *name;
    bool writable;
} psy_prop_def;

/* What a battery reports, in GET_PROP_DESCRIPTORS order. */
static const psy_prop_def battery_props[] = {
    {GB_POWER_SUPPLY_PROP_STATUS, "status", false},
    {GB_POWER_SUPPLY_PROP_HEALTH, "health", false},
    {GB_POWER_SUPPLY_PROP_PRESENT, "present", false},
    {GB_POWER_SUPPLY_PROP_ONLINE, "online", false},
    {GB_POWER_SUPPLY_PROP_TECHNOLOGY, "technology", false},
    {GB_POWER_SUPPLY_PROP_CYCLE_COUNT, "cycle-count", false},
    {GB_POWER_SUPPLY_PROP_VOLTAGE_MAX_DESIGN, "voltage-max-design", false},
    {GB_POWER_SUPPLY_PROP_VOLTAGE_MIN_DESIGN, "voltage-min-design", false},
    {GB_POWER_SUPPLY_PROP_VOLTAGE_NOW, "voltage-now", false},
    {GB_POWER_SUPPLY_PROP_CURRENT_NOW, "current-now", false},
    {GB_POWER_SUPPLY_PROP_CHARGE_FULL_DESIGN, "charge-full-design", false},
    {GB_POWER_SUPPLY_PROP_CHARGE_FULL, "charge-full", false},
    {GB_POWER_SUPPLY_PROP_CHARGE_NOW, "charge-now", false},
    {GB_POWER_SUPPLY_PROP_CONSTANT_CHARGE_CURRENT, "constant-charge-current", true},
    {GB_POWER_SUPPLY_PROP_CONSTANT_CHARGE_VOLTAGE, "constant-charge-voltage", true},
    {GB_POWER_SUPPLY_PROP_CAPACITY, "capacity", false},
    {GB_POWER_SUPPLY_PROP_CAPACITY_ALERT_MIN, "capacity-alert-min", true},
    {GB_POWER_SUPPLY_PROP_CAPACITY_LEVEL, "capacity-level", false},
    {GB_POWER_SUPPLY_PROP_TEMP, "temp", false},
    {GB_POWER_SUPPLY_PROP_TIME_TO_EMPTY_NOW, "time-to-empty-now", false},
    {GB_POWER_SUPPLY_PROP_TIME_TO_FULL_NOW, "time-to-full-now", false},
    {GB_POWER_SUPPLY_PROP_SCOPE, "scope", false},
};
#define NPROPS (sizeof battery_props / sizeof battery_props[0])

typedef struct psy {
    char manufacturer[PSY_STR], model[PSY_STR], serial[PSY_STR];
    int32_t val[NPROPS];
} psy;

struct vm_power_supply {
    vm_endpoint *ep;
    unsigned count;
    psy supply[VM_POWER_SUPPLY_MAX];
    vm_power_supply_stats st;
};

static const char *const psy_keys[] = {
    "supplies", "manufacturer", "model", "serial", "status", "capacity", "voltage-uv",
    "current-ua", "temp", "charge-full-uah", "health", NULL,
};
static const char *const status_names[] = {"unknown", "charging", "discharging",
                                           "not-charging", "full", NULL};
static const char *const health_names[] = {"unknown", "good", "overheat", "dead",
                                           "over-voltage", "failure", "cold", NULL};

static int prop_index(uint8_t code)
{
    for (size_t i = 0; i < NPROPS; i++)
        if (battery_props[i].code == code)
            return (int)i;
    return -1;
}

static void set_raw(psy *p, uint8_t code, int32_t v)
{
    int i = prop_index(code);
    if (i >= 0)
        p->val[i] = v;
}

static int32_t get_raw(const psy *p, uint8_t code)
{
    int i = prop_index(code);
    return i >= 0 ? p->val[i] : 0;
}

static int32_t capacity_level(int32_t cap)
{
    if (cap >= 100)
        return GB_POWER_SUPPLY_CAPACITY_LEVEL_FULL;
    if (cap >= 80)
        return GB_POWER_SUPPLY_CAPACITY_LEVEL_HIGH;
    if (cap > 15)
        return GB_POWER_SUPPLY_CAPACITY_LEVEL_NORMAL;
    if (cap > 5)
        return GB_POWER_SUPPLY_CAPACITY_LEVEL_LOW;
    return GB_POWER_SUPPLY_CAPACITY_LEVEL_CRITICAL;
}

/* Keep the derived properties consistent with CAPACITY. */
static void apply_capacity(psy *p, int32_t cap)
{
    set_raw(p, GB_POWER_SUPPLY_PROP_CAPACITY, cap);
    set_raw(p, GB_POWER_SUPPLY_PROP_CAPACITY_LEVEL, capacity_level(cap));
    int64_t full = get_raw(p, GB_POWER_SUPPLY_PROP_CHARGE_FULL);
    set_raw(p, GB_POWER_SUPPLY_PROP_CHARGE_NOW, (int32_t)(full * cap / 100));
}

static void *psy_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint32_t count, cap, full;
    int32_t uv, ua, temp;
    int status, health;
    char man[PSY_STR], model[PSY_STR], serial[PSY_STR];
    if (vm_bsection_u32(cfg, "supplies", 1, 1, VM_POWER_SUPPLY_MAX, &count, err, errlen) ||
        vm_bsection_str(cfg, "manufacturer", "gbvp", man, PSY_STR - 1, err, errlen) ||
        vm_bsection_str(cfg, "model", "gbvp-battery", model, PSY_STR - 1, err, errlen) ||
        vm_bsection_str(cfg, "serial", "GBVP0001", serial, PSY_STR - 1, err, errlen) ||
        vm_bsection_enum(cfg, "status", status_names, GB_POWER_SUPPLY_STATUS_DISCHARGING,
                         &status, err, errlen) ||
        vm_bsection_enum(cfg, "health", health_names, GB_POWER_SUPPLY_HEALTH_GOOD, &health,
                         err, errlen) ||
        vm_bsection_u32(cfg, "capacity", 80, 0, 100, &cap, err, errlen) ||
        vm_bsection_i32(cfg, "voltage-uv", 3800000, 0, 20000000, &uv, err, errlen) ||
        vm_bsection_i32(cfg, "current-ua", -500000, -20000000, 20000000, &ua, err, errlen) ||
        vm_bsection_i32(cfg, "temp", 250, -400, 1000, &temp, err, errlen) ||
        vm_bsection_u32(cfg, "charge-full-uah", 3000000, 1, 100000000, &full, err, errlen))
        return NULL;
    vm_power_supply *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->ep = ep;
    ps->count = count;
    for (unsigned i = 0; i < count; i++) {
        psy *p = &ps->supply[i];
        strcpy(p->manufacturer, man);
        strcpy(p->model, model);
        strcpy(p->serial, serial);
        set_raw(p, GB_POWER_SUPPLY_PROP_STATUS, status);
        set_raw(p, GB_POWER_SUPPLY_PROP_HEALTH, health);
        set_raw(p, GB_POWER_SUPPLY_PROP_PRESENT, 1);
        set_raw(p, GB_POWER_SUPPLY_PROP_ONLINE, 1);
        set_raw(p, GB_POWER_SUPPLY_PROP_TECHNOLOGY, GB_POWER_SUPPLY_TECH_LION);
        set_raw(p, GB_POWER_SUPPLY_PROP_CYCLE_COUNT, 42);
        set_raw(p, GB_POWER_SUPPLY_PROP_VOLTAGE_MAX_DESIGN, 4350000);
        set_raw(p, GB_POWER_SUPPLY_PROP_VOLTAGE_MIN_DESIGN, 3400000);
        set_raw(p, GB_POWER_SUPPLY_PROP_VOLTAGE_NOW, uv);
        set_raw(p, GB_POWER_SUPPLY_PROP_CURRENT_NOW, ua);
        set_raw(p, GB_POWER_SUPPLY_PROP_CHARGE_FULL_DESIGN, (int32_t)full);
        set_raw(p, GB_POWER_SUPPLY_PROP_CHARGE_FULL, (int32_t)full);
        set_raw(p, GB_POWER_SUPPLY_PROP_CONSTANT_CHARGE_CURRENT, 1500000);
        set_raw(p, GB_POWER_SUPPLY_PROP_CONSTANT_CHARGE_VOLTAGE, 4350000);
        set_raw(p, GB_POWER_SUPPLY_PROP_CAPACITY_ALERT_MIN, 15);
        set_raw(p, GB_POWER_SUPPLY_PROP_TEMP, temp);
        set_raw(p, GB_POWER_SUPPLY_PROP_TIME_TO_EMPTY_NOW, 3600 * 10);
        set_raw(p, GB_POWER_SUPPLY_PROP_TIME_TO_FULL_NOW, 0);
        set_raw(p, GB_POWER_SUPPLY_PROP_SCOPE, GB_POWER_SUPPLY_SCOPE_SYSTEM);
        apply_capacity(p, (int32_t)cap);
    }
    return ps;
}

static void psy_destroy(void *h)
{
    free(h);
}

static uint8_t psy_request(void *h, vm_request *rq)
{
    vm_power_supply *ps = h;
    const uint8_t *p = rq->payload;

    if (rq->type < GB_POWER_SUPPLY_TYPE_GET_SUPPLIES ||
        rq->type > GB_POWER_SUPPLY_TYPE_SET_PROPERTY)
        return GB_OP_PROTOCOL_BAD; /* EVENT is module-originated only */
    if (rq->type == GB_POWER_SUPPLY_TYPE_GET_SUPPLIES) {
        VM_REQ_EXPECT_LEN(rq, 0);
        rq->resp[0] = (uint8_t)ps->count;
        rq->resp_len = 1;
        return GB_OP_SUCCESS;
    }
    if (rq->len < 1 || p[0] >= ps->count)
        return GB_OP_INVALID;
    psy *s = &ps->supply[p[0]];
    int idx;

    switch (rq->type) {
    case GB_POWER_SUPPLY_TYPE_GET_DESCRIPTION:
        VM_REQ_EXPECT_LEN(rq, 1);
        memset(rq->resp, 0, DESC_SIZE);
        memcpy(rq->resp, s->manufacturer, strlen(s->manufacturer));
        memcpy(rq->resp + PSY_STR, s->model, strlen(s->model));
        memcpy(rq->resp + 2 * PSY_STR, s->serial, strlen(s->serial));
        gb_put_le16(rq->resp + 3 * PSY_STR, GB_POWER_SUPPLY_BATTERY_TYPE);
        rq->resp[3 * PSY_STR + 2] = (uint8_t)NPROPS;
        rq->resp_len = DESC_SIZE;
        return GB_OP_SUCCESS;
    case GB_POWER_SUPPLY_TYPE_GET_PROP_DESCRIPTORS:
        VM_REQ_EXPECT_LEN(rq, 1);
        rq->resp[0] = (uint8_t)NPROPS;
        for (size_t i = 0; i < NPROPS; i++) {
            rq->resp[1 + 2 * i] = battery_props[i].code;
            rq->resp[2 + 2 * i] = battery_props[i].writable;
        }
        rq->resp_len = 1 + 2 * NPROPS;
        return GB_OP_SUCCESS;
    case GB_POWER_SUPPLY_TYPE_GET_PROPERTY:
        VM_REQ_EXPECT_LEN(rq, 2);
        idx = prop_index(p[1]);
        if (idx < 0)
            return GB_OP_INVALID;
        ps->st.get_property++;
        gb_put_le32(rq->resp, (uint32_t)s->val[idx]);
        rq->resp_len = 4;
        return GB_OP_SUCCESS;
    case GB_POWER_SUPPLY_TYPE_SET_PROPERTY:
        VM_REQ_EXPECT_LEN(rq, 6);
        idx = prop_index(p[1]);
        if (idx < 0 || !battery_props[idx].writable)
            return GB_OP_INVALID;
        ps->st.set_property++;
        s->val[idx] = (int32_t)gb_get_le32(p + 2);
        return GB_OP_SUCCESS;
    }
    return GB_OP_PROTOCOL_BAD;
}

static void psy_response(void *h, uint8_t type, uint8_t result, const uint8_t *payload,
                         size_t len)
{
    vm_power_supply *ps = h;
    (void)payload;
    if (type == GB_POWER_SUPPLY_TYPE_EVENT && (result != GB_OP_SUCCESS || len != 0))
        ps->st.events_rejected++;
}

unsigned vm_power_supply_count(const vm_power_supply *ps)
{
    return ps->count;
}

unsigned vm_power_supply_property_count(const vm_power_supply *ps)
{
    (void)ps;
    return NPROPS;
}

uint8_t vm_power_supply_property_at(const vm_power_supply *ps, unsigned i)
{
    (void)ps;
    return i < NPROPS ? battery_props[i].code : 0xff;
}

int vm_power_supply_property_by_name(const char *name)
{
    for (size_t i = 0; i < NPROPS; i++)
        if (!strcmp(battery_props[i].name, name))
            return battery_props[i].code;
    return -1;
}

int vm_power_supply_notify(vm_power_supply *ps, unsigned psy_id)
{
    if (psy_id >= ps->count)
        return -EINVAL;
    uint8_t ev[2] = {(uint8_t)psy_id, GB_POWER_SUPPLY_UPDATE};
    int rc = vm_endpoint_request(ps->ep, GB_POWER_SUPPLY_TYPE_EVENT, ev, sizeof ev, true);
    if (rc == 0)
        ps->st.events_sent++;
    return rc;
}

int vm_power_supply_set(vm_power_supply *ps, unsigned psy_id, uint8_t prop, int32_t value,
                        bool notify)
{
    if (psy_id >= ps->count || prop_index(prop) < 0)
        return -EINVAL;
    psy *p = &ps->supply[psy_id];
    if (prop == GB_POWER_SUPPLY_PROP_CAPACITY) {
        if (value < 0 || value > 100)
            return -EINVAL;
        apply_capacity(p, value);
    } else {
        set_raw(p, prop, value);
    }
    return notify ? vm_power_supply_notify(ps, psy_id) : 0;
}

int vm_power_supply_get(const vm_power_supply *ps, unsigned psy_id, uint8_t prop,
                        int32_t *value)
{
    if (psy_id >= ps->count || prop_index(prop) < 0)
        return -EINVAL;
    *value = get_raw(&ps->supply[psy_id], prop);
    return 0;
}

void vm_power_supply_get_stats(const vm_power_supply *ps, vm_power_supply_stats *out)
{
    *out = ps->st;
}

const vm_class_ops vm_power_supply_class = {
    .protocol = GB_PROTOCOL_POWER_SUPPLY,
    .name = "power-supply",
    .keys = psy_keys,
    .create = psy_create,
    .destroy = psy_destroy,
    .request = psy_request,
    .response = psy_response,
};
