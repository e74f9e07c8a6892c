// SPDX-License-Identifier: MIT
// GPIO class handler (see gpio.h).
#include "virtual-modules/gpio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

struct vm_gpio {
    vm_endpoint *ep;
    unsigned nlines;
    bool initial_high[VM_GPIO_MAX_LINES];
    vm_gpio_line line[VM_GPIO_MAX_LINES];
    vm_gpio_stats st;
};

static const char *const gpio_keys[] = {"lines", "high", NULL};

static void gpio_reset(void *h)
{
    vm_gpio *g = h;
    for (unsigned i = 0; i < g->nlines; i++)
        g->line[i] = (vm_gpio_line){.in_level = g->initial_high[i], .irq_masked = true};
}

static void *gpio_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint32_t n, high[VM_GPIO_MAX_LINES];
    size_t nhigh;
    if (vm_bsection_u32(cfg, "lines", 8, 1, VM_GPIO_MAX_LINES, &n, err, errlen) ||
        vm_bsection_u32_list(cfg, "high", 0, n - 1, high, VM_GPIO_MAX_LINES, &nhigh, err,
                             errlen))
        return NULL;
    vm_gpio *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->ep = ep;
    g->nlines = n;
    for (size_t i = 0; i < nhigh; i++)
        g->initial_high[high[i]] = true;
    gpio_reset(g);
    return g;
}

static void gpio_destroy(void *h)
{
    free(h);
}

static bool trigger_matches(const vm_gpio_line *l, bool old, bool level)
{
    switch (l->irq_type) {
    case GB_GPIO_IRQ_TYPE_EDGE_RISING: return !old && level;
    case GB_GPIO_IRQ_TYPE_EDGE_FALLING: return old && !level;
    case GB_GPIO_IRQ_TYPE_EDGE_BOTH: return old != level;
    case GB_GPIO_IRQ_TYPE_LEVEL_HIGH: return level;
    case GB_GPIO_IRQ_TYPE_LEVEL_LOW: return !level;
    default: return false;
    }
}

static bool level_type(uint8_t t)
{
    return t == GB_GPIO_IRQ_TYPE_LEVEL_HIGH || t == GB_GPIO_IRQ_TYPE_LEVEL_LOW;
}

static int raise_irq(vm_gpio *g, unsigned line)
{
    uint8_t which = (uint8_t)line;
    if (vm_endpoint_request(g->ep, GB_GPIO_TYPE_IRQ_EVENT, &which, 1, true)) {
        g->st.irq_lost++;
        return -ENOTCONN;
    }
    g->st.irq_events++;
    return 1;
}

