// SPDX-License-Identifier: MIT
// Behaviour files and catalog loading.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/behaviour.h"
#include "gbvp/cmd_module.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/uart.h"
#include "virtual-modules/vm_module.h"

static vm_behaviour *parse(const char *text, char *err, size_t errlen)
{
    return vm_behaviour_parse("b.behaviour", text, strlen(text), err, errlen);
}

static void test_behaviour_parses_sections_keys_and_comments(void)
{
    char err[256] = "";
    vm_behaviour *b = parse("# c\n; c\n[interface]\nvendor-id = 0x10\n\n[cport 3]\n"
                            "  backend   =  pty  \n",
                            err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(vm_behaviour_section_count(b), 2);
    const vm_bsection *s = vm_behaviour_find(b, "cport", 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    int line = 0;
    CU_ASSERT_STRING_EQUAL(vm_bsection_get(s, "backend", &line), "pty");
    CU_ASSERT_EQUAL(line, 7);
    uint32_t v;
    CU_ASSERT_EQUAL(vm_bsection_u32(vm_behaviour_find(b, "interface", -1), "vendor-id", 0, 0,
                                    0xffff, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 0x10);
    CU_ASSERT_EQUAL(vm_bsection_u32(s, "absent", 7, 0, 9, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 7);
    vm_behaviour_free(b);
}

static void test_behaviour_syntax_errors_name_file_and_line(void)
{
    char err[256];
    CU_ASSERT_PTR_NULL(parse("key = 1\n", err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.behaviour:1: setting before the first [section]"));
    CU_ASSERT_PTR_NULL(parse("[a]\n[a\n", err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.behaviour:2:"));
    CU_ASSERT_PTR_NULL(parse("[a]\nx = 1\nx = 2\n", err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.behaviour:3: key 'x' repeats the one at line 2"));
    CU_ASSERT_PTR_NULL(parse("[cport 1]\n[cport 1]\n", err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.behaviour:2: section [cport 1] repeats"));
    CU_ASSERT_PTR_NULL(parse("[a]\nno equals sign\n", err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.behaviour:2: expected 'key = value'"));
    CU_ASSERT_PTR_NULL(parse("[cport x]\n", err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.behaviour:1: section id 'x'"));
    const char nul[] = "[a]\nx = 1\0\n";
    CU_ASSERT_PTR_NULL(vm_behaviour_parse("b.behaviour", nul, sizeof nul - 1, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.behaviour:2: NUL byte"));
}

static void test_behaviour_typed_values_are_checked(void)
{
    char err[256];
    vm_behaviour *b = parse("[s]\nn = 12x\nl = 1, 2 ,3\nh = 0a0B ff\nodd = abc\nq = \"hi\"\n",
                            err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    const vm_bsection *s = vm_behaviour_find(b, "s", -1);
    uint32_t v, list[4];
    size_t n;
    CU_ASSERT_EQUAL(vm_bsection_u32(s, "n", 0, 0, 100, &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.behaviour:2: n: expected an integer 0..100"));
    CU_ASSERT_EQUAL(vm_bsection_u32_list(s, "l", 0, 9, list, 4, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(list[2], 3);
    CU_ASSERT_EQUAL(vm_bsection_u32_list(s, "l", 0, 2, list, 4, &n, err, sizeof err), -1);
    uint8_t hex[4];
    CU_ASSERT_EQUAL(vm_bsection_hex(s, "h", hex, 4, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(hex[1], 0x0b);
    CU_ASSERT_EQUAL(vm_bsection_hex(s, "odd", hex, 4, &n, err, sizeof err), -1);
    char str[8];
    CU_ASSERT_EQUAL(vm_bsection_str(s, "q", "", str, 7, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(str, "hi");
    vm_behaviour_free(b);
}

/* Integers are decimal or 0x hex (docs/modules.md, "Behaviour files"), never octal:
 * "010" is ten, "09" nine, in values, lists, 64-bit values and section ids alike. */
static void test_behaviour_integers_are_decimal_or_hex(void)
{
    char err[256] = "";
    vm_behaviour *b = parse("[s]\nn = 010\nm = 09\nneg = -010\nl = 010, 0x10\nbig = 010\n"
                            "h = 0X1f\n[cport 010]\n", err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    const vm_bsection *s = vm_behaviour_find(b, "s", -1);
    uint32_t v, list[2];
    int32_t i;
    uint64_t u;
    size_t n;
    CU_ASSERT_EQUAL(vm_bsection_u32(s, "n", 0, 0, 100, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 10);
    CU_ASSERT_EQUAL(vm_bsection_u32(s, "m", 0, 0, 100, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 9);
    CU_ASSERT_EQUAL(vm_bsection_u32(s, "h", 0, 0, 100, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 0x1f);
    CU_ASSERT_EQUAL(vm_bsection_i32(s, "neg", 0, -100, 100, &i, err, sizeof err), 0);
    CU_ASSERT_EQUAL(i, -10);
    CU_ASSERT_EQUAL(vm_bsection_u32_list(s, "l", 0, 100, list, 2, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(list[0], 10);
    CU_ASSERT_EQUAL(list[1], 16);
    CU_ASSERT_EQUAL(vm_bsection_u64(s, "big", 0, &u, err, sizeof err), 0);
    CU_ASSERT_EQUAL(u, 10);
    CU_ASSERT_PTR_NOT_NULL(vm_behaviour_find(b, "cport", 10));
    vm_behaviour_free(b);
}

/* A list value too long for an integer is refused whole: cut to its first 31 characters,
 * 34 characters "000...07" read as 0. */
static void test_behaviour_list_refuses_an_overlong_value(void)
{
    char err[256] = "";
    vm_behaviour *b = parse("[s]\nl = 1, 0000000000000000000000000000000007\n", err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    uint32_t list[4];
    size_t n;
    CU_ASSERT_EQUAL(vm_bsection_u32_list(vm_behaviour_find(b, "s", -1), "l", 0, 100, list, 4, &n,
                                         err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "'0000000000000000000000000000000007' is not an integer"));
    vm_behaviour_free(b);
}

static void test_behaviour_rejects_cport_missing_from_manifest(void)
{
    vmt t;
    const uint16_t c[] = {1};
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x11, 0x11), "[cport 4]\n", c, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:1: [cport 4]: the manifest has no"));
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x11, 0x11), "[gadget]\n", c, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:1: unknown section [gadget]"));
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x11, 0x11), "[interface]\ninit-status = 0\n",
                           c, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "init-status 0"));
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x11, 0x11), "[interface 1]\n", c, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "[interface N] blocks are for modules of several"));
}

static void test_catalog_entries_all_load(void)
{
    static const char *const names[] = {"battery", "dual", "keyboard", "light", "loopback",
                                        "sensor", "uart", "vibrator"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char err[512] = "";
        vm_module *m = vm_module_load(NULL, names[i], err, sizeof err);
        if (!m)
            fprintf(stderr, "\n%s: %s\n", names[i], err);
        CU_ASSERT_PTR_NOT_NULL(m);
        CU_ASSERT_EQUAL(vm_module_interface_count(m), !strcmp(names[i], "dual") ? 2u : 1u);
        vm_module_free(m);
    }
}

static void test_catalog_names_lists_each_entry_once_sorted(void)
{
    char **names, err[256];
    static const char *const want[] = {"battery", "bootrom", "camera", "dual", "firmware",
                                       "keyboard", "light", "lograw", "loopback", "pwm",
                                       "sdcard", "sensor", "speaker", "spi", "spinor", "uart",
                                       "usb", "vibrator", NULL};
    CU_ASSERT_EQUAL(vm_catalog_names(NULL, &names, err, sizeof err),
                    (long)(sizeof want / sizeof want[0]) - 1);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CU_ASSERT_TRUE(want[i] ? names[i] && !strcmp(names[i], want[i]) : !names[i]);
    vm_catalog_names_free(names);
    CU_ASSERT_EQUAL(vm_catalog_names("/nonexistent/catalog", &names, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot open catalog /nonexistent/catalog"));
}

static void test_catalog_dual_module_scopes_behaviour_per_interface(void)
{
    char err[512];
    vm_module *m = vm_module_load(NULL, "dual", err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    vm_interface *i1 = vm_module_create_interface(m, 0, (vm_output){0}, 1, err, sizeof err);
    vm_interface *i2 = vm_module_create_interface(m, 1, (vm_output){0}, 2, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(i1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(i2);
    CU_ASSERT_EQUAL(vm_uart_get_backend(vm_interface_uart(i1, 1)), VM_UART_LOOPBACK);
    int32_t cap = 0;
    vm_power_supply_get(vm_interface_power_supply(i2, 1), 0, GB_POWER_SUPPLY_PROP_CAPACITY,
                        &cap);
    CU_ASSERT_EQUAL(cap, 55);
    CU_ASSERT_STRING_EQUAL(vm_module_description(m),
                           "a UART on its first interface and a battery on its second");
    CU_ASSERT_PTR_NULL(vm_module_create_interface(m, 2, (vm_output){0}, 3, err, sizeof err));
    vm_interface_free(i1);
    vm_interface_free(i2);
    vm_module_free(m);
}

static void test_catalog_unknown_or_unsafe_names_are_refused(void)
{
    char err[512];
    CU_ASSERT_PTR_NULL(vm_module_load(NULL, "no-such-module", err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no catalog entry 'no-such-module'"));
    CU_ASSERT_PTR_NULL(vm_module_load(NULL, "../catalog/battery", err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a catalog entry name"));
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static int run_cli(const char *dir, const char *verb, const char *name, char *out, size_t cap)
{
    char *argv[] = {"module", "--catalog", (char *)dir, (char *)verb, (char *)name, NULL};
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    int rc = cmd_module_run(name ? 5 : 4, argv, f, f);
    rewind(f);
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    fclose(f);
    return rc;
}

static void test_module_cli_check_reports_behaviour_error_with_line(void)
{
    char dir[] = "/tmp/gbvp-vm-cli-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    write_file(dir, "good.mnfs", vmt_manifest_one(0x0a, 0x02));
    write_file(dir, "good.behaviour", "[cport 1]\nlines = 4\n");
    write_file(dir, "bad.mnfs", vmt_manifest_one(0x0a, 0x02));
    write_file(dir, "bad.behaviour", "[interface]\n\n[cport 1]\nlines = many\n");
    char out[2048];
    CU_ASSERT_EQUAL(run_cli(dir, "check", "good", out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "good: ok, 1 interface"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "cport 1 protocol 0x02 gpio"));
    CU_ASSERT_EQUAL(run_cli(dir, "check", "bad", out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad.behaviour:4: lines: expected an integer"));
    CU_ASSERT_EQUAL(run_cli(dir, "list", NULL, out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad              BROKEN"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "good             1 interface"));
    CU_ASSERT_EQUAL(run_cli(dir, "frobnicate", NULL, out, sizeof out), 2);
    const char *files[] = {"good.mnfs", "good.behaviour", "bad.mnfs", "bad.behaviour"};
    for (size_t i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* NAME.mnfs beside NAME.intf1.mnfs is one entry, listed once (the load takes NAME.mnfs). */
static void test_catalog_names_lists_a_name_with_both_layouts_once(void)
{
    char dir[] = "/tmp/gbvp-vm-names-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    write_file(dir, "both.mnfs", vmt_manifest_one(0x0a, 0x02));
    write_file(dir, "both.intf1.mnfs", vmt_manifest_one(0x0a, 0x02));
    char **names, err[256];
    CU_ASSERT_EQUAL(vm_catalog_names(dir, &names, err, sizeof err), 1);
    CU_ASSERT_STRING_EQUAL(names[0], "both");
    CU_ASSERT_PTR_NULL(names[1]);
    vm_catalog_names_free(names);
    const char *files[] = {"both.mnfs", "both.intf1.mnfs"};
    for (size_t i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

const unit_test vmt_behaviour_tests[] = {
    UNIT_TEST(test_module_cli_check_reports_behaviour_error_with_line),
    UNIT_TEST(test_behaviour_parses_sections_keys_and_comments),
    UNIT_TEST(test_behaviour_syntax_errors_name_file_and_line),
    UNIT_TEST(test_behaviour_typed_values_are_checked),
    UNIT_TEST(test_behaviour_integers_are_decimal_or_hex),
    UNIT_TEST(test_behaviour_list_refuses_an_overlong_value),
    UNIT_TEST(test_behaviour_rejects_cport_missing_from_manifest),
    UNIT_TEST(test_catalog_entries_all_load),
    UNIT_TEST(test_catalog_names_lists_each_entry_once_sorted),
    UNIT_TEST(test_catalog_names_lists_a_name_with_both_layouts_once),
    UNIT_TEST(test_catalog_dual_module_scopes_behaviour_per_interface),
    UNIT_TEST(test_catalog_unknown_or_unsafe_names_are_refused),
    UNIT_TESTS_END,
};
