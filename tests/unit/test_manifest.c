// SPDX-License-Identifier: MIT
// Manifests: every manifesto fixture loads and converts to its .mnfb byte for byte, binary
// -> text -> binary round-trips, the catalog validates cleanly, and the model answers what
// the interface model asks. Run from the repository root (make unit does).
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit.h"
#include "virtual-modules/manifest.h"

#define FIXTURES "tests/fixtures/manifesto"
#define CATALOG "virtual-modules/catalog"

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16;
    uint8_t *buf = malloc(cap);
    *len = buf ? fread(buf, 1, cap, f) : 0;
    fclose(f);
    return buf;
}

/* Names (without extension) of the files in dir ending in `ext`, sorted; count in *n. */
static char **list_files(const char *dir, const char *ext, size_t *n)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    *n = 0;
    if (!d)
        return NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name), k = strlen(ext);
        if (len <= k || strcmp(e->d_name + len - k, ext))
            continue;
        char **bigger = realloc(names, (*n + 1) * sizeof *names);
        if (!bigger)
            break;
        names = bigger;
        names[*n] = strndup(e->d_name, len - k);
        (*n)++;
    }
    closedir(d);
    for (size_t i = 0; i < *n; i++)
        for (size_t j = i + 1; j < *n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    return names;
}

static void free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void print_diags(const vm_manifest_diags *d)
{
    vm_manifest_diags_print(d, stderr, VM_MANIFEST_WARNING);
}

/* ---- fixtures ---------------------------------------------------------------------- */

static void test_every_fixture_text_converts_to_its_binary_twin(void)
{
    size_t n = 0;
    char **names = list_files(FIXTURES, ".mnfs", &n);
    CU_ASSERT_EQUAL_FATAL(n, 12);
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, FIXTURES "/%s.mnfb", names[i]);
        size_t want_len = 0;
        uint8_t *want = read_file(path, &want_len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);

        snprintf(path, sizeof path, FIXTURES "/%s.mnfs", names[i]);
        vm_manifest_diags *d = vm_manifest_diags_new();
        vm_manifest *m = vm_manifest_load(path, d);
        if (!m)
            print_diags(d);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        CU_ASSERT_EQUAL(vm_manifest_diags_errors(d), 0);
        size_t len = 0;
        const uint8_t *bytes = vm_manifest_bytes(m, &len);
        CU_ASSERT_EQUAL(len, want_len);
        CU_ASSERT(len == want_len && !memcmp(bytes, want, len));
        if (len != want_len || memcmp(bytes, want, len))
            fprintf(stderr, "fixture %s: binary differs\n", names[i]);
        vm_manifest_free(m);
        vm_manifest_diags_free(d);
        free(want);
    }
    free_list(names, n);
}

static void test_every_fixture_binary_round_trips_through_text(void)
{
    size_t n = 0;
    char **names = list_files(FIXTURES, ".mnfb", &n);
    CU_ASSERT_EQUAL_FATAL(n, 12);
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, FIXTURES "/%s.mnfb", names[i]);
        size_t want_len = 0;
        uint8_t *want = read_file(path, &want_len);
        vm_manifest_diags *d = vm_manifest_diags_new();
        vm_manifest *m = vm_manifest_parse_binary(names[i], want, want_len, d);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        char *text = vm_manifest_to_text(m, d);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        vm_manifest *back = vm_manifest_parse_text(names[i], text, strlen(text), d);
        if (!back)
            print_diags(d);
        CU_ASSERT_PTR_NOT_NULL_FATAL(back);
        size_t len = 0;
        const uint8_t *bytes = vm_manifest_bytes(back, &len);
        CU_ASSERT(len == want_len && !memcmp(bytes, want, len));
        /* and text -> binary -> text is stable */
        char *again = vm_manifest_to_text(back, d);
        CU_ASSERT_STRING_EQUAL(again, text);
        free(again);
        vm_manifest_free(back);
        free(text);
        vm_manifest_free(m);
        vm_manifest_diags_free(d);
        free(want);
    }
    free_list(names, n);
}

