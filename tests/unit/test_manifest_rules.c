// SPDX-License-Identifier: MIT
// The Linux 6.1 rules (drivers/greybus/manifest.c, bundle.c, the staging class drivers)
// applied to text and binary manifests: what is refused, what only warns, and that every
// message names the file, the line or byte offset, and the rule.
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit.h"
#include "virtual-modules/manifest.h"

#define HEADER "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
#define INTERFACE "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
#define STRINGS "[string-descriptor 1]\nstring = V\n[string-descriptor 2]\nstring = P\n"
#define BUNDLE1 "[bundle-descriptor 1]\nclass = 0x0a\n"
#define CPORT1 "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x02\n"
/* 15 lines; a section appended to it starts on line 16 */
#define VALID HEADER INTERFACE STRINGS BUNDLE1 CPORT1

static void show(const vm_manifest_diags *d, const char *msg)
{
    fprintf(stderr, "\nexpected a message containing: %s\ngot:\n", msg);
    vm_manifest_diags_print(d, stderr, VM_MANIFEST_WARNING);
}

static void text_error(const char *text, const char *msg)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_text("t.mnfs", text, strlen(text), d);
    CU_ASSERT_PTR_NULL(m);
    if (!vm_manifest_diags_contain(d, msg)) {
        show(d, msg);
        CU_FAIL("error message not found");
    }
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

/* Loads (no error) but warns with msg. */
static void text_warning(const char *text, const char *msg)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_text("t.mnfs", text, strlen(text), d);
    CU_ASSERT_PTR_NOT_NULL(m);
    CU_ASSERT_EQUAL(vm_manifest_diags_errors(d), 0);
    if (!vm_manifest_diags_contain(d, msg)) {
        show(d, msg);
        CU_FAIL("warning not found");
    }
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

/* ---- text ------------------------------------------------------------------------- */

static void test_rule_cport_must_name_an_existing_bundle(void)
{
    text_error(VALID "[cport-descriptor 3]\nbundle = 7\nprotocol = 0x02\n",
               "t.mnfs:16: error: cport-descriptor 3 names bundle 7, which does not exist");
}

static void test_rule_manifest_major_version_must_be_0(void)
{
    text_error("[manifest-header]\nversion-major = 1\nversion-minor = 0\n" INTERFACE STRINGS BUNDLE1 CPORT1,
               "t.mnfs:1: error: manifest version 1.0 is too new; the 6.1 kernel reads only major version 0");
}

static void test_rule_interface_strings_must_exist_and_differ(void)
{
    text_error(HEADER "[interface-descriptor]\nvendor-string-id = 5\nproduct-string-id = 2\n" STRINGS BUNDLE1 CPORT1,
               "t.mnfs:4: error: interface-descriptor names vendor string 5, which does not exist");
    text_error(HEADER "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 1\n" STRINGS BUNDLE1 CPORT1,
               "t.mnfs:4: error: vendor-string-id and product-string-id are both 1");
    text_error(VALID "[string-descriptor 0]\nstring = zero\n",
               "t.mnfs:16: error: string-descriptor 0: string id 0 means \"no string\"");
    text_warning(VALID "[string-descriptor 3]\nstring = spare\n",
                 "t.mnfs:16: warning: string-descriptor 3 is not used by anything");
}

static void test_rule_bundle_ids_and_control_class(void)
{
    text_error(VALID "[bundle-descriptor 255]\nclass = 0x0a\n",
               "t.mnfs:16: error: bundle id 255 is reserved (BUNDLE_ID_NONE)");
    text_error(VALID "[bundle-descriptor 2]\nclass = 0\n[cport-descriptor 2]\nbundle = 2\nprotocol = 2\n",
               "t.mnfs:16: error: bundle-descriptor 2 has class 0x00 (Control); only bundle 0 may");
    text_error(VALID "[bundle-descriptor 0]\nclass = 0x0a\n",
               "t.mnfs:16: error: bundle-descriptor 0 is the control bundle: its class must be 0x00 "
               "(Control), not 0x0a (Bridged PHY)");
}

