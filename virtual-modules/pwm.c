// SPDX-License-Identifier: MIT
// PWM class handler (see pwm.h).
#include "virtual-modules/pwm.h"

#include <errno.h>
#include <stdlib.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

struct vm_pwm {
    unsigned n;
    vm_pwm_channel ch[VM_PWM_MAX_CHANNELS];
};

static const char *const pwm_keys[] = {"channels", NULL};

static void *pwm_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint32_t n;
    (void)ep;
    if (vm_bsection_u32(cfg, "channels", 2, 1, VM_PWM_MAX_CHANNELS, &n, err, errlen))
        return NULL;
    vm_pwm *p = calloc(1, sizeof *p);
    if (p)
        p->n = n;
    return p;
}

static void pwm_destroy(void *h)
{
    free(h);
}

static void pwm_reset(void *h)
{
    vm_pwm *p = h;
    for (unsigned i = 0; i < p->n; i++)
        p->ch[i] = (vm_pwm_channel){0};
}

static uint8_t pwm_request(void *h, vm_request *rq)
{
    vm_pwm *p = h;
    const uint8_t *d = rq->payload;

    if (rq->type == GB_PWM_TYPE_PWM_COUNT) {
        VM_REQ_EXPECT_LEN(rq, 0);
        rq->resp[0] = (uint8_t)(p->n - 1); /* the AP's npwm is count + 1 */
        rq->resp_len = 1;
        return GB_OP_SUCCESS;
    }
    if (rq->type < GB_PWM_TYPE_ACTIVATE || rq->type > GB_PWM_TYPE_DISABLE)
        return GB_OP_PROTOCOL_BAD;
    if (rq->len < 1 || d[0] >= p->n)
        return GB_OP_INVALID;
    vm_pwm_channel *c = &p->ch[d[0]];
    switch (rq->type) {
    case GB_PWM_TYPE_ACTIVATE:
    case GB_PWM_TYPE_DEACTIVATE:
        VM_REQ_EXPECT_LEN(rq, 1);
        c->activated = rq->type == GB_PWM_TYPE_ACTIVATE;
        return GB_OP_SUCCESS;
    case GB_PWM_TYPE_CONFIG: {
        VM_REQ_EXPECT_LEN(rq, 9);
        uint32_t duty = gb_get_le32(d + 1), period = gb_get_le32(d + 5);
        if (duty > period)
            return GB_OP_INVALID;
        c->duty_ns = duty;
        c->period_ns = period;
        return GB_OP_SUCCESS;
    }
    case GB_PWM_TYPE_POLARITY:
        VM_REQ_EXPECT_LEN(rq, 2);
        if (d[1] > 1)
            return GB_OP_INVALID;
        c->inversed = d[1];
        return GB_OP_SUCCESS;
    case GB_PWM_TYPE_ENABLE:
    case GB_PWM_TYPE_DISABLE:
        VM_REQ_EXPECT_LEN(rq, 1);
        c->enabled = rq->type == GB_PWM_TYPE_ENABLE;
        return GB_OP_SUCCESS;
    }
    return GB_OP_PROTOCOL_BAD;
}

unsigned vm_pwm_channel_count(const vm_pwm *p)
{
    return p->n;
}

int vm_pwm_get_channel(const vm_pwm *p, unsigned channel, vm_pwm_channel *out)
{
    if (channel >= p->n)
        return -EINVAL;
    *out = p->ch[channel];
    return 0;
}

const vm_class_ops vm_pwm_class = {
    .protocol = GB_PROTOCOL_PWM,
    .name = "pwm",
    .keys = pwm_keys,
    .create = pwm_create,
    .destroy = pwm_destroy,
    .request = pwm_request,
    .reset = pwm_reset,
};
