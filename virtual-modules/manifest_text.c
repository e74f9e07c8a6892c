// SPDX-License-Identifier: MIT
// Text manifests (.mnfs) as projectara/manifesto reads them: configparser sections
// ([manifest-header], [interface-descriptor], [string-descriptor N], [bundle-descriptor N],
// [cport-descriptor N]) turned into descriptors in the order the sections appear.
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest_ini.h"
#include "virtual-modules/manifest_internal.h"

typedef struct text_reader {
    vm_manifest *m;
    vm_manifest_diags *d;
    size_t errors;
} text_reader;

static void terr(text_reader *t, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void terr(text_reader *t, size_t line, const char *fmt, ...)
{
    t->errors++;
    va_list ap;
    va_start(ap, fmt);
    vm_mf_vdiag(t->d, VM_MANIFEST_ERROR, t->m->name, VM_MF_AT_LINE, line, fmt, ap);
    va_end(ap);
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* Python's int(s, 0): [+-] then 0x.., 0o.., 0b.. or decimal without leading zeros, with
 * single underscores between digits (and after a base prefix). false when malformed;
 * values past 2^32 saturate (they are out of every range here anyway). */
static bool parse_pyint(const char *s, size_t n, long long *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    int base = 10;
    if (i + 1 < n && s[i] == '0' && strchr("xXoObB", s[i + 1]) && s[i + 1] != '\0') {
        char b = s[i + 1];
        base = (b == 'x' || b == 'X') ? 16 : (b == 'o' || b == 'O') ? 8 : 2;
        i += 2;
        if (i < n && s[i] == '_')
            i++;
    } else if (i < n && s[i] == '0') {
        /* decimal starting with 0: only zeros allowed ("0", "00", "0_0") */
        for (size_t j = i; j < n; j++)
            if (s[j] != '0' && s[j] != '_')
                return false;
    }
    if (i >= n)
        return false;
    long long v = 0;
    bool last_digit = false;
    for (; i < n; i++) {
        if (s[i] == '_') {
            if (!last_digit)
                return false;
            last_digit = false;
            continue;
        }
        int dv = digit_value(s[i]);
        if (dv >= base)
            return false;
        if (v < (1LL << 40))
            v = v * base + dv;
        last_digit = true;
    }
    if (!last_digit)
        return false;
    *out = neg ? -v : v;
    return true;
}

/* configparser's BasicInterpolation, applied when manifesto reads a value: "%%" is a
 * percent sign; "%(name)s" would reference another key (not supported here); any other
 * '%' is an error. Writes the result into out (at least len bytes). */
static bool interpolate(text_reader *t, const vm_ini_section *s, const vm_ini_key *k,
                        char *out, size_t *out_len)
{
    size_t n = 0;
    for (size_t i = 0; i < k->value_len; i++) {
        char c = k->value[i];
        if (c != '%') {
            out[n++] = c;
            continue;
        }
        if (i + 1 < k->value_len && k->value[i + 1] == '%') {
            out[n++] = '%';
            i++;
        } else if (i + 1 < k->value_len && k->value[i + 1] == '(') {
            terr(t, k->line, "[%s] %s: '%%(...)s' references between keys are not supported; "
                             "write '%%%%' for a percent sign", s->name, k->name);
            return false;
        } else {
            terr(t, k->line, "[%s] %s: '%%' must be followed by '%%' or '(' (configparser "
                             "interpolation); write '%%%%' for a percent sign", s->name,
                 k->name);
            return false;
        }
    }
    *out_len = n;
    out[n] = '\0';
    return true;
}

/* Reads an integer key into *out (0..max). false (with an error) when missing or bad. */
static bool get_int(text_reader *t, vm_ini_section *s, const char *key, long long max,
                    long long *out)
{
    vm_ini_key *k = vm_ini_get(s, key);
    if (!k) {
        terr(t, s->line, "[%s] has no '%s' key", s->name, key);
        return false;
    }
    char *buf = malloc(k->value_len + 1);
    if (!buf) {
        terr(t, k->line, "out of memory");
        return false;
    }
    size_t n = 0;
    bool ok = interpolate(t, s, k, buf, &n);
    if (ok) {
        /* int() ignores surrounding whitespace, including that of continuation lines */
        const char *p = buf;
        while (n && (*p == ' ' || *p == '\t' || *p == '\n')) {
            p++;
            n--;
        }
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n'))
            n--;
        long long v = 0;
        if (!parse_pyint(p, n, &v)) {
            terr(t, k->line, "[%s] %s = '%.*s' is not a number (decimal, 0x.., 0o.. or 0b..; "
                             "no leading zeros)", s->name, key, (int)(n > 40 ? 40 : n), p);
            ok = false;
        } else if (v < 0 || v > max) {
            terr(t, k->line, "[%s] %s = %lld is out of range 0..%lld", s->name, key, v, max);
            ok = false;
        } else {
            *out = v;
        }
    }
    free(buf);
    return ok;
}

bool vm_mf_valid_utf8(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t extra;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            extra = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            extra = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + extra >= n)
            return false;
        for (size_t k = 1; k <= extra; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += extra + 1;
    }
    return true;
}

/* "string-descriptor 0x1" or 'string-descriptor "1"' -> id (manifesto: split()[1]
 * stripped of double quotes, int(x, 0)). */
static bool section_id(text_reader *t, const vm_ini_section *s, const char *kind, long long max,
                       long long *out)
{
    const char *p = s->name + strlen(kind);
    while (*p == ' ' || *p == '\t')
        p++;
    const char *end = p;
    while (*end && *end != ' ' && *end != '\t')
        end++;
    if (end == p) {
        terr(t, s->line, "[%s] needs an id, e.g. [%s 1]", s->name, kind);
        return false;
    }
    const char *rest = end;
    while (*rest == ' ' || *rest == '\t')
        rest++;
    if (*rest)
        vm_mf_diag(t->d, VM_MANIFEST_WARNING, t->m->name, VM_MF_AT_LINE, s->line,
                   "[%s]: '%s' after the id is ignored", s->name, rest);
    while (p < end && *p == '"')
        p++;
    while (end > p && end[-1] == '"')
        end--;
    long long v = 0;
    if (!parse_pyint(p, (size_t)(end - p), &v)) {
        terr(t, s->line, "[%s]: id '%.*s' is not a number", s->name, (int)(end - p), p);
        return false;
    }
    if (v < 0 || v > max) {
        terr(t, s->line, "[%s]: id %lld is out of range 0..%lld", s->name, v, max);
        return false;
    }
    *out = v;
    return true;
}

static bool starts_with_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(s, word, n) && (s[n] == '\0' || s[n] == ' ' || s[n] == '\t');
}

