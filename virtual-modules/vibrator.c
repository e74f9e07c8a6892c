// SPDX-License-Identifier: MIT
// Vibrator class handler (see vibrator.h).
#include "virtual-modules/vibrator.h"

#include <stdlib.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

struct vm_vibrator {
    bool on;
    sim_time on_since, total_on;
    uint64_t on_count;
    vm_vibrator_event log[VM_VIBRATOR_LOG];
    size_t nlog, head; /* ring: head = next slot */
};

static const char *const vibrator_keys[] = {NULL};

static void *vib_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    (void)ep;
    (void)cfg;
    (void)err;
    (void)errlen;
    return calloc(1, sizeof(vm_vibrator));
}

static void vib_destroy(void *h)
{
    free(h);
}

static void record(vm_vibrator *v, sim_time now, bool on)
{
    v->log[v->head] = (vm_vibrator_event){now, on};
    v->head = (v->head + 1) % VM_VIBRATOR_LOG;
    if (v->nlog < VM_VIBRATOR_LOG)
        v->nlog++;
}

static uint8_t vib_request(void *h, vm_request *rq)
{
    vm_vibrator *v = h;
    if (rq->type != GB_VIBRATOR_TYPE_ON && rq->type != GB_VIBRATOR_TYPE_OFF)
        return GB_OP_PROTOCOL_BAD;
    VM_REQ_EXPECT_LEN(rq, 0);
    bool on = rq->type == GB_VIBRATOR_TYPE_ON;
    if (on && !v->on) {
        v->on_since = rq->now;
        v->on_count++;
    } else if (!on && v->on) {
        v->total_on += rq->now >= v->on_since ? rq->now - v->on_since : 0;
    }
    v->on = on;
    record(v, rq->now, on);
    return GB_OP_SUCCESS;
}

static void vib_reset(void *h)
{
    vm_vibrator *v = h;
    v->on = false;
}

bool vm_vibrator_is_on(const vm_vibrator *v)
{
    return v->on;
}

sim_time vm_vibrator_on_time(const vm_vibrator *v, sim_time now)
{
    sim_time t = v->total_on;
    if (v->on && now >= v->on_since)
        t += now - v->on_since;
    return t;
}

uint64_t vm_vibrator_on_count(const vm_vibrator *v)
{
    return v->on_count;
}

size_t vm_vibrator_events(const vm_vibrator *v, vm_vibrator_event *out, size_t cap)
{
    size_t n = v->nlog < cap ? v->nlog : cap;
    size_t start = (v->head + VM_VIBRATOR_LOG - n) % VM_VIBRATOR_LOG;
    for (size_t i = 0; i < n; i++)
        out[i] = v->log[(start + i) % VM_VIBRATOR_LOG];
    return n;
}

const vm_class_ops vm_vibrator_class = {
    .protocol = GB_PROTOCOL_VIBRATOR,
    .name = "vibrator",
    .keys = vibrator_keys,
    .create = vib_create,
    .destroy = vib_destroy,
    .request = vib_request,
    .reset = vib_reset,
};
