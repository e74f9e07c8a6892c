// SPDX-License-Identifier: MIT
// SDIO class handler: an SD card slot (see sdio.h).
#include "virtual-modules/sdio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"
#include "virtual-modules/vm_class.h"

/* GET_CAPABILITIES: a 4-bit bus (the MMC core then sends ACMD6 and widens the bus) and SD
 * high speed (CMD6 switch to 50 MHz timing), no 8-bit bus, UHS or removable-card quirks;
 * 3.2-3.4 V, which the card's OCR (2.7-3.6 V) covers. */
#define SDIO_CAPS (GB_SDIO_CAP_4_BIT_DATA | GB_SDIO_CAP_SD_HS)
#define SDIO_OCR (GB_SDIO_VDD_32_33 | GB_SDIO_VDD_33_34)

struct vm_sdio {
    vm_endpoint *ep;
    vm_sd_card *card;  /* in the slot, or NULL */
    vm_sd_card *shelf; /* a memory card taken out: it keeps its bytes */
    char path[VM_SDIO_PATH_MAX]; /* image of the card in the slot (or taken out last) */
    uint64_t memory_size;
    bool write_protect;
    bool slot_power; /* SET_IOS power mode up or on */
    bool announce;   /* tell the AP the slot's state with the next request it can take */
    bool missed_removal; /* a card went out while the AP could not hear of it */
    unsigned bus_width; /* SET_IOS: 1 or 4 */
    vm_sdio_stats stats;
    uint64_t past_read, past_written, past_erased, past_illegal, past_host_errors;
    uint64_t host_errors_seen; /* of the card in the slot, already in last_error */
    char last_error[256];
};

static const char *const sdio_keys[] = {"card", "card-present", "write-protect", "card-size",
                                        NULL};
static const char *const yes_no[] = {"no", "yes", NULL};

/* ---- the slot ---- */

static int send_event(vm_sdio *s, uint8_t event)
{
    int rc = vm_endpoint_request(s->ep, GB_SDIO_TYPE_EVENT, &event, 1, false);
    if (rc == 0)
        s->stats.events++;
    return rc;
}

static uint8_t slot_event(const vm_sdio *s)
{
    if (!s->card)
        return GB_SDIO_CARD_REMOVED;
    return (uint8_t)(GB_SDIO_CARD_INSERTED | (s->write_protect ? GB_SDIO_WP : 0));
}

/* On the first request after GET_CAPABILITIES on a connection (the AP takes requests now):
 * the slot's state, which may have changed while the CPort was down (the AP's bundle
 * runtime-suspended). 6.1 ignores "inserted" while it believes in a card (sdio.c:176-177):
 * a card swapped meanwhile is announced as removed, then inserted; and it reads the WP bit
 * only beside an insertion it acts on, so that goes alone first. */
static void announce(vm_sdio *s)
{
    if (!s->announce)
        return;
    if (s->missed_removal && s->card && send_event(s, GB_SDIO_CARD_REMOVED))
        return;
    s->missed_removal = false;
    if (s->card && s->write_protect && send_event(s, GB_SDIO_WP))
        return;
    if (send_event(s, slot_event(s)) == 0)
        s->announce = false;
}

/* Puts `c` in the slot (owned from now on). */
static void slot_insert(vm_sdio *s, vm_sd_card *c)
{
    s->card = c;
    vm_sd_card_set_write_protect(c, s->write_protect);
    vm_sd_card_power(c, s->slot_power);
}

static int open_card(vm_sdio *s, const char *path, vm_sd_card **out, char *err, size_t errlen)
{
    vm_store *st;
    if (path && path[0]) {
        st = vm_store_file(path, 0, err, errlen);
        if (!st)
            return -EINVAL;
    } else {
        st = vm_store_memory(s->memory_size, 0x00);
        if (!st) {
            snprintf(err, errlen, "no memory for a %" PRIu64 "-byte memory card", s->memory_size);
            return -EINVAL;
        }
    }
    *out = vm_sd_card_new(st, err, errlen);
    return *out ? 0 : -EINVAL;
}