static void test_rule_cport_0_is_the_control_cport_only(void)
{
    text_error(VALID "[cport-descriptor 0]\nbundle = 1\nprotocol = 0x02\n",
               "t.mnfs:16: error: cport-descriptor 0 is the control CPort: it must name bundle 0 and "
               "protocol 0x00, not bundle 1 and protocol 0x02 (GPIO)");
    text_error(VALID "[bundle-descriptor 0]\nclass = 0\n[cport-descriptor 5]\nbundle = 0\nprotocol = 0\n",
               "t.mnfs:18: error: cport-descriptor 5 names bundle 0, the control bundle");
    /* the legacy control pair itself is fine */
    text_warning(VALID "[bundle-descriptor 0]\nclass = 0\n[cport-descriptor 0]\nbundle = 0\nprotocol = 0\n"
                       "[string-descriptor 9]\nstring = x\n",
                 "string-descriptor 9 is not used");
}

static void test_rule_cport_ids_are_unique_and_at_most_4095(void)
{
    text_error(VALID "[cport-descriptor 4096]\nbundle = 1\nprotocol = 0x03\n",
               "t.mnfs:16: error: cport id 4096 is above 4095 (CPORT_ID_MAX); the kernel drops bundle 1");
    text_error(VALID "[cport-descriptor 0x01]\nbundle = 1\nprotocol = 0x03\n",
               "t.mnfs:16: error: cport-descriptor 1 is defined twice (also at line 13)");
}

static void test_rule_every_bundle_needs_a_cport_and_one_bundle_is_needed(void)
{
    text_error(VALID "[bundle-descriptor 2]\nclass = 0x11\n",
               "t.mnfs:16: error: bundle-descriptor 2 has no cport-descriptor; the kernel drops it");
    text_error(HEADER INTERFACE STRINGS "[bundle-descriptor 0]\nclass = 0\n[cport-descriptor 0]\nbundle = 0\nprotocol = 0\n",
               "t.mnfs: error: no bundle besides the control bundle 0; the kernel needs at least one");
}

static void test_rule_manifest_must_fit_one_get_manifest_operation(void)
{
    size_t cap = 16384, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text + n, cap - n, "%s", VALID);
    for (int s = 3; s < 11; s++) {
        n += (size_t)snprintf(text + n, cap - n, "[string-descriptor %d]\nstring = ", s);
        for (int i = 0; i < 250; i++)
            text[n++] = 'a';
        text[n++] = '\n';
    }
    text[n] = '\0';
    text_error(text, "t.mnfs: error: manifest is 2092 bytes; the 6.1 AP fetches it in one "
                     "GET_MANIFEST operation, which carries at most 2040");
    free(text);
}

static void test_rule_class_drivers_warn_when_nothing_would_bind(void)
{
    text_warning(HEADER INTERFACE STRINGS "[bundle-descriptor 1]\nclass = 0x11\n"
                                          "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x11\n"
                                          "[cport-descriptor 2]\nbundle = 1\nprotocol = 0x11\n",
                 "t.mnfs:11: warning: bundle-descriptor 1 (class 0x11 (Loopback)) has 2 CPorts; the 6.1 "
                 "loopback driver binds only a bundle with exactly one, of protocol 0x11 (Loopback)");
    text_warning(HEADER INTERFACE STRINGS "[bundle-descriptor 1]\nclass = 0x05\n"
                                          "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x02\n",
                 "t.mnfs:13: warning: cport-descriptor 1 has protocol 0x02 (GPIO); the 6.1 hid driver of "
                 "bundle 1 (class 0x05 (HID)) needs protocol 0x05 (HID)");
    text_warning(HEADER INTERFACE STRINGS "[bundle-descriptor 1]\nclass = 0x02\n" CPORT1,
                 "t.mnfs:11: warning: bundle-descriptor 1 has class 0x02 (reserved), which no 6.1 driver "
                 "binds (GPIO, I2C, UART, PWM, SDIO, SPI and USB CPorts go in a class 0x0a Bridged PHY bundle)");
    text_warning(HEADER INTERFACE STRINGS BUNDLE1 "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x08\n",
                 "t.mnfs:13: warning: cport-descriptor 1 has protocol 0x08 (Power Supply); no 6.1 gbphy "
                 "driver binds it");
    text_warning(HEADER INTERFACE STRINGS "[bundle-descriptor 1]\nclass = 0x16\n"
                                          "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x17\n",
                 "the 6.1 firmware driver needs exactly one CPort of protocol 0x18");
}

