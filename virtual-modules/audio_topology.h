// SPDX-License-Identifier: MIT
// The topology an audio module answers GET_TOPOLOGY with, built from a description: its
// controls, its DAPM widgets (each with controls of its own) and the routes between them,
// laid out as 6.1's packed struct gb_audio_topology (include/linux/greybus/
// greybus_protocols.h), which gbaudio_tplg_parse_data (drivers/staging/greybus/
// audio_topology.c) walks by the section sizes and each entry's own size. No DAIs: 6.1's
// gbaudio_register_module refuses a module that declares any.
#ifndef GBVP_VIRTUAL_MODULES_AUDIO_TOPOLOGY_H
#define GBVP_VIRTUAL_MODULES_AUDIO_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

/* Longest control or widget name: 6.1 rewrites each top-level control's and each widget's
 * name in place as "GB <interface id> NAME" within 32 bytes; 24 leaves room for
 * "GB 255 " and the NUL. Stream names are not rewritten: up to 31 characters. */
#define VM_AUDIO_NAME_MAX 24u
#define VM_AUDIO_MAX_ITEMS 16u /* items of an enumerated control */

typedef struct vm_audio_control_desc {
    const char *name;
    const char *key;      /* behaviour key of its initial value ("speaker-volume") */
    uint8_t id;           /* unique among all controls, widgets' included; 0..63 */
    uint8_t type;         /* GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN, _INTEGER or _ENUMERATED */
    uint8_t count_values; /* 1, or 2 for a stereo control */
    int32_t min, max, step; /* BOOLEAN and INTEGER (BOOLEAN: 0, 1, 1) */
    int32_t initial;        /* of every value; ENUMERATED: an item index */
    const char *const *items; /* ENUMERATED: the item names, NULL-terminated */
} vm_audio_control_desc;

typedef struct vm_audio_widget_desc {
    const char *name;
    const char *sname; /* AIF_IN / AIF_OUT: the stream it joins ("I2S 0 Playback"), else NULL */
    uint8_t id;        /* unique among the widgets */
    uint8_t type;      /* GB_AUDIO_WIDGET_TYPE_* */
    const vm_audio_control_desc *controls;
    uint8_t ncontrols;
} vm_audio_widget_desc;

typedef struct vm_audio_route_desc {
    uint8_t source, sink; /* widget ids */
    uint8_t control;      /* a control id, or GB_AUDIO_INVALID_INDEX for an unconditional path */
    uint8_t index;        /* the item of that control, or GB_AUDIO_INVALID_INDEX */
} vm_audio_route_desc;

typedef struct vm_audio_topology_desc {
    const vm_audio_control_desc *controls; /* the top-level (ALSA mixer) controls */
    uint8_t ncontrols;
    const vm_audio_widget_desc *widgets;
    uint8_t nwidgets;
    const vm_audio_route_desc *routes;
    uint8_t nroutes;
    uint32_t jack_type;  /* GB_AUDIO_JACK_* bits, 0 for none */
    uint16_t data_cport; /* what every control names as its data CPort */
} vm_audio_topology_desc;

/* The bytes an enumerated control's names take: each name and its NUL. */
size_t vm_audio_enum_names_length(const vm_audio_control_desc *c);

/* Lays the topology out into buf[0..cap) (zeroing what it does not set). Returns its size,
 * or 0 when it does not fit in cap, does not fit a GET_TOPOLOGY_SIZE answer (le16), or
 * the description breaks a rule above (a name too long, a type 6.1 cannot parse, an
 * enumerated control without items). */
size_t vm_audio_topology_build(const vm_audio_topology_desc *d, uint8_t *buf, size_t cap);

#endif
