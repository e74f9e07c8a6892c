// SPDX-License-Identifier: MIT
// One audio data CPort's configuration and what arrived on it (see audio_stream.h).
#include "virtual-modules/audio_stream.h"

#include <stdio.h>

#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"

static const struct {
    uint32_t bit;
    unsigned hz;
} rates[] = {
    {GB_AUDIO_PCM_RATE_8000, 8000},   {GB_AUDIO_PCM_RATE_16000, 16000},
    {GB_AUDIO_PCM_RATE_32000, 32000}, {GB_AUDIO_PCM_RATE_44100, 44100},
    {GB_AUDIO_PCM_RATE_48000, 48000},
};

#define SAMPLE_BYTES 2u /* S16_LE, the only format taken */
#define SAMPLE_BITS 16u

static const vm_audio_pcm default_pcm = {GB_AUDIO_PCM_FMT_S16_LE, GB_AUDIO_PCM_RATE_48000, 2,
                                         16};

unsigned vm_audio_rate_hz(uint32_t rate)
{
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        if (rates[i].bit == rate)
            return rates[i].hz;
    return 0;
}

const char *vm_audio_format_name(uint32_t format, char *buf, size_t len)
{
    if (format == GB_AUDIO_PCM_FMT_S16_LE)
        return "s16_le";
    snprintf(buf, len, "0x%08x", format);
    return buf;
}

unsigned vm_audio_frame_bytes(const vm_audio_pcm *pcm)
{
    return SAMPLE_BYTES * pcm->channels;
}

void vm_audio_stream_init(vm_audio_stream *s, uint16_t cport)
{
    *s = (vm_audio_stream){.cport = cport, .pcm = default_pcm};
}

void vm_audio_stream_reset(vm_audio_stream *s)
{
    s->pcm = default_pcm;
    s->tx_size = s->rx_size = 0;
    s->tx_active = s->rx_active = false;
}

uint8_t vm_audio_stream_set_pcm(vm_audio_stream *s, const vm_audio_pcm *pcm)
{
    if (s->tx_active || s->rx_active)
        return GB_OP_INVALID; /* the frame size would change under running data */
    if (pcm->format != GB_AUDIO_PCM_FMT_S16_LE || !vm_audio_rate_hz(pcm->rate) ||
        pcm->channels < 1 || pcm->channels > 2 || pcm->sig_bits < 1 ||
        pcm->sig_bits > SAMPLE_BITS)
        return GB_OP_INVALID;
    s->pcm = *pcm;
    return GB_OP_SUCCESS;
}

static bool whole_frames(const vm_audio_stream *s, uint16_t size)
{
    return size >= 1 && size <= VM_AUDIO_DATA_SIZE_MAX &&
           size % vm_audio_frame_bytes(&s->pcm) == 0;
}

uint8_t vm_audio_stream_set_data_size(vm_audio_stream *s, bool tx, uint16_t size)
{
    if ((tx ? s->tx_active : s->rx_active) || !whole_frames(s, size))
        return GB_OP_INVALID;
    *(tx ? &s->tx_size : &s->rx_size) = size;
    return GB_OP_SUCCESS;
}

uint8_t vm_audio_stream_activate(vm_audio_stream *s, bool tx, bool on)
{
    bool *active = tx ? &s->tx_active : &s->rx_active;
    if (*active == on)
        return GB_OP_INVALID;
    /* the PCM may have changed since the size was set: check it against the frame again */
    if (on && !whole_frames(s, tx ? s->tx_size : s->rx_size))
        return GB_OP_INVALID;
    *active = on;
    if (on && tx) {
        s->activations++;
        s->session_bytes = 0;
        s->session_crc = 0;
        s->session_peak = 0;
    }
    return GB_OP_SUCCESS;
}

/* zlib's crc32(crc, p, n): CRC-32, reflected polynomial 0xedb88320, continued from crc. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static uint16_t peak_s16(const uint8_t *p, size_t n, uint16_t peak)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        int32_t v = (int16_t)gb_get_le16(p + i);
        uint16_t mag = (uint16_t)(v < 0 ? -v : v); /* -32768 -> 32768 */
        if (mag > peak)
            peak = mag;
    }
    return peak;
}

uint8_t vm_audio_stream_receive(vm_audio_stream *s, const uint8_t *payload, size_t len)
{
    if (len < GB_AUDIO_SEND_DATA_HEADER_SIZE) {
        s->dropped_size++;
        return GB_OP_INVALID;
    }
    if (!s->tx_active) {
        s->dropped_inactive++;
        return GB_OP_INVALID;
    }
    size_t n = len - GB_AUDIO_SEND_DATA_HEADER_SIZE;
    if (n != s->tx_size) {
        s->dropped_size++;
        return GB_OP_INVALID;
    }
    const uint8_t *samples = payload + GB_AUDIO_SEND_DATA_HEADER_SIZE;
    s->messages++;
    s->bytes += n;
    s->frames += n / vm_audio_frame_bytes(&s->pcm);
    s->last_timestamp = gb_get_le64(payload);
    s->session_bytes += n;
    s->session_crc = crc32_update(s->session_crc, samples, n);
    s->session_peak = peak_s16(samples, n, s->session_peak);
    return GB_OP_SUCCESS;
}
