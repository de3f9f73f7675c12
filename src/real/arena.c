/* The real machine's memory for pointer chases: arenas, and the chase
 * kernel that runs through them.
 *
 * Every data-side probe times a chain of dependent loads through memory it
 * laid out itself.  The chain is written into an arena: large pages when
 * the OS gives them (so that TLB misses stay out of cache measurements),
 * base pages for TLB probes.  Arenas are reserved without backing store;
 * only the lines a chain touches are ever faulted in.  Where a limit on
 * the address space (ulimit -v) refuses the span of a chain of base
 * pages, only the pages it touches are mapped (a sparse arena). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "real/real.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define HAVE_MMAP 1
#if UINTPTR_MAX > 0xffffffffu
#define HAVE_SPARSE 1
#endif
#endif

#define HUGE_ALIGN ((size_t) 2 << 20)

int
xray__arena_reserve(struct xray__arena *a, size_t len, enum xray__arena_kind kind,
                    char *err, size_t errlen)
{
  a->full = 0;
  if (a->base && a->len >= len && !a->pages)
    return 0;
  xray__arena_free(a);
  len = (len + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
#ifdef HAVE_MMAP
  {
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
    uintptr_t p;
#ifdef MAP_NORESERVE
    flags |= MAP_NORESERVE;
#endif
    a->maplen = len + HUGE_ALIGN;
    a->map = mmap(NULL, a->maplen, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (a->map == MAP_FAILED) {
      int e = errno;
      a->full = e == ENOMEM;
      snprintf(err, errlen, "cannot map %zu MB for a pointer chase: %s%s", len >> 20, strerror(e),
               a->full ? " (a memory limit such as ulimit -v?)" : "");
      a->map = NULL;
      return -1;
    }
    p = ((uintptr_t) a->map + HUGE_ALIGN - 1) & ~(uintptr_t) (HUGE_ALIGN - 1);
    a->base = (char *) p;
    a->len = len;
#ifdef MADV_HUGEPAGE
    madvise(a->base, len, kind == XRAY__ARENA_HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void) kind;
#endif
  }
#else
  (void) kind;
  a->maplen = len + HUGE_ALIGN;
  a->map = calloc(1, a->maplen);
  if (!a->map) {
    a->full = 1;
    snprintf(err, errlen, "cannot allocate %zu MB for a pointer chase", len >> 20);
    return -1;
  }
  a->base = (char *) (((uintptr_t) a->map + HUGE_ALIGN - 1) & ~(uintptr_t) (HUGE_ALIGN - 1));
  a->len = len;
#endif
  return 0;
}

#ifdef HAVE_SPARSE
static size_t
page_bytes(void)
{
  long p = sysconf(_SC_PAGESIZE);

  return p > 0 ? (size_t) p : 4096;
}

/* Every page of sparse arena a unmapped, a run of neighbours at a time
 * (ours alone: never a hole between them, which some other mapping may
 * have taken since); its place and list kept. */
static void
sparse_release(struct xray__arena *a)
{
  size_t pg = page_bytes(), i, j;

  for (i = 0; i < a->npages; i = j) {
    for (j = i + 1; j < a->npages && a->pages[j] == a->pages[j - 1] + 1; j++)
      ;
    munmap(a->base + a->pages[i] * pg, (j - i) * pg);
  }
  a->npages = 0;
}

static void
sparse_free(struct xray__arena *a)
{
  sparse_release(a);
  free(a->pages);
}
#endif

void
xray__arena_free(struct xray__arena *a)
{
  if (a->map) {
#ifdef HAVE_MMAP
    munmap(a->map, a->maplen);
#else
    free(a->map);
#endif
  }
#ifdef HAVE_SPARSE
  if (a->pages)
    sparse_free(a);
#endif
  memset(a, 0, sizeof *a);
}

void
xray__arenas_free(struct xray__arena *a, int n)
{
  int i;

  for (i = 0; i < n; i++)
    xray__arena_free(&a[i]);
}