static void read_header(text_reader *t, vm_ini_section *s, bool *have_header)
{
    long long major = 0, minor = 0;
    bool ok = get_int(t, s, "version-major", 255, &major);
    ok = get_int(t, s, "version-minor", 255, &minor) && ok;
    *have_header = true;
    t->m->header_where = s->line;
    if (ok) {
        t->m->major = (uint8_t)major;
        t->m->minor = (uint8_t)minor;
    }
}

static void add(text_reader *t, vm_ini_section *s, const vm_mf_desc *proto)
{
    vm_mf_desc *d = vm_mf_add_desc(t->m, proto->type, s->line);
    if (!d) {
        terr(t, s->line, "out of memory");
        return;
    }
    *d = *proto;
    d->where = s->line;
}

static void read_interface(text_reader *t, vm_ini_section *s)
{
    long long vendor = 0, product = 0, features = 0;
    bool ok = get_int(t, s, "vendor-string-id", 255, &vendor);
    ok = get_int(t, s, "product-string-id", 255, &product) && ok;
    if (vm_ini_get(s, "features"))  /* gbvp extension; manifesto ignores it */
        ok = get_int(t, s, "features", 255, &features) && ok;
    if (!ok)
        return;
    vm_mf_desc d = { .type = VM_MF_INTERFACE, .size = VM_MF_INTERFACE_SIZE };
    d.u.intf.vendor = (uint8_t)vendor;
    d.u.intf.product = (uint8_t)product;
    d.u.intf.features = (uint8_t)features;
    add(t, s, &d);
}

static void read_string(text_reader *t, vm_ini_section *s)
{
    long long id = 0;
    bool ok = section_id(t, s, "string-descriptor", 255, &id);
    vm_ini_key *k = vm_ini_get(s, "string");
    if (!k) {
        terr(t, s->line, "[%s] has no 'string' key", s->name);
        return;
    }
    char *buf = malloc(k->value_len + 1);
    size_t n = 0;
    if (!buf) {
        terr(t, k->line, "out of memory");
        return;
    }
    if (!interpolate(t, s, k, buf, &n)) {
        free(buf);
        return;
    }
    if (n > VM_MF_STRING_MAX) {
        terr(t, k->line, "[%s] string is %zu bytes; a string descriptor holds at most %d",
             s->name, n, VM_MF_STRING_MAX);
        ok = false;
    } else if (!vm_mf_valid_utf8((const uint8_t *)buf, n)) {
        terr(t, k->line, "[%s] string is not valid UTF-8", s->name);
        ok = false;
    }
    if (ok) {
        vm_mf_desc d = { .type = VM_MF_STRING };
        d.u.str.id = (uint8_t)id;
        d.u.str.len = (uint8_t)n;
        memcpy(d.u.str.bytes, buf, n);
        add(t, s, &d);
    }
    free(buf);
}

static void read_bundle(text_reader *t, vm_ini_section *s)
{
    long long id = 0, cls = 0;
    bool ok = section_id(t, s, "bundle-descriptor", 255, &id);
    ok = get_int(t, s, "class", 255, &cls) && ok;
    if (!ok)
        return;
    vm_mf_desc d = { .type = VM_MF_BUNDLE, .size = VM_MF_BUNDLE_SIZE };
    d.u.bundle.id = (uint8_t)id;
    d.u.bundle.cls = (uint8_t)cls;
    add(t, s, &d);
}

