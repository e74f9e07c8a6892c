// SPDX-License-Identifier: MIT
// The rules a manifest must follow, from the Linux 6.1 sources:
//  - errors: what makes gb_manifest_parse() refuse the manifest, or silently drop a bundle
//    or CPort the author obviously meant (drivers/greybus/manifest.c, bundle.c), what
//    manifesto refuses, and what the AP cannot fetch (2040 bytes);
//  - warnings: what the kernel accepts but no 6.1 class driver will bind
//    (drivers/staging/greybus/*.c probe functions), and unused strings.
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest_internal.h"

typedef struct checker {
    vm_manifest *m;
    vm_manifest_diags *d;
    size_t errors;
    /* 1 + index of the first descriptor of each kind and id, 0 when none: keeps the
     * checks linear however many descriptors a hostile file has */
    uint32_t first_string[256], first_bundle[256];
    uint32_t *first_cport;   /* 65536 entries */
} checker;

static void report(checker *c, vm_manifest_severity sev, vm_mf_where_kind at, size_t where,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void report(checker *c, vm_manifest_severity sev, vm_mf_where_kind at, size_t where,
                   const char *fmt, ...)
{
    if (sev == VM_MANIFEST_ERROR)
        c->errors++;
    va_list ap;
    va_start(ap, fmt);
    vm_mf_vdiag(c->d, sev, c->m->name, at, where, fmt, ap);
    va_end(ap);
}

#define ERR_AT(c, desc, ...) report((c), VM_MANIFEST_ERROR, (c)->m->at, (desc)->where, __VA_ARGS__)
#define WARN_AT(c, desc, ...) report((c), VM_MANIFEST_WARNING, (c)->m->at, (desc)->where, __VA_ARGS__)
#define ERR_FILE(c, ...) report((c), VM_MANIFEST_ERROR, VM_MF_AT_FILE, 0, __VA_ARGS__)

/* "line 12" or "offset 0x0010", for messages that point at a second place. */
static void where_text(const checker *c, const vm_mf_desc *desc, char *buf, size_t size)
{
    if (c->m->at == VM_MF_AT_LINE)
        snprintf(buf, size, "line %zu", desc->where);
    else
        snprintf(buf, size, "offset 0x%04zx", desc->where);
}

static void class_text(uint8_t cls, char *buf, size_t size)
{
    const char *name = vm_manifest_class_name(cls);
    snprintf(buf, size, "0x%02x (%s)", cls, name ? name : "reserved");
}

static void protocol_text(uint8_t protocol, char *buf, size_t size)
{
    const char *name = vm_manifest_protocol_name(protocol);
    snprintf(buf, size, "0x%02x (%s)", protocol, name ? name : "reserved");
}

static void build_index(checker *c)
{
    const vm_manifest *m = c->m;
    for (size_t i = m->ndescs; i-- > 0;) {
        const vm_mf_desc *d = &m->descs[i];
        if (d->type == VM_MF_STRING)
            c->first_string[d->u.str.id] = (uint32_t)(i + 1);
        else if (d->type == VM_MF_BUNDLE)
            c->first_bundle[d->u.bundle.id] = (uint32_t)(i + 1);
        else if (d->type == VM_MF_CPORT)
            c->first_cport[d->u.cport.id] = (uint32_t)(i + 1);
    }
}

/* The first descriptor of this kind and id, if it comes before index `before`. */
static const vm_mf_desc *find_first(const checker *c, uint8_t type, unsigned id, size_t before)
{
    uint32_t first = type == VM_MF_STRING   ? c->first_string[id & 0xff]
                     : type == VM_MF_BUNDLE ? c->first_bundle[id & 0xff]
                                            : c->first_cport[id & 0xffff];
    if (!first || first - 1 >= before)
        return NULL;
    return &c->m->descs[first - 1];
}

static void check_interface(checker *c, bool *string_used)
{
    vm_manifest *m = c->m;
    const vm_mf_desc *first = NULL;
    char at[32];
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *desc = &m->descs[i];
        if (desc->type != VM_MF_INTERFACE)
            continue;
        if (!first) {
            first = desc;
            continue;
        }
        where_text(c, first, at, sizeof at);
        ERR_AT(c, desc, "a second interface-descriptor (the first is at %s); the kernel needs "
                        "exactly one", at);
    }
    if (!first) {
        ERR_FILE(c, "no interface-descriptor; the kernel needs exactly one");
        return;
    }
    m->intf = first;
    uint8_t ids[2] = { first->u.intf.vendor, first->u.intf.product };
    const char *what[2] = { "vendor", "product" };
    for (int k = 0; k < 2; k++) {
        if (!ids[k])
            continue;
        const vm_mf_desc *s = find_first(c, VM_MF_STRING, ids[k], m->ndescs);
        if (!s)
            ERR_AT(c, first, "interface-descriptor names %s string %u, which does not exist",
                   what[k], ids[k]);
        else
            string_used[s - m->descs] = true;
    }
    if (ids[0] && ids[0] == ids[1])
        ERR_AT(c, first, "vendor-string-id and product-string-id are both %u; the kernel uses "
                         "up a string when it reads it, so the product lookup fails", ids[0]);
}

