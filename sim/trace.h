// SPDX-License-Identifier: MIT
// Timelines: a Chrome/Perfetto trace-event JSON file (ui.perfetto.dev, chrome://tracing) of
// what crossed the switch fabric, with simulated time as the time axis (docs/tracing.md):
// one track per connection with each operation as a slice from the request leaving its
// sender to the response reaching its receiver, one per modelled link with each of its
// states as a slice and one per link direction with its bursts of frames, the switch's
// input queues as counters, the SVC's hot-plug and power events as instants, a counter of the bytes delivered to each port, link changes (the AP's
// INTF_SET_PWRM requests, modes and faults a user sets), drops, and the marks a front end
// adds (a scenario's steps).
#ifndef GBVP_SIM_TRACE_H
#define GBVP_SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "event-kernel/scheduler.h"
#include "switch-model/fabric.h"

typedef struct sim_trace sim_trace;

/* Opens `path` for a fabric of `ports` ports (AP on ap_port, SVC on the last). A FIFO
 * without a reader is waited for when `wait_for_reader`, else refused at once (a running
 * simulator cannot stop for one). NULL with the reason in err. */
sim_trace *sim_trace_open(const char *path, unsigned ports, unsigned ap_port,
                          bool wait_for_reader, char *err, size_t errlen);
/* Closes every operation still open at `now` (marked unanswered) and writes the file: the
 * events are kept until then and written in time order, so every track's timestamps rise
 * through the file. 0, or -errno when a write failed (NULL is fine). */
int sim_trace_close(sim_trace *t, sim_time now);

/* A fabric observer (switch-model/fabric.h). */
void sim_trace_observe(void *ctx, const sw_observed *ev);
/* A link observer (sw_fabric_set_link_observer): each state of a link becomes a slice on
 * the link's track (process "links"). */
void sim_trace_link(sim_trace *t, const sw_link_event *ev);
/* A frame observer (sw_fabric_set_frame_observer): frames back to back become one burst
 * slice per link direction; `queued` (the switch's input buffer of the port, in frames) is
 * sampled as a counter. */
void sim_trace_frame(sim_trace *t, const sw_frame_event *ev, unsigned queued);
/* An instant on the track named `track` (e.g. "scenario", "link 3") at `now`. */
void sim_trace_mark(sim_trace *t, const char *track, const char *text, sim_time now);

const char *sim_trace_path(const sim_trace *t);
/* Whether `path` names the file the timeline goes to (the same inode, whatever the name). */
bool sim_trace_writes_to(const sim_trace *t, const char *path);
/* NULL while writing works; the reason it stopped otherwise. */
const char *sim_trace_error(const sim_trace *t);

#endif