static uint8_t gpio_request(void *h, vm_request *rq)
{
    vm_gpio *g = h;
    const uint8_t *p = rq->payload;

    if (rq->type == GB_GPIO_TYPE_LINE_COUNT) {
        VM_REQ_EXPECT_LEN(rq, 0);
        rq->resp[0] = (uint8_t)(g->nlines - 1);
        rq->resp_len = 1;
        return GB_OP_SUCCESS;
    }
    if (rq->type < GB_GPIO_TYPE_ACTIVATE || rq->type > GB_GPIO_TYPE_IRQ_UNMASK)
        return GB_OP_PROTOCOL_BAD; /* IRQ_EVENT is module-originated only */
    if (rq->len < 1 || p[0] >= g->nlines)
        return GB_OP_INVALID;
    vm_gpio_line *l = &g->line[p[0]];

    switch (rq->type) {
    case GB_GPIO_TYPE_ACTIVATE:
    case GB_GPIO_TYPE_DEACTIVATE:
        VM_REQ_EXPECT_LEN(rq, 1);
        l->activated = rq->type == GB_GPIO_TYPE_ACTIVATE;
        return GB_OP_SUCCESS;
    case GB_GPIO_TYPE_GET_DIRECTION:
        VM_REQ_EXPECT_LEN(rq, 1);
        rq->resp[0] = l->output ? 0 : 1;
        rq->resp_len = 1;
        return GB_OP_SUCCESS;
    case GB_GPIO_TYPE_DIRECTION_IN:
        VM_REQ_EXPECT_LEN(rq, 1);
        l->output = false;
        return GB_OP_SUCCESS;
    case GB_GPIO_TYPE_DIRECTION_OUT:
    case GB_GPIO_TYPE_SET_VALUE:
        VM_REQ_EXPECT_LEN(rq, 2);
        if (p[1] > 1)
            return GB_OP_INVALID;
        if (rq->type == GB_GPIO_TYPE_DIRECTION_OUT)
            l->output = true;
        l->out_value = p[1];
        return GB_OP_SUCCESS;
    case GB_GPIO_TYPE_GET_VALUE:
        VM_REQ_EXPECT_LEN(rq, 1);
        rq->resp[0] = (uint8_t)vm_gpio_get_value(g, p[0]);
        rq->resp_len = 1;
        return GB_OP_SUCCESS;
    case GB_GPIO_TYPE_SET_DEBOUNCE:
        VM_REQ_EXPECT_LEN(rq, 3);
        l->debounce_us = gb_get_le16(p + 1);
        return GB_OP_SUCCESS;
    case GB_GPIO_TYPE_IRQ_TYPE:
        VM_REQ_EXPECT_LEN(rq, 2);
        switch (p[1]) {
        case GB_GPIO_IRQ_TYPE_NONE:
        case GB_GPIO_IRQ_TYPE_EDGE_RISING:
        case GB_GPIO_IRQ_TYPE_EDGE_FALLING:
        case GB_GPIO_IRQ_TYPE_EDGE_BOTH:
        case GB_GPIO_IRQ_TYPE_LEVEL_HIGH:
        case GB_GPIO_IRQ_TYPE_LEVEL_LOW:
            l->irq_type = p[1];
            return GB_OP_SUCCESS;
        default:
            return GB_OP_INVALID;
        }
    case GB_GPIO_TYPE_IRQ_MASK:
        VM_REQ_EXPECT_LEN(rq, 1);
        l->irq_masked = true;
        return GB_OP_SUCCESS;
    case GB_GPIO_TYPE_IRQ_UNMASK:
        VM_REQ_EXPECT_LEN(rq, 1);
        l->irq_masked = false;
        /* a level interrupt still asserted fires again once unmasked */
        if (!l->output && level_type(l->irq_type) && trigger_matches(l, l->in_level, l->in_level))
            raise_irq(g, p[0]);
        return GB_OP_SUCCESS;
    }
    return GB_OP_PROTOCOL_BAD;
}

static void gpio_response(void *h, uint8_t type, uint8_t result, const uint8_t *payload,
                          size_t len)
{
    vm_gpio *g = h;
    (void)payload;
    if (type == GB_GPIO_TYPE_IRQ_EVENT && (result != GB_OP_SUCCESS || len != 0))
        g->st.irq_rejected++;
}

unsigned vm_gpio_line_count(const vm_gpio *g)
{
    return g->nlines;
}

int vm_gpio_get_line(const vm_gpio *g, unsigned line, vm_gpio_line *out)
{
    if (line >= g->nlines)
        return -EINVAL;
    *out = g->line[line];
    return 0;
}

int vm_gpio_get_value(const vm_gpio *g, unsigned line)
{
    if (line >= g->nlines)
        return -EINVAL;
    const vm_gpio_line *l = &g->line[line];
    return l->output ? l->out_value : l->in_level;
}

int vm_gpio_set_input(vm_gpio *g, unsigned line, bool level)
{
    if (line >= g->nlines)
        return -EINVAL;
    vm_gpio_line *l = &g->line[line];
    bool old = l->in_level;
    l->in_level = level;
    if (l->output || l->irq_masked || !trigger_matches(l, old, level))
        return 0;
    if (!level_type(l->irq_type) && old == level)
        return 0;
    return raise_irq(g, line);
}

void vm_gpio_get_stats(const vm_gpio *g, vm_gpio_stats *out)
{
    *out = g->st;
}

const vm_class_ops vm_gpio_class = {
    .protocol = GB_PROTOCOL_GPIO,
    .name = "gpio",
    .keys = gpio_keys,
    .create = gpio_create,
    .destroy = gpio_destroy,
    .request = gpio_request,
    .response = gpio_response,
    .reset = gpio_reset,
};
