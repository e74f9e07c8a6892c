// SPDX-License-Identifier: MIT
// SPI class handler and its simulated devices (see spi.h).
#include "virtual-modules/spi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

#define XFER_SIZE 13u /* speed le32, len le32, delay le16, cs_change, bpw, flags */
#define MASTER_CONFIG_SIZE 17u
#define DEVICE_CONFIG_SIZE 40u
#define NAME_LEN 32u
#define SPI_BPW_8 (1u << 7) /* Linux SPI_BPW_MASK(8) */
#define SPI_MIN_SPEED 1000u

typedef struct ring {
    uint8_t *buf;
    size_t head, len;
} ring;

/* One device behind a chip select, as DEVICE_CONFIG declares it. */
typedef struct spi_device_decl {
    uint8_t type;         /* GB_SPI_SPI_DEV, GB_SPI_SPI_NOR or GB_SPI_SPI_MODALIAS */
    char name[NAME_LEN];  /* the modalias (GB_SPI_SPI_MODALIAS only) */
} spi_device_decl;

struct vm_spi {
    unsigned ncs;
    uint32_t max_speed;
    spi_device_decl dev[VM_SPI_MAX_CHIP_SELECTS];
    ring miso, mosi;
    vm_spi_stats st;
};

static const char *const spi_keys[] = {"chip-selects", "modalias", "devices", "max-speed-hz",
                                       NULL};

/* One word of `devices`: "spidev" and "spi-nor" are the protocol's own device types (6.1's
 * spilib names them "spidev" and "spi-nor"); anything else is announced as a modalias. */
static int parse_device(const vm_bsection *cfg, const char *p, size_t n, spi_device_decl *d,
                        char *err, size_t errlen)
{
    if (n >= NAME_LEN)
        return vm_bsection_error(cfg, "devices", err, errlen,
                                 "'%.*s' is longer than %u characters", (int)n, p, NAME_LEN - 1);
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              c == '.'))
            return vm_bsection_error(cfg, "devices", err, errlen,
                                     "'%.*s' is not a driver name ([a-z0-9._-])", (int)n, p);
    }
    memcpy(d->name, p, n);
    d->name[n] = '\0';
    if (!strcmp(d->name, "spidev"))
        d->type = GB_SPI_SPI_DEV;
    else if (!strcmp(d->name, "spi-nor"))
        d->type = GB_SPI_SPI_NOR;
    else
        d->type = GB_SPI_SPI_MODALIAS;
    return 0;
}

/* `devices` (one word a chip select) or `modalias` (the same name on every chip select). */
static int parse_devices(vm_spi *s, const vm_bsection *cfg, uint32_t ncs, bool ncs_given,
                         char *err, size_t errlen)
{
    const char *v = vm_bsection_get(cfg, "devices", NULL);
    if (!v) {
        char name[NAME_LEN];
        if (vm_bsection_str(cfg, "modalias", "dh2228fv", name, NAME_LEN - 1, err, errlen))
            return -1;
        if (!name[0])
            return vm_bsection_error(cfg, "modalias", err, errlen, "must not be empty");
        s->ncs = ncs;
        for (unsigned i = 0; i < ncs; i++) {
            s->dev[i].type = GB_SPI_SPI_MODALIAS;
            strcpy(s->dev[i].name, name);
        }
        return 0;
    }
    if (vm_bsection_get(cfg, "modalias", NULL))
        return vm_bsection_error(cfg, "devices", err, errlen,
                                 "give either devices or modalias, not both");
    unsigned n = 0;
    for (const char *p = v; *p;) {
        p += strspn(p, " \t,");
        if (!*p)
            break;
        size_t len = strcspn(p, " \t,");
        if (n == VM_SPI_MAX_CHIP_SELECTS)
            return vm_bsection_error(cfg, "devices", err, errlen, "more than %u devices",
                                     VM_SPI_MAX_CHIP_SELECTS);
        if (parse_device(cfg, p, len, &s->dev[n], err, errlen))
            return -1;
        n++;
        p += len;
    }
    if (n == 0)
        return vm_bsection_error(cfg, "devices", err, errlen, "no device listed");
    if (ncs_given && ncs != n)
        return vm_bsection_error(cfg, "devices", err, errlen,
                                 "%u devices listed for %u chip selects", n, (unsigned)ncs);
    s->ncs = n;
    return 0;
}

static void *spi_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint32_t ncs, speed;
    (void)ep;
    if (vm_bsection_u32(cfg, "chip-selects", 1, 1, VM_SPI_MAX_CHIP_SELECTS, &ncs, err,
                        errlen) ||
        vm_bsection_u32(cfg, "max-speed-hz", 10000000, SPI_MIN_SPEED, 100000000, &speed, err,
                        errlen))
        return NULL;
    vm_spi *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (parse_devices(s, cfg, ncs, vm_bsection_get(cfg, "chip-selects", NULL) != NULL, err,
                      errlen)) {
        free(s);
        return NULL;
    }
    if (!(s->miso.buf = malloc(VM_SPI_BUFFER)) || !(s->mosi.buf = malloc(VM_SPI_BUFFER))) {
        free(s->miso.buf);
        free(s);
        return NULL;
    }
    s->max_speed = speed;
    return s;
}

static void spi_destroy(void *h)
{
    vm_spi *s = h;
    free(s->miso.buf);
    free(s->mosi.buf);
    free(s);
}