static void check_strings(checker *c, const bool *string_used)
{
    vm_manifest *m = c->m;
    char at[32];
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *desc = &m->descs[i];
        if (desc->type != VM_MF_STRING)
            continue;
        if (desc->u.str.id == 0) {
            ERR_AT(c, desc, "string-descriptor 0: string id 0 means \"no string\" and cannot "
                            "be used");
            continue;
        }
        const vm_mf_desc *prev = find_first(c, VM_MF_STRING, desc->u.str.id, i);
        if (prev) {
            where_text(c, prev, at, sizeof at);
            ERR_AT(c, desc, "string-descriptor %u is defined twice (also at %s)",
                   desc->u.str.id, at);
        } else if (!string_used[i]) {
            WARN_AT(c, desc, "string-descriptor %u is not used by anything", desc->u.str.id);
        }
    }
}

static void check_bundles(checker *c)
{
    vm_manifest *m = c->m;
    char at[32], cls[48];
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *desc = &m->descs[i];
        if (desc->type != VM_MF_BUNDLE)
            continue;
        uint8_t id = desc->u.bundle.id;
        class_text(desc->u.bundle.cls, cls, sizeof cls);
        const vm_mf_desc *prev = find_first(c, VM_MF_BUNDLE, id, i);
        if (prev) {
            where_text(c, prev, at, sizeof at);
            ERR_AT(c, desc, "bundle-descriptor %u is defined twice (also at %s)", id, at);
        } else if (id == 0xff) {
            ERR_AT(c, desc, "bundle id 255 is reserved (BUNDLE_ID_NONE); the kernel refuses "
                            "the manifest");
        } else if (id != 0 && desc->u.bundle.cls == VM_CLASS_CONTROL) {
            ERR_AT(c, desc, "bundle-descriptor %u has class 0x00 (Control); only bundle 0 may, "
                            "and the kernel refuses the manifest", id);
        } else if (id == 0 && desc->u.bundle.cls != VM_CLASS_CONTROL) {
            ERR_AT(c, desc, "bundle-descriptor 0 is the control bundle: its class must be 0x00 "
                            "(Control), not %s", cls);
        }
    }
}

static void check_cports(checker *c)
{
    vm_manifest *m = c->m;
    char at[32], proto[48];
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *desc = &m->descs[i];
        if (desc->type != VM_MF_CPORT)
            continue;
        uint16_t id = desc->u.cport.id;
        uint8_t bundle = desc->u.cport.bundle;
        protocol_text(desc->u.cport.protocol, proto, sizeof proto);
        const vm_mf_desc *prev = find_first(c, VM_MF_CPORT, id, i);
        if (prev) {
            where_text(c, prev, at, sizeof at);
            ERR_AT(c, desc, "cport-descriptor %u is defined twice (also at %s)", id, at);
            continue;
        }
        if (id > VM_MANIFEST_CPORT_ID_MAX) {
            ERR_AT(c, desc, "cport id %u is above %u (CPORT_ID_MAX); the kernel drops "
                            "bundle %u", id, VM_MANIFEST_CPORT_ID_MAX, bundle);
            continue;
        }
        if (id == 0) {
            if (bundle != 0 || desc->u.cport.protocol != VM_PROTOCOL_CONTROL)
                ERR_AT(c, desc, "cport-descriptor 0 is the control CPort: it must name bundle 0 "
                                "and protocol 0x00, not bundle %u and protocol %s",
                       bundle, proto);
            else if (!find_first(c, VM_MF_BUNDLE, 0, m->ndescs))
                WARN_AT(c, desc, "cport-descriptor 0 names bundle 0, which does not exist "
                                 "(manifesto refuses this; the kernel ignores it)");
            continue;
        }
        if (bundle == 0) {
            ERR_AT(c, desc, "cport-descriptor %u names bundle 0, the control bundle; only "
                            "CPort 0 belongs there and the kernel ignores the rest", id);
            continue;
        }
        if (!find_first(c, VM_MF_BUNDLE, bundle, m->ndescs))
            ERR_AT(c, desc, "cport-descriptor %u names bundle %u, which does not exist",
                   id, bundle);
    }
}

