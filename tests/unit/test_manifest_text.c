// SPDX-License-Identifier: MIT
// Text manifests read the way manifesto (Python configparser) reads them, and every
// syntax error names the file, the line and what is wrong.
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit.h"
#include "virtual-modules/manifest.h"

#define HEADER "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
#define INTERFACE "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
#define STRINGS "[string-descriptor 1]\nstring = V\n[string-descriptor 2]\nstring = P\n"
#define BUNDLE1 "[bundle-descriptor 1]\nclass = 0x0a\n"
#define CPORT1 "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x02\n"
#define VALID HEADER INTERFACE STRINGS BUNDLE1 CPORT1

/* Parses text; returns the manifest (or NULL) and leaves the diagnostics in *d. */
static vm_manifest *parse(const char *text, vm_manifest_diags **d)
{
    *d = vm_manifest_diags_new();
    return vm_manifest_parse_text("t.mnfs", text, strlen(text), *d);
}

/* The text must be refused with a message containing `msg`. */
static void expect_error(const char *text, const char *msg)
{
    vm_manifest_diags *d;
    vm_manifest *m = parse(text, &d);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_TRUE(vm_manifest_diags_errors(d) > 0);
    if (!vm_manifest_diags_contain(d, msg)) {
        fprintf(stderr, "\nexpected an error containing: %s\ngot:\n", msg);
        vm_manifest_diags_print(d, stderr, VM_MANIFEST_WARNING);
        CU_FAIL("message not found");
    }
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

/* The text must load; returns the product string's bytes for inspection. */
static char *expect_product(const char *text)
{
    vm_manifest_diags *d;
    vm_manifest *m = parse(text, &d);
    if (!m)
        vm_manifest_diags_print(d, stderr, VM_MANIFEST_WARNING);
    CU_ASSERT_PTR_NOT_NULL(m);
    char *s = m ? strdup(vm_manifest_product_string(m)) : NULL;
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
    return s;
}

static void expect_product_is(const char *text, const char *want)
{
    char *got = expect_product(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
}

static void test_text_comments_colons_and_case_insensitive_keys(void)
{
    expect_product_is("; comment\n# another\n" HEADER
                      "[interface-descriptor]\nVendor-String-Id: 1\n  ; indented comment\n"
                      "PRODUCT-STRING-ID=2\n" STRINGS BUNDLE1 CPORT1,
                      "P");
}

static void test_text_no_inline_comments_the_rest_is_the_value(void)
{
    expect_product_is(HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                       "[string-descriptor 2]\nstring = P ; not a comment\n"
                                       BUNDLE1 CPORT1,
                      "P ; not a comment");
}

static void test_text_value_splits_at_the_first_delimiter(void)
{
    expect_product_is(HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                       "[string-descriptor 2]\nstring: a = b: c\n" BUNDLE1 CPORT1,
                      "a = b: c");
}

static void test_text_indented_lines_continue_the_value(void)
{
    expect_product_is(HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                       "[string-descriptor 2]\nstring = first\n   second\n\n"
                                       "   third\n\n\n" BUNDLE1 CPORT1,
                      "first\nsecond\n\nthird");
}

static void test_text_crlf_and_cr_line_ends_and_bom(void)
{
    expect_product_is("\xef\xbb\xbf[manifest-header]\r\nversion-major = 0\r\nversion-minor = 1\r\n"
                      "[interface-descriptor]\rvendor-string-id = 1\rproduct-string-id = 2\r"
                      STRINGS BUNDLE1 CPORT1,
                      "P");
}

static void test_text_numbers_follow_python_int_base_0(void)
{
    expect_product_is(HEADER INTERFACE STRINGS "[bundle-descriptor 0b1]\nclass = 0o12\n"
                                               "[cport-descriptor \"0x_1\"]\nbundle = +1\n"
                                               "protocol = 0b_10\n",
                      "P");
    expect_error(VALID "[bundle-descriptor 2]\nclass = 010\n",
                 "t.mnfs:17: error: [bundle-descriptor 2] class = '010' is not a number");
    expect_error(VALID "[bundle-descriptor 2]\nclass = 0x\n", "class = '0x' is not a number");
    expect_error(VALID "[bundle-descriptor 2]\nclass = 1__0\n", "is not a number");
    expect_error(VALID "[bundle-descriptor 2]\nclass = 256\n",
                 "[bundle-descriptor 2] class = 256 is out of range 0..255");
    expect_error(VALID "[bundle-descriptor 2]\nclass = -1\n", "out of range 0..255");
    expect_error(VALID "[cport-descriptor 65536]\nbundle = 1\nprotocol = 2\n",
                 "[cport-descriptor 65536]: id 65536 is out of range 0..65535");
}

static void test_text_percent_is_configparser_interpolation(void)
{
    expect_product_is(HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                       "[string-descriptor 2]\nstring = 100%% sure\n" BUNDLE1 CPORT1,
                      "100% sure");
    expect_error(HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                  "[string-descriptor 2]\nstring = 100% sure\n" BUNDLE1 CPORT1,
                 "t.mnfs:10: error: [string-descriptor 2] string: '%' must be followed by '%' or '('");
    expect_error(HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                  "[string-descriptor 2]\nstring = %(x)s\n" BUNDLE1 CPORT1,
                 "references between keys are not supported");
}

static void test_text_section_ids_may_be_quoted_or_hex(void)
{
    expect_product_is(HEADER INTERFACE "[string-descriptor \"1\"]\nstring = V\n"
                                       "[string-descriptor 0x2]\nstring = P\n" BUNDLE1 CPORT1,
                      "P");
}

static void test_text_duplicate_sections_and_keys_are_errors(void)
{
    expect_error(VALID "[bundle-descriptor 1]\nclass = 0x0a\n",
                 "t.mnfs:16: error: section [bundle-descriptor 1] is given twice (first at line 11)");
    expect_error(HEADER INTERFACE STRINGS "[bundle-descriptor 1]\nclass = 0x0a\nCLASS = 1\n" CPORT1,
                 "t.mnfs:13: error: key 'class' is given twice in [bundle-descriptor 1] (first at line 12)");
    /* the same id written differently is two sections to configparser, one id to us */
    expect_error(VALID "[bundle-descriptor 0x1]\nclass = 0x0a\n",
                 "t.mnfs:16: error: bundle-descriptor 1 is defined twice (also at line 11)");
}

static void test_text_missing_keys_sections_and_ids(void)
{
    expect_error(HEADER INTERFACE STRINGS BUNDLE1 "[cport-descriptor 1]\nbundle = 1\n",
                 "t.mnfs:13: error: [cport-descriptor 1] has no 'protocol' key");
    expect_error(INTERFACE STRINGS BUNDLE1 CPORT1, "t.mnfs: error: no [manifest-header] section");
    expect_error(VALID "[string-descriptor]\nstring = x\n",
                 "[string-descriptor] needs an id, e.g. [string-descriptor 1]");
    expect_error(VALID "[string-descriptor one]\nstring = x\n",
                 "[string-descriptor one]: id 'one' is not a number");
    expect_error(HEADER STRINGS BUNDLE1 CPORT1, "no interface-descriptor; the kernel needs exactly one");
}

static void test_text_unknown_and_obsolete_sections_are_refused(void)
{
    expect_error(VALID "[gizmo-descriptor 1]\nx = 1\n", "t.mnfs:16: error: unknown section [gizmo-descriptor 1]");
    expect_error(VALID "[mikrobus-descriptor]\npwm-state = 1\n", "later mikroBUS extension");
    expect_error(VALID "[module-descriptor]\nvendor = 1\n", "obsolete pre-2015 manifest layout");
    expect_error(VALID "[ string-descriptor 3]\nstring = x\n", "no spaces allowed just inside the brackets");
}

static void test_text_lines_that_are_not_ini_are_refused(void)
{
    expect_error("version-major = 0\n" VALID, "t.mnfs:1: error: 'version-major = 0' comes before any [section]");
    expect_error(VALID "just words\n", "t.mnfs:16: error: expected 'key = value' or '[section]'");
    expect_error(VALID "= 3\n", "t.mnfs:16: error: a value without a key name");
}

static void test_text_unknown_keys_only_warn(void)
{
    vm_manifest_diags *d;
    vm_manifest *m = parse(HEADER INTERFACE STRINGS "[bundle-descriptor 1]\nid = 1\nclass = 0x0a\n" CPORT1, &d);
    CU_ASSERT_PTR_NOT_NULL(m);
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "t.mnfs:12: warning: key 'id' is not used in [bundle-descriptor 1]"));
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

static void test_text_strings_are_limited_to_255_utf8_bytes(void)
{
    char text[1024];
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    snprintf(text, sizeof text, HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                "[string-descriptor 2]\nstring = %s\n" BUNDLE1 CPORT1, big);
    expect_error(text, "t.mnfs:10: error: [string-descriptor 2] string is 299 bytes; a string "
                       "descriptor holds at most 255");
    expect_error(HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                  "[string-descriptor 2]\nstring = \xff\xfe\n" BUNDLE1 CPORT1,
                 "t.mnfs:10: error: not valid UTF-8 (text manifests are UTF-8 throughout)");
    expect_error("; caf\xe9\r\n" VALID, "t.mnfs:1: error: not valid UTF-8");
    expect_product_is(HEADER INTERFACE "[string-descriptor 1]\nstring = V\n"
                                       "[string-descriptor 2]\nstring = Caf\xc3\xa9\n" BUNDLE1 CPORT1,
                      "Caf\xc3\xa9");
}

static void test_text_reports_several_errors_at_once(void)
{
    vm_manifest_diags *d;
    vm_manifest *m = parse(HEADER INTERFACE STRINGS "[bundle-descriptor 1]\nclass = 0xZZ\n"
                                                    "[cport-descriptor 1]\nbundle = 999\nprotocol = 2\n"
                                                    "[what 1]\n",
                           &d);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_EQUAL(vm_manifest_diags_errors(d), 3);
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "t.mnfs:12: error: [bundle-descriptor 1] class = '0xZZ'"));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "t.mnfs:14: error: [cport-descriptor 1] bundle = 999 is out of range"));
    CU_ASSERT_TRUE(vm_manifest_diags_contain(d, "t.mnfs:16: error: unknown section [what 1]"));
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