static void test_rule_errors_are_collected_not_just_the_first(void)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    static const char text[] = VALID "[bundle-descriptor 2]\nclass = 0\n"
                                     "[cport-descriptor 3]\nbundle = 7\nprotocol = 2\n"
                                     "[cport-descriptor 4]\nbundle = 2\nprotocol = 2\n";
    vm_manifest *m = vm_manifest_parse_text("gpio.mnfs", text, strlen(text), d);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_EQUAL(vm_manifest_diags_errors(d), 2);
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "gpio.mnfs:16: error: bundle-descriptor 2 has class 0x00"));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "gpio.mnfs:18: error: cport-descriptor 3 names bundle 7, "
                                                "which does not exist"));
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

/* ---- binary ----------------------------------------------------------------------- */

typedef struct bin {
    uint8_t b[4096];
    size_t n;
} bin;

static void b_start(bin *x)
{
    memset(x, 0, sizeof *x);
    x->b[3] = 1; /* version 0.1 */
    x->n = 4;
}

static void b_desc(bin *x, uint8_t type, const uint8_t *body, size_t len)
{
    size_t size = 4 + len;
    x->b[x->n] = (uint8_t)size;
    x->b[x->n + 1] = (uint8_t)(size >> 8);
    x->b[x->n + 2] = type;
    memcpy(x->b + x->n + 4, body, len);
    x->n += size;
}

static void b_intf(bin *x, uint8_t v, uint8_t p) { b_desc(x, 1, (uint8_t[]){ v, p, 0, 0 }, 4); }
static void b_bundle(bin *x, uint8_t id, uint8_t c) { b_desc(x, 3, (uint8_t[]){ id, c, 0, 0 }, 4); }
static void b_cport(bin *x, uint16_t id, uint8_t b, uint8_t p)
{
    b_desc(x, 4, (uint8_t[]){ (uint8_t)id, (uint8_t)(id >> 8), b, p }, 4);
}
static void b_string(bin *x, uint8_t id, const char *s)
{
    uint8_t body[300] = { 0 };
    size_t len = strlen(s);
    body[0] = (uint8_t)len;
    body[1] = id;
    memcpy(body + 2, s, len);
    b_desc(x, 2, body, (2 + len + 3) & ~(size_t)3);
}
static void b_finish(bin *x)
{
    x->b[0] = (uint8_t)x->n;
    x->b[1] = (uint8_t)(x->n >> 8);
}

/* interface (strings 1, 2), bundle 1 class 0x0a, CPort 1 GPIO */
static void b_valid(bin *x)
{
    b_start(x);
    b_intf(x, 1, 2);
    b_string(x, 1, "V");
    b_string(x, 2, "P");
    b_bundle(x, 1, 0x0a);
    b_cport(x, 1, 1, 0x02);
}

static void bin_error(const bin *x, const char *msg)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_binary("x.mnfb", x->b, x->n, d);
    CU_ASSERT_PTR_NULL(m);
    if (!vm_manifest_diags_contain(d, msg)) {
        show(d, msg);
        CU_FAIL("error message not found");
    }
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