int vm_sdio_insert(vm_sdio *s, const char *path, char *err, size_t errlen)
{
    if (s->card) {
        snprintf(err, errlen, "the slot holds a card already (sdio remove first)");
        return -EBUSY;
    }
    vm_sd_card *c;
    if (path) {
        if (strlen(path) >= sizeof s->path) {
            snprintf(err, errlen, "the path is longer than %zu bytes", sizeof s->path - 1);
            return -EINVAL;
        }
        if (open_card(s, path, &c, err, errlen))
            return -EINVAL;
        snprintf(s->path, sizeof s->path, "%s", path);
    } else if (!s->path[0] && s->shelf) {
        c = s->shelf;
        s->shelf = NULL;
    } else if (open_card(s, s->path, &c, err, errlen)) {
        return -EINVAL;
    }
    slot_insert(s, c);
    if (send_event(s, slot_event(s)))
        s->announce = true; /* not connected: said when the AP connects */
    return 0;
}

int vm_sdio_remove(vm_sdio *s)
{
    if (!s->card)
        return -ENOENT;
    vm_sd_card_stats st;
    vm_sd_card_get_stats(s->card, &st);
    s->past_read += st.blocks_read;
    s->past_written += st.blocks_written;
    s->past_erased += st.blocks_erased;
    s->past_illegal += st.illegal;
    s->past_host_errors += st.host_errors;
    s->host_errors_seen = 0;
    if (vm_sd_card_path(s->card)) {
        vm_sd_card_free(s->card); /* closes and unlocks the image */
    } else {
        vm_sd_card_power(s->card, false);
        vm_sd_card_free(s->shelf);
        s->shelf = s->card;
    }
    s->card = NULL;
    if (send_event(s, GB_SDIO_CARD_REMOVED))
        s->announce = s->missed_removal = true;
    return 0;
}

void vm_sdio_set_write_protect(vm_sdio *s, bool on)
{
    s->write_protect = on;
    if (!s->card)
        return;
    vm_sd_card_set_write_protect(s->card, on);
    /* 6.1 takes the WP bit alone (with INSERTED it would stop at "already present") */
    if (on && send_event(s, GB_SDIO_WP))
        s->announce = true;
}

vm_sd_card *vm_sdio_card(vm_sdio *s)
{
    return s->card;
}

static void set_slot_power(vm_sdio *s, bool on)
{
    s->slot_power = on;
    if (s->card)
        vm_sd_card_power(s->card, on);
}

/* ---- class handler ---- */

static void sdio_destroy(void *h)
{
    vm_sdio *s = h;
    if (!s)
        return;
    vm_sd_card_free(s->card);
    vm_sd_card_free(s->shelf);
    free(s);
}

static void *sdio_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    vm_sdio *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "sdio: out of memory");
        return NULL;
    }
    s->ep = ep;
    s->bus_width = 1;
    int present, wp;
    if (vm_bsection_path(cfg, "card", s->path, sizeof s->path, err, errlen) ||
        vm_bsection_enum(cfg, "card-present", yes_no, 1, &present, err, errlen) ||
        vm_bsection_enum(cfg, "write-protect", yes_no, 0, &wp, err, errlen) ||
        vm_bsection_u64(cfg, "card-size", VM_SDIO_MEMORY_CARD_SIZE, &s->memory_size, err,
                        errlen))
        goto fail;
    if (s->path[0] && vm_bsection_get(cfg, "card-size", NULL)) {
        vm_bsection_error(cfg, "card-size", err, errlen,
                          "only for a card in memory: a card's size is its image's (%s)",
                          s->path);
        goto fail;
    }
    if (s->memory_size < VM_SD_SIZE_UNIT || s->memory_size % VM_SD_SIZE_UNIT ||
        s->memory_size > VM_SDIO_MEMORY_CARD_MAX) {
        vm_bsection_error(cfg, "card-size", err, errlen,
                          "%" PRIu64 " bytes is not a multiple of 512 KiB (524288) between "
                          "512 KiB and 1 GiB",
                          s->memory_size);
        goto fail;
    }
    s->write_protect = wp;
    if (present) {
        char why[512];
        vm_sd_card *c;
        if (open_card(s, s->path, &c, why, sizeof why)) {
            vm_bsection_error(cfg, s->path[0] ? "card" : "card-size", err, errlen, "%s", why);
            goto fail;
        }
        slot_insert(s, c);
    }
    return s;
