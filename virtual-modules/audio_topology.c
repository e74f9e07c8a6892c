// SPDX-License-Identifier: MIT
// The GET_TOPOLOGY blob of an audio module (see audio_topology.h).
#include "virtual-modules/audio_topology.h"

#include <stdbool.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"

/* Offsets inside 6.1's packed structs (include/linux/greybus/greybus_protocols.h). */
#define CTL_ID 32
#define CTL_IFACE 33
#define CTL_DATA_CPORT 34
#define CTL_ACCESS 36
#define CTL_COUNT 40
#define CTL_COUNT_VALUES 41
#define INFO_TYPE 0 /* then le16 dimen[4], then the value union */
#define WIDGET_SNAME 32
#define WIDGET_ID 64
#define WIDGET_TYPE 65
#define WIDGET_STATE 66
#define WIDGET_NCONTROLS 67

size_t vm_audio_enum_names_length(const vm_audio_control_desc *c)
{
    size_t n = 0;
    for (size_t i = 0; c->items && c->items[i]; i++)
        n += strlen(c->items[i]) + 1;
    return n;
}

static size_t item_count(const vm_audio_control_desc *c)
{
    size_t n = 0;
    while (c->items && c->items[n])
        n++;
    return n;
}

/* A name into a zero-filled 32-byte field. */
static int put_name(uint8_t *field, const char *name, size_t max)
{
    if (!name || !*name || strlen(name) > max)
        return -1;
    memcpy(field, name, strlen(name));
    return 0;
}

/* The control's bytes at p (cap left); its size, 0 when it does not fit or is malformed.
 * An enumerated control ends after its names, every other one is the full struct. */
static size_t put_control(uint8_t *p, size_t cap, const vm_audio_control_desc *c,
                          uint16_t data_cport)
{
    bool is_enum = c->type == GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED;
    if (!is_enum && c->type != GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN &&
        c->type != GB_AUDIO_CTL_ELEM_TYPE_INTEGER)
        return 0; /* 6.1's mixer callbacks handle only these */
    if (c->count_values < 1 || c->count_values > 2)
        return 0;
    size_t names = is_enum ? vm_audio_enum_names_length(c) : 0;
    size_t items = is_enum ? item_count(c) : 0;
    if (is_enum && (items == 0 || items > VM_AUDIO_MAX_ITEMS))
        return 0;
    size_t size = is_enum ? GB_AUDIO_ENUM_CONTROL_SIZE(names) : GB_AUDIO_CONTROL_SIZE;
    if (size > cap)
        return 0;
    memset(p, 0, size);
    if (put_name(p, c->name, VM_AUDIO_NAME_MAX))
        return 0;
    p[CTL_ID] = c->id;
    p[CTL_IFACE] = GB_AUDIO_CTL_ELEM_IFACE_MIXER;
    gb_put_le16(p + CTL_DATA_CPORT, data_cport);
    gb_put_le32(p + CTL_ACCESS, GB_AUDIO_ACCESS_READ | GB_AUDIO_ACCESS_WRITE);
    p[CTL_COUNT] = 1; /* one element: ALSA makes one control of this name */
    p[CTL_COUNT_VALUES] = c->count_values;
    uint8_t *info = p + GB_AUDIO_CONTROL_INFO_OFFSET;
    uint8_t *value = info + GB_AUDIO_CTL_ELEM_INFO_VALUE_OFFSET;
    info[INFO_TYPE] = c->type;
    if (!is_enum) {
        gb_put_le32(value, (uint32_t)c->min);
        gb_put_le32(value + 4, (uint32_t)c->max);
        gb_put_le32(value + 8, (uint32_t)c->step);
        return size;
    }
    gb_put_le32(value, (uint32_t)items);
    gb_put_le16(value + 4, (uint16_t)names);
    uint8_t *q = value + GB_AUDIO_ENUMERATED_NAMES_OFFSET;
    for (size_t i = 0; i < items; i++) {
        size_t n = strlen(c->items[i]);
        if (n == 0 || n > VM_AUDIO_NAME_MAX)
            return 0; /* ALSA copies an item name into 64 bytes; keep them short */
        memcpy(q, c->items[i], n + 1);
        q += n + 1;
    }
    return size;
}

static size_t put_widget(uint8_t *p, size_t cap, const vm_audio_widget_desc *w,
                         uint16_t data_cport)
{
    if (cap < GB_AUDIO_WIDGET_SIZE)
        return 0;
    memset(p, 0, GB_AUDIO_WIDGET_SIZE);
    if (put_name(p, w->name, VM_AUDIO_NAME_MAX))
        return 0;
    if (w->sname && put_name(p + WIDGET_SNAME, w->sname, GB_AUDIO_NAME_MAX - 1))
        return 0;
    p[WIDGET_ID] = w->id;
    p[WIDGET_TYPE] = w->type;
    p[WIDGET_STATE] = GB_AUDIO_WIDGET_STATE_DISABLED;
    p[WIDGET_NCONTROLS] = w->ncontrols;
    size_t used = GB_AUDIO_WIDGET_SIZE;
    for (uint8_t i = 0; i < w->ncontrols; i++) {
        size_t n = put_control(p + used, cap - used, &w->controls[i], data_cport);
        if (!n)
            return 0;
        used += n;
    }
    return used;
}

size_t vm_audio_topology_build(const vm_audio_topology_desc *d, uint8_t *buf, size_t cap)
{
    if (cap < GB_AUDIO_TOPOLOGY_HEADER_SIZE)
        return 0;
    memset(buf, 0, GB_AUDIO_TOPOLOGY_HEADER_SIZE);
    size_t used = GB_AUDIO_TOPOLOGY_HEADER_SIZE, start;

    start = used;
    for (uint8_t i = 0; i < d->ncontrols; i++) {
        size_t n = put_control(buf + used, cap - used, &d->controls[i], d->data_cport);
        if (!n)
            return 0;
        used += n;
    }
    size_t size_controls = used - start;

    start = used;
    for (uint8_t i = 0; i < d->nwidgets; i++) {
        size_t n = put_widget(buf + used, cap - used, &d->widgets[i], d->data_cport);
        if (!n)
            return 0;
        used += n;
    }
    size_t size_widgets = used - start;

    size_t size_routes = (size_t)d->nroutes * GB_AUDIO_ROUTE_SIZE;
    if (size_routes > cap - used)
        return 0;
    for (uint8_t i = 0; i < d->nroutes; i++) {
        uint8_t *r = buf + used + (size_t)i * GB_AUDIO_ROUTE_SIZE;
        r[0] = d->routes[i].source;
        r[1] = d->routes[i].sink;
        r[2] = d->routes[i].control;
        r[3] = d->routes[i].index;
    }
    used += size_routes;
    if (used > UINT16_MAX)
        return 0;

    buf[0] = 0; /* num_dais */
    buf[1] = d->ncontrols;
    buf[2] = d->nwidgets;
    buf[3] = d->nroutes;
    gb_put_le32(buf + 4, 0); /* size_dais */
    gb_put_le32(buf + 8, (uint32_t)size_controls);
    gb_put_le32(buf + 12, (uint32_t)size_widgets);
    gb_put_le32(buf + 16, (uint32_t)size_routes);
    gb_put_le32(buf + 20, d->jack_type);
    return used;
}
