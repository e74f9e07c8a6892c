// SPDX-License-Identifier: MIT
// libFuzzer target: the text manifest reader. Any input must be refused cleanly or give a
// manifest whose binary reads back as valid and whose text form converts back to the same
// bytes.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Walks the model the way the interface model would. */
static void touch_model(const vm_manifest *m)
{
    size_t sum = 0;
    const char *v = vm_manifest_vendor_string(m), *p = vm_manifest_product_string(m);
    sum += v ? strlen(v) : 0;
    sum += p ? strlen(p) : 0;
    for (size_t b = 0; b < vm_manifest_bundle_count(m); b++)
        for (size_t i = 0; i < vm_manifest_bundle_cport_count(m, b); i++) {
            size_t c = vm_manifest_bundle_cport(m, b, i);
            if (c >= vm_manifest_cport_count(m) || vm_manifest_cport_bundle(m, c) != b)
                abort();
            sum += vm_manifest_cport_id(m, c);
        }
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_text("fuzz.mnfs", (const char *)data, size, d);
    if ((m == NULL) != (vm_manifest_diags_errors(d) > 0))
        abort(); /* refused exactly when an error was reported */
    if (m) {
        touch_model(m);
        size_t len = 0;
        const uint8_t *bytes = vm_manifest_bytes(m, &len);
        if (len > VM_MANIFEST_FETCH_MAX)
            abort();
        vm_manifest *b = vm_manifest_parse_binary("fuzz.mnfb", bytes, len, NULL);
        if (!b)
            abort(); /* what we write, we read */
        char *text = vm_manifest_to_text(b, NULL);
        if (text) {
            vm_manifest *again = vm_manifest_parse_text("again.mnfs", text, strlen(text), NULL);
            size_t len2 = 0;
            const uint8_t *bytes2 = again ? vm_manifest_bytes(again, &len2) : NULL;
            if (!again || len2 != len || memcmp(bytes, bytes2, len))
                abort();
            vm_manifest_free(again);
            free(text);
        }
        vm_manifest_free(b);
    }
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
    return 0;
}
