// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the memory a request takes - its binding and its client's
 * head buffer - from caches that are not zeroed at each allocation.
 *
 * Debian's kernels zero every allocation (init_on_alloc), so each request
 * used to cost two freshly zeroed objects: its binding (the director's
 * copy of the head and the client's bytes, and for a taken response head
 * 4 KB more) and the client's head buffer.  A cache with a constructor is
 * zeroed once, when a slab is made, not at each allocation
 * (slab_want_init_on_alloc()).  That is safe here because nothing of
 * either object is read before it is written: l7_binding_alloc() zeroes
 * what comes before ->map, l7_bind() writes the rest whole, and the
 * copies, the client's bytes, the response head and the head buffer are
 * read only up to the lengths written into them.  What a freed object
 * held never reaches a reader.  A request larger than the caches' objects
 * takes kmalloc, zeroed, as before.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/slab.h>

#include "ip_vs_l7.h"

/* Request bytes (head and buffered body) a cached binding has room for. */
#define L7_REQ_CACHED		1024

enum l7_reqmem_from {
	L7_FROM_KMALLOC,
	L7_FROM_CACHE,		/* l7_binding_cache[0] */
	L7_FROM_CACHE_TAKE,	/* [1]: with room for a response head */
};

static struct kmem_cache *l7_binding_cache[2] __read_mostly;
static struct kmem_cache *l7_head_cache __read_mostly;

/* The binding's size, and where its request guard's log starts. */
static size_t l7_binding_size(u32 room, bool take, bool log, size_t *log_at)
{
	size_t size = struct_size_t(struct l7_binding, copy, room);

	if (take)
		size += 2 * L7_RSP_HEAD_MAX + L7_RSP_HEAD_GROWTH;
	*log_at = ALIGN(size, __alignof__(struct l7_guard_log));
	if (log)
		size = *log_at + sizeof(struct l7_guard_log);
	return size;
}

/*
 * A binding with @room bytes for the copy and the client's bytes, then
 * for the response head if the director takes it (@take), then the
 * request guard's log if the body goes on after the copy (@log).
 */
struct l7_binding *l7_binding_alloc(u32 room, bool take, bool log,
				    struct l7_guard_log **logp)
{
	size_t log_at, size = l7_binding_size(room, take, log, &log_at);
	struct kmem_cache *cache = l7_binding_cache[take];
	enum l7_reqmem_from from = L7_FROM_KMALLOC;
	struct l7_binding *b;

	if (size <= kmem_cache_size(cache)) {
		b = kmem_cache_alloc(cache, GFP_ATOMIC);
		from = take ? L7_FROM_CACHE_TAKE : L7_FROM_CACHE;
	} else {
		b = kmalloc(size, GFP_ATOMIC);
	}
	if (!b)
		return NULL;
	/* the map, the guards and the copy are written whole by l7_bind() */
	memset(b, 0, offsetof(struct l7_binding, map));
	b->from = from;
	if (take)
		b->rsp_head = b->copy + room;
	*logp = log ? (struct l7_guard_log *)((u8 *)b + log_at) : NULL;
	return b;
}

void l7_binding_mem_free(struct l7_binding *b)
{
	switch (b->from) {
	case L7_FROM_CACHE:
		kmem_cache_free(l7_binding_cache[0], b);
		break;
	case L7_FROM_CACHE_TAKE:
		kmem_cache_free(l7_binding_cache[1], b);
		break;
	default:
		kfree(b);
	}
}

/* A head buffer of @cap bytes: the first size comes from the cache. */
u8 *l7_head_mem_alloc(u32 cap)
{
	if (cap == L7_HEAD_MIN)
		return kmem_cache_alloc(l7_head_cache, GFP_ATOMIC | __GFP_NOWARN);
	return kmalloc(cap, GFP_ATOMIC | __GFP_NOWARN);
}

/* As kfree(), NULL is nothing to free. */
void l7_head_mem_free(u8 *head, u32 cap)
{
	if (!head)
		return;
	if (cap == L7_HEAD_MIN)
		kmem_cache_free(l7_head_cache, head);
	else
		kfree(head);
}

/* A cached binding's size: a request of L7_REQ_CACHED bytes, a log. */
static size_t l7_binding_cached_size(bool take)
{
	size_t log_at;

	return l7_binding_size(2 * L7_REQ_CACHED + L7_COPY_GROWTH, take, true,
			       &log_at);
}

/* Zeroed once, when a slab is made: see the top of this file. */
static void l7_binding_ctor(void *b)
{
	memset(b, 0, l7_binding_cached_size(false));
}

static void l7_binding_take_ctor(void *b)
{
	memset(b, 0, l7_binding_cached_size(true));
}

static void l7_head_ctor(void *head)
{
	memset(head, 0, L7_HEAD_MIN);
}

int l7_reqmem_module_init(void)
{
	l7_binding_cache[0] = kmem_cache_create("ip_vs_l7_binding",
						l7_binding_cached_size(false),
						0, 0, l7_binding_ctor);
	l7_binding_cache[1] = kmem_cache_create("ip_vs_l7_binding_rsp",
						l7_binding_cached_size(true),
						0, 0, l7_binding_take_ctor);
	l7_head_cache = kmem_cache_create("ip_vs_l7_head", L7_HEAD_MIN, 0, 0,
					  l7_head_ctor);
	if (l7_binding_cache[0] && l7_binding_cache[1] && l7_head_cache)
		return 0;
	l7_reqmem_module_exit();
	return -ENOMEM;
}

/* Every binding and head buffer freed (after rcu_barrier()). */
void l7_reqmem_module_exit(void)
{
	kmem_cache_destroy(l7_head_cache);
	kmem_cache_destroy(l7_binding_cache[1]);
	kmem_cache_destroy(l7_binding_cache[0]);
}
