/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: big-endian fields of the checkpoint channel's wire
 * format (conn_ckpt.c's records, sync_peer.c's header), written and read
 * at a moving position: each put returns the byte after its field, each
 * get moves *@p past its own.  The caller has checked the room.
 */
#ifndef _IP_VS_L7_CORE_WIRE_BE_H
#define _IP_VS_L7_CORE_WIRE_BE_H

#include "l7_types.h"

static inline uint8_t *l7_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
	return p + 2;
}

static inline uint8_t *l7_put32(uint8_t *p, uint32_t v)
{
	return l7_put16(l7_put16(p, v >> 16), v);
}

static inline uint8_t *l7_put64(uint8_t *p, uint64_t v)
{
	return l7_put32(l7_put32(p, v >> 32), v);
}

static inline uint16_t l7_get16(const uint8_t **p)
{
	uint16_t v = (uint16_t)((*p)[0] << 8 | (*p)[1]);

	*p += 2;
	return v;
}

static inline uint32_t l7_get32(const uint8_t **p)
{
	uint32_t hi = l7_get16(p);

	return hi << 16 | l7_get16(p);
}

static inline uint64_t l7_get64(const uint8_t **p)
{
	uint64_t hi = l7_get32(p);

	return hi << 32 | l7_get32(p);
}

#endif /* _IP_VS_L7_CORE_WIRE_BE_H */