fail:
    sdio_destroy(s);
    return NULL;
}

static void sdio_connection(void *h, bool connected)
{
    vm_sdio *s = h;
    if (connected)
        s->announce = true;
}

/* The module rebooted: the slot loses power. */
static void sdio_reset(void *h)
{
    vm_sdio *s = h;
    set_slot_power(s, false);
    s->bus_width = 1;
    s->announce = true;
}

static void note_error(vm_sdio *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_error(vm_sdio *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->last_error, sizeof s->last_error, fmt, ap);
    va_end(ap);
}

/* A host file failure of the card (a read, write or erase) becomes the last error. */
static void take_card_error(vm_sdio *s)
{
    vm_sd_card_stats st;
    vm_sd_card_get_stats(s->card, &st);
    if (st.host_errors != s->host_errors_seen) {
        s->host_errors_seen = st.host_errors;
        note_error(s, "%s", st.last_error);
    }
}

static uint8_t get_capabilities(vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, 0);
    uint8_t *r = rq->resp;
    gb_put_le32(r, SDIO_CAPS);
    gb_put_le32(r + 4, SDIO_OCR);
    gb_put_le32(r + 8, VM_SDIO_F_MIN);
    gb_put_le32(r + 12, VM_SDIO_F_MAX);
    gb_put_le16(r + 16, VM_SDIO_MAX_BLK_COUNT);
    gb_put_le16(r + 18, VM_SDIO_MAX_BLK_SIZE);
    rq->resp_len = GB_SDIO_CAPS_RESP_SIZE;
    return GB_OP_SUCCESS;
}

static uint8_t set_ios(vm_sdio *s, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, GB_SDIO_SET_IOS_REQ_SIZE);
    const uint8_t *d = rq->payload;
    uint32_t clock = gb_get_le32(d), vdd = gb_get_le32(d + 4);
    uint8_t bus_mode = d[8], power = d[9], width = d[10], timing = d[11];
    uint8_t voltage = d[12], driver = d[13];
    if (clock > VM_SDIO_F_MAX || (vdd & ~(uint32_t)GB_SDIO_VDD_MASK) ||
        bus_mode > GB_SDIO_BUSMODE_PUSHPULL || power > GB_SDIO_POWER_UNDEFINED ||
        (width != GB_SDIO_BUS_WIDTH_1 && width != GB_SDIO_BUS_WIDTH_4) ||
        timing > GB_SDIO_TIMING_MMC_HS400 || voltage > GB_SDIO_SIGNAL_VOLTAGE_120 ||
        driver > GB_SDIO_SET_DRIVER_TYPE_D)
        return GB_OP_INVALID; /* 8-bit bus too: not in the capabilities */
    s->bus_width = width == GB_SDIO_BUS_WIDTH_4 ? 4 : 1;
    if (power == GB_SDIO_POWER_OFF)
        set_slot_power(s, false);
    else if (power == GB_SDIO_POWER_UP || power == GB_SDIO_POWER_ON)
        set_slot_power(s, true);
    return GB_OP_SUCCESS;
}

static bool valid_response_flags(uint8_t f)
{
    return f == GB_SDIO_RSP_NONE || f == GB_SDIO_RSP_R1_R5_R6_R7 || f == GB_SDIO_RSP_R1B ||
           f == GB_SDIO_RSP_R2 || f == GB_SDIO_RSP_R3_R4;
}

