// SPDX-License-Identifier: MIT
// Audio management handler: a speaker module (see audio.h).
#include "virtual-modules/audio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/audio_data.h"
#include "virtual-modules/audio_topology.h"
#include "virtual-modules/vm_class.h"

/* ---- the speaker: what the module is made of ---- */

enum { CTL_VOLUME, CTL_MUTE, CTL_EQ, CTL_SWITCH };
enum { W_AIF, W_AMP, W_SPEAKER, W_JACK };

static const char *const eq_items[] = {"Flat", "Bass", "Treble", "Voice", NULL};

static const vm_audio_control_desc speaker_controls[] = {
    {"Speaker Volume", "speaker-volume", CTL_VOLUME, GB_AUDIO_CTL_ELEM_TYPE_INTEGER, 2, 0, 100,
     1, 80, NULL},
    {"Speaker Mute", "speaker-mute", CTL_MUTE, GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN, 2, 0, 1, 1, 0,
     NULL},
    {"Speaker EQ", "speaker-eq", CTL_EQ, GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED, 1, 0, 0, 0, 0,
     eq_items},
};

static const vm_audio_control_desc amp_controls[] = {
    {"Speaker Switch", "speaker-switch", CTL_SWITCH, GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN, 1, 0, 1, 1,
     1, NULL},
};

/* "I2S 0 Playback" is the playback stream of 6.1's codec DAI 0 (audio_codec.c): ASoC links
 * the AIF widget to that DAI by it, and gbaudio_module_update reads the DAI id from it
 * ("%s %d %s"). The jack widget comes last so that leaving it out is a shorter count. */
static const vm_audio_widget_desc speaker_widgets[] = {
    {"Speaker AIF", "I2S 0 Playback", W_AIF, GB_AUDIO_WIDGET_TYPE_AIF_IN, NULL, 0},
    {"Speaker Amp", NULL, W_AMP, GB_AUDIO_WIDGET_TYPE_PGA, amp_controls, 1},
    {"Speaker", NULL, W_SPEAKER, GB_AUDIO_WIDGET_TYPE_SPK, NULL, 0},
    {"Headset Jack", NULL, W_JACK, GB_AUDIO_WIDGET_TYPE_HP, NULL, 0},
};

/* Unconditional paths: 6.1 never hands a widget's controls to DAPM, which therefore
 * refuses any route naming a control. The jack's route comes last, like its widget. */
static const vm_audio_route_desc speaker_routes[] = {
    {W_AIF, W_AMP, GB_AUDIO_INVALID_INDEX, GB_AUDIO_INVALID_INDEX},
    {W_AMP, W_SPEAKER, GB_AUDIO_INVALID_INDEX, GB_AUDIO_INVALID_INDEX},
    {W_AMP, W_JACK, GB_AUDIO_INVALID_INDEX, GB_AUDIO_INVALID_INDEX},
};

#define NCONTROLS (sizeof speaker_controls / sizeof speaker_controls[0] + 1)
#define NWIDGETS (sizeof speaker_widgets / sizeof speaker_widgets[0])

static const char *const audio_keys[] = {"speaker-volume", "speaker-mute", "speaker-eq",
                                         "speaker-switch", "jack", "topology-controls", NULL};

/* ---- the module ---- */

typedef struct control {
    const vm_audio_control_desc *d;
    bool in_widget;
    int32_t initial[2], value[2];
} control;

typedef struct widget {
    const vm_audio_widget_desc *d;
    bool enabled;
    uint64_t enables;
} widget;

struct vm_audio {
    vm_endpoint *ep;
    bool jack, jack_inserted;
    control ctl[NCONTROLS];
    size_t nctl;
    widget w[NWIDGETS];
    size_t nw;
    vm_audio_stream streams[VM_AUDIO_MAX_STREAMS];
    size_t nstreams;
    vm_audio_stats stats;
    size_t topology_len;
    uint8_t topology[GB_MSG_MAX_PAYLOAD];
};

static const char *const yes_no[] = {"no", "yes", NULL};
static const char *const jack_kinds[] = {"none", "headset", NULL};