static void read_cport(text_reader *t, vm_ini_section *s)
{
    long long id = 0, bundle = 0, protocol = 0;
    bool ok = section_id(t, s, "cport-descriptor", 65535, &id);
    ok = get_int(t, s, "bundle", 255, &bundle) && ok;
    ok = get_int(t, s, "protocol", 255, &protocol) && ok;
    if (!ok)
        return;
    vm_mf_desc d = { .type = VM_MF_CPORT, .size = VM_MF_CPORT_SIZE };
    d.u.cport.id = (uint16_t)id;
    d.u.cport.bundle = (uint8_t)bundle;
    d.u.cport.protocol = (uint8_t)protocol;
    add(t, s, &d);
}

static void read_section(text_reader *t, vm_ini_section *s, bool *have_header)
{
    const char *n = s->name;
    size_t len = strlen(n);
    if (len && (n[0] == ' ' || n[0] == '\t' || n[len - 1] == ' ' || n[len - 1] == '\t')) {
        terr(t, s->line, "[%s]: no spaces allowed just inside the brackets", n);
        return;
    }
    if (!strcmp(n, "manifest-header"))
        read_header(t, s, have_header);
    else if (!strcmp(n, "interface-descriptor"))
        read_interface(t, s);
    else if (starts_with_word(n, "string-descriptor"))
        read_string(t, s);
    else if (starts_with_word(n, "bundle-descriptor"))
        read_bundle(t, s);
    else if (starts_with_word(n, "cport-descriptor"))
        read_cport(t, s);
    else if (starts_with_word(n, "mikrobus-descriptor") ||
             starts_with_word(n, "property-descriptor") ||
             starts_with_word(n, "device-descriptor"))
        terr(t, s->line, "[%s] belongs to a later mikroBUS extension (descriptor types 5-7) "
                         "that the 6.1 kernel refuses", n);
    else if (starts_with_word(n, "module-descriptor") ||
             starts_with_word(n, "function-descriptor") ||
             starts_with_word(n, "class-descriptor"))
        terr(t, s->line, "[%s] is from the obsolete pre-2015 manifest layout, which the 6.1 "
                         "kernel cannot parse", n);
    else
        terr(t, s->line, "unknown section [%s] (known: manifest-header, interface-descriptor, "
                         "string-descriptor N, bundle-descriptor N, cport-descriptor N)", n);

    for (size_t i = 0; i < s->nkeys; i++)
        if (!s->keys[i].used)
            vm_mf_diag(t->d, VM_MANIFEST_WARNING, t->m->name, VM_MF_AT_LINE, s->keys[i].line,
                       "key '%s' is not used in [%s] (ignored)", s->keys[i].name, n);
}

vm_manifest *vm_manifest_parse_text(const char *name, const char *text, size_t len,
                                    vm_manifest_diags *diags)
{
    vm_manifest *m = vm_mf_new(name, VM_MF_AT_LINE);
    if (!m) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, name, VM_MF_AT_FILE, 0, "out of memory");
        return NULL;
    }
    text_reader t = { .m = m, .d = diags };
    if (!vm_mf_valid_utf8((const uint8_t *)text, len)) {
        /* manifesto reads the file as UTF-8 and refuses it whole; name the first bad line */
        size_t line = 1, start = 0;
        for (size_t i = 0; i < len; i++) {
            if (text[i] != '\n' && text[i] != '\r' && i + 1 < len)
                continue;
            size_t end = (text[i] == '\n' || text[i] == '\r') ? i : i + 1;
            if (!vm_mf_valid_utf8((const uint8_t *)text + start, end - start))
                break;
            if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
                i++;
            line++;
            start = i + 1;
        }
        vm_mf_diag(diags, VM_MANIFEST_ERROR, m->name, VM_MF_AT_LINE, line,
                   "not valid UTF-8 (text manifests are UTF-8 throughout)");
        vm_manifest_free(m);
        return NULL;
    }
    vm_ini *ini = vm_ini_parse(m->name, text, len, diags, &t.errors);
    if (!ini) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, m->name, VM_MF_AT_FILE, 0, "out of memory");
        vm_manifest_free(m);
        return NULL;
    }
    bool have_header = false;
    for (size_t i = 0; i < ini->nsections; i++)
        read_section(&t, &ini->sections[i], &have_header);
    vm_ini_free(ini);
    if (!have_header) {
        t.errors++;
        vm_mf_diag(diags, VM_MANIFEST_ERROR, m->name, VM_MF_AT_FILE, 0,
                   "no [manifest-header] section (version-major = 0, version-minor = 1)");
    }
    /* Rule checks on a half-read file would only echo the errors above. */
    if (t.errors || vm_mf_check(m, diags) || !vm_mf_encode(m, diags)) {
        vm_manifest_free(m);
        return NULL;
    }
    return m;
}
