/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the only place where the pure-C protocol code learns
 * where its fixed-width types come from.  Everything under core/ is built
 * twice: into ip_vs_l7.ko (with __KERNEL__ defined) and into the host
 * unit tests and fuzzers.  No other kernel or libc header may be included
 * by core/ code.
 */
#ifndef _IP_VS_L7_CORE_TYPES_H
#define _IP_VS_L7_CORE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#endif /* _IP_VS_L7_CORE_TYPES_H */