/* Look-ahead pointers.  A quick chase is warmed by one traversal in
 * chain order, which leaves every level holding what such a traversal
 * leaves; on a chain past the last level it costs a memory latency a
 * load, most of the caches probe's time.  Where no other load of the
 * chain lies within 16 bytes of one (offsets multiples of 16), the word
 * after its pointer holds the address of the load AHEAD places on, and
 * the warm-up prefetches it: the lines are still fetched in chain order,
 * AHEAD of them in flight at once, and the timed chase, which follows
 * the first words only, is the same.  The order of the fills is what
 * decides what each level holds (under LRU, the very lines; under other
 * policies, about them); what a shared level's other tenants take
 * meanwhile depends on time instead, and a shorter warm-up leaves the
 * process more of the level, nearer what a loop that reuses its data at
 * speed keeps.  Chains under AHEAD_MIN loads (2 MB of 64-byte lines:
 * within the private levels we know, short of where other tenants take
 * much of a shared one), whose warm-up costs little, and builds without
 * a prefetch are warmed as before. */
#define AHEAD 16
#define AHEAD_MIN ((size_t) 1 << 15)

/* Whether chain c, the bits of whose offsets OR to bits, gets them. */
static int
lookahead(const struct xray__chase *c, uint64_t bits)
{
  return XRAY__HAVE_PREFETCH && c->quick && c->n >= AHEAD_MIN && bits % 16 == 0;
}

/* Chain c linked in the arena at base, with look-ahead pointers where
 * ahead. */
static void
link_chain(char *base, const struct xray__chase *c, int ahead)
{
  size_t i, n = c->n;

  for (i = 0; i < n; i++) {
    char *at = base + c->off[i];

    *(void **) at = base + c->off[i + 1 < n ? i + 1 : 0];
    if (ahead) /* n >= AHEAD_MIN > AHEAD: one wrap at most */
      *(void **) (at + 8) = base + c->off[i + AHEAD < n ? i + AHEAD : i + AHEAD - n];
  }
}

XRAY__UNINSTRUMENTED void *
xray__chase_warm_ahead(void *p, uint64_t loads)
{
  while (loads--) {
    void *const *at = p;

    XRAY__PREFETCH(at[1]);
    p = at[0];
  }
  return p;
}

#ifdef HAVE_SPARSE
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0 /* a hint, whose answer is checked */
#endif

static int
cmp_page(const void *x, const void *y)
{
  uint64_t a = *(const uint64_t *) x, b = *(const uint64_t *) y;

  return (a > b) - (a < b);
}

/* Pages first..first+n-1 of sparse arena a mapped at their places, never
 * over another mapping: 0, or -1 with errno. */