/* The initial value of a control from its behaviour key. */
static int read_initial(control *c, const vm_bsection *cfg, char *err, size_t errlen)
{
    const vm_audio_control_desc *d = c->d;
    int pick = d->initial;
    c->initial[0] = c->initial[1] = d->initial;
    if (d->type == GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED) {
        if (vm_bsection_enum(cfg, d->key, d->items, d->initial, &pick, err, errlen))
            return -1;
    } else if (d->type == GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN) {
        if (vm_bsection_enum(cfg, d->key, yes_no, d->initial, &pick, err, errlen))
            return -1;
    } else { /* INTEGER: one value for every channel, or one each */
        uint32_t v[2];
        size_t n;
        if (vm_bsection_u32_list(cfg, d->key, (uint32_t)d->min, (uint32_t)d->max, v,
                                 d->count_values, &n, err, errlen))
            return -1;
        c->initial[0] = n ? (int32_t)v[0] : d->initial;
        c->initial[1] = n == 2 ? (int32_t)v[1] : c->initial[0];
        return 0;
    }
    c->initial[0] = c->initial[1] = pick;
    return 0;
}

static void audio_reset(void *h)
{
    vm_audio *a = h;
    for (size_t i = 0; i < a->nctl; i++)
        memcpy(a->ctl[i].value, a->ctl[i].initial, sizeof a->ctl[i].value);
    for (size_t i = 0; i < a->nw; i++)
        a->w[i].enabled = false;
    a->jack_inserted = false;
    for (size_t i = 0; i < a->nstreams; i++)
        vm_audio_stream_reset(&a->streams[i]);
}

static void *audio_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    vm_audio *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "audio: out of memory");
        return NULL;
    }
    a->ep = ep;
    int jack;
    if (vm_bsection_enum(cfg, "jack", jack_kinds, 0, &jack, err, errlen))
        goto fail;
    a->jack = jack == 1;
    /* Linux 6.1 hangs the probe of a module whose topology lists controls (docs/modules.md,
     * "Audio: the speaker"); without them it binds, and the module still keeps the values. */
    int with_controls;
    if (vm_bsection_enum(cfg, "topology-controls", yes_no, 1, &with_controls, err, errlen))
        goto fail;
    for (size_t i = 0; i < NCONTROLS - 1; i++)
        a->ctl[a->nctl++] = (control){.d = &speaker_controls[i]};
    a->ctl[a->nctl++] = (control){.d = &amp_controls[0], .in_widget = true};
    for (size_t i = 0; i < a->nctl; i++)
        if (read_initial(&a->ctl[i], cfg, err, errlen))
            goto fail;
    a->nw = a->jack ? NWIDGETS : NWIDGETS - 1;
    for (size_t i = 0; i < a->nw; i++)
        a->w[i].d = &speaker_widgets[i];

    uint16_t ids[VM_AUDIO_MAX_STREAMS];
    size_t n = vm_endpoint_bundle_cports(ep, GB_PROTOCOL_AUDIO_DATA, ids, VM_AUDIO_MAX_STREAMS);
    if (n > VM_AUDIO_MAX_STREAMS) {
        snprintf(err, errlen, "audio: the bundle has %zu audio data CPorts; gbvp's module "
                 "has at most %u", n, VM_AUDIO_MAX_STREAMS);
        goto fail;
    }
    for (size_t i = 0; i < n; i++)
        vm_audio_stream_init(&a->streams[a->nstreams++], ids[i]);

    vm_audio_topology_desc d = {
        .controls = speaker_controls,
        .ncontrols = (uint8_t)(with_controls ? NCONTROLS - 1 : 0),
        .widgets = speaker_widgets,
        .nwidgets = (uint8_t)a->nw,
        .routes = speaker_routes,
        .nroutes = (uint8_t)(a->jack ? 3 : 2),
        .jack_type = a->jack ? GB_AUDIO_JACK_HEADSET : 0,
        .data_cport = n ? ids[0] : 0,
    };
    a->topology_len = vm_audio_topology_build(&d, a->topology, sizeof a->topology);
    if (!a->topology_len) { /* the tables above are wrong: a gbvp bug */
        snprintf(err, errlen, "audio: the speaker's topology does not build");
        goto fail;
    }
    audio_reset(a);
    return a;
