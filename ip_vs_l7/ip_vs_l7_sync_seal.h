/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7: sealing and opening the checkpoint channel's datagrams
 * (core/sync_peer.h: the format and the keys), with the kernel's AEAD.
 */
#ifndef _IP_VS_L7_SYNC_SEAL_H
#define _IP_VS_L7_SYNC_SEAL_H

#include <linux/types.h>

struct crypto_shash;
struct crypto_aead;
struct aead_request;

/* One sender's key, ready to seal or open its datagrams. */
struct l7_seal {
	struct crypto_aead	*tfm;
	struct aead_request	*req;
	u64			sender;		/* keyed for, 0 for none */
	u8			dest[16];	/* L7_SYNC_DEST_LEN, for the AD */
};

/* The shared key, from which every sender's key is derived. */
struct crypto_shash *l7_seal_kdf_alloc(const u8 *key, unsigned int len);
void l7_seal_kdf_free(struct crypto_shash *kdf);

int l7_seal_init(struct l7_seal *x);
void l7_seal_free(struct l7_seal *x);

/*
 * The tier's secrets on channel @sync_id (ip_vs_l7_secrets.c): 32 bytes
 * in @out, derived as a sender's key is, for sender 0, which none is.
 */
int l7_seal_tier_secrets(struct crypto_shash *kdf, u32 sync_id, u8 *out);

/* Key @x for @sender's datagrams on channel @sync_id. */
int l7_seal_key(struct l7_seal *x, struct crypto_shash *kdf, u32 sync_id,
		u64 sender);

/*
 * Seal datagram @seq, sent to @dest (its L7_SYNC_DEST_LEN bytes,
 * l7_sync_dest()), in @buf: its header (authenticated, left in clear),
 * then @plain bytes encrypted in place, then the tag written after them.
 * @buf has room for all of it.
 */
int l7_seal(struct l7_seal *x, u8 *buf, size_t plain, u64 seq,
	    const u8 *dest);

/*
 * Open datagram @seq of @len bytes in @buf, which came in to @dest, in
 * place: 0 if it is authentic and was sent there, its records then in
 * clear after the header.
 */
int l7_unseal(struct l7_seal *x, u8 *buf, size_t len, u64 seq,
	      const u8 *dest);

#endif /* _IP_VS_L7_SYNC_SEAL_H */
