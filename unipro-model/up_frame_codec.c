// SPDX-License-Identifier: MIT
#include "unipro-model/up_frame_codec.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "unipro-model/up_consts.h"

static uint16_t crc_byte(uint16_t crc, uint8_t b)
{
    crc ^= (uint16_t)(b << 8);
    for (int i = 0; i < 8; i++)
        crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    return crc;
}

uint16_t up_crc16(const up_symbol *s, size_t n)
{
    uint16_t crc = 0xFFFF;
    for (size_t i = 0; i < n; i++) {
        crc = crc_byte(crc, (uint8_t)(s[i].ctrl & 1));
        crc = crc_byte(crc, (uint8_t)(s[i].bits >> 8));
        crc = crc_byte(crc, (uint8_t)s[i].bits);
    }
    return crc;
}

static up_symbol ctl(uint8_t code, uint8_t low)
{
    return (up_symbol){ (uint16_t)((UP_ESC_DL | code) << 8 | low), 1 };
}

size_t up_frame_encode(const up_frame_fields *f, up_symbol *out, size_t max)
{
    size_t need = 4 + (f->len + 1u) / 2;
    if (f->len > UP_SEGMENT_MAX || f->dst_cport > 31 || f->dst_dev > UP_DEVICE_ID_MAX ||
        f->tc > 1 || need > max || (f->len && !f->payload))
        return 0;
    size_t k = 0;
    out[k++] = ctl(UP_CTL_SOF, f->tc);
    /* L3 short header: 1 | DestDeviceID; L4 short header: 1 | CPort(5) | FCT | EOM */
    uint8_t l3 = (uint8_t)(0x80 | f->dst_dev);
    uint8_t l4 = (uint8_t)(0x80 | f->dst_cport << 2 | (f->fct ? 2 : 0) | (f->eom ? 1 : 0));
    out[k++] = (up_symbol){ (uint16_t)(l3 << 8 | l4), 0 };
    for (unsigned i = 0; i < f->len; i += 2) {
        uint8_t hi = f->payload[i], lo = i + 1 < f->len ? f->payload[i + 1] : 0;
        out[k++] = (up_symbol){ (uint16_t)(hi << 8 | lo), 0 };
    }
    out[k++] = ctl(f->len & 1 ? UP_CTL_EOF_ODD : UP_CTL_EOF_EVEN, f->seq & 0x1f);
    out[k] = (up_symbol){ up_crc16(out, k), 0 };
    return k + 1;
}

static int is_ctl(up_symbol s, uint8_t code)
{
    return s.ctrl == 1 && (s.bits >> 8) == (UP_ESC_DL | code);
}

int up_frame_decode(const up_symbol *s, size_t n, up_frame_fields *f, uint8_t *buf)
{
    if (n < 4 || n > 4 + UP_SEGMENT_MAX / 2 || !is_ctl(s[0], UP_CTL_SOF))
        return -EBADMSG;
    if (s[n - 1].ctrl || s[n - 1].bits != up_crc16(s, n - 1))
        return -EBADMSG;
    up_symbol eof = s[n - 2];
    bool odd = is_ctl(eof, UP_CTL_EOF_ODD);
    if (!odd && !is_ctl(eof, UP_CTL_EOF_EVEN))
        return -EBADMSG;
    for (size_t i = 1; i < n - 2; i++)
        if (s[i].ctrl)
            return -EBADMSG;
    memset(f, 0, sizeof *f);
    f->tc = (uint8_t)(s[0].bits & 1);
    f->seq = (uint8_t)(eof.bits & 0x1f);
    uint8_t l3 = (uint8_t)(s[1].bits >> 8), l4 = (uint8_t)s[1].bits;
    if (!(l3 & 0x80) || !(l4 & 0x80))
        return -EBADMSG; /* long headers are undefined in UniPro 1.x */
    f->dst_dev = l3 & 0x7f;
    f->dst_cport = (l4 >> 2) & 0x1f;
    f->fct = (l4 >> 1) & 1;
    f->eom = l4 & 1;
    size_t words = n - 4;
    f->len = (uint16_t)(words * 2 - (odd ? 1 : 0));
    if (odd && !words)
        return -EBADMSG;
    for (size_t i = 0; i < words; i++) {
        buf[2 * i] = (uint8_t)(s[2 + i].bits >> 8);
        if (2 * i + 1 < f->len)
            buf[2 * i + 1] = (uint8_t)s[2 + i].bits;
    }
    f->payload = buf;
    return 0;
}

size_t up_afc_encode(uint8_t tc, uint8_t creq, uint8_t seq, uint16_t credits, up_symbol *out)
{
    out[0] = ctl(UP_CTL_AFC, (uint8_t)((tc & 1) << 7 | (creq & 1) << 6 | (seq & 0x1f)));
    out[1] = (up_symbol){ credits, 0 };
    out[2] = (up_symbol){ up_crc16(out, 2), 0 };
    return 3;
}

int up_afc_decode(const up_symbol *s, size_t n, uint8_t *tc, uint8_t *creq, uint8_t *seq,
                  uint16_t *credits)
{
    if (n != 3 || !is_ctl(s[0], UP_CTL_AFC) || s[1].ctrl || s[2].ctrl ||
        s[2].bits != up_crc16(s, 2))
        return -EBADMSG;
    *tc = (uint8_t)(s[0].bits >> 7 & 1);
    *creq = (uint8_t)(s[0].bits >> 6 & 1);
    *seq = (uint8_t)(s[0].bits & 0x1f);
    *credits = s[1].bits;
    return 0;
}

size_t up_nac_encode(uint8_t rreq, up_symbol *out)
{
    out[0] = ctl(UP_CTL_NAC, rreq & 1);
    out[1] = (up_symbol){ up_crc16(out, 1), 0 };
    return 2;
}
