// SPDX-License-Identifier: MIT
// SPI class handler and its simulated devices (see spi.h).
#include "virtual-modules/spi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/spi_nor.h"
#include "virtual-modules/vm_class.h"

#define XFER_SIZE 13u /* speed le32, len le32, delay le16, cs_change, bpw, flags */
#define MASTER_CONFIG_SIZE 17u
#define DEVICE_CONFIG_SIZE 40u
#define NAME_LEN 32u
#define SPI_BPW_8 (1u << 7) /* Linux SPI_BPW_MASK(8) */
#define SPI_MIN_SPEED 1000u
#define FLASH_PATH_MAX 4096u
#define FLASH_PARTS_MAX 8u /* spi_nor.c's parts a behaviour may name */

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
    vm_spi_nor *flash[VM_SPI_MAX_CHIP_SELECTS]; /* on the chip selects declared spi-nor */
    int held; /* a flash chip select still asserted after the last message, else -1 */
    vm_spi_stats st;
};

static const char *const spi_keys[] = {"chip-selects", "modalias",   "devices", "max-speed-hz",
                                       "flash-file",   "flash-part", NULL};

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

/* A flash behind every chip select declared spi-nor: `flash-part` (default the first part),
 * in memory (erased) or in the host file `flash-file`, opened (and locked) here. */
static int create_flashes(vm_spi *s, const vm_bsection *cfg, char *err, size_t errlen)
{
    unsigned nflash = 0;
    for (unsigned i = 0; i < s->ncs; i++)
        nflash += s->dev[i].type == GB_SPI_SPI_NOR;
    const char *names[FLASH_PARTS_MAX + 1] = {NULL};
    for (size_t i = 0; i < FLASH_PARTS_MAX && vm_spi_nor_part_at(i); i++)
        names[i] = vm_spi_nor_part_at(i)->name;
    int part;
    char path[FLASH_PATH_MAX];
    if (vm_bsection_enum(cfg, "flash-part", names, 0, &part, err, errlen) ||
        vm_bsection_path(cfg, "flash-file", path, sizeof path, err, errlen))
        return -1;
    bool file = path[0] != '\0';
    if (!nflash && (file || vm_bsection_get(cfg, "flash-part", NULL)))
        return vm_bsection_error(cfg, file ? "flash-file" : "flash-part", err, errlen,
                                 "no chip select is a flash: list spi-nor in devices");
    if (file && nflash > 1)
        return vm_bsection_error(cfg, "flash-file", err, errlen,
                                 "one file for %u spi-nor chip selects; a file backs one flash",
                                 nflash);
    const vm_spi_nor_part *p = vm_spi_nor_part_at((size_t)part);
    for (unsigned i = 0; i < s->ncs; i++) {
        if (s->dev[i].type != GB_SPI_SPI_NOR)
            continue;
        vm_store *st;
        if (file) {
            char msg[256];
            if (!(st = vm_store_file(path, p->size, msg, sizeof msg)))
                return vm_bsection_error(cfg, "flash-file", err, errlen, "%s (part %s)", msg,
                                         p->name);
        } else if (!(st = vm_store_memory(p->size, 0xff))) {
            return vm_bsection_error(cfg, "devices", err, errlen,
                                     "no memory for a %u KiB flash", p->size >> 10);
        }
        if (!(s->flash[i] = vm_spi_nor_new(p, st)))
            return vm_bsection_error(cfg, "devices", err, errlen, "out of memory");
    }
    return 0;
}

static void spi_free(vm_spi *s)
{
    for (unsigned i = 0; i < VM_SPI_MAX_CHIP_SELECTS; i++)
        vm_spi_nor_free(s->flash[i]);
    free(s->miso.buf);
    free(s->mosi.buf);
    free(s);
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
    s->held = -1;
    if (parse_devices(s, cfg, ncs, vm_bsection_get(cfg, "chip-selects", NULL) != NULL, err,
                      errlen) ||
        create_flashes(s, cfg, err, errlen) || !(s->miso.buf = malloc(VM_SPI_BUFFER)) ||
        !(s->mosi.buf = malloc(VM_SPI_BUFFER))) {
        spi_free(s);
        return NULL;
    }
    s->max_speed = speed;
    return s;
}