static void test_fixture_gpio_model_matches_the_file(void)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_load(FIXTURES "/IID1-simple-gpio-module.mnfs", d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(vm_manifest_diags_count(d), 0);
    CU_ASSERT_STRING_EQUAL(vm_manifest_vendor_string(m), "Project Ara");
    CU_ASSERT_STRING_EQUAL(vm_manifest_product_string(m), "Simple GPIO Interface");
    CU_ASSERT_EQUAL(vm_manifest_version_major(m), 0);
    CU_ASSERT_EQUAL(vm_manifest_version_minor(m), 1);
    /* bundle 0 and CPort 0 (control) are not part of the kernel's view */
    CU_ASSERT_EQUAL(vm_manifest_bundle_count(m), 1);
    CU_ASSERT_EQUAL(vm_manifest_bundle_id(m, 0), 1);
    CU_ASSERT_EQUAL(vm_manifest_bundle_class(m, 0), 0x0a);
    CU_ASSERT_EQUAL(vm_manifest_cport_count(m), 1);
    CU_ASSERT_EQUAL(vm_manifest_cport_id(m, 0), 1);
    CU_ASSERT_EQUAL(vm_manifest_cport_protocol(m, 0), 0x02);
    CU_ASSERT_EQUAL(vm_manifest_cport_bundle(m, 0), 0);
    CU_ASSERT_EQUAL(vm_manifest_bundle_cport_count(m, 0), 1);
    CU_ASSERT_EQUAL(vm_manifest_bundle_cport(m, 0, 0), 0);
    CU_ASSERT_FALSE(vm_manifest_find_cport(m, 0, NULL));
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

static void test_fixture_quotes_are_kept_like_manifesto_does(void)
{
    vm_manifest *m = vm_manifest_load(FIXTURES "/IID1-dual-uart-module.mnfs", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_STRING_EQUAL(vm_manifest_vendor_string(m), "\"Project Ara\"");
    CU_ASSERT_EQUAL(vm_manifest_bundle_count(m), 2);
    CU_ASSERT_EQUAL(vm_manifest_cport_count(m), 2);
    size_t c = 0;
    CU_ASSERT_TRUE(vm_manifest_find_cport(m, 2, &c));
    CU_ASSERT_EQUAL(vm_manifest_bundle_id(m, vm_manifest_cport_bundle(m, c)), 2);
    vm_manifest_free(m);
}

static void test_fixture_audio_loads_but_warns_that_no_driver_binds(void)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_load(FIXTURES "/IID1-simple-audio-module.mnfs", d);
    CU_ASSERT_PTR_NOT_NULL(m);
    CU_ASSERT_EQUAL(vm_manifest_diags_errors(d), 0);
    CU_ASSERT_EQUAL(vm_manifest_diags_warnings(d), 1);
    CU_ASSERT_TRUE(vm_manifest_diags_contain(
        d, "IID1-simple-audio-module.mnfs:51: warning: bundle-descriptor 1 (class 0x12 (Audio))"));
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

/* ---- catalog ----------------------------------------------------------------------- */

static vm_manifest *load_catalog(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, CATALOG "/%s.mnfs", name);
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_load(path, d);
    /* camera: the check rightly warns that 6.1 never builds the camera driver (BROKEN);
     * the entry is there for the AP model (tests/unit/test_vm_ap_path.c) */
    size_t expected = !strcmp(name, "camera") &&
                      vm_manifest_diags_contain(d, "the 6.1 camera driver depends on BROKEN");
    if (!m || vm_manifest_diags_count(d) != expected)
        print_diags(d);
    CU_ASSERT_EQUAL(vm_manifest_diags_count(d), expected);
    vm_manifest_diags_free(d);
    return m;
}

static void test_every_catalog_manifest_is_valid_without_warnings(void)
{
    size_t n = 0;
    char **names = list_files(CATALOG, ".mnfs", &n);
    CU_ASSERT_FATAL(n >= 9);
    for (size_t i = 0; i < n; i++) {
        vm_manifest *m = load_catalog(names[i]);
        CU_ASSERT_PTR_NOT_NULL(m);
        if (m) {
            size_t len = 0;
            vm_manifest_bytes(m, &len);
            CU_ASSERT(len <= VM_MANIFEST_FETCH_MAX);
            CU_ASSERT_PTR_NOT_NULL(vm_manifest_vendor_string(m));
            CU_ASSERT_PTR_NOT_NULL(vm_manifest_product_string(m));
        }
        vm_manifest_free(m);
    }
    free_list(names, n);
}

/* One bundle of `cls` with exactly one CPort of `protocol`. */
static void expect_single(const char *name, uint8_t cls, uint8_t protocol)
{
    vm_manifest *m = load_catalog(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(vm_manifest_bundle_count(m), 1);
    CU_ASSERT_EQUAL(vm_manifest_bundle_class(m, 0), cls);
    CU_ASSERT_EQUAL(vm_manifest_bundle_cport_count(m, 0), 1);
    CU_ASSERT_EQUAL(vm_manifest_cport_protocol(m, vm_manifest_bundle_cport(m, 0, 0)), protocol);
    vm_manifest_free(m);
}

static void test_catalog_single_cport_classes_match_their_drivers(void)
{
    expect_single("battery", 0x08, 0x08);
    expect_single("vibrator", 0x10, 0x10);
    expect_single("loopback", 0x11, 0x11);
    expect_single("light", 0x0f, 0x0f);
    expect_single("keyboard", 0x05, 0x05);
    expect_single("uart", 0x0a, 0x04);
}

static void test_catalog_sensor_has_gpio_and_i2c_in_a_bridged_phy_bundle(void)
{
    vm_manifest *m = load_catalog("sensor");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(vm_manifest_bundle_count(m), 1);
    CU_ASSERT_EQUAL(vm_manifest_bundle_class(m, 0), 0x0a);
    CU_ASSERT_EQUAL(vm_manifest_cport_count(m), 2);
    bool gpio = false, i2c = false;
    for (size_t i = 0; i < vm_manifest_cport_count(m); i++) {
        gpio |= vm_manifest_cport_protocol(m, i) == 0x02;
        i2c |= vm_manifest_cport_protocol(m, i) == 0x03;
    }
    CU_ASSERT_TRUE(gpio && i2c);
    vm_manifest_free(m);
}

/* What gb_audio_probe wants: one audio bundle, one management CPort, data CPorts after. */
static void test_catalog_speaker_has_an_audio_bundle_with_management_and_data(void)
{
    vm_manifest *m = load_catalog("speaker");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(vm_manifest_bundle_count(m), 1);
    CU_ASSERT_EQUAL(vm_manifest_bundle_class(m, 0), 0x12);
    CU_ASSERT_EQUAL_FATAL(vm_manifest_bundle_cport_count(m, 0), 2);
    CU_ASSERT_EQUAL(vm_manifest_cport_protocol(m, vm_manifest_bundle_cport(m, 0, 0)), 0x12);
    CU_ASSERT_EQUAL(vm_manifest_cport_protocol(m, vm_manifest_bundle_cport(m, 0, 1)), 0x13);
    vm_manifest_free(m);
}

static void test_catalog_dual_module_has_two_interface_manifests(void)
{
    vm_manifest *a = load_catalog("dual.intf1");
    vm_manifest *b = load_catalog("dual.intf2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_NOT_EQUAL(vm_manifest_product_string(a), vm_manifest_product_string(b));
    vm_manifest_free(a);
    vm_manifest_free(b);
}

/* ---- model ------------------------------------------------------------------------- */

static const char two_bundles[] =
    "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
    "[interface-descriptor]\nvendor-string-id = 0\nproduct-string-id = 7\n"
    "[string-descriptor 7]\nstring = Two\n"
    "[cport-descriptor 5]\nbundle = 2\nprotocol = 0x04\n"
    "[bundle-descriptor 2]\nclass = 0x0a\n"
    "[bundle-descriptor 1]\nclass = 0x11\n"
    "[cport-descriptor 3]\nbundle = 1\nprotocol = 0x11\n"
    "[cport-descriptor 4]\nbundle = 2\nprotocol = 0x02\n";

static void test_model_keeps_manifest_order_of_bundles_and_cports(void)
{
    vm_manifest *m = vm_manifest_parse_text("t.mnfs", two_bundles, strlen(two_bundles), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NULL(vm_manifest_vendor_string(m));
    CU_ASSERT_STRING_EQUAL(vm_manifest_product_string(m), "Two");
    CU_ASSERT_EQUAL(vm_manifest_product_string_id(m), 7);
    CU_ASSERT_EQUAL(vm_manifest_bundle_count(m), 2);
    CU_ASSERT_EQUAL(vm_manifest_bundle_id(m, 0), 2);
    CU_ASSERT_EQUAL(vm_manifest_bundle_id(m, 1), 1);
    CU_ASSERT_EQUAL(vm_manifest_cport_count(m), 3);
    CU_ASSERT_EQUAL(vm_manifest_cport_id(m, 0), 5);
    CU_ASSERT_EQUAL(vm_manifest_cport_id(m, 1), 3);
    CU_ASSERT_EQUAL(vm_manifest_cport_id(m, 2), 4);
    /* bundle 2 lists CPort 5 then CPort 4 */
    CU_ASSERT_EQUAL(vm_manifest_bundle_cport_count(m, 0), 2);
    CU_ASSERT_EQUAL(vm_manifest_cport_id(m, vm_manifest_bundle_cport(m, 0, 0)), 5);
    CU_ASSERT_EQUAL(vm_manifest_cport_id(m, vm_manifest_bundle_cport(m, 0, 1)), 4);
    size_t b = 9, c = 9;
    CU_ASSERT_TRUE(vm_manifest_find_bundle(m, 1, &b));
    CU_ASSERT_EQUAL(b, 1);
    CU_ASSERT_TRUE(vm_manifest_find_cport(m, 4, &c));
    CU_ASSERT_EQUAL(vm_manifest_cport_bundle(m, c), 0);
    CU_ASSERT_FALSE(vm_manifest_find_bundle(m, 3, NULL));
    CU_ASSERT_FALSE(vm_manifest_find_cport(m, 6, NULL));
    /* out-of-range indexes answer harmlessly */
    CU_ASSERT_EQUAL(vm_manifest_bundle_cport_count(m, 9), 0);
    CU_ASSERT_EQUAL(vm_manifest_bundle_cport(m, 0, 9), (size_t)-1);
    CU_ASSERT_EQUAL(vm_manifest_cport_bundle(m, 9), (size_t)-1);
    vm_manifest_free(m);
}

static void test_model_binary_is_served_exactly_as_given(void)
{
    /* a CPort descriptor 4 bytes longer than needed: the kernel warns but accepts */
    static const uint8_t bin[] = {
        0x20, 0x00, 0x00, 0x01,
        0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x01, 0x11, 0x00, 0x00,
        0x0c, 0x00, 0x04, 0x00, 0x01, 0x00, 0x01, 0x11, 0xaa, 0xbb, 0xcc, 0xdd,
    };
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_binary("x.mnfb", bin, sizeof bin, d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_TRUE(vm_manifest_diags_contain(
        d, "x.mnfb:0x0014: warning: cport descriptor is 12 bytes, 8 expected"));
    size_t len = 0;
    const uint8_t *bytes = vm_manifest_bytes(m, &len);
    CU_ASSERT(len == sizeof bin && !memcmp(bytes, bin, len));
    /* ... and the text form refuses rather than lose the extra bytes */
    vm_manifest_diags_clear(d);
    CU_ASSERT_PTR_NULL(vm_manifest_to_text(m, d));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(
        d, "x.mnfb:0x0014: error: cport-descriptor 1 cannot be written as text"));
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

static void test_model_names_classes_and_protocols(void)
{
    CU_ASSERT_STRING_EQUAL(vm_manifest_class_name(0x0a), "Bridged PHY");
    CU_ASSERT_STRING_EQUAL(vm_manifest_protocol_name(0x03), "I2C");
    CU_ASSERT_PTR_NULL(vm_manifest_class_name(0x42));
    CU_ASSERT_PTR_NULL(vm_manifest_protocol_name(0x0a));
}

static void test_load_tells_binary_from_text_by_content(void)
{
    char path[] = "/tmp/gbvp-manifest-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    size_t len = 0;
    uint8_t *bin = read_file(FIXTURES "/IID1-simple-i2c-module.mnfb", &len);
    FILE *f = fdopen(fd, "wb");
    fwrite(bin, 1, len, f);
    fclose(f);
    vm_manifest *m = vm_manifest_load(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(m);
    if (m)
        CU_ASSERT_STRING_EQUAL(vm_manifest_product_string(m), "Simple I2C Interface");
    vm_manifest_free(m);
    remove(path);
    free(bin);
}

/* "; " read as a little-endian size is 8251: a text of that length must stay text. */
static void test_load_keeps_text_whose_first_bytes_read_as_its_length(void)
{
    size_t len = 0;
    char *text = (char *)read_file(CATALOG "/sensor.mnfs", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    enum { TOTAL = 8251 };
    CU_ASSERT_FATAL(len + 3 < TOTAL);
    char *big = malloc(TOTAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    size_t comment = TOTAL - len - 1;
    memset(big, 'x', comment);
    memcpy(big, "; ", 2);
    big[comment] = '\n';
    memcpy(big + comment + 1, text, len);
    CU_ASSERT_FALSE(vm_manifest_looks_binary((const uint8_t *)big, TOTAL));
    /* ... while binaries whose size starts with such a byte stay binary: 32 bytes (' ')
     * and 315 (';' 0x01), told by their version's NUL */
    uint8_t bin32[32] = { 0x20, 0x00, 0x00, 0x01 }, bin315[315] = { 0x3b, 0x01, 0x00, 0x01 };
    CU_ASSERT_TRUE(vm_manifest_looks_binary(bin32, sizeof bin32));
    CU_ASSERT_TRUE(vm_manifest_looks_binary(bin315, sizeof bin315));

    char path[] = "/tmp/gbvp-manifest-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(big, 1, TOTAL, f);
    fclose(f);
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_load(path, d);
    if (!m)
        print_diags(d);
    CU_ASSERT_PTR_NOT_NULL(m);
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
    remove(path);
    free(big);
    free(text);
}

static const unit_test fixture_tests[] = {
    UNIT_TEST(test_every_fixture_text_converts_to_its_binary_twin),
    UNIT_TEST(test_every_fixture_binary_round_trips_through_text),
    UNIT_TEST(test_fixture_gpio_model_matches_the_file),
    UNIT_TEST(test_fixture_quotes_are_kept_like_manifesto_does),
    UNIT_TEST(test_fixture_audio_loads_but_warns_that_no_driver_binds),
    UNIT_TESTS_END,
};

static const unit_test catalog_tests[] = {
    UNIT_TEST(test_every_catalog_manifest_is_valid_without_warnings),
    UNIT_TEST(test_catalog_single_cport_classes_match_their_drivers),
    UNIT_TEST(test_catalog_sensor_has_gpio_and_i2c_in_a_bridged_phy_bundle),
    UNIT_TEST(test_catalog_speaker_has_an_audio_bundle_with_management_and_data),
    UNIT_TEST(test_catalog_dual_module_has_two_interface_manifests),
    UNIT_TESTS_END,
};

static const unit_test model_tests[] = {
    UNIT_TEST(test_model_keeps_manifest_order_of_bundles_and_cports),
    UNIT_TEST(test_model_binary_is_served_exactly_as_given),
    UNIT_TEST(test_model_names_classes_and_protocols),
    UNIT_TEST(test_load_tells_binary_from_text_by_content),
    UNIT_TEST(test_load_keeps_text_whose_first_bytes_read_as_its_length),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "manifest_fixtures", fixture_tests, 0, 0 },
    { "manifest_catalog", catalog_tests, 0, 0 },
    { "manifest_model", model_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
