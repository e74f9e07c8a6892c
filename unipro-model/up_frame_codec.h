// SPDX-License-Identifier: MIT
// The bit-level layout of DL frames (docs/unipro.md, "Frame formats" and "Network and
// transport headers") and their CRC-16: data frames (SOF with TC, L3/L4 short headers,
// payload, EOF with the sequence number, CRC), AFC and NAC control frames. Control symbols
// carry an internal escape code because the real code points are not public. The timed
// model does not encode every frame (errors are decided by the bit error rate and assumed
// detected); this codec documents and tests the layout and the error detection the model
// assumes.
#ifndef GBVP_UNIPRO_MODEL_UP_FRAME_CODEC_H
#define GBVP_UNIPRO_MODEL_UP_FRAME_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* A 17-bit PA symbol: 16 data bits plus the control flag. */
typedef struct up_symbol {
    uint16_t bits;
    uint8_t ctrl;
} up_symbol;

enum { UP_CTL_SOF = 1, UP_CTL_EOF_EVEN = 2, UP_CTL_EOF_ODD = 3, UP_CTL_AFC = 4, UP_CTL_NAC = 5 };
#define UP_ESC_DL 0xA0 /* internal stand-in for the ESC_DL escape byte */

typedef struct up_frame_fields {
    uint8_t tc, seq, dst_dev, eom, fct;
    uint16_t dst_cport;   /* 5 bits in the short header */
    const uint8_t *payload;
    uint16_t len;
} up_frame_fields;

/* CRC-16-CCITT (x^16 + x^12 + x^5 + 1), initial value 0xFFFF, over the symbols' bits. */
uint16_t up_crc16(const up_symbol *s, size_t n);

/* Symbols of a data frame: 4 + ceil(len / 2). Returns the count written, or 0 when it does
 * not fit `max` or a field is out of range (len > 286, cport > 31, dev > 127). */
size_t up_frame_encode(const up_frame_fields *f, up_symbol *out, size_t max);
/* Parses a data frame; payload is copied into buf (>= 286 bytes) and f->payload points to
 * it. 0, or -EBADMSG (bad framing or CRC). */
int up_frame_decode(const up_symbol *s, size_t n, up_frame_fields *f, uint8_t *buf);

/* AFC (3 symbols): TC, CReq, acknowledged sequence number, 16-bit credit value, CRC. */
size_t up_afc_encode(uint8_t tc, uint8_t creq, uint8_t seq, uint16_t credits, up_symbol *out);
int up_afc_decode(const up_symbol *s, size_t n, uint8_t *tc, uint8_t *creq, uint8_t *seq,
                  uint16_t *credits);
/* NAC (2 symbols): RReq, CRC. */
size_t up_nac_encode(uint8_t rreq, up_symbol *out);

#endif
