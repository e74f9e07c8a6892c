// SPDX-License-Identifier: MIT
// libFuzzer target: the binary manifest reader (what a module hands the AP). Any input must
// be refused cleanly or give a manifest whose text form, when it has one, converts back to
// exactly the input bytes.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_binary("fuzz.mnfb", data, size, d);
    if ((m == NULL) != (vm_manifest_diags_errors(d) > 0))
        abort();
    if (m) {
        size_t len = 0;
        const uint8_t *bytes = vm_manifest_bytes(m, &len);
        if (len != size || memcmp(bytes, data, size))
            abort(); /* served exactly as given */
        for (size_t i = 0; i < vm_manifest_cport_count(m); i++) {
            uint16_t id = vm_manifest_cport_id(m, i);
            size_t found = 0;
            if (id == 0 || id > VM_MANIFEST_CPORT_ID_MAX || !vm_manifest_find_cport(m, id, &found) ||
                found != i || vm_manifest_cport_bundle(m, i) >= vm_manifest_bundle_count(m))
                abort();
        }
        char *text = vm_manifest_to_text(m, NULL);
        if (text) {
            vm_manifest *back = vm_manifest_parse_text("back.mnfs", text, strlen(text), NULL);
            size_t len2 = 0;
            const uint8_t *bytes2 = back ? vm_manifest_bytes(back, &len2) : NULL;
            if (!back || len2 != size || memcmp(bytes2, data, size))
                abort(); /* binary -> text -> binary is exact */
            vm_manifest_free(back);
            free(text);
        }
    }
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
    return 0;
}