fail:
    free(a);
    return NULL;
}

static void audio_destroy(void *h)
{
    free(h);
}

/* ---- requests ---- */

static control *find_control(vm_audio *a, uint8_t id)
{
    for (size_t i = 0; i < a->nctl; i++)
        if (a->ctl[i].d->id == id)
            return &a->ctl[i];
    return NULL;
}

static widget *find_widget(vm_audio *a, uint8_t id)
{
    for (size_t i = 0; i < a->nw; i++)
        if (a->w[i].d->id == id)
            return &a->w[i];
    return NULL;
}

vm_audio_stream *vm_audio_find_stream(vm_audio *a, uint16_t cport)
{
    for (size_t i = 0; i < a->nstreams; i++)
        if (a->streams[i].cport == cport)
            return &a->streams[i];
    return NULL;
}

/* The control a GET/SET_CONTROL names: its id, and index 0xff (what 6.1 sends: "the
 * control") or 0 (its only element). */
static control *addressed_control(vm_audio *a, const uint8_t *d)
{
    control *c = find_control(a, d[0]);
    return c && (d[1] == GB_AUDIO_INVALID_INDEX || d[1] == 0) ? c : NULL;
}

static bool value_fits(const vm_audio_control_desc *d, int32_t v)
{
    if (d->type == GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED) {
        size_t items = 0;
        while (d->items[items])
            items++;
        return v >= 0 && (size_t)v < items;
    }
    if (v < d->min || v > d->max)
        return false;
    return d->step <= 1 || (v - d->min) % d->step == 0;
}

static uint8_t get_control(vm_audio *a, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, GB_AUDIO_GET_CONTROL_REQ_SIZE);
    control *c = addressed_control(a, rq->payload);
    if (!c)
        return GB_OP_INVALID;
    /* gb_audio_ctl_elem_value: le64 timestamp (0: the module keeps none), two le32 */
    memset(rq->resp, 0, GB_AUDIO_CTL_ELEM_VALUE_SIZE);
    for (unsigned i = 0; i < c->d->count_values; i++)
        gb_put_le32(rq->resp + 8 + 4 * i, (uint32_t)c->value[i]);
    rq->resp_len = GB_AUDIO_CTL_ELEM_VALUE_SIZE;
    a->stats.control_gets++;
    return GB_OP_SUCCESS;
}

static uint8_t set_control(vm_audio *a, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, GB_AUDIO_SET_CONTROL_REQ_SIZE);
    control *c = addressed_control(a, rq->payload);
    if (!c)
        return GB_OP_INVALID;
    /* only the values the control has: 6.1 leaves the rest of its stack buffer unset */
    int32_t v[2] = {0, 0};
    for (unsigned i = 0; i < c->d->count_values; i++) {
        v[i] = (int32_t)gb_get_le32(rq->payload + 2 + 8 + 4 * i);
        if (!value_fits(c->d, v[i]))
            return GB_OP_INVALID;
    }
    for (unsigned i = 0; i < c->d->count_values; i++)
        c->value[i] = v[i];
    a->stats.control_sets++;
    return GB_OP_SUCCESS;
}

static uint8_t widget_request(vm_audio *a, vm_request *rq, bool enable)
{
    VM_REQ_EXPECT_LEN(rq, 1);
    widget *w = find_widget(a, rq->payload[0]);
    if (!w)
        return GB_OP_INVALID;
    w->enabled = enable;
    if (enable) {
        w->enables++;
        a->stats.widget_enables++;
    } else {
        a->stats.widget_disables++;
    }
    return GB_OP_SUCCESS;
}

/* The stream a request names by its leading le16 data CPort, once its size is right. */
static vm_audio_stream *addressed_stream(vm_audio *a, const vm_request *rq, size_t len)
{
    if (rq->len != len)
        return NULL;
    return vm_audio_find_stream(a, gb_get_le16(rq->payload));
}

