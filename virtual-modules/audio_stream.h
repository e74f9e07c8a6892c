// SPDX-License-Identifier: MIT
// One audio data CPort of an audio module, as the management protocol configures it (PCM,
// data sizes, TX/RX activation) and as the bridge's SEND_DATA requests fill it. TX is the
// AP's direction: samples for the module's speaker.
//
// What the module accepts (Linux 6.1's codec only ever asks for the first of each):
//   format S16_LE; rates 48000, 44100, 32000, 16000, 8000 Hz; 1 or 2 channels; 1..16
//   significant bits. A data size is 1..2032 bytes (a Greybus message's payload less the
//   le64 timestamp), a whole number of frames. The defaults, before any SET_PCM: S16_LE,
//   48000 Hz, 2 channels, 16 bits.
// The rules, each breach answered GB_OP_INVALID and changing nothing: no SET_PCM while
// either direction is active; no data size change while that direction is active;
// ACTIVATE needs a data size that is a whole number of frames of the current PCM;
// ACTIVATE of an active direction and DEACTIVATE of an inactive one are refused.
// SEND_DATA is taken only while TX is active and only with exactly the TX data size of
// samples (the Greybus spec: a protocol error otherwise); anything else is dropped and
// counted. The module produces no capture data: RX can be configured and activated, but
// nothing is sent.
#ifndef GBVP_VIRTUAL_MODULES_AUDIO_STREAM_H
#define GBVP_VIRTUAL_MODULES_AUDIO_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VM_AUDIO_DATA_SIZE_MAX 2032u /* GB_MSG_MAX_PAYLOAD - the le64 timestamp */

typedef struct vm_audio_pcm {
    uint32_t format; /* one GB_AUDIO_PCM_FMT_* bit */
    uint32_t rate;   /* one GB_AUDIO_PCM_RATE_* bit */
    uint8_t channels, sig_bits;
} vm_audio_pcm;

typedef struct vm_audio_stream {
    uint16_t cport; /* the data CPort */
    vm_audio_pcm pcm;
    uint16_t tx_size, rx_size; /* bytes of samples in one SEND_DATA; 0: not set */
    bool tx_active, rx_active;
    /* SEND_DATA requests taken (counted across module reboots) */
    uint64_t messages, bytes, frames;
    uint64_t dropped_inactive; /* arrived while TX was not active */
    uint64_t dropped_size;     /* not exactly the TX data size (or shorter than a timestamp) */
    uint64_t last_timestamp;   /* of the last one taken */
    uint64_t activations;      /* TX activations */
    /* since the last TX activation: bytes, their CRC-32 (as zlib's crc32 runs over them,
     * so a host can check what a guest played) and the largest |sample| */
    uint64_t session_bytes;
    uint32_t session_crc;
    uint16_t session_peak;
} vm_audio_stream;

/* A stream of CPort `cport` with the default configuration and no counts. */
void vm_audio_stream_init(vm_audio_stream *s, uint16_t cport);
/* A module reboot: the configuration returns to the defaults, inactive; counters stay. */
void vm_audio_stream_reset(vm_audio_stream *s);

/* Management requests; each returns GB_OP_SUCCESS or GB_OP_INVALID (the rules above). */
uint8_t vm_audio_stream_set_pcm(vm_audio_stream *s, const vm_audio_pcm *pcm);
uint8_t vm_audio_stream_set_data_size(vm_audio_stream *s, bool tx, uint16_t size);
uint8_t vm_audio_stream_activate(vm_audio_stream *s, bool tx, bool on);
/* A SEND_DATA payload (le64 timestamp, then samples): GB_OP_SUCCESS when taken, else
 * GB_OP_INVALID and counted as dropped. */
uint8_t vm_audio_stream_receive(vm_audio_stream *s, const uint8_t *payload, size_t len);

/* Bytes of one frame (all channels of one sample) of the stream's PCM. */
unsigned vm_audio_frame_bytes(const vm_audio_pcm *pcm);
/* Hz of one GB_AUDIO_PCM_RATE_* bit, 0 for anything else. */
unsigned vm_audio_rate_hz(uint32_t rate);
/* "s16_le", or "0xNNNNNNNN" in buf (at least 11 bytes) for any other format. */
const char *vm_audio_format_name(uint32_t format, char *buf, size_t len);

#endif
