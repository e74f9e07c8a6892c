// SPDX-License-Identifier: MIT
// Audio data handler (protocol 0x13): the CPort on which the AP's bridge sends a speaker's
// samples, one SEND_DATA request (le64 timestamp, then the TX data size of samples) a
// period, unidirectional as the Greybus spec wants it ("no response message shall be
// sent"; one asked for with an operation id is answered, GB_OP_INVALID when dropped). The
// samples go to the stream of this CPort in the bundle's audio management handler
// (audio.h, audio_stream.h), which decides whether they are taken; any other request type
// is GB_OP_PROTOCOL_BAD. No behaviour keys.
#ifndef GBVP_VIRTUAL_MODULES_AUDIO_DATA_H
#define GBVP_VIRTUAL_MODULES_AUDIO_DATA_H

#include <stdint.h>

typedef struct vm_audio vm_audio;
typedef struct vm_audio_data vm_audio_data;

/* The module (management handler) of the data CPort's bundle; NULL when the bundle has no
 * audio management CPort (then every SEND_DATA is refused and counted here). */
vm_audio *vm_audio_data_module(const vm_audio_data *d);
/* SEND_DATA requests refused because the bundle has no management CPort. */
uint64_t vm_audio_data_orphaned(const vm_audio_data *d);

#endif