static uint8_t stream_request(vm_audio *a, vm_request *rq)
{
    const uint8_t *d = rq->payload;
    vm_audio_stream *s;
    switch (rq->type) {
    case GB_AUDIO_TYPE_GET_PCM:
        if (!(s = addressed_stream(a, rq, GB_AUDIO_DATA_CPORT_REQ_SIZE)))
            return GB_OP_INVALID;
        gb_put_le32(rq->resp, s->pcm.format);
        gb_put_le32(rq->resp + 4, s->pcm.rate);
        rq->resp[8] = s->pcm.channels;
        rq->resp[9] = s->pcm.sig_bits;
        rq->resp_len = GB_AUDIO_PCM_SIZE;
        return GB_OP_SUCCESS;
    case GB_AUDIO_TYPE_SET_PCM: {
        if (!(s = addressed_stream(a, rq, GB_AUDIO_SET_PCM_REQ_SIZE)))
            return GB_OP_INVALID;
        vm_audio_pcm pcm = {gb_get_le32(d + 2), gb_get_le32(d + 6), d[10], d[11]};
        return vm_audio_stream_set_pcm(s, &pcm);
    }
    case GB_AUDIO_TYPE_SET_TX_DATA_SIZE:
    case GB_AUDIO_TYPE_SET_RX_DATA_SIZE:
        if (!(s = addressed_stream(a, rq, GB_AUDIO_DATA_SIZE_REQ_SIZE)))
            return GB_OP_INVALID;
        return vm_audio_stream_set_data_size(s, rq->type == GB_AUDIO_TYPE_SET_TX_DATA_SIZE,
                                             gb_get_le16(d + 2));
    case GB_AUDIO_TYPE_ACTIVATE_TX:
    case GB_AUDIO_TYPE_DEACTIVATE_TX:
    case GB_AUDIO_TYPE_ACTIVATE_RX:
    case GB_AUDIO_TYPE_DEACTIVATE_RX: {
        if (!(s = addressed_stream(a, rq, GB_AUDIO_DATA_CPORT_REQ_SIZE)))
            return GB_OP_INVALID;
        bool tx = rq->type <= GB_AUDIO_TYPE_DEACTIVATE_TX;
        bool on = rq->type == GB_AUDIO_TYPE_ACTIVATE_TX || rq->type == GB_AUDIO_TYPE_ACTIVATE_RX;
        return vm_audio_stream_activate(s, tx, on);
    }
    }
    return GB_OP_PROTOCOL_BAD;
}

static uint8_t dispatch(vm_audio *a, vm_request *rq)
{
    switch (rq->type) {
    case GB_AUDIO_TYPE_GET_TOPOLOGY_SIZE:
        VM_REQ_EXPECT_LEN(rq, 0);
        gb_put_le16(rq->resp, (uint16_t)a->topology_len);
        rq->resp_len = 2;
        return GB_OP_SUCCESS;
    case GB_AUDIO_TYPE_GET_TOPOLOGY:
        VM_REQ_EXPECT_LEN(rq, 0);
        memcpy(rq->resp, a->topology, a->topology_len);
        rq->resp_len = a->topology_len;
        a->stats.topology_reads++;
        return GB_OP_SUCCESS;
    case GB_AUDIO_TYPE_GET_CONTROL:
        return get_control(a, rq);
    case GB_AUDIO_TYPE_SET_CONTROL:
        return set_control(a, rq);
    case GB_AUDIO_TYPE_ENABLE_WIDGET:
    case GB_AUDIO_TYPE_DISABLE_WIDGET:
        return widget_request(a, rq, rq->type == GB_AUDIO_TYPE_ENABLE_WIDGET);
    }
    return stream_request(a, rq);
}

static uint8_t audio_request(void *h, vm_request *rq)
{
    vm_audio *a = h;
    uint8_t result = dispatch(a, rq);
    if (result != GB_OP_SUCCESS)
        a->stats.refused++;
    return result;
}

/* ---- events to the AP ---- */

static void audio_response(void *h, uint8_t type, uint8_t result, const uint8_t *payload,
                           size_t len)
{
    vm_audio *a = h;
    (void)type, (void)payload, (void)len;
    a->stats.last_event_result = result;
    if (result != GB_OP_SUCCESS)
        a->stats.events_refused++;
}

static int send_event(vm_audio *a, uint8_t type, uint8_t b1, uint8_t event)
{
    uint8_t req[GB_AUDIO_EVENT_REQ_SIZE] = {W_JACK, b1, event};
    int rc = vm_endpoint_request(a->ep, type, req, sizeof req, true);
    if (rc) {
        a->stats.events_lost++;
        return rc;
    }
    a->stats.events_sent++;
    return 0;
}

