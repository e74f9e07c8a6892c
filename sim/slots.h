// SPDX-License-Identifier: MIT
// The frame's slots filled with catalog modules: for each interface of a module, a live
// virtual-modules interface plugged into the switch fabric on its port (what the fabric
// delivers goes to the interface, what the interface sends goes into the fabric) and handed
// to the SVC, which powers, activates and connects it. Owns the live interfaces: frees them
// on removal, on ejection by the AP and in sim_slots_free.
#ifndef GBVP_SIM_SLOTS_H
#define GBVP_SIM_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "switch-model/fabric.h"
#include "switch-model/svc.h"
#include "virtual-modules/vm_module.h"

typedef struct sim_slots sim_slots;

/* Takes over the SVC's release hook. The caller owns the result; svc and fabric must
 * outlive it. */
sim_slots *sim_slots_new(gb_svc *svc, sw_fabric *fabric);
/* Removes every module (the AP hears MODULE_REMOVED if the handshake is done) and frees. */
void sim_slots_free(sim_slots *s, sim_time now);

/* Creates the module's interfaces and inserts them at `slot`. The vm_module is only
 * borrowed. 0, or a negative errno with a reason in err (-EINVAL, -EBUSY as
 * gb_svc_insert, or an interface that could not be created). */
int sim_slots_insert(sim_slots *s, unsigned slot, const vm_module *m, sim_time now, char *err,
                     size_t errlen);
/* Pulls the module occupying `slot` out and frees its interfaces. 0 or -ENOENT. */
int sim_slots_remove(sim_slots *s, unsigned slot, sim_time now);
/* Interface `index` of the module in `slot` (NULL when none). */
vm_interface *sim_slots_interface(sim_slots *s, unsigned slot, unsigned index);
/* The interface sitting in `slot` (whichever index of its module it is); NULL when none. */
vm_interface *sim_slots_interface_in(sim_slots *s, unsigned slot);
/* The module name in `slot` (any slot the module occupies), NULL when empty. */
const char *sim_slots_module_name(const sim_slots *s, unsigned slot);

/* Host descriptors the modules' backends read (a UART's pty): at most cap written, the
 * number they have returned. */
size_t sim_slots_fds(const sim_slots *s, int *fds, size_t cap);
/* Lets every backend read what waits on its descriptor (never blocks). */
void sim_slots_service(sim_slots *s);

/* The adapter the SVC uses to drive a vm_interface (exposed for tests). */
extern const gb_svc_intf_ops sim_slots_vm_ops;

#endif
