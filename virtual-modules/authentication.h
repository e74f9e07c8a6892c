// SPDX-License-Identifier: MIT
// Component Authentication Protocol (0x19) handler: the module side of Linux 6.1
// drivers/staging/greybus/authentication.c (/dev/gb-authenticate-N).
//
//   GET_ENDPOINT_UID     the behaviour's `uid` (64-bit, sent little-endian)
//   GET_IMS_CERTIFICATE  class 0, id 0: the module's Ed25519 public key as a DER
//                        SubjectPublicKeyInfo (44 bytes; `openssl pkey -pubin -inform DER`
//                        reads it); another class: CERT_CLASS_INVAL, another id: NOT_FOUND
//   AUTHENTICATE         type 0 and our UID: result SUCCESS, a 64-byte response
//                        (uid | challenge | counter le64 | "gbvp CAP v1", zero-padded) and
//                        its Ed25519 signature (64 bytes); type != 0: BAD_TYPE; another UID:
//                        WRONG_EP; no signer: NO_KEY
//
// The key pair comes from the behaviour's 32-byte `key-seed` (hex; a fixed default), the
// Ed25519 private key itself (RFC 8032). Signing uses OpenSSL's libcrypto; a key OpenSSL
// refuses leaves the module without a signer, and AUTHENTICATE then says NO_KEY.
#ifndef GBVP_VIRTUAL_MODULES_AUTHENTICATION_H
#define GBVP_VIRTUAL_MODULES_AUTHENTICATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define GB_CAP_TYPE_GET_ENDPOINT_UID 0x01
#define GB_CAP_TYPE_GET_IMS_CERTIFICATE 0x02
#define GB_CAP_TYPE_AUTHENTICATE 0x03
#define VM_CAP_CERT_SIZE 44
#define VM_CAP_RESPONSE_SIZE 64
#define VM_CAP_SIGNATURE_SIZE 64

typedef struct vm_cap vm_cap;

typedef struct vm_cap_state {
    uint64_t uid;
    bool have_key;                        /* OpenSSL made the key */
    uint8_t certificate[VM_CAP_CERT_SIZE];
    unsigned authentications;             /* AUTHENTICATE requests answered SUCCESS */
    uint8_t response[VM_CAP_RESPONSE_SIZE]; /* the last signed response */
    uint8_t signature[VM_CAP_SIGNATURE_SIZE];
} vm_cap_state;

vm_cap *vm_interface_cap(vm_interface *intf, uint16_t cport);
const vm_cap_state *vm_cap_get_state(const vm_cap *c);

#endif
