// SPDX-License-Identifier: MIT
// Component Authentication class handler (see authentication.h).
#include "virtual-modules/authentication.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"
#include "virtual-modules/vm_class.h"

#define CAP_IMS_RESULT_CERT_FOUND 0x00
#define CAP_IMS_RESULT_CERT_CLASS_INVAL 0x01
#define CAP_IMS_RESULT_CERT_NOT_FOUND 0x03
#define CAP_AUTH_RESULT_CR_SUCCESS 0x00
#define CAP_AUTH_RESULT_CR_BAD_TYPE 0x01
#define CAP_AUTH_RESULT_CR_WRONG_EP 0x02
#define CAP_AUTH_RESULT_CR_NO_KEY 0x03

/* ---- handler ---- */

struct vm_cap {
    vm_endpoint *ep;
    EVP_PKEY *pkey; /* NULL when OpenSSL could not make the key */
    vm_cap_state st;
};

static const char *const cap_keys[] = {"uid", "key-seed", NULL};

/* Not a secret: a virtual module's well-known default key (RFC 8032 seed). */
static const uint8_t default_seed[32] = {
    0x67, 0x62, 0x76, 0x70, 0x2d, 0x63, 0x61, 0x70, 0x2d, 0x64, 0x65, 0x66, 0x61, 0x75, 0x6c, 0x74,
    0x2d, 0x73, 0x65, 0x65, 0x64, 0x2d, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x31,
};

/* DER SubjectPublicKeyInfo of an Ed25519 key (RFC 8410): this prefix, then the 32 bytes. */
static const uint8_t spki_prefix[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                        0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

static void *cap_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint64_t uid;
    uint8_t seed[32];
    size_t n = 0;
    if (vm_bsection_u64(cfg, "uid", 0x6762767000000001ull, &uid, err, errlen) ||
        vm_bsection_hex(cfg, "key-seed", seed, sizeof seed, &n, err, errlen))
        return NULL;
    if (n == 0)
        memcpy(seed, default_seed, sizeof seed);
    else if (n != sizeof seed) {
        snprintf(err, errlen, "key-seed: expected 32 bytes, got %zu", n);
        return NULL;
    }
    vm_cap *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ep = ep;
    c->st.uid = uid;
    c->pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, sizeof seed);
    size_t plen = 32;
    memcpy(c->st.certificate, spki_prefix, sizeof spki_prefix);
    if (c->pkey &&
        EVP_PKEY_get_raw_public_key(c->pkey, c->st.certificate + sizeof spki_prefix, &plen) == 1 &&
        plen == 32) {
        c->st.have_key = true;
    } else {
        EVP_PKEY_free(c->pkey); /* NULL-safe */
        c->pkey = NULL;
    }
    return c;
}

static void cap_destroy(void *h)
{
    vm_cap *c = h;
    EVP_PKEY_free(c->pkey);
    free(c);
}

static bool sign(vm_cap *c, const uint8_t *msg, size_t len, uint8_t *sig)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t slen = VM_CAP_SIGNATURE_SIZE;
    /* Ed25519 signs the message itself: no digest is named (NULL) */
    bool ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, c->pkey) == 1 &&
              EVP_DigestSign(ctx, sig, &slen, msg, len) == 1 && slen == VM_CAP_SIGNATURE_SIZE;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static uint8_t authenticate(vm_cap *c, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, 44);
    uint8_t *resp = rq->resp + 1;
    memset(rq->resp, 0, 1 + VM_CAP_RESPONSE_SIZE);
    rq->resp_len = 1 + VM_CAP_RESPONSE_SIZE; /* 6.1 reads 65 bytes before the signature */
    if (gb_get_le32(rq->payload) != 0) {
        rq->resp[0] = CAP_AUTH_RESULT_CR_BAD_TYPE;
        return GB_OP_SUCCESS;
    }
    if (gb_get_le64(rq->payload + 4) != c->st.uid) {
        rq->resp[0] = CAP_AUTH_RESULT_CR_WRONG_EP;
        return GB_OP_SUCCESS;
    }
    memcpy(resp, rq->payload + 4, 8);
    memcpy(resp + 8, rq->payload + 12, 32);
    gb_put_le64(resp + 40, (uint64_t)c->st.authentications + 1);
    memcpy(resp + 48, "gbvp CAP v1", 11);
    if (!c->pkey || !sign(c, resp, VM_CAP_RESPONSE_SIZE, rq->resp + 1 + VM_CAP_RESPONSE_SIZE)) {
        rq->resp[0] = CAP_AUTH_RESULT_CR_NO_KEY;
        memset(resp, 0, VM_CAP_RESPONSE_SIZE);
        return GB_OP_SUCCESS;
    }
    rq->resp[0] = CAP_AUTH_RESULT_CR_SUCCESS;
    rq->resp_len += VM_CAP_SIGNATURE_SIZE;
    c->st.authentications++;
    memcpy(c->st.response, resp, VM_CAP_RESPONSE_SIZE);
    memcpy(c->st.signature, rq->resp + 1 + VM_CAP_RESPONSE_SIZE, VM_CAP_SIGNATURE_SIZE);
    return GB_OP_SUCCESS;
}

static uint8_t cap_request(void *h, vm_request *rq)
{
    vm_cap *c = h;
    switch (rq->type) {
    case GB_CAP_TYPE_GET_ENDPOINT_UID:
        VM_REQ_EXPECT_LEN(rq, 0);
        gb_put_le64(rq->resp, c->st.uid);
        rq->resp_len = 8;
        return GB_OP_SUCCESS;
    case GB_CAP_TYPE_GET_IMS_CERTIFICATE:
        VM_REQ_EXPECT_LEN(rq, 8);
        rq->resp_len = 1;
        if (gb_get_le32(rq->payload) != 0) {
            rq->resp[0] = CAP_IMS_RESULT_CERT_CLASS_INVAL;
        } else if (gb_get_le32(rq->payload + 4) != 0 || !c->st.have_key) {
            rq->resp[0] = CAP_IMS_RESULT_CERT_NOT_FOUND;
        } else {
            rq->resp[0] = CAP_IMS_RESULT_CERT_FOUND;
            memcpy(rq->resp + 1, c->st.certificate, VM_CAP_CERT_SIZE);
            rq->resp_len += VM_CAP_CERT_SIZE;
        }
        return GB_OP_SUCCESS;
    case GB_CAP_TYPE_AUTHENTICATE:
        return authenticate(c, rq);
    default:
        return GB_OP_PROTOCOL_BAD;
    }
}

const vm_cap_state *vm_cap_get_state(const vm_cap *c)
{
    return &c->st;
}

vm_cap *vm_interface_cap(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_AUTHENTICATION);
}

static void cap_describe(const void *h, char *buf, size_t len)
{
    const vm_cap *c = h;
    snprintf(buf, len, "authentication uid 0x%016llx %s", (unsigned long long)c->st.uid,
             c->st.have_key ? "ed25519" : "no key (OpenSSL refused it)");
}

const vm_class_ops vm_cap_class = {
    .protocol = GB_PROTOCOL_AUTHENTICATION,
    .name = "authentication",
    .keys = cap_keys,
    .create = cap_create,
    .destroy = cap_destroy,
    .request = cap_request,
    .describe = cap_describe,
};