static bool ring_put(ring *r, uint8_t b)
{
    if (r->len == VM_SPI_BUFFER)
        return false;
    r->buf[(r->head + r->len++) % VM_SPI_BUFFER] = b;
    return true;
}

static bool ring_get(ring *r, uint8_t *b)
{
    if (!r->len)
        return false;
    *b = r->buf[r->head];
    r->head = (r->head + 1) % VM_SPI_BUFFER;
    r->len--;
    return true;
}

static uint8_t transfer(vm_spi *s, vm_request *rq)
{
    const uint8_t *p = rq->payload;
    if (rq->len < 4)
        return GB_OP_INVALID;
    size_t count = gb_get_le16(p + 2);
    if (p[0] >= s->ncs || count == 0 || rq->len < 4 + count * XFER_SIZE)
        return GB_OP_INVALID;
    const uint8_t *x = p + 4;
    size_t tx = 0, rx = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t len = gb_get_le32(x + i * XFER_SIZE + 4);
        uint8_t flags = x[i * XFER_SIZE + 12];
        if (!(flags & (GB_SPI_XFER_READ | GB_SPI_XFER_WRITE)) || len > GB_MSG_MAX_PAYLOAD)
            return GB_OP_INVALID;
        if (flags & GB_SPI_XFER_WRITE)
            tx += len;
        if (flags & GB_SPI_XFER_READ)
            rx += len;
    }
    if (rq->len != 4 + count * XFER_SIZE + tx || rx > rq->resp_cap)
        return GB_OP_INVALID;
    const uint8_t *mosi = x + count * XFER_SIZE;
    /* SPI_LOOP: the controller ties MISO to MOSI; the device's answer is not seen */
    bool loop = p[1] & GB_SPI_MODE_LOOP;
    size_t out = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t len = gb_get_le32(x + i * XFER_SIZE + 4);
        uint8_t flags = x[i * XFER_SIZE + 12];
        bool w = flags & GB_SPI_XFER_WRITE, r = flags & GB_SPI_XFER_READ;
        for (uint32_t k = 0; k < len; k++) {
            uint8_t in = w ? mosi[k] : 0xff, miso;
            if (w)
                ring_put(&s->mosi, in);
            if (loop || !ring_get(&s->miso, &miso))
                miso = in; /* echo MOSI, or the idle level 0xff on read-only transfers */
            if (r)
                rq->resp[out++] = miso;
        }
        if (w)
            mosi += len;
        s->st.transfers++;
        s->st.bytes_in += w ? len : 0;
        s->st.bytes_out += r ? len : 0;
    }
    s->st.messages++;
    s->st.last_chip_select = p[0];
    s->st.last_mode = p[1];
    rq->resp_len = out;
    return GB_OP_SUCCESS;
}

static uint8_t spi_request(void *h, vm_request *rq)
{
    vm_spi *s = h;
    uint8_t *r = rq->resp;
    switch (rq->type) {
    case GB_SPI_TYPE_MASTER_CONFIG:
        VM_REQ_EXPECT_LEN(rq, 0);
        gb_put_le32(r, SPI_BPW_8);
        gb_put_le32(r + 4, SPI_MIN_SPEED);
        gb_put_le32(r + 8, s->max_speed);
        gb_put_le16(r + 12, GB_SPI_MODE_CPHA | GB_SPI_MODE_CPOL | GB_SPI_MODE_CS_HIGH |
                                GB_SPI_MODE_LSB_FIRST | GB_SPI_MODE_LOOP);
        gb_put_le16(r + 14, 0); /* full duplex, can read and write */
        r[16] = (uint8_t)s->ncs;
        rq->resp_len = MASTER_CONFIG_SIZE;
        return GB_OP_SUCCESS;
    case GB_SPI_TYPE_DEVICE_CONFIG:
        VM_REQ_EXPECT_LEN(rq, 1);
        if (rq->payload[0] >= s->ncs)
            return GB_OP_INVALID;
        memset(r, 0, DEVICE_CONFIG_SIZE);
        gb_put_le16(r, 0); /* mode 0 */
        r[2] = 8;
        gb_put_le32(r + 3, s->max_speed);
        r[7] = s->dev[rq->payload[0]].type;
        if (r[7] == GB_SPI_SPI_MODALIAS) /* the name only counts for a modalias */
            memcpy(r + 8, s->dev[rq->payload[0]].name, strlen(s->dev[rq->payload[0]].name));
        rq->resp_len = DEVICE_CONFIG_SIZE;
        return GB_OP_SUCCESS;
    case GB_SPI_TYPE_TRANSFER:
        return transfer(s, rq);
    default:
        return GB_OP_PROTOCOL_BAD;
    }
}

int vm_spi_queue_miso(vm_spi *s, const uint8_t *data, size_t len)
{
    if (len > VM_SPI_BUFFER - s->miso.len)
        return -ENOSPC;
    for (size_t i = 0; i < len; i++)
        ring_put(&s->miso, data[i]);
    return 0;
}

size_t vm_spi_read_mosi(vm_spi *s, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap && ring_get(&s->mosi, &buf[n]))
        n++;
    return n;
}

void vm_spi_get_stats(const vm_spi *s, vm_spi_stats *out)
{
    *out = s->st;
}

vm_spi *vm_interface_spi(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_SPI);
}

const vm_class_ops vm_spi_class = {
    .protocol = GB_PROTOCOL_SPI,
    .name = "spi",
    .keys = spi_keys,
    .create = spi_create,
    .destroy = spi_destroy,
    .request = spi_request,
};
