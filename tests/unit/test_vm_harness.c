// SPDX-License-Identifier: MIT
// Helpers for the virtual-module unit tests (see test_vm_harness.h).
#include "tests/unit/test_vm_harness.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "virtual-modules/behaviour.h"
#include "virtual-modules/manifest.h"

static void sink_send(void *ctx, uint16_t cport, const gb_msg *m)
{
    vmt_sink *s = ctx;
    size_t len = m->h.size;
    if (s->n == VMT_MAX_MSGS || len > GB_MSG_MAX_SIZE) {
        CU_FAIL("test sink overflow");
        return;
    }
    /* whoever hands on a parsed message hands on the header its bytes carry */
    gb_msg_header h;
    CU_ASSERT_EQUAL(gb_msg_header_decode(m->bytes, len, &h), 0);
    CU_ASSERT_TRUE(h.size == m->h.size && h.operation_id == m->h.operation_id &&
                   h.type == m->h.type && h.result == m->h.result);
    memcpy(s->msg[s->n], m->bytes, len);
    s->len[s->n] = len;
    s->cport[s->n] = cport;
    s->n++;
}

bool vmt_up(vmt *t, const char *mnfs, const char *behaviour, const uint16_t *cports,
            size_t ncports)
{
    memset(t, 0, sizeof *t);
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_text("test.mnfs", mnfs, strlen(mnfs), d);
    if (!m)
        vm_manifest_diags_print(d, stderr, VM_MANIFEST_ERROR);
    vm_manifest_diags_free(d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    vm_behaviour *b = NULL;
    if (behaviour) {
        b = vm_behaviour_parse("test.behaviour", behaviour, strlen(behaviour), t->err,
                               sizeof t->err);
        if (!b) {
            vm_manifest_free(m);
            return false;
        }
    }
    vm_interface_config cfg = {
        .manifest = m,
        .behaviour = b,
        .vendor_id = 0x1234,
        .product_id = 0x5678,
        .serial_number = 0x1122334455667788ull,
        .out = {sink_send, &t->sink},
    };
    t->intf = vm_interface_new(&cfg, t->err, sizeof t->err);
    vm_manifest_free(m);
    vm_behaviour_free(b);
    if (!t->intf)
        return false;
    CU_ASSERT_EQUAL(vm_interface_power(t->intf, VM_POWER_VSYS_ENABLE), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t->intf, VM_POWER_REFCLK_ENABLE), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t->intf, VM_POWER_UNIPRO_ENABLE), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t->intf, VM_POWER_ACTIVATE), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t->intf, 0), 0);
    for (size_t i = 0; i < ncports; i++)
        CU_ASSERT_EQUAL(vm_interface_cport_connect(t->intf, cports[i]), 0);
    return true;
}

void vmt_down(vmt *t)
{
    vm_interface_free(t->intf);
    t->intf = NULL;
}

size_t vmt_request(vmt *t, uint16_t cport, uint16_t op_id, uint8_t type, const void *payload,
                   size_t len)
{
    uint8_t msg[GB_MSG_MAX_SIZE + 64];
    size_t n = gb_msg_build(msg, sizeof msg, op_id, type, 0, payload, len);
    CU_ASSERT_FATAL(n > 0);
    size_t before = t->sink.n;
    vmt_receive(t, cport, msg, n, SIM_MS(1));
    return t->sink.n - before;
}

uint8_t vmt_op(vmt *t, uint16_t cport, uint16_t op_id, uint8_t type, const void *payload,
               size_t len, uint8_t *out, size_t *out_len)
{
    t->sink.n = 0;
    CU_ASSERT_EQUAL_FATAL(vmt_request(t, cport, op_id, type, payload, len), 1);
    const uint8_t *m = t->sink.msg[0];
    CU_ASSERT_EQUAL(m[4], type | GB_TYPE_RESPONSE_FLAG);
    if (out)
        memcpy(out, m + GB_MSG_HEADER_SIZE, t->sink.len[0] - GB_MSG_HEADER_SIZE);
    if (out_len)
        *out_len = t->sink.len[0] - GB_MSG_HEADER_SIZE;
    return m[5];
}

size_t vmt_spi_transfer(uint8_t *buf, uint8_t cs, uint32_t speed_hz, const vmt_spi_xfer *x,
                        size_t n)
{
    buf[0] = cs;
    buf[1] = 0;
    gb_put_le16(buf + 2, (uint16_t)n);
    size_t len = 4 + 13 * n;
    for (size_t i = 0; i < n; i++) {
        uint8_t *d = buf + 4 + 13 * i;
        gb_put_le32(d, speed_hz);
        gb_put_le32(d + 4, x[i].len);
        gb_put_le16(d + 8, 0);
        d[10] = x[i].cs_change;
        d[11] = 8;
        d[12] = x[i].flags;
    }
    for (size_t i = 0; i < n; i++) {
        if (x[i].flags & GB_SPI_XFER_WRITE) {
            memcpy(buf + len, x[i].tx, x[i].len);
            len += x[i].len;
        }
    }
    return len;
}

int vmt_receive(vmt *t, uint16_t cport, const uint8_t *bytes, size_t len, sim_time now)
{
    gb_msg m;
    CU_ASSERT_EQUAL_FATAL(gb_msg_parse(bytes, len, &m), 0);
    return vm_interface_receive(t->intf, cport, &m, now);
}

void vmt_expect(const vmt *t, size_t i, uint16_t cport, const uint8_t *expected, size_t n)
{
    CU_ASSERT_FATAL(i < t->sink.n);
    CU_ASSERT_EQUAL(t->sink.cport[i], cport);
    CU_ASSERT_EQUAL(t->sink.len[i], n);
    if (t->sink.len[i] == n && memcmp(t->sink.msg[i], expected, n) != 0) {
        fprintf(stderr, "\nmessage %zu differs:\n  got ", i);
        for (size_t k = 0; k < n; k++)
            fprintf(stderr, "%02x ", t->sink.msg[i][k]);
        fprintf(stderr, "\n want ");
        for (size_t k = 0; k < n; k++)
            fprintf(stderr, "%02x ", expected[k]);
        fprintf(stderr, "\n");
        CU_FAIL("message bytes differ");
    }
}

void vmt_expect_response(const vmt *t, size_t i, uint16_t cport, uint16_t op_id, uint8_t type,
                         uint8_t result, const void *payload, size_t plen)
{
    uint8_t want[GB_MSG_MAX_SIZE];
    size_t n = gb_msg_build(want, sizeof want, op_id, (uint8_t)(type | 0x80), result, payload,
                            plen);
    CU_ASSERT_FATAL(n > 0);
    vmt_expect(t, i, cport, want, n);
}

const char *vmt_manifest_one(uint8_t class_id, uint8_t protocol)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
             "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
             "[string-descriptor 1]\nstring = gbvp\n"
             "[string-descriptor 2]\nstring = test\n"
             "[bundle-descriptor 1]\nclass = 0x%02x\n"
             "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x%02x\n",
             class_id, protocol);
    return buf;
}

const char *vmt_catalog_text(const char *file, char *buf, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, "virtual-modules/catalog/%s", file);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}
