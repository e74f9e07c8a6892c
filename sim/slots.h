// SPDX-License-Identifier: MIT
// The frame's slots filled with catalog modules: creates live virtual-modules interfaces for
// a vm_module, plugs them into the SVC (gb_svc_insert) and routes what they send into the
// SVC's data path. Owns the live interfaces: frees them on removal, on ejection by the AP
// and in gb_slots_free.
#ifndef GBVP_SWITCH_MODEL_SLOT_VM_H
#define GBVP_SWITCH_MODEL_SLOT_VM_H

#include <stddef.h>
#include <stdint.h>

#include "switch-model/svc.h"
#include "virtual-modules/vm_module.h"

typedef struct gb_slots gb_slots;

/* Takes over the SVC's release hook. The caller owns the result; svc must outlive it. */
gb_slots *gb_slots_new(gb_svc *svc);
/* Removes every module (the AP hears MODULE_REMOVED if the handshake is done) and frees. */
void gb_slots_free(gb_slots *s, sim_time now);

/* Creates the module's interfaces and inserts them at `slot`. The vm_module is only
 * borrowed. 0, or a negative errno with a reason in err (-EINVAL, -EBUSY as
 * gb_svc_insert, or an interface that could not be created). */
int gb_slots_insert(gb_slots *s, unsigned slot, const vm_module *m, sim_time now, char *err,
                    size_t errlen);
/* Pulls the module occupying `slot` out and frees its interfaces. 0 or -ENOENT. */
int gb_slots_remove(gb_slots *s, unsigned slot, sim_time now);
/* Interface `index` of the module in `slot` (NULL when none) and its interface id. */
vm_interface *gb_slots_interface(gb_slots *s, unsigned slot, unsigned index);
/* The module name in `slot`, NULL when empty. */
const char *gb_slots_module_name(const gb_slots *s, unsigned slot);

/* The adapter the SVC uses to drive a vm_interface (exposed for tests). */
extern const gb_svc_intf_ops gb_slots_vm_ops;

#endif
