// SPDX-License-Identifier: MIT
// Lights class handler (see light.h).
#include "virtual-modules/light.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

#define NAME_LEN 32u
#define CHANNEL_CONFIG_SIZE 77u /* u8 + 2 x le32 + 32 + le32 + 32 */
#define FLASH_CONFIG_SIZE 24u

/* Flash limits reported to the AP; the step must not be 0 (the AP divides by it). */
#define FLASH_INTENSITY_MIN 25000u
#define FLASH_INTENSITY_MAX 1000000u
#define FLASH_INTENSITY_STEP 25000u
#define FLASH_TIMEOUT_MIN 10000u
#define FLASH_TIMEOUT_MAX 1000000u
#define FLASH_TIMEOUT_STEP 10000u

struct vm_light {
    vm_endpoint *ep;
    char name[NAME_LEN];
    vm_light_channel ch[VM_LIGHT_MAX_CHANNELS];
    unsigned nch;
};

static const char *const light_keys[] = {"name", "channels", "max-brightness", "flash", NULL};

static const struct {
    const char *name;
    uint32_t rgb;
} colours[] = {
    {"red", 0xff0000}, {"green", 0x00ff00}, {"blue", 0x0000ff},
    {"white", 0xffffff}, {"amber", 0xffbf00},
};

static int add_colour_channels(vm_light *l, const vm_bsection *cfg, uint8_t maxb, char *err,
                               size_t errlen)
{
    const char *v = vm_bsection_get(cfg, "channels", NULL);
    if (!v)
        v = "red green blue";
    const char *p = v;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " \t,");
        size_t c = 0;
        while (c < sizeof colours / sizeof colours[0] &&
               (strlen(colours[c].name) != n || strncmp(colours[c].name, p, n)))
            c++;
        if (c == sizeof colours / sizeof colours[0])
            return vm_bsection_error(cfg, "channels", err, errlen,
                                     "unknown colour '%.*s' (red, green, blue, white, amber)",
                                     (int)n, p);
        if (l->nch == VM_LIGHT_MAX_CHANNELS - 1)
            return vm_bsection_error(cfg, "channels", err, errlen, "more than %u channels",
                                     VM_LIGHT_MAX_CHANNELS - 1);
        vm_light_channel *ch = &l->ch[l->nch++];
        strcpy(ch->color_name, colours[c].name);
        strcpy(ch->mode_name, "status");
        ch->color = colours[c].rgb;
        ch->mode = GB_CHANNEL_MODE_NOTIFICATION;
        ch->flags = GB_LIGHT_CHANNEL_FADER | GB_LIGHT_CHANNEL_BLINK;
        ch->max_brightness = maxb;
        p += n;
    }
    if (l->nch == 0)
        return vm_bsection_error(cfg, "channels", err, errlen, "no channel listed");
    return 0;
}

static void *light_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint32_t maxb, flash;
    vm_light *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->ep = ep;
    if (vm_bsection_str(cfg, "name", "gbvp", l->name, NAME_LEN - 1, err, errlen) ||
        vm_bsection_u32(cfg, "max-brightness", 255, 1, 255, &maxb, err, errlen) ||
        vm_bsection_u32(cfg, "flash", 0, 0, 1, &flash, err, errlen) ||
        add_colour_channels(l, cfg, (uint8_t)maxb, err, errlen)) {
        free(l);
        return NULL;
    }
    if (!l->name[0]) {
        vm_bsection_error(cfg, "name", err, errlen, "must not be empty (the AP needs it)");
        free(l);
        return NULL;
    }
    if (flash) {
        vm_light_channel *ch = &l->ch[l->nch++];
        strcpy(ch->color_name, "white");
        strcpy(ch->mode_name, "flash");
        ch->color = 0xffffff;
        ch->mode = GB_CHANNEL_MODE_FLASH;
        ch->max_brightness = 1;
        ch->flash_intensity_ua = FLASH_INTENSITY_MIN;
        ch->flash_timeout_us = FLASH_TIMEOUT_MAX;
    }
    return l;
}