static uint8_t command(vm_sdio *s, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, GB_SDIO_COMMAND_REQ_SIZE);
    const uint8_t *d = rq->payload;
    uint8_t index = d[0], flags = d[1], type = d[2];
    uint32_t arg = gb_get_le32(d + 3);
    uint16_t blocks = gb_get_le16(d + 7), blksz = gb_get_le16(d + 9);
    if (index > 63 || !valid_response_flags(flags) || type > GB_SDIO_CMD_BCR)
        return GB_OP_INVALID;
    /* a data command announces its data (6.1 copies mmc_request.data's) */
    if (type == GB_SDIO_CMD_ADTC && (blocks == 0 || blksz == 0 || blksz > VM_SDIO_MAX_BLK_SIZE))
        return GB_OP_INVALID;
    s->stats.commands++;
    vm_sd_response rsp;
    bool answered = s->card && vm_sd_card_command(s->card, index, arg, &rsp);
    if (s->card)
        take_card_error(s); /* an erase that failed on the host */
    memset(rq->resp, 0, GB_SDIO_COMMAND_RESP_SIZE);
    rq->resp_len = GB_SDIO_COMMAND_RESP_SIZE;
    if (flags == GB_SDIO_RSP_NONE) /* nothing to wait for: a controller reports no error */
        return GB_OP_SUCCESS;
    if (!answered) {
        s->stats.timeouts++;
        return GB_OP_TIMEOUT; /* 6.1: -ETIMEDOUT, "no card answered" */
    }
    bool long_response = rsp.kind == VM_SD_RSP_R2;
    if (long_response != ((flags & GB_SDIO_RSP_136) != 0)) {
        /* a 48-bit response where 136 bits were expected, or the other way round: the
         * controller sees a malformed response, which the MMC core takes as a CRC error */
        note_error(s, "CMD%u: the card sent a %s response; the AP expected %s", index,
                   long_response ? "136-bit" : "48-bit", long_response ? "48 bits" : "136");
        return GB_OP_MALFUNCTION;
    }
    for (int i = 0; i < (long_response ? 4 : 1); i++)
        gb_put_le32(rq->resp + 4 * i, rsp.resp[i]);
    return GB_OP_SUCCESS;
}

static uint8_t transfer(vm_sdio *s, vm_request *rq)
{
    if (rq->len < GB_SDIO_TRANSFER_REQ_SIZE)
        return GB_OP_INVALID;
    const uint8_t *d = rq->payload;
    uint8_t flags = d[0];
    uint16_t blocks = gb_get_le16(d + 1), blksz = gb_get_le16(d + 3);
    if ((flags != GB_SDIO_DATA_READ && flags != GB_SDIO_DATA_WRITE) || blocks == 0 ||
        blksz == 0 || blksz > VM_SDIO_MAX_BLK_SIZE)
        return GB_OP_INVALID;
    bool read = flags == GB_SDIO_DATA_READ;
    size_t n = (size_t)blocks * blksz;
    if (read ? rq->len != GB_SDIO_TRANSFER_REQ_SIZE ||
                   n > rq->resp_cap - GB_SDIO_TRANSFER_RESP_SIZE
             : rq->len != GB_SDIO_TRANSFER_REQ_SIZE + n)
        return GB_OP_INVALID;
    s->stats.transfers++;
    if (!s->card) {
        s->stats.data_errors++;
        note_error(s, "TRANSFER: no card in the slot");
        return GB_OP_TIMEOUT;
    }
    if (vm_sd_card_bus_width(s->card) != s->bus_width) {
        s->stats.data_errors++;
        note_error(s, "TRANSFER: the AP drives a %u-bit bus, the card a %u-bit one", s->bus_width,
                   vm_sd_card_bus_width(s->card));
        return GB_OP_MALFUNCTION; /* what the data lines carry is garbage: a CRC error */
    }
    int rc = read ? vm_sd_card_read(s->card, rq->resp + GB_SDIO_TRANSFER_RESP_SIZE, blksz, blocks)
                  : vm_sd_card_write(s->card, d + GB_SDIO_TRANSFER_REQ_SIZE, blksz, blocks);
    if (rc == -EIO) {
        take_card_error(s);
        return GB_OP_UNKNOWN_ERROR; /* 6.1: -EIO */
    }
    if (rc) {
        vm_sd_data_phase ph;
        vm_sd_card_data_phase(s->card, &ph);
        s->stats.data_errors++;
        if (rc == -ERANGE)
            note_error(s, "TRANSFER: %u blocks run past the end of the card", blocks);
        else
            note_error(s, "TRANSFER: %s of %u x %u bytes, but the card (state %s) %s",
                       read ? "read" : "write", blocks, blksz, vm_sd_card_state_name(s->card),
                       ph.dir == VM_SD_NO_DATA ? "has no data phase open"
                       : ph.dir != (read ? VM_SD_READ : VM_SD_WRITE)
                           ? "moves data the other way"
                           : "expects other blocks");
        return GB_OP_TIMEOUT; /* the card sends or takes nothing: a data timeout */
    }
    gb_put_le16(rq->resp, blocks);
    gb_put_le16(rq->resp + 2, blksz);
    rq->resp_len = GB_SDIO_TRANSFER_RESP_SIZE + (read ? n : 0);
    return GB_OP_SUCCESS;
}

