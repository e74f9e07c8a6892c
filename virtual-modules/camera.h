// SPDX-License-Identifier: MIT
// Camera management handler (protocol 0x0d, drivers/staging/greybus/camera.c): the control
// side of a camera module whose image data would leave on the bundle's camera data CPort
// (protocol 0x16) as CSI-2 packets. No guest can run it: 6.1's GREYBUS_CAMERA depends on
// BROKEN, so the handler is tested against the AP model (docs/modules.md).
//
// What the module offers (its sensor pipeline, 30 frames/s at every size):
//   formats  UYVY 0x01 (16 bpp, CSI-2 data type 0x1e), NV12 0x12 (12 bpp, 0x18),
//            JPEG 0x40 (compressed, user-defined data type 0x30, 4096-byte packets)
//   sizes    320x240, 640x480, 1280x720, 1920x1080
// CONFIGURE_STREAMS answers with the streams it would configure: an unknown format becomes
// UYVY, a size not in the list the smallest one that covers it (else 1920x1080), streams
// beyond `max-streams` are dropped; any such change sets the ADJUSTED flag and, like
// TEST_ONLY, leaves the configuration as it was. Zero streams unconfigures. Each stream
// gets virtual channel = its index, max_pkt_size = width * bpp / 8 (what camera.c checks)
// and max_size = one frame's bytes (JPEG: width * height); data_rate is the bits per second
// of all streams. CAPTURE needs configured streams and a non-empty mask of them; FLUSH
// ends the capture and answers its request id. Malformed requests get GB_OP_INVALID.
//
// CAPABILITIES (opaque to 6.1, which hands the bytes to the camera core or debugfs) is
// gbvp's own layout: version 1, max streams, entry count N, 0, then N entries of le16
// format, le16 width, le16 height, le16 frames/s.
//
// Behaviour keys ([cport N]): max-streams = 1..4 (default 2).
#ifndef GBVP_VIRTUAL_MODULES_CAMERA_H
#define GBVP_VIRTUAL_MODULES_CAMERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_CAMERA_MAX_STREAMS 4u
#define VM_CAMERA_FPS 30u

typedef struct vm_camera vm_camera;

typedef struct vm_camera_stream {
    uint16_t width, height, format;
} vm_camera_stream;

typedef struct vm_camera_state {
    unsigned nstreams; /* configured streams (0: unconfigured) */
    vm_camera_stream stream[VM_CAMERA_MAX_STREAMS];
    bool capturing;          /* a CAPTURE is running (until its frames are sent or FLUSH) */
    uint32_t last_request;   /* request id of the last CAPTURE (FLUSH answers it) */
    uint8_t streams;         /* its stream mask */
    uint16_t num_frames;     /* its frame count (0: until the next FLUSH) */
    uint16_t frames_sent;    /* METADATA requests sent for it */
    size_t settings_len;     /* bytes of settings it carried */
    uint64_t configures;     /* configurations applied */
    uint64_t not_applied;    /* TEST_ONLY or ADJUSTED answers */
    uint64_t captures, flushes, metadata;
} vm_camera_state;

vm_camera *vm_interface_camera(vm_interface *intf, uint16_t cport);
void vm_camera_get_state(const vm_camera *c, vm_camera_state *out);
/* The module finished a frame of the running capture: a METADATA request (request id,
 * frame number, the lowest stream of the mask) goes to the AP. 0; -ENOENT when no capture
 * is running; -ENOTCONN when the CPort is not connected. */
int vm_camera_frame(vm_camera *c);
/* "uyvy", "nv12", "jpeg", or "0xNNNN" in buf (at least 8 bytes) for any other code. */
const char *vm_camera_format_name(uint16_t format, char *buf, size_t len);

#endif