static void test_text_empty_and_garbage_input_is_refused_cleanly(void)
{
    expect_error("", "no [manifest-header] section");
    expect_error("\n\n   \n", "no [manifest-header] section");
    static const char nul[] = "[manifest-header\0]\nversion-major = 0\n";
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_text("t.mnfs", nul, sizeof nul - 1, d);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_TRUE(vm_manifest_diags_errors(d) > 0);
    vm_manifest_diags_free(d);
}

static void test_text_features_extension_round_trips(void)
{
    static const char text[] = HEADER "[interface-descriptor]\nvendor-string-id = 1\n"
                                      "product-string-id = 2\nfeatures = 0x01\n" STRINGS BUNDLE1 CPORT1;
    vm_manifest_diags *d;
    vm_manifest *m = parse(text, &d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(vm_manifest_features(m), 1);
    size_t len = 0;
    const uint8_t *b = vm_manifest_bytes(m, &len);
    CU_ASSERT_EQUAL(b[10], 0x01); /* interface descriptor byte 6 */
    char *out = vm_manifest_to_text(m, d);
    CU_ASSERT_PTR_NOT_NULL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "features = 0x01\n"));
    free(out);
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

static const unit_test text_tests[] = {
    UNIT_TEST(test_text_comments_colons_and_case_insensitive_keys),
    UNIT_TEST(test_text_no_inline_comments_the_rest_is_the_value),
    UNIT_TEST(test_text_value_splits_at_the_first_delimiter),
    UNIT_TEST(test_text_indented_lines_continue_the_value),
    UNIT_TEST(test_text_crlf_and_cr_line_ends_and_bom),
    UNIT_TEST(test_text_numbers_follow_python_int_base_0),
    UNIT_TEST(test_text_percent_is_configparser_interpolation),
    UNIT_TEST(test_text_section_ids_may_be_quoted_or_hex),
    UNIT_TEST(test_text_duplicate_sections_and_keys_are_errors),
    UNIT_TEST(test_text_missing_keys_sections_and_ids),
    UNIT_TEST(test_text_unknown_and_obsolete_sections_are_refused),
    UNIT_TEST(test_text_lines_that_are_not_ini_are_refused),
    UNIT_TEST(test_text_unknown_keys_only_warn),
    UNIT_TEST(test_text_strings_are_limited_to_255_utf8_bytes),
    UNIT_TEST(test_text_reports_several_errors_at_once),
    UNIT_TEST(test_text_empty_and_garbage_input_is_refused_cleanly),
    UNIT_TEST(test_text_features_extension_round_trips),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "manifest_text", text_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