static uint8_t sdio_request(void *h, vm_request *rq)
{
    vm_sdio *s = h;
    uint8_t result;
    switch (rq->type) {
    case GB_SDIO_TYPE_GET_CAPABILITIES:
        return get_capabilities(rq); /* the AP's connection takes no requests yet */
    case GB_SDIO_TYPE_SET_IOS:
        result = set_ios(s, rq);
        break;
    case GB_SDIO_TYPE_COMMAND:
        result = command(s, rq);
        break;
    case GB_SDIO_TYPE_TRANSFER:
        result = transfer(s, rq);
        break;
    default:
        return GB_OP_PROTOCOL_BAD;
    }
    announce(s); /* leaves after the response */
    return result;
}

static void sdio_describe(const void *h, char *buf, size_t len)
{
    const vm_sdio *s = h;
    if (!s->card) {
        snprintf(buf, len, "sdio slot empty%s%s", s->path[0] ? ", last image " : "", s->path);
        return;
    }
    const char *path = vm_sd_card_path(s->card);
    snprintf(buf, len, "sdio card %s%s, %" PRIu64 " KiB%s", path ? "image " : "in memory",
             path ? path : "", vm_sd_card_size(s->card) / 1024,
             s->write_protect ? ", write protected" : "");
}

void vm_sdio_get_stats(const vm_sdio *s, vm_sdio_stats *out)
{
    *out = s->stats;
    out->present = s->card != NULL;
    out->write_protect = s->write_protect;
    out->path = s->card && !vm_sd_card_path(s->card) ? "" : s->path;
    out->size = s->card ? vm_sd_card_size(s->card) : 0;
    out->state = s->card ? vm_sd_card_state_name(s->card) : "none";
    vm_sd_card_stats st = {0};
    if (s->card)
        vm_sd_card_get_stats(s->card, &st);
    out->blocks_read = s->past_read + st.blocks_read;
    out->blocks_written = s->past_written + st.blocks_written;
    out->blocks_erased = s->past_erased + st.blocks_erased;
    out->illegal = s->past_illegal + st.illegal;
    out->io_errors = s->past_host_errors + st.host_errors;
    out->last_error = s->last_error;
}

vm_sdio *vm_interface_sdio(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_SDIO);
}

const vm_class_ops vm_sdio_class = {
    .protocol = GB_PROTOCOL_SDIO,
    .name = "sdio",
    .keys = sdio_keys,
    .create = sdio_create,
    .destroy = sdio_destroy,
    .request = sdio_request,
    .connection = sdio_connection,
    .reset = sdio_reset,
    .describe = sdio_describe,
};