/* Classes whose 6.1 driver binds a bundle of exactly one CPort of one protocol. */
static const struct single_driver {
    uint8_t cls, protocol;
    const char *driver;
} single_drivers[] = {
    { VM_CLASS_HID, VM_PROTOCOL_HID, "hid" },
    { VM_CLASS_POWER_SUPPLY, VM_PROTOCOL_POWER_SUPPLY, "power_supply" },
    { VM_CLASS_LIGHTS, VM_PROTOCOL_LIGHTS, "lights" },
    { VM_CLASS_VIBRATOR, VM_PROTOCOL_VIBRATOR, "vibrator" },
    { VM_CLASS_LOOPBACK, VM_PROTOCOL_LOOPBACK, "loopback" },
    { VM_CLASS_BOOTROM, VM_PROTOCOL_BOOTROM, "bootrom" },
    { VM_CLASS_LOG, VM_PROTOCOL_LOG, "log" },
    { VM_CLASS_RAW, VM_PROTOCOL_RAW, "raw" },
};

static bool is_gbphy_protocol(uint8_t p)
{
    return p == VM_PROTOCOL_GPIO || p == VM_PROTOCOL_I2C || p == VM_PROTOCOL_UART ||
           p == VM_PROTOCOL_USB || p == VM_PROTOCOL_SDIO || p == VM_PROTOCOL_PWM ||
           p == VM_PROTOCOL_SPI;
}

static size_t count_protocol(const vm_mf_desc *const *cports, size_t n, uint8_t protocol)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += cports[i]->u.cport.protocol == protocol;
    return k;
}