static void spi_destroy(void *h)
{
    spi_free(h);
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

/* The echo device: the queued bytes, else MOSI (the idle level 0xff on read-only
 * transfers); what it receives is kept for scripts. */
static void echo_transfer(vm_spi *s, const uint8_t *mosi, uint8_t *miso, uint32_t len,
                          bool loop)
{
    for (uint32_t k = 0; k < len; k++) {
        uint8_t in = mosi ? mosi[k] : 0xff, out;
        if (mosi)
            ring_put(&s->mosi, in);
        if (loop || !ring_get(&s->miso, &out))
            out = in;
        if (miso)
            miso[k] = out;
    }
}

/* A flash chip select left asserted by an earlier message is released. */
static void release_held(vm_spi *s)
{
    if (s->held >= 0)
        vm_spi_nor_end(s->flash[s->held]);
    s->held = -1;
}

/* After transfer i of `count` on a flash: the chip select rises between transfers when
 * cs_change asks for it; after the last it rises unless the transfer is in progress
 * (spilib continues a transfer too long for one operation in the next) or cs_change asks
 * to keep the device selected for the next message (Linux's meaning on a last transfer). */
static void flash_after_transfer(vm_spi *s, uint8_t cs, bool last, uint8_t cs_change,
                                 uint8_t flags)
{
    vm_spi_nor *f = s->flash[cs];
    if (last && ((flags & GB_SPI_XFER_INPROGRESS) || cs_change)) {
        s->held = cs;
    } else if (last) {
        vm_spi_nor_end(f);
    } else if (cs_change) {
        vm_spi_nor_end(f);
        vm_spi_nor_begin(f);
    }
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
    /* a flash sees one chip-select assertion per message, or longer (see above) */
    vm_spi_nor *flash = s->flash[p[0]];
    if (s->held != p[0])
        release_held(s);
    if (flash && s->held < 0)
        vm_spi_nor_begin(flash);
    s->held = -1;
    size_t out = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t len = gb_get_le32(x + i * XFER_SIZE + 4);
        uint8_t flags = x[i * XFER_SIZE + 12];
        bool w = flags & GB_SPI_XFER_WRITE, r = flags & GB_SPI_XFER_READ;
        uint8_t *miso = r ? rq->resp + out : NULL;
        if (flash) {
            vm_spi_nor_exchange(flash, w ? mosi : NULL, miso, len);
            /* the flash answered, but the controller loops MOSI back */
            if (miso && loop && w)
                memcpy(miso, mosi, len);
            else if (miso && loop)
                memset(miso, 0xff, len);
            flash_after_transfer(s, p[0], i + 1 == count, x[i * XFER_SIZE + 10], flags);
        } else {
            echo_transfer(s, w ? mosi : NULL, miso, len, loop);
        }
        out += r ? len : 0;
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

/* The module rebooted: its flashes power up again (the array stays). */
static void spi_reset(void *h)
{
    vm_spi *s = h;
    s->held = -1;
    for (unsigned i = 0; i < VM_SPI_MAX_CHIP_SELECTS; i++)
        if (s->flash[i])
            vm_spi_nor_power_on(s->flash[i]);
}

/* Without a connection no message continues: a held chip select rises. */
static void spi_connection(void *h, bool connected)
{
    if (!connected)
        release_held(h);
}

static void spi_describe(const void *h, char *buf, size_t len)
{
    const vm_spi *s = h;
    size_t used = (size_t)snprintf(buf, len, "spi");
    for (unsigned i = 0; i < s->ncs && used < len; i++) {
        const vm_spi_nor *f = s->flash[i];
        if (!f)
            continue;
        const char *path = vm_spi_nor_path(f);
        int n = snprintf(buf + used, len - used, ", cs %u flash %s %u KiB %s%s%s", i,
                         vm_spi_nor_part_of(f)->name, vm_spi_nor_part_of(f)->size >> 10,
                         path ? "file " : "in memory", path ? path : "",
                         vm_spi_nor_failed(f) ? " (failed)" : "");
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

vm_spi_nor *vm_spi_flash(vm_spi *s, unsigned cs)
{
    return cs < VM_SPI_MAX_CHIP_SELECTS ? s->flash[cs] : NULL;
}

int vm_spi_first_flash(const vm_spi *s)
{
    for (unsigned i = 0; i < s->ncs; i++)
        if (s->flash[i])
            return (int)i;
    return -1;
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
    .connection = spi_connection,
    .reset = spi_reset,
    .describe = spi_describe,
};
