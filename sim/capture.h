// SPDX-License-Identifier: MIT
// Captures: every Greybus message the switch fabric delivers or refuses, written as pcapng
// for Wireshark (docs/tracing.md has the format: one interface per place a message arrives,
// LINKTYPE_USER0, a 24-byte record header, nanosecond simulated timestamps). The writer is
// the fabric's observer (switch-model/fabric.h). Records reach a FIFO at once, so a reader
// follows the run live, and a regular file within 50 ms of wall time.
#ifndef GBVP_SIM_CAPTURE_H
#define GBVP_SIM_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "switch-model/fabric.h"

typedef struct sim_capture sim_capture;

#define SIM_CAPTURE_LINKTYPE 147u /* LINKTYPE_USER0 */
#define SIM_CAPTURE_HEADER 24u    /* the record header before the Greybus message */

/* Opens `path` (a file, created or truncated, or a FIFO) for a fabric of `ports` switch
 * ports whose AP bridge is on `ap_port` and SVC on the last port, and writes the section and
 * interface blocks. A FIFO without a reader is waited for when `wait_for_reader`, else
 * refused at once (a running simulator cannot stop for one). NULL with the reason in err. */
sim_capture *sim_capture_open(const char *path, unsigned ports, unsigned ap_port,
                              bool wait_for_reader, char *err, size_t errlen);
/* Writes what is buffered now. 0, or the -errno that stopped the capture (then
 * sim_capture_error says why and what the file holds). */
int sim_capture_flush(sim_capture *c);
/* Writes what is buffered and closes the file. 0, or the -errno that stopped the capture
 * (NULL is fine). */
int sim_capture_close(sim_capture *c);

/* The fabric observer (sw_fabric_set_observer(f, sim_capture_observe, c)). After a write
 * error (the FIFO's reader left, the disk is full) the capture stops writing and says why
 * in sim_capture_error; a regular file is cut back to the whole blocks written before it,
 * so Wireshark reads every record in it. */
void sim_capture_observe(void *ctx, const sw_observed *ev);

/* A frame observer (sw_fabric_set_frame_observer, `--pcap-frames`): every data-link frame,
 * AFC and NAC as a record of kind 1 (docs/tracing.md), on the interface of its link's port. */
void sim_capture_frame(void *ctx, const sw_frame_event *ev);

/* Writes buffered records once FLUSH_EVERY (50 ms) has passed since the last write, so a
 * quiet run's last records do not wait for the end (the simulator calls it as it runs). */
void sim_capture_tick(sim_capture *c);

/* Whether `path` names the file the capture writes (the same inode, whatever the name). */
bool sim_capture_writes_to(const sim_capture *c, const char *path);

/* Interface number of a switch port in the file: AP 0, SVC 1, interface N: N. */
unsigned sim_capture_interface(const sim_capture *c, unsigned port);
uint64_t sim_capture_packets(const sim_capture *c);
const char *sim_capture_path(const sim_capture *c);
/* NULL while writing works; the reason it stopped otherwise. */
const char *sim_capture_error(const sim_capture *c);

#endif