static void test_binary_valid_manifest_loads(void)
{
    bin x;
    b_valid(&x);
    b_finish(&x);
    vm_manifest *m = vm_manifest_parse_binary("x.mnfb", x.b, x.n, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_STRING_EQUAL(vm_manifest_vendor_string(m), "V");
    CU_ASSERT_EQUAL(vm_manifest_cport_protocol(m, 0), 0x02);
    vm_manifest_free(m);
}

static void test_binary_header_rules(void)
{
    bin x;
    b_start(&x);
    x.n = 2;
    bin_error(&x, "x.mnfb:0x0000: error: manifest is 2 bytes, shorter than its 4-byte header");
    b_valid(&x);
    b_finish(&x);
    x.b[0]++;
    bin_error(&x, "x.mnfb:0x0000: error: header says the manifest is 45 bytes but it is 44");
    b_valid(&x);
    b_finish(&x);
    x.b[2] = 1;
    bin_error(&x, "x.mnfb:0x0000: error: manifest version 1.1 is too new");
}

static void test_binary_descriptor_walk_follows_linux(void)
{
    bin x;
    b_valid(&x);
    x.n += 2; /* two stray bytes */
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: 2 stray byte(s) after the last descriptor");

    b_valid(&x);
    b_desc(&x, 4, (uint8_t[]){ 2, 0, 1, 3 }, 4);
    x.b[x.n - 8] = 40; /* size runs past the end */
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: descriptor size 40 runs past the end of the manifest (8 bytes left)");

    b_valid(&x);
    b_desc(&x, 5, (uint8_t[]){ 0, 0, 0, 0 }, 4);
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: invalid descriptor type 5; 6.1 knows only 1 interface, 2 string, "
                  "3 bundle, 4 cport (types 5-7 are a later mikroBUS extension)");

    b_valid(&x);
    b_desc(&x, 3, (uint8_t[]){ 0, 0 }, 0); /* a bundle descriptor of size 4 */
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: bundle descriptor too small (4 < 8 bytes)");

    b_valid(&x);
    b_desc(&x, 2, (uint8_t[]){ 10, 3, 'a', 'b' }, 4); /* says 10 characters, has 2 */
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: string descriptor too small (8 < 16 bytes)");

    /* a zero size must not loop forever */
    b_valid(&x);
    b_desc(&x, 3, (uint8_t[]){ 2, 0x11, 0, 0 }, 4);
    x.b[x.n - 8] = 0;
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: bundle descriptor too small (0 < 8 bytes)");
}

static void test_binary_interface_count_is_exactly_one(void)
{
    bin x;
    b_valid(&x);
    b_intf(&x, 0, 0);
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: a second interface-descriptor (the first is at offset 0x0004)");
    b_start(&x);
    b_bundle(&x, 1, 0x0a);
    b_cport(&x, 1, 1, 0x02);
    b_finish(&x);
    bin_error(&x, "x.mnfb: error: no interface-descriptor; the kernel needs exactly one");
}

static void test_binary_semantic_rules_match_text(void)
{
    bin x;
    b_valid(&x);
    b_cport(&x, 3, 7, 0x02);
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: cport-descriptor 3 names bundle 7, which does not exist");
    b_valid(&x);
    b_bundle(&x, 1, 0x0a);
    b_finish(&x);
    bin_error(&x, "x.mnfb:0x002c: error: bundle-descriptor 1 is defined twice (also at offset 0x001c)");
}

