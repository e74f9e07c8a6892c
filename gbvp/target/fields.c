// SPDX-License-Identifier: MIT
// The field tables of fields.h. A field is read and written through its offset and size,
// so a table is data only; every field is an unsigned integer or a bool.
#include "gbvp/target/fields.h"

#include <stddef.h>
#include <string.h>

typedef struct sim_field {
    const char *name;
    vm_value_kind kind; /* VM_VALUE_INT or VM_VALUE_BOOL */
    size_t offset, size;
} sim_field;

struct sim_fields {
    const sim_field *f;
    size_t n;
};

#define FIELD(type, member, kind) { #member, kind, offsetof(type, member), sizeof(((type *)0)->member) }
#define INT(type, member) FIELD(type, member, VM_VALUE_INT)
#define BOOL(type, member) FIELD(type, member, VM_VALUE_BOOL)
#define TABLE(name, ...)                                                     \
    static const sim_field name##_f[] = { __VA_ARGS__ };                     \
    const sim_fields name = { name##_f, sizeof name##_f / sizeof name##_f[0] }

TABLE(sim_fields_intf, BOOL(sim_target_intf, known), BOOL(sim_target_intf, active),
      BOOL(sim_target_intf, enabled), BOOL(sim_target_intf, suspended),
      INT(sim_target_intf, device_id), INT(sim_target_intf, bundles),
      INT(sim_target_intf, bound_bundles), INT(sim_target_intf, connections),
      BOOL(sim_target_intf, present), BOOL(sim_target_intf, powered),
      INT(sim_target_intf, activations), INT(sim_target_intf, vendor_id),
      INT(sim_target_intf, product_id), INT(sim_target_intf, serial_number));

TABLE(sim_fields_stats, INT(sim_target_stats, ap_requests), INT(sim_target_stats, ap_bad_requests),
      INT(sim_target_stats, svc_requests_sent), INT(sim_target_stats, ap_timeouts),
      INT(sim_target_stats, pings), INT(sim_target_stats, forwarded_to_ap),
      INT(sim_target_stats, forwarded_to_intf), INT(sim_target_stats, dropped),
      INT(sim_target_stats, connections), INT(sim_target_stats, pending_events),
      BOOL(sim_target_stats, handshake_done), INT(sim_target_stats, qemu_records_queued),
      INT(sim_target_stats, qemu_queue_peak), INT(sim_target_stats, qemu_records_waiting),
      INT(sim_target_stats, qemu_messages_dropped), INT(sim_target_stats, qemu_answers_dropped),
      INT(sim_target_stats, qemu_records_discarded),
      INT(sim_target_stats, qemu_messages_no_peer),
      INT(sim_target_stats, qemu_messages_too_big), INT(sim_target_stats, qemu_records_refused),
      INT(sim_target_stats, qemu_peers_refused));

TABLE(sim_fields_link, INT(sim_target_link, frames), INT(sim_target_link, replays),
      INT(sim_target_link, replay_timeouts), INT(sim_target_link, crc_errors),
      INT(sim_target_link, dropped), INT(sim_target_link, duplicates),
      INT(sim_target_link, to_intf_sent), INT(sim_target_link, to_intf_delivered),
      INT(sim_target_link, from_intf_sent), INT(sim_target_link, from_intf_delivered),
      INT(sim_target_link, to_intf_last_ns), INT(sim_target_link, from_intf_last_ns));

static int64_t read_field(const sim_field *f, const void *obj)
{
    const unsigned char *p = (const unsigned char *)obj + f->offset;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64 = 0;
    switch (f->size) {
    case 1: memcpy(&u8, p, 1); u64 = u8; break;
    case 2: memcpy(&u16, p, 2); u64 = u16; break;
    case 4: memcpy(&u32, p, 4); u64 = u32; break;
    case 8: memcpy(&u64, p, 8); break;
    }
    return (int64_t)u64;
}

static void write_field(const sim_field *f, void *obj, int64_t v)
{
    unsigned char *p = (unsigned char *)obj + f->offset;
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    uint64_t u64 = (uint64_t)v;
    switch (f->size) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    case 8: memcpy(p, &u64, 8); break;
    }
}

void sim_fields_put(const sim_fields *set, const void *obj, vm_reply *out)
{
    for (size_t i = 0; i < set->n; i++) {
        int64_t v = read_field(&set->f[i], obj);
        if (set->f[i].kind == VM_VALUE_BOOL)
            vm_reply_bool(out, set->f[i].name, v != 0);
        else
            vm_reply_int(out, set->f[i].name, v);
    }
}

void sim_fields_get(const sim_fields *set, const vm_reply *in, void *obj)
{
    for (size_t i = 0; i < set->n; i++) {
        const vm_value *v = vm_reply_get(in, set->f[i].name);
        if (v && (v->kind == VM_VALUE_INT || v->kind == VM_VALUE_BOOL))
            write_field(&set->f[i], obj, v->i);
    }
}
