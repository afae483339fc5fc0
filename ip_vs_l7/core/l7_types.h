/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the only place where the pure-C protocol code learns
 * where its fixed-width types come from.  Everything under core/ is built
 * twice: into ip_vs_l7.ko (with __KERNEL__ defined) and into the host
 * unit tests and fuzzers.  No other kernel or libc header may be included
 * by core/ code.  L7_EXPORT() exports a function to the kernel's other
 * module and is nothing on the host.
 */
#ifndef _IP_VS_L7_CORE_TYPES_H
#define _IP_VS_L7_CORE_TYPES_H

#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/types.h>
/* for ip_vs_l7_genl.ko, which checks rules and builds pools with them */
#define L7_EXPORT(sym)	EXPORT_SYMBOL_GPL(sym)
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#define L7_EXPORT(sym)	extern int l7_not_exported_##sym
#endif

#endif /* _IP_VS_L7_CORE_TYPES_H */