static void light_destroy(void *h)
{
    free(h);
}

static bool is_flash(const vm_light_channel *ch)
{
    return ch->mode & (GB_CHANNEL_MODE_FLASH | GB_CHANNEL_MODE_TORCH | GB_CHANNEL_MODE_INDICATOR);
}

static void light_reset(void *h)
{
    vm_light *l = h;
    for (unsigned i = 0; i < l->nch; i++) {
        vm_light_channel *ch = &l->ch[i];
        ch->brightness = 0;
        ch->blink_on_ms = ch->blink_off_ms = 0;
        ch->strobe = false;
    }
}

static uint8_t channel_config(const vm_light_channel *ch, vm_request *rq)
{
    uint8_t *r = rq->resp;
    memset(r, 0, CHANNEL_CONFIG_SIZE);
    r[0] = ch->max_brightness;
    gb_put_le32(r + 1, ch->flags);
    gb_put_le32(r + 5, ch->color);
    memcpy(r + 9, ch->color_name, strlen(ch->color_name));
    gb_put_le32(r + 41, ch->mode);
    memcpy(r + 45, ch->mode_name, strlen(ch->mode_name));
    rq->resp_len = CHANNEL_CONFIG_SIZE;
    return GB_OP_SUCCESS;
}

static uint8_t flash_config(vm_request *rq)
{
    static const uint32_t v[6] = {FLASH_INTENSITY_MIN, FLASH_INTENSITY_MAX,
                                  FLASH_INTENSITY_STEP, FLASH_TIMEOUT_MIN,
                                  FLASH_TIMEOUT_MAX, FLASH_TIMEOUT_STEP};
    for (int i = 0; i < 6; i++)
        gb_put_le32(rq->resp + 4 * i, v[i]);
    rq->resp_len = FLASH_CONFIG_SIZE;
    return GB_OP_SUCCESS;
}

/* Request length of each per-channel request type (light_id, channel_id first). */
static size_t channel_req_len(uint8_t type)
{
    switch (type) {
    case GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG:
    case GB_LIGHTS_TYPE_GET_CHANNEL_FLASH_CONFIG:
    case GB_LIGHTS_TYPE_GET_FLASH_FAULT: return 2;
    case GB_LIGHTS_TYPE_SET_BRIGHTNESS:
    case GB_LIGHTS_TYPE_SET_FLASH_STROBE: return 3;
    case GB_LIGHTS_TYPE_SET_FADE: return 4;
    case GB_LIGHTS_TYPE_SET_BLINK:
    case GB_LIGHTS_TYPE_SET_COLOR:
    case GB_LIGHTS_TYPE_SET_FLASH_INTENSITY:
    case GB_LIGHTS_TYPE_SET_FLASH_TIMEOUT: return 6;
    default: return 0;
    }
}