int vm_audio_jack(vm_audio *a, bool inserted)
{
    if (!a->jack)
        return -ENODEV;
    if (a->jack_inserted == inserted)
        return -EALREADY;
    a->jack_inserted = inserted;
    return send_event(a, GB_AUDIO_TYPE_JACK_EVENT, (uint8_t)GB_AUDIO_JACK_HEADSET,
                      inserted ? GB_AUDIO_JACK_EVENT_INSERTION : GB_AUDIO_JACK_EVENT_REMOVAL);
}

int vm_audio_button(vm_audio *a, unsigned button, bool pressed)
{
    if (!a->jack)
        return -ENODEV;
    if (button < 1 || button > 4)
        return -EINVAL;
    return send_event(a, GB_AUDIO_TYPE_BUTTON_EVENT, (uint8_t)button,
                      pressed ? GB_AUDIO_BUTTON_EVENT_PRESS : GB_AUDIO_BUTTON_EVENT_RELEASE);
}

/* ---- state for scripts ---- */

vm_audio *vm_interface_audio(vm_interface *intf, uint16_t cport)
{
    vm_audio *a = vm_interface_handler(intf, cport, GB_PROTOCOL_AUDIO_MGMT);
    if (a || cport == VM_ANY_CPORT)
        return a;
    vm_audio_data *d = vm_interface_handler(intf, cport, GB_PROTOCOL_AUDIO_DATA);
    return d ? vm_audio_data_module(d) : NULL;
}

size_t vm_audio_control_count(const vm_audio *a)
{
    return a->nctl;
}

int vm_audio_get_control(const vm_audio *a, size_t i, vm_audio_control_info *out)
{
    if (i >= a->nctl)
        return -EINVAL;
    const control *c = &a->ctl[i];
    *out = (vm_audio_control_info){
        .name = c->d->name,
        .key = c->d->key,
        .id = c->d->id,
        .type = c->d->type,
        .count_values = c->d->count_values,
        .in_widget = c->in_widget,
        .value = {c->value[0], c->d->count_values == 2 ? c->value[1] : 0},
        .item = c->d->type == GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED ? c->d->items[c->value[0]] : NULL,
    };
    return 0;
}

size_t vm_audio_widget_count(const vm_audio *a)
{
    return a->nw;
}

int vm_audio_get_widget(const vm_audio *a, size_t i, vm_audio_widget_info *out)
{
    if (i >= a->nw)
        return -EINVAL;
    const widget *w = &a->w[i];
    *out = (vm_audio_widget_info){w->d->name, w->d->id, w->d->type, w->enabled, w->enables};
    return 0;
}

size_t vm_audio_stream_count(const vm_audio *a)
{
    return a->nstreams;
}

const vm_audio_stream *vm_audio_get_stream(const vm_audio *a, size_t i)
{
    return i < a->nstreams ? &a->streams[i] : NULL;
}

void vm_audio_get_stats(const vm_audio *a, vm_audio_stats *out)
{
    *out = a->stats;
}

const uint8_t *vm_audio_topology(const vm_audio *a, size_t *len)
{
    *len = a->topology_len;
    return a->topology;
}

bool vm_audio_has_jack(const vm_audio *a)
{
    return a->jack;
}

bool vm_audio_jack_inserted(const vm_audio *a)
{
    return a->jack_inserted;
}

static void audio_describe(const void *h, char *buf, size_t len)
{
    const vm_audio *a = h;
    snprintf(buf, len, "audio management, speaker%s, %zu data CPort%s",
             a->jack ? " and headset jack" : "", a->nstreams, a->nstreams == 1 ? "" : "s");
}

const vm_class_ops vm_audio_mgmt_class = {
    .protocol = GB_PROTOCOL_AUDIO_MGMT,
    .name = "audio",
    .keys = audio_keys,
    .create = audio_create,
    .destroy = audio_destroy,
    .request = audio_request,
    .response = audio_response,
    .reset = audio_reset,
    .describe = audio_describe,
};
