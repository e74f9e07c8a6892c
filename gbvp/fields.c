// SPDX-License-Identifier: MIT
// The field tables of gbvp/fields.h. A field is read through its offset and size, so a
// table is data only; every field is an unsigned integer or a bool.
#include "gbvp/fields.h"

#include <string.h>

#include "gbvp/scenario/scenario.h"
#include "virtual-modules/gpio.h"
#include "virtual-modules/hid.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/uart.h"
#include "virtual-modules/vm_interface.h"

typedef struct sim_field {
    const char *name;
    sim_field_kind kind;
    size_t offset, size;
} sim_field;

struct sim_fields {
    const sim_field *f;
    size_t n;
};

#define FIELD(type, member, name, kind) \
    { name, kind, offsetof(type, member), sizeof(((type *)0)->member) }
#define INT(type, member) FIELD(type, member, #member, SIM_FIELD_INT)
#define BOOL(type, member) FIELD(type, member, #member, SIM_FIELD_BOOL)
#define TABLE(name, ...)                                                     \
    static const sim_field name##_f[] = { __VA_ARGS__ };                     \
    const sim_fields name = { name##_f, sizeof name##_f / sizeof name##_f[0] }

#define SVC(member) FIELD(sim_svc_report, st.member, #member, SIM_FIELD_INT)
TABLE(sim_fields_svc_counters, SVC(ap_requests), SVC(ap_bad_requests), SVC(svc_requests_sent),
      SVC(ap_timeouts), SVC(pings), SVC(forwarded_to_ap), SVC(forwarded_to_intf), SVC(dropped),
      INT(sim_svc_report, connections));

TABLE(sim_fields_svc_state, INT(sim_svc_report, pending_events),
      BOOL(sim_svc_report, handshake_done));

TABLE(sim_fields_gpio_line, BOOL(vm_gpio_line, output),
      BOOL(vm_gpio_line, activated), INT(vm_gpio_line, irq_type),
      FIELD(vm_gpio_line, irq_masked, "masked", SIM_FIELD_BOOL));

TABLE(sim_fields_gpio_stats, INT(vm_gpio_stats, irq_events), INT(vm_gpio_stats, irq_rejected),
      INT(vm_gpio_stats, irq_lost));

TABLE(sim_fields_power_supply_stats, INT(vm_power_supply_stats, get_property),
      INT(vm_power_supply_stats, set_property), INT(vm_power_supply_stats, events_sent),
      INT(vm_power_supply_stats, events_rejected));

TABLE(sim_fields_hid_state, BOOL(vm_hid_state, powered),
      INT(vm_hid_state, input_size), INT(vm_hid_state, input_reports),
      INT(vm_hid_state, set_reports), INT(vm_hid_state, get_reports));

TABLE(sim_fields_uart_state, INT(vm_uart_state, rate), INT(vm_uart_state, tx_bytes),
      INT(vm_uart_state, rx_bytes), INT(vm_uart_state, credits_returned),
      INT(vm_uart_state, control), INT(vm_uart_state, breaks));

TABLE(sim_fields_interface_stats, INT(vm_interface_stats, rx_requests),
      INT(vm_interface_stats, rx_responses), INT(vm_interface_stats, tx_requests),
      INT(vm_interface_stats, tx_responses), INT(vm_interface_stats, dropped));

TABLE(sim_fields_scenario_intf, BOOL(sim_scenario_intf, known),
      BOOL(sim_scenario_intf, active),
      BOOL(sim_scenario_intf, enabled),
      BOOL(sim_scenario_intf, suspended),
      INT(sim_scenario_intf, device_id), INT(sim_scenario_intf, bundles),
      INT(sim_scenario_intf, bound_bundles), INT(sim_scenario_intf, connections));

TABLE(sim_fields_link_counters, INT(sim_scenario_link, frames), INT(sim_scenario_link, replays),
      INT(sim_scenario_link, replay_timeouts), INT(sim_scenario_link, crc_errors),
      INT(sim_scenario_link, dropped), INT(sim_scenario_link, duplicates),
      INT(sim_scenario_link, to_intf_sent), INT(sim_scenario_link, to_intf_delivered),
      INT(sim_scenario_link, from_intf_sent), INT(sim_scenario_link, from_intf_delivered));

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

void sim_fields_each(const sim_fields *set, const void *obj, sim_field_fn fn, void *ctx)
{
    for (size_t i = 0; i < set->n; i++)
        fn(ctx, set->f[i].name, set->f[i].kind, read_field(&set->f[i], obj));
}

size_t sim_fields_count(const sim_fields *set)
{
    return set->n;
}

void sim_svc_report_take(const gb_svc *svc, sim_svc_report *out)
{
    out->st = gb_svc_get_stats(svc);
    out->connections = gb_svc_conn_count(gb_svc_connections(svc));
    out->pending_events = gb_svc_pending_events(svc);
    out->handshake_done = gb_svc_handshake_done(svc);
}