static int
map_run(struct xray__arena *a, uint64_t first, size_t n)
{
  size_t pg = page_bytes();
  char *want = a->base + first * pg;
  void *got = mmap(want, n * pg, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

  if (got == MAP_FAILED)
    return -1;
  if (got != want) {
    munmap(got, n * pg);
    errno = EEXIST;
    return -1;
  }
#ifdef MADV_NOHUGEPAGE
  madvise(want, n * pg, MADV_NOHUGEPAGE);
#endif
  return 0;
}

/* The pages chain c touches that sparse arena a lacks, mapped (runs of
 * neighbours together) and added to its list: 0, or -1 with why (the
 * pages mapped before the failure stay listed, to be unmapped with a). */
static int
sparse_add(struct xray__arena *a, const struct xray__chase *c, char *err, size_t errlen)
{
  size_t pg = page_bytes(), i, j, n = 0, k = 0, m;
  uint64_t *want = malloc(c->n * sizeof *want), *all;
  int rc = 0, e = 0;

  if (!want) {
    snprintf(err, errlen, "out of memory for a pointer chase's pages");
    return -1;
  }
  for (i = 0; i < c->n; i++)
    want[i] = c->off[i] / pg;
  qsort(want, c->n, sizeof *want, cmp_page);
  /* Those not mapped yet, each once. */
  for (i = 0; i < c->n; i++) {
    while (k < a->npages && a->pages[k] < want[i])
      k++;
    if ((k < a->npages && a->pages[k] == want[i]) || (n && want[n - 1] == want[i]))
      continue;
    want[n++] = want[i];
  }
  if (a->npages + n > a->cappages) {
    size_t cap = 2 * (a->npages + n);
    if (!(all = realloc(a->pages, cap * sizeof *all))) {
      free(want);
      snprintf(err, errlen, "out of memory for a pointer chase's pages");
      return -1;
    }
    a->pages = all;
    a->cappages = cap;
  }
  for (i = 0, m = 0; i < n; i = j) {
    for (j = i + 1; j < n && want[j] == want[j - 1] + 1; j++)
      ;
    if (map_run(a, want[i], j - i)) {
      e = errno;
      rc = -1;
      break;
    }
    m = j;
  }
  /* The list merged with the m pages mapped, in order. */
  memcpy(a->pages + a->npages, want, m * sizeof *want);
  a->npages += m;
  qsort(a->pages, a->npages, sizeof *a->pages, cmp_page);
  free(want);
  if (rc) {
    a->full = e == ENOMEM;
    snprintf(err, errlen, "cannot map the pages of a pointer chase one by one: %s%s", strerror(e),
             a->full ? " (a memory limit such as ulimit -v?)" : "");
  }
  return rc;
}

/* Chain c laid in a sparse arena of len bytes (a free): where this
 * process may not map the whole span (ulimit -v), a chain through pages
 * far apart (a TLB's stride) needs only its own.  The span goes between
 * the program's data, with room for its heap, and where the system puts
 * new mappings, at the first of a few places none of whose pages is
 * taken (the heap grows up from the break, new mappings down from
 * the top).  0, or -1 with why. */
static int
sparse_start(struct xray__arena *a, size_t len, const struct xray__chase *c, char *err,
             size_t errlen)
{
  void *brk = sbrk(0);
  uintptr_t lo = (uintptr_t) brk + ((uintptr_t) 1 << 32), hi, at;
  void *probe = mmap(NULL, page_bytes(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int t, full;

  snprintf(err, errlen, "no room in the address space for a pointer chase of %zu MB", len >> 20);
  if (probe == MAP_FAILED || brk == (void *) -1)
    return -1;
  hi = (uintptr_t) probe;
  munmap(probe, page_bytes());
  for (t = 1; t <= 3 && hi > lo && hi - lo > len + HUGE_ALIGN; t++) {
    at = (lo + (hi - lo - len) / 4 * (uintptr_t) t) & ~(uintptr_t) (HUGE_ALIGN - 1);
    memset(a, 0, sizeof *a);
    a->base = (char *) at;
    a->len = len;
    if (sparse_add(a, c, err, errlen) == 0)
      return 0;
    full = a->full;
    xray__arena_free(a);
    a->full = full;
    if (full)
      break; /* the limit, not a taken page: no use elsewhere */
  }
  return -1;
}
#endif

void *
xray__chase_place(struct xray__arena *a, const struct xray__chase *c, char *err, size_t errlen)
{
  uint64_t maxoff = 0, bits = 0;
  size_t i, need, grown = 2 * a->len;
  int grew, ahead;

  for (i = 0; i < c->n; i++) {
    if (c->off[i] > maxoff)
      maxoff = c->off[i];
    bits |= c->off[i];
  }
  need = (size_t) maxoff + 64;
  ahead = lookahead(c, bits);
#ifdef HAVE_SPARSE
  if (a->pages) {
    /* The pages of earlier chains stay mapped for the next, which mostly
     * uses them again, until the limit is reached: then this chain's
     * alone. */
    if (sparse_add(a, c, err, errlen)
        && !(a->full && (sparse_release(a), sparse_add(a, c, err, errlen) == 0)))
      return NULL;
    if (a->len < need)
      a->len = need;
    a->ahead = ahead;
    link_chain(a->base, c, ahead);
    return a->base + c->off[0];
  }
#endif
  /* An arena that must grow at least doubles, where the address space
   * allows: a scan whose chains grow a little at each point would
   * otherwise map it again, and fault in (clear) every page it touches,
   * each time.  Only the pages a chain touches are resident either way. */
  grew = a->base && a->len < need && grown > need
         && xray__arena_reserve(a, grown, c->arena, err, errlen) == 0;
  if (!grew && xray__arena_reserve(a, need, c->arena, err, errlen)) {
#ifdef HAVE_SPARSE
    /* A limit on the address space (ulimit -v) that refuses the span of
     * base pages: only the pages the chain touches. */
    if (!(a->full && c->arena == XRAY__ARENA_SMALL && sparse_start(a, need, c, err, errlen) == 0))
#endif
      return NULL;
  }
  a->ahead = ahead;
  link_chain(a->base, c, ahead);
  return a->base + c->off[0];
}

#define L1 p = *(void **) p;
#define L4 L1 L1 L1 L1
XRAY__UNINSTRUMENTED void *
xray__chase_run(void *p, uint64_t iters)
{
  while (iters--) {
    L4 L4 L4 L4
  }
  return p;
}
#undef L1
#undef L4