static void test_binary_text_form_refuses_what_it_cannot_express(void)
{
    bin x;
    b_start(&x);
    b_intf(&x, 1, 2);
    b_string(&x, 1, " padded");
    b_string(&x, 2, "tab\there");
    b_bundle(&x, 1, 0x0a);
    b_cport(&x, 1, 1, 0x02);
    b_finish(&x);
    x.b[4 + 8 + 16 + 16 + 6] = 0x7; /* a non-zero pad byte in the bundle descriptor */
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_binary("x.mnfb", x.b, x.n, d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NULL(vm_manifest_to_text(m, d));
    CU_ASSERT_EQUAL(vm_manifest_diags_errors(d), 3);
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "x.mnfb:0x000c: error: string-descriptor 1 cannot be written "
                                                "as text: it starts or ends with a space"));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "x.mnfb:0x001c: error: string-descriptor 2 cannot be written "
                                                "as text: it holds a control character"));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "x.mnfb:0x002c: error: bundle-descriptor 1 cannot be written "
                                                "as text: its pad bytes are not zero"));
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

/* A text value may span lines (configparser joins continuation lines with '\n'), so a
 * string with line breaks converts text -> binary -> text -> binary unchanged; what the
 * continuation lines cannot carry is refused with the reason. */
static void test_binary_line_breaks_in_strings_survive_text(void)
{
    static const char text[] = "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
                               "[interface-descriptor]\nvendor-string-id = 1\n"
                               "product-string-id = 2\n[string-descriptor 1]\nstring = a\n"
                               "  second line\n\n  fourth\n[string-descriptor 2]\nstring = P\n"
                               "[bundle-descriptor 1]\nclass = 0x0a\n"
                               "[cport-descriptor 1]\nbundle = 1\nprotocol = 2\n";
    vm_manifest *m = vm_manifest_parse_text("x.mnfs", text, strlen(text), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_STRING_EQUAL(vm_manifest_vendor_string(m), "a\nsecond line\n\nfourth");
    size_t len = 0;
    const uint8_t *bytes = vm_manifest_bytes(m, &len);
    vm_manifest *b = vm_manifest_parse_binary("x.mnfb", bytes, len, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    char *back = vm_manifest_to_text(b, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    vm_manifest *again = vm_manifest_parse_text("y.mnfs", back, strlen(back), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    size_t len2 = 0;
    const uint8_t *bytes2 = vm_manifest_bytes(again, &len2);
    CU_ASSERT(len2 == len && !memcmp(bytes, bytes2, len));
    vm_manifest_free(again);
    free(back);
    vm_manifest_free(b);
    vm_manifest_free(m);

    bin x;
    b_start(&x);
    b_intf(&x, 1, 2);
    b_string(&x, 1, "ends\n");
    b_string(&x, 2, "a\n; not a comment");
    b_bundle(&x, 1, 0x0a);
    b_cport(&x, 1, 1, 0x02);
    b_finish(&x);
    vm_manifest_diags *d = vm_manifest_diags_new();
    m = vm_manifest_parse_binary("x.mnfb", x.b, x.n, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NULL(vm_manifest_to_text(m, d));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "string-descriptor 1 cannot be written as text: "
                                                "it ends with a line break"));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "string-descriptor 2 cannot be written as text: "
                                                "one of its lines starts with ';' or '#'"));
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

static void test_binary_percent_in_strings_survives_text(void)
{
    bin x;
    b_start(&x);
    b_intf(&x, 1, 2);
    b_string(&x, 1, "100% V");
    b_string(&x, 2, "P");
    b_bundle(&x, 1, 0x0a);
    b_cport(&x, 1, 1, 0x02);
    b_finish(&x);
    vm_manifest *m = vm_manifest_parse_binary("x.mnfb", x.b, x.n, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    char *text = vm_manifest_to_text(m, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "string = 100%% V\n"));
    vm_manifest *back = vm_manifest_parse_text("y.mnfs", text, strlen(text), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    size_t len = 0;
    const uint8_t *bytes = vm_manifest_bytes(back, &len);
    CU_ASSERT(len == x.n && !memcmp(bytes, x.b, len));
    vm_manifest_free(back);
    free(text);
    vm_manifest_free(m);
}

static void test_hostile_sizes_are_refused_without_quadratic_work(void)
{
    /* 8180 CPort descriptors: a 65460-byte binary */
    size_t n = 4 + 8 + 8 + 8180 * 8;
    uint8_t *b = calloc(1, n);
    b[0] = (uint8_t)n;
    b[1] = (uint8_t)(n >> 8);
    b[3] = 1;
    uint8_t head[] = { 8, 0, 1, 0, 0, 0, 0, 0, 8, 0, 3, 0, 1, 0x0a, 0, 0 };
    memcpy(b + 4, head, sizeof head);
    for (size_t i = 0; i < 8180; i++) {
        uint8_t *p = b + 20 + i * 8;
        p[0] = 8;
        p[2] = 4;
        p[4] = (uint8_t)(i + 1);
        p[5] = (uint8_t)((i + 1) >> 8);
        p[6] = 1;
        p[7] = 2;
    }
    vm_manifest_diags *d = vm_manifest_diags_new();
    CU_ASSERT_PTR_NULL(vm_manifest_parse_binary("big.mnfb", b, n, d));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "big.mnfb: error: manifest is 65460 bytes"));
    free(b);

    /* 5000 sections */
    size_t cap = 5000 * 40, len = 0;
    char *t = malloc(cap);
    for (int i = 0; i < 5000; i++)
        len += (size_t)snprintf(t + len, cap - len, "[string-descriptor %d]\nstring = x\n", i);
    vm_manifest_diags_clear(d);
    CU_ASSERT_PTR_NULL(vm_manifest_parse_text("big.mnfs", t, len, d));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "big.mnfs:2049: error: more than 1024 sections"));

    /* one value continued over 200000 lines */
    len = (size_t)snprintf(t, cap, VALID "[string-descriptor 3]\nstring = x\n");
    char *big = malloc(len + 200000 * 3 + 1);
    memcpy(big, t, len);
    for (int i = 0; i < 200000; i++) {
        memcpy(big + len, " y\n", 3);
        len += 3;
    }
    vm_manifest_diags_clear(d);
    CU_ASSERT_PTR_NULL(vm_manifest_parse_text("long.mnfs", big, len, d));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "long.mnfs:17: error: [string-descriptor 3] string is 400001 bytes"));
    free(big);
    free(t);
    vm_manifest_diags_free(d);
}

