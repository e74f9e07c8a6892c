// SPDX-License-Identifier: MIT
// Shared helpers for the virtual-module unit tests: build an interface from manifest and
// behaviour text, bring it up as the 6.1 AP would, send requests built as the kernel builds
// them, and record everything the interface sends.
#ifndef GBVP_TESTS_UNIT_TEST_VM_HARNESS_H
#define GBVP_TESTS_UNIT_TEST_VM_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_interface.h"

#define VMT_MAX_MSGS 64

typedef struct vmt_sink {
    uint8_t msg[VMT_MAX_MSGS][GB_MSG_MAX_SIZE];
    size_t len[VMT_MAX_MSGS];
    uint16_t cport[VMT_MAX_MSGS];
    size_t n;
} vmt_sink;

typedef struct vmt {
    vm_interface *intf;
    vmt_sink sink;
    char err[512];
} vmt;

/* Creates an interface (fails the test when it cannot), powers and activates it and
 * connects CPort 0 and every CPort in `cports` (terminated by 0xffff... pass NULL for
 * none). Returns false when vm_interface_new failed (err holds why). */
bool vmt_up(vmt *t, const char *mnfs, const char *behaviour, const uint16_t *cports,
            size_t ncports);
void vmt_down(vmt *t);
/* A catalog file's text into buf[0..cap) (the tests run from the repository's top
 * directory; the test stops when the file cannot be opened). Returns buf. */
const char *vmt_catalog_text(const char *file, char *buf, size_t cap);

/* Sends a request and returns the number of messages the interface sent in reply. */
size_t vmt_request(vmt *t, uint16_t cport, uint16_t op_id, uint8_t type, const void *payload,
                   size_t len);
/* Delivers the well-formed message bytes[0..len) as gbvp does: parsed first (the test fails
 * when it does not parse), then vm_interface_receive. Returns what that returned. */
int vmt_receive(vmt *t, uint16_t cport, const uint8_t *bytes, size_t len, sim_time now);
/* Asserts that message i is exactly `expected` (n bytes) on `cport`. */
void vmt_expect(const vmt *t, size_t i, uint16_t cport, const uint8_t *expected, size_t n);
/* Asserts that message i is the response (op_id, type|0x80, result) with this payload. */
void vmt_expect_response(const vmt *t, size_t i, uint16_t cport, uint16_t op_id, uint8_t type,
                         uint8_t result, const void *payload, size_t plen);

/* Sends one request that must be answered by exactly one response of its type; returns the
 * result, the payload copied into out (may be NULL) and its length into *out_len (may be
 * NULL). */
uint8_t vmt_op(vmt *t, uint16_t cport, uint16_t op_id, uint8_t type, const void *payload,
               size_t len, uint8_t *out, size_t *out_len);

/* One transfer of an SPI TRANSFER request, as spilib describes it. */
typedef struct vmt_spi_xfer {
    uint32_t len;
    uint8_t flags; /* GB_SPI_XFER_* */
    const uint8_t *tx;
    uint8_t cs_change;
} vmt_spi_xfer;
/* A TRANSFER request as spilib builds it into buf: the headers (speed_hz, 8 bits a word),
 * then the tx bytes of the writing transfers in order. Returns its length. */
size_t vmt_spi_transfer(uint8_t *buf, uint8_t cs, uint32_t speed_hz, const vmt_spi_xfer *x,
                        size_t n);

/* A manifest with one bundle of `class_id` holding one CPort (id 1) of `protocol`. */
const char *vmt_manifest_one(uint8_t class_id, uint8_t protocol);

#endif
