// SPDX-License-Identifier: MIT
// libFuzzer target: behaviour files (virtual-modules/behaviour.h) and every class handler's
// reading of them. The input is the file's text; it is parsed, its sections and keys are
// read back, and it is applied to an interface whose manifest has every class gbvp
// implements (as interface 0, and as interface 1 of a multi-interface module).
// Checked besides "no crash, no sanitizer report": a refusal always gives a message that
// names the file; a parsed file's sections report sane lines, ids and scopes; an interface
// is refused exactly when a message says why.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/behaviour.h"
#include "virtual-modules/manifest.h"
#include "tests/unit/test_vm_classes_mnfs.h"
#include "virtual-modules/vm_interface.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char everything_mnfs[] = VMT_CLASSES_MNFS;

static vm_manifest *manifest;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    manifest = vm_manifest_parse_text("everything.mnfs", everything_mnfs,
                                      strlen(everything_mnfs), NULL);
    if (!manifest) {
        fprintf(stderr, "fuzz_behaviour: the built-in manifest does not parse\n");
        exit(1);
    }
    return 0;
}

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_behaviour: invariant broken: %s (message: '%s')\n", what, err);
    abort();
}

static void discard(void *ctx, uint16_t cport, const gb_msg *m)
{
    (void)ctx, (void)cport, (void)m;
}

static void apply(const vm_behaviour *b, unsigned intf_index)
{
    char err[512] = "";
    vm_interface_config cfg = {.manifest = manifest, .behaviour = b,
                               .behaviour_interface = intf_index, .out = {discard, NULL}};
    vm_interface *intf = vm_interface_new(&cfg, err, sizeof err);
    if (!intf) {
        if (!err[0] || !memchr(err, 0, sizeof err))
            fail("an interface was refused without a reason", err);
        return;
    }
    if (vm_interface_power(intf, VM_POWER_VSYS_ENABLE) ||
        vm_interface_power(intf, VM_POWER_REFCLK_ENABLE) ||
        vm_interface_power(intf, VM_POWER_UNIPRO_ENABLE) ||
        vm_interface_power(intf, VM_POWER_ACTIVATE))
        fail("an interface built from a behaviour file does not come up", "");
    char desc[1024];
    vm_interface_describe(intf, desc, sizeof desc);
    vm_interface_free(intf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1); /* exactly sized, not NUL-terminated */
    if (!text)
        abort();
    memcpy(text, data, size);
    char err[512] = "";
    vm_behaviour *b = vm_behaviour_parse("fuzz.behaviour", text, size, err, sizeof err);
    if (!b) {
        if (!memchr(err, 0, sizeof err) || strncmp(err, "fuzz.behaviour", 14))
            fail("a refused file gives no message naming it", err);
        free(text);
        return 0;
    }
    unsigned max_scope = 0;
    for (size_t i = 0; i < vm_behaviour_section_count(b); i++) {
        const vm_bsection *s = vm_behaviour_section_at(b, i);
        if (!s || !vm_bsection_kind(s) || vm_bsection_line(s) < 1 ||
            (size_t)vm_bsection_line(s) > size + 1 || vm_bsection_id(s) < -1)
            fail("a section with an impossible kind, line or id", "");
        if (vm_bsection_scope(s) > max_scope)
            max_scope = vm_bsection_scope(s);
        char e2[256];
        int line = 0;
        const char *v = vm_bsection_get(s, "backend", &line);
        if (v && line < vm_bsection_line(s))
            fail("a key on a line before its section", v);
        uint32_t u;
        vm_bsection_u32(s, "lines", 0, 0, 0xffffffffu, &u, e2, sizeof e2);
    }
    free(text); /* the parsed form must not point into the text */
    apply(b, 0);
    if (max_scope > 0)
        apply(b, 1);
    vm_behaviour_free(b);
    return 0;
}
