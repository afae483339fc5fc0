// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the checkpoint channel's datagrams sealed with
 * ChaCha20-Poly1305 (RFC 8439), as core/sync_peer.h lays them out: the
 * header as associated data, the records encrypted, the tag after them.
 * Each sender has its own key, derived from the shared one with
 * HMAC-SHA256, and numbers its datagrams: a nonce never repeats under a
 * key.  The associated data is the header and, between it and the
 * records, the destination address, which is not sent.
 *
 * Everything here runs in the channel's work items (process context);
 * the transforms are synchronous ones, asked for as such.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <crypto/aead.h>
#include <crypto/hash.h>
#include <linux/err.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "core/sync_peer.h"
#include "ip_vs_l7_sync_seal.h"

#define L7_SEAL_AEAD	"rfc7539(chacha20,poly1305)"
#define L7_SEAL_KEY_LEN	32

struct crypto_shash *l7_seal_kdf_alloc(const u8 *key, unsigned int len)
{
	struct crypto_shash *kdf;
	int err;

	kdf = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(kdf))
		return kdf;
	err = crypto_shash_setkey(kdf, key, len);
	if (err) {
		crypto_free_shash(kdf);
		return ERR_PTR(err);
	}
	return kdf;
}

void l7_seal_kdf_free(struct crypto_shash *kdf)
{
	crypto_free_shash(kdf);
}

int l7_seal_init(struct l7_seal *x)
{
	/* synchronous only: the work item waits for nothing */
	x->tfm = crypto_alloc_aead(L7_SEAL_AEAD, 0, CRYPTO_ALG_ASYNC);
	if (IS_ERR(x->tfm)) {
		int err = PTR_ERR(x->tfm);

		x->tfm = NULL;
		return err;
	}
	if (crypto_aead_setauthsize(x->tfm, L7_SYNC_TAG_LEN))
		return -EINVAL;
	x->req = aead_request_alloc(x->tfm, GFP_KERNEL);
	if (!x->req)
		return -ENOMEM;
	aead_request_set_callback(x->req, 0, NULL, NULL);
	x->sender = 0;
	return 0;
}

void l7_seal_free(struct l7_seal *x)
{
	aead_request_free(x->req);	/* NULL-safe, wipes it */
	crypto_free_aead(x->tfm);
	x->req = NULL;
	x->tfm = NULL;
}

int l7_seal_tier_secrets(struct crypto_shash *kdf, u32 sync_id, u8 *out)
{
	u8 msg[L7_SYNC_KDF_LEN];

	l7_sync_kdf_msg(msg, sync_id, 0);
	return crypto_shash_tfm_digest(kdf, msg, sizeof(msg), out);
}

int l7_seal_key(struct l7_seal *x, struct crypto_shash *kdf, u32 sync_id,
		u64 sender)
{
	u8 msg[L7_SYNC_KDF_LEN], key[L7_SEAL_KEY_LEN];
	int err;

	BUILD_BUG_ON(L7_SEAL_KEY_LEN != 32);	/* SHA-256's size */
	x->sender = 0;
	l7_sync_kdf_msg(msg, sync_id, sender);
	err = crypto_shash_tfm_digest(kdf, msg, sizeof(msg), key);
	if (!err)
		err = crypto_aead_setkey(x->tfm, key, sizeof(key));
	memzero_explicit(key, sizeof(key));
	if (!err)
		x->sender = sender;
	return err;
}

/*
 * @buf's @total bytes in place, the destination in x->dest spliced into
 * the associated data after the header: a scatterlist of three.
 */
static int l7_seal_crypt(struct l7_seal *x, u8 *buf, size_t cryptlen,
			 size_t total, u64 seq, const u8 *dest, bool enc)
{
	u8 iv[L7_SYNC_NONCE_LEN];
	struct scatterlist sg[3];

	BUILD_BUG_ON(sizeof(x->dest) != L7_SYNC_DEST_LEN);
	memcpy(x->dest, dest, sizeof(x->dest));
	l7_sync_nonce(iv, seq);
	sg_init_table(sg, ARRAY_SIZE(sg));
	sg_set_buf(&sg[0], buf, L7_SYNC_HDR_LEN);
	sg_set_buf(&sg[1], x->dest, sizeof(x->dest));
	sg_set_buf(&sg[2], buf + L7_SYNC_HDR_LEN, total - L7_SYNC_HDR_LEN);
	aead_request_set_ad(x->req, L7_SYNC_HDR_LEN + sizeof(x->dest));
	aead_request_set_crypt(x->req, sg, sg, cryptlen, iv);
	return enc ? crypto_aead_encrypt(x->req) : crypto_aead_decrypt(x->req);
}

int l7_seal(struct l7_seal *x, u8 *buf, size_t plain, u64 seq,
	    const u8 *dest)
{
	return l7_seal_crypt(x, buf, plain,
			     L7_SYNC_HDR_LEN + plain + L7_SYNC_TAG_LEN, seq,
			     dest, true);
}

int l7_unseal(struct l7_seal *x, u8 *buf, size_t len, u64 seq,
	      const u8 *dest)
{
	if (len < L7_SYNC_HDR_LEN + L7_SYNC_TAG_LEN)
		return -EBADMSG;
	return l7_seal_crypt(x, buf, len - L7_SYNC_HDR_LEN, len, seq, dest,
			     false);
}