/* Warns when no 6.1 class driver will bind this bundle. */
static void check_driver(checker *c, const vm_mf_desc *b, const vm_mf_desc *const *cports,
                         size_t n)
{
    uint8_t id = b->u.bundle.id, cls = b->u.bundle.cls;
    char ctext[48], ptext[48], want[48];
    class_text(cls, ctext, sizeof ctext);

    for (size_t i = 0; i < sizeof single_drivers / sizeof single_drivers[0]; i++) {
        const struct single_driver *s = &single_drivers[i];
        if (s->cls != cls)
            continue;
        protocol_text(s->protocol, want, sizeof want);
        if (n != 1) {
            WARN_AT(c, b, "bundle-descriptor %u (class %s) has %zu CPorts; the 6.1 %s driver "
                          "binds only a bundle with exactly one, of protocol %s",
                    id, ctext, n, s->driver, want);
        } else if (cports[0]->u.cport.protocol != s->protocol) {
            protocol_text(cports[0]->u.cport.protocol, ptext, sizeof ptext);
            WARN_AT(c, cports[0], "cport-descriptor %u has protocol %s; the 6.1 %s driver of "
                                  "bundle %u (class %s) needs protocol %s",
                    cports[0]->u.cport.id, ptext, s->driver, id, ctext, want);
        }
        return;
    }

    switch (cls) {
    case VM_CLASS_BRIDGED_PHY:
        for (size_t i = 0; i < n; i++) {
            uint8_t p = cports[i]->u.cport.protocol;
            if (is_gbphy_protocol(p))
                continue;
            protocol_text(p, ptext, sizeof ptext);
            WARN_AT(c, cports[i], "cport-descriptor %u has protocol %s; no 6.1 gbphy driver "
                                  "binds it (bridged-PHY protocols: GPIO 0x02, I2C 0x03, "
                                  "UART 0x04, USB 0x06, SDIO 0x07, PWM 0x09, SPI 0x0b)",
                    cports[i]->u.cport.id, ptext);
        }
        return;
    case VM_CLASS_AUDIO: {
        size_t mgmt = count_protocol(cports, n, VM_PROTOCOL_AUDIO_MGMT);
        size_t data = count_protocol(cports, n, VM_PROTOCOL_AUDIO_DATA);
        if (n < 2 || mgmt != 1 || mgmt + data != n)
            WARN_AT(c, b, "bundle-descriptor %u (class %s): the 6.1 audio driver needs exactly "
                          "one CPort of protocol 0x12 (Audio Management) and at least one of "
                          "0x13 (Audio Data), nothing else; it has %zu management, %zu data "
                          "and %zu other", id, ctext, mgmt, data, n - mgmt - data);
        return;
    }
    case VM_CLASS_FW_MANAGEMENT: {
        size_t mgmt = count_protocol(cports, n, VM_PROTOCOL_FW_MANAGEMENT);
        size_t dl = count_protocol(cports, n, VM_PROTOCOL_FW_DOWNLOAD);
        size_t spi = count_protocol(cports, n, VM_PROTOCOL_SPI);
        size_t auth = count_protocol(cports, n, VM_PROTOCOL_AUTHENTICATION);
        if (mgmt != 1 || dl > 1 || spi > 1 || auth > 1 || mgmt + dl + spi + auth != n)
            WARN_AT(c, b, "bundle-descriptor %u (class %s): the 6.1 firmware driver needs "
                          "exactly one CPort of protocol 0x18 (Firmware Management) and at "
                          "most one each of 0x17 (Firmware Download), 0x0b (SPI) and 0x19 "
                          "(Authentication), nothing else", id, ctext);
        return;
    }
    case VM_CLASS_CAMERA:
        WARN_AT(c, b, "bundle-descriptor %u (class %s): the 6.1 camera driver depends on "
                      "BROKEN and is never built, so nothing binds it", id, ctext);
        return;
    default:
        WARN_AT(c, b, "bundle-descriptor %u has class %s, which no 6.1 driver binds%s", id,
                ctext,
                (cls >= 0x01 && cls <= 0x0b)
                    ? " (GPIO, I2C, UART, PWM, SDIO, SPI and USB CPorts go in a class 0x0a "
                      "Bridged PHY bundle)"
                    : "");
        return;
    }
}

/* Per bundle: CPorts, empty bundles, the driver that would bind it. */
static void check_bundle_contents(checker *c)
{
    vm_manifest *m = c->m;
    const vm_mf_desc **cports = malloc((m->ndescs ? m->ndescs : 1) * sizeof *cports);
    if (!cports) {
        ERR_FILE(c, "out of memory");
        return;
    }
    size_t usable = 0;
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *b = &m->descs[i];
        if (b->type != VM_MF_BUNDLE || b->u.bundle.id == 0 || b->u.bundle.id == 0xff ||
            b->u.bundle.cls == VM_CLASS_CONTROL || find_first(c, VM_MF_BUNDLE, b->u.bundle.id, i))
            continue;
        size_t n = 0;
        for (size_t j = 0; j < m->ndescs; j++) {
            const vm_mf_desc *p = &m->descs[j];
            if (p->type == VM_MF_CPORT && p->u.cport.bundle == b->u.bundle.id)
                cports[n++] = p;
        }
        if (n == 0) {
            ERR_AT(c, b, "bundle-descriptor %u has no cport-descriptor; the kernel drops it",
                   b->u.bundle.id);
            continue;
        }
        usable++;
        check_driver(c, b, cports, n);
    }
    free(cports);
    if (!usable && m->intf)
        ERR_FILE(c, "no bundle besides the control bundle 0; the kernel needs at least one "
                    "(\"manifest bundle descriptors not valid\")");
}

static size_t encoded_size(const vm_manifest *m)
{
    if (m->bytes)
        return m->nbytes;
    size_t total = VM_MF_HEADER_SIZE;
    for (size_t i = 0; i < m->ndescs; i++)
        total += m->descs[i].type == VM_MF_STRING
                     ? ((VM_MF_STRING_BASE + m->descs[i].u.str.len + 3u) & ~(size_t)3u)
                     : 8u;
    return total;
}