static uint8_t light_request(void *h, vm_request *rq)
{
    vm_light *l = h;
    const uint8_t *p = rq->payload;

    if (rq->type == GB_LIGHTS_TYPE_GET_LIGHTS) {
        VM_REQ_EXPECT_LEN(rq, 0);
        rq->resp[0] = 1;
        rq->resp_len = 1;
        return GB_OP_SUCCESS;
    }
    if (rq->type == GB_LIGHTS_TYPE_GET_LIGHT_CONFIG) {
        VM_REQ_EXPECT_LEN(rq, 1);
        if (p[0] != 0)
            return GB_OP_INVALID;
        memset(rq->resp, 0, 1 + NAME_LEN);
        rq->resp[0] = (uint8_t)l->nch;
        memcpy(rq->resp + 1, l->name, strlen(l->name));
        rq->resp_len = 1 + NAME_LEN;
        return GB_OP_SUCCESS;
    }
    size_t want = channel_req_len(rq->type);
    if (!want)
        return GB_OP_PROTOCOL_BAD; /* includes EVENT, module-originated only */
    VM_REQ_EXPECT_LEN(rq, want);
    if (p[0] != 0 || p[1] >= l->nch)
        return GB_OP_INVALID;
    vm_light_channel *ch = &l->ch[p[1]];
    bool flash_op = rq->type == GB_LIGHTS_TYPE_GET_CHANNEL_FLASH_CONFIG ||
                    rq->type >= GB_LIGHTS_TYPE_SET_FLASH_INTENSITY;
    if (flash_op && !is_flash(ch))
        return GB_OP_INVALID;
    uint32_t v32;

    switch (rq->type) {
    case GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG:
        return channel_config(ch, rq);
    case GB_LIGHTS_TYPE_GET_CHANNEL_FLASH_CONFIG:
        return flash_config(rq);
    case GB_LIGHTS_TYPE_SET_BRIGHTNESS:
        if (p[2] > ch->max_brightness)
            return GB_OP_INVALID;
        ch->brightness = p[2];
        return GB_OP_SUCCESS;
    case GB_LIGHTS_TYPE_SET_BLINK:
        ch->blink_on_ms = gb_get_le16(p + 2);
        ch->blink_off_ms = gb_get_le16(p + 4);
        return GB_OP_SUCCESS;
    case GB_LIGHTS_TYPE_SET_COLOR:
        ch->color = gb_get_le32(p + 2);
        return GB_OP_SUCCESS;
    case GB_LIGHTS_TYPE_SET_FADE:
        ch->fade_in = p[2];
        ch->fade_out = p[3];
        return GB_OP_SUCCESS;
    case GB_LIGHTS_TYPE_SET_FLASH_INTENSITY:
        v32 = gb_get_le32(p + 2);
        if (v32 < FLASH_INTENSITY_MIN || v32 > FLASH_INTENSITY_MAX)
            return GB_OP_INVALID;
        ch->flash_intensity_ua = v32;
        return GB_OP_SUCCESS;
    case GB_LIGHTS_TYPE_SET_FLASH_STROBE:
        ch->strobe = p[2] != 0;
        ch->strobes += ch->strobe;
        return GB_OP_SUCCESS;
    case GB_LIGHTS_TYPE_SET_FLASH_TIMEOUT:
        v32 = gb_get_le32(p + 2);
        if (v32 < FLASH_TIMEOUT_MIN || v32 > FLASH_TIMEOUT_MAX)
            return GB_OP_INVALID;
        ch->flash_timeout_us = v32;
        return GB_OP_SUCCESS;
    case GB_LIGHTS_TYPE_GET_FLASH_FAULT:
        gb_put_le32(rq->resp, ch->flash_fault);
        rq->resp_len = 4;
        return GB_OP_SUCCESS;
    }
    return GB_OP_PROTOCOL_BAD;
}

unsigned vm_light_channel_count(const vm_light *l)
{
    return l->nch;
}

int vm_light_get_channel(const vm_light *l, unsigned channel, vm_light_channel *out)
{
    if (channel >= l->nch)
        return -EINVAL;
    *out = l->ch[channel];
    return 0;
}

int vm_light_notify(vm_light *l)
{
    const uint8_t ev[2] = {0, GB_LIGHTS_LIGHT_CONFIG};
    return vm_endpoint_request(l->ep, GB_LIGHTS_TYPE_EVENT, ev, sizeof ev, true);
}

int vm_light_set_flash_fault(vm_light *l, unsigned channel, uint32_t fault)
{
    if (channel >= l->nch || !is_flash(&l->ch[channel]))
        return -EINVAL;
    l->ch[channel].flash_fault = fault;
    return 0;
}

const vm_class_ops vm_light_class = {
    .protocol = GB_PROTOCOL_LIGHTS,
    .name = "light",
    .keys = light_keys,
    .create = light_create,
    .destroy = light_destroy,
    .request = light_request,
    .reset = light_reset,
};
