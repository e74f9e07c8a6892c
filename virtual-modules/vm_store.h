// SPDX-License-Identifier: MIT
// The bytes behind a storage backend (an SPI NOR flash, an SD card): in memory, or a host
// file the module reads and writes through, so the file holds every byte the guest wrote as
// soon as the write is answered. This is the storage backends' I/O edge; the device models
// above it (spi_nor.c, sd_card.c) only call these functions.
//
// A file is locked (an open-file-description write lock) while a store holds it: a second
// store, in this process or another, is refused with a message naming the file.
#ifndef GBVP_VIRTUAL_MODULES_VM_STORE_H
#define GBVP_VIRTUAL_MODULES_VM_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct vm_store vm_store;

/* `size` bytes in memory, each `fill` (0xff: an erased flash), allocated 64 KiB at a time as
 * they are first written. NULL when out of memory. */
vm_store *vm_store_memory(uint64_t size, uint8_t fill);
/* Opens the host file `path` read-write. size 0 takes the file's size (which must be more
 * than 0); otherwise the file must have exactly `size` bytes. NULL with a message naming the
 * file in err when it is missing, unreadable, of the wrong size or held by another store. */
vm_store *vm_store_file(const char *path, uint64_t size, char *err, size_t errlen);
void vm_store_free(vm_store *s);

uint64_t vm_store_size(const vm_store *s);
/* The host file's path, or NULL for a store in memory. */
const char *vm_store_path(const vm_store *s);

/* 0, -ERANGE when [off, off + len) is not inside the store, -ENOMEM when a memory store
 * cannot grow, or -errno from the host. */
int vm_store_read(vm_store *s, uint64_t off, void *buf, size_t len);
int vm_store_write(vm_store *s, uint64_t off, const void *buf, size_t len);
/* Sets len bytes from off to `byte` (a flash erase). */
int vm_store_fill(vm_store *s, uint64_t off, uint8_t byte, uint64_t len);

#endif