static char *string_copy(const checker *c, uint8_t id)
{
    if (!id)
        return NULL;
    const vm_mf_desc *s = find_first(c, VM_MF_STRING, id, c->m->ndescs);
    char *out = malloc((size_t)s->u.str.len + 1);
    if (!out)
        return NULL;
    memcpy(out, s->u.str.bytes, s->u.str.len);
    out[s->u.str.len] = '\0';
    return out;
}

/* The kernel's view of a manifest that passed every rule. */
static bool build_view(const checker *c)
{
    vm_manifest *m = c->m;
    m->vendor = string_copy(c, m->intf->u.intf.vendor);
    m->product = string_copy(c, m->intf->u.intf.product);
    if ((m->intf->u.intf.vendor && !m->vendor) || (m->intf->u.intf.product && !m->product))
        return false;
    size_t nb = 0, nc = 0;
    for (size_t i = 0; i < m->ndescs; i++) {
        nb += m->descs[i].type == VM_MF_BUNDLE && m->descs[i].u.bundle.id != 0;
        nc += m->descs[i].type == VM_MF_CPORT && m->descs[i].u.cport.id != 0;
    }
    m->bundles = calloc(nb ? nb : 1, sizeof *m->bundles);
    m->cports = calloc(nc ? nc : 1, sizeof *m->cports);
    if (!m->bundles || !m->cports)
        return false;
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *d = &m->descs[i];
        if (d->type != VM_MF_BUNDLE || d->u.bundle.id == 0)
            continue;
        vm_mf_bundle *b = &m->bundles[m->nbundles++];
        b->id = d->u.bundle.id;
        b->cls = d->u.bundle.cls;
        b->cports = calloc(nc ? nc : 1, sizeof *b->cports);
        if (!b->cports)
            return false;
    }
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *d = &m->descs[i];
        if (d->type != VM_MF_CPORT || d->u.cport.id == 0)
            continue;
        size_t bi = 0;
        if (!vm_manifest_find_bundle(m, d->u.cport.bundle, &bi))
            return false;
        vm_mf_cport *cp = &m->cports[m->ncports];
        cp->id = d->u.cport.id;
        cp->protocol = d->u.cport.protocol;
        cp->bundle = bi;
        m->bundles[bi].cports[m->bundles[bi].ncports++] = m->ncports;
        m->ncports++;
    }
    return true;
}

size_t vm_mf_check(vm_manifest *m, vm_manifest_diags *d)
{
    checker c = { .m = m, .d = d, .errors = 0 };
    c.first_cport = calloc(65536, sizeof *c.first_cport);
    if (!c.first_cport) {
        vm_mf_diag(d, VM_MANIFEST_ERROR, m->name, VM_MF_AT_FILE, 0, "out of memory");
        return 1;
    }
    build_index(&c);
    /* first, so that it is never among the messages dropped from a long list */
    size_t size = encoded_size(m);
    if (size > VM_MANIFEST_FETCH_MAX && size <= VM_MANIFEST_FORMAT_MAX)
        ERR_FILE(&c, "manifest is %zu bytes; the 6.1 AP fetches it in one GET_MANIFEST "
                     "operation, which carries at most %u", size, VM_MANIFEST_FETCH_MAX);
    if (m->major != 0)
        report(&c, VM_MANIFEST_ERROR, m->at, m->header_where,
               "manifest version %u.%u is too new; the 6.1 kernel reads only major version 0",
               m->major, m->minor);
    bool *string_used = calloc(m->ndescs ? m->ndescs : 1, sizeof *string_used);
    if (!string_used) {
        ERR_FILE(&c, "out of memory");
        free(c.first_cport);
        return c.errors;
    }
    check_interface(&c, string_used);
    check_strings(&c, string_used);
    free(string_used);
    check_bundles(&c);
    check_cports(&c);
    check_bundle_contents(&c);


    if (!c.errors && !build_view(&c))
        ERR_FILE(&c, "out of memory");
    free(c.first_cport);
    return c.errors;
}