static const unit_test text_rules[] = {
    UNIT_TEST(test_rule_cport_must_name_an_existing_bundle),
    UNIT_TEST(test_rule_manifest_major_version_must_be_0),
    UNIT_TEST(test_rule_interface_strings_must_exist_and_differ),
    UNIT_TEST(test_rule_bundle_ids_and_control_class),
    UNIT_TEST(test_rule_cport_0_is_the_control_cport_only),
    UNIT_TEST(test_rule_cport_ids_are_unique_and_at_most_4095),
    UNIT_TEST(test_rule_every_bundle_needs_a_cport_and_one_bundle_is_needed),
    UNIT_TEST(test_rule_manifest_must_fit_one_get_manifest_operation),
    UNIT_TEST(test_rule_class_drivers_warn_when_nothing_would_bind),
    UNIT_TEST(test_rule_errors_are_collected_not_just_the_first),
    UNIT_TEST(test_hostile_sizes_are_refused_without_quadratic_work),
    UNIT_TESTS_END,
};

static const unit_test binary_rules[] = {
    UNIT_TEST(test_binary_valid_manifest_loads),
    UNIT_TEST(test_binary_header_rules),
    UNIT_TEST(test_binary_descriptor_walk_follows_linux),
    UNIT_TEST(test_binary_interface_count_is_exactly_one),
    UNIT_TEST(test_binary_semantic_rules_match_text),
    UNIT_TEST(test_binary_text_form_refuses_what_it_cannot_express),
    UNIT_TEST(test_binary_percent_in_strings_survives_text),
    UNIT_TEST(test_binary_line_breaks_in_strings_survive_text),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "manifest_rules_text", text_rules, 0, 0 },
    { "manifest_rules_binary", binary_rules, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
