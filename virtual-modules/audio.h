// SPDX-License-Identifier: MIT
// Audio class (bundle class 0x12), as Linux 6.1's gb-audio-module drives it
// (drivers/staging/greybus/audio_module.c, audio_gb.c, audio_topology.c, audio_codec.c):
// the management handler (protocol 0x12) owns the module, a speaker; the bundle's audio
// data CPorts (protocol 0x13, audio_data.c) feed its streams (audio_stream.h).
//
// The topology (GET_TOPOLOGY), names as the module gives them; 6.1 shows top-level
// controls and widgets as "GB <interface id> NAME":
//   controls  0 "Speaker Volume"  integer 0..100 step 1, stereo      (key speaker-volume)
//             1 "Speaker Mute"    boolean, stereo                    (key speaker-mute)
//             2 "Speaker EQ"      enumerated Flat, Bass, Treble, Voice (key speaker-eq)
//   widgets   0 "Speaker AIF"  AIF_IN, stream "I2S 0 Playback" (6.1's codec DAI 0)
//             1 "Speaker Amp"  PGA, with control 3 "Speaker Switch" boolean (speaker-switch)
//             2 "Speaker"      SPK
//             3 "Headset Jack" HP, only with `jack = headset`
//   routes    Speaker AIF -> Speaker Amp -> Speaker (and -> Headset Jack)
//   jack_type 0, or GB_AUDIO_JACK_HEADSET with `jack = headset`
// Every control is read-write, one element, data CPort = the bundle's first data CPort.
//
// Requests: GET_TOPOLOGY_SIZE / GET_TOPOLOGY; GET/SET_CONTROL (index 0xff, as 6.1 sends,
// or 0; values checked against the control's range or items, only as many as it has);
// ENABLE/DISABLE_WIDGET; GET/SET_PCM, SET_TX/RX_DATA_SIZE, (DE)ACTIVATE_TX/RX naming one of
// the bundle's data CPorts (audio_stream.h has the rules). Wrong sizes, unknown ids and
// out-of-range values are answered GB_OP_INVALID, other types GB_OP_PROTOCOL_BAD.
// Events to the AP: JACK_EVENT (the jack's widget, GB_AUDIO_JACK_HEADSET, insertion or
// removal) and BUTTON_EVENT (button 1..4), only with a jack, each expecting a response.
//
// Behaviour keys ([cport N] of the management CPort): speaker-volume = 0..100 (one value
// for both channels, or two; default 80), speaker-mute = no|yes (no), speaker-eq = Flat|
// Bass|Treble|Voice (Flat), speaker-switch = yes|no (yes), jack = none|headset (none).
//
// A module reboot puts the initial values back, disables the widgets, pulls the jack and
// resets the streams' configuration; the counters stay. A CPort disconnection (runtime
// suspend) keeps everything, as 6.1 does not configure the module again on resume.
#ifndef GBVP_VIRTUAL_MODULES_AUDIO_H
#define GBVP_VIRTUAL_MODULES_AUDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/audio_stream.h"
#include "virtual-modules/vm_interface.h"

#define VM_AUDIO_MAX_STREAMS 4u /* data CPorts of one audio bundle */

typedef struct vm_audio vm_audio;

/* The module whose management CPort is `cport`, or whose data CPort it is; with
 * VM_ANY_CPORT the first. NULL when there is none. */
vm_audio *vm_interface_audio(vm_interface *intf, uint16_t cport);

typedef struct vm_audio_control_info {
    const char *name;     /* as the module gives it */
    const char *key;      /* its behaviour key; with '_' for '-', its reply value name */
    uint8_t id, type, count_values;
    bool in_widget;       /* a widget's control (6.1 gives it no ALSA control) */
    int32_t value[2];     /* value[1] only with count_values 2 */
    const char *item;     /* ENUMERATED: the name of value[0]'s item, else NULL */
} vm_audio_control_info;

typedef struct vm_audio_widget_info {
    const char *name;
    uint8_t id, type;
    bool enabled;     /* ENABLE_WIDGET came last */
    uint64_t enables; /* ENABLE_WIDGETs received */
} vm_audio_widget_info;

typedef struct vm_audio_stats {
    uint64_t topology_reads;  /* GET_TOPOLOGY answered */
    uint64_t control_gets, control_sets, widget_enables, widget_disables;
    uint64_t refused;         /* requests answered with an error */
    uint64_t events_sent;     /* jack and button events sent */
    uint64_t events_refused;  /* ... that the AP answered with an error */
    uint64_t events_lost;     /* not sent: the CPort was not connected */
    uint8_t last_event_result; /* the AP's answer to the last one */
} vm_audio_stats;

size_t vm_audio_control_count(const vm_audio *a);
/* Control i (top-level ones first, in topology order): 0, or -EINVAL past the last. */
int vm_audio_get_control(const vm_audio *a, size_t i, vm_audio_control_info *out);
size_t vm_audio_widget_count(const vm_audio *a);
int vm_audio_get_widget(const vm_audio *a, size_t i, vm_audio_widget_info *out);
/* The streams, one per data CPort of the bundle, in manifest order. */
size_t vm_audio_stream_count(const vm_audio *a);
const vm_audio_stream *vm_audio_get_stream(const vm_audio *a, size_t i);
/* The stream of data CPort `cport`, NULL when the bundle has no such data CPort. */
vm_audio_stream *vm_audio_find_stream(vm_audio *a, uint16_t cport);
void vm_audio_get_stats(const vm_audio *a, vm_audio_stats *out);
/* The GET_TOPOLOGY answer (len bytes). */
const uint8_t *vm_audio_topology(const vm_audio *a, size_t *len);

bool vm_audio_has_jack(const vm_audio *a);
bool vm_audio_jack_inserted(const vm_audio *a);
/* A headset goes into the jack or comes out: JACK_EVENT to the AP. 0; -ENODEV when the
 * topology has no jack; -EALREADY when the jack is already so; -ENOTCONN when the CPort
 * is not connected (the jack changes, the event is lost). */
int vm_audio_jack(vm_audio *a, bool inserted);
/* Button 1..4 of the headset pressed or released: BUTTON_EVENT. 0; -ENODEV without a jack;
 * -EINVAL for another button; -ENOTCONN as above. 6.1 refuses every one: jack_type declares
 * no buttons, as 6.1 could not use them (it tests GB_AUDIO_JACK_BTN_* masks against
 * SND_JACK_BTN_* bits; docs/modules.md, "Audio: the speaker"). */
int vm_audio_button(vm_audio *a, unsigned button, bool pressed);

#endif
