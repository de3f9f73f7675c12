/* model/: xray's own cache simulator, a leaf: set-associative caches of
 * any geometry (any set count, up to 64 ways for tree-PLRU) with LRU,
 * tree-PLRU or random replacement.  The machine model's caches and
 * TLBs are made of it (sim/), and the static I-cache simulator checks its
 * totals against it (icsim/). */
#include "model/cache.h"
#include "measure/measure.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A tag's fingerprint: its top byte after a multiplication that mixes
 * every bit of it into the top (the lines of a set share their low
 * bits). */
static unsigned char
fp_of(unsigned long tag)
{
  return (unsigned char) (((uint64_t) tag * UINT64_C(0x9e3779b97f4a7c15)) >> 56);
}

void
xray__cache_reset(struct xray__cache *c)
{
  unsigned long i;

  for (i = 0; i < c->sets * c->ways; i++)
    c->tag[i] = ~0UL;
  memset(c->fp, fp_of(~0UL), c->sets * c->fpw);
  memset(c->age, 0, c->sets * sizeof *c->age);
  memset(c->ring, 0, c->sets * sizeof *c->ring);
}

static uint64_t plru_touch(uint64_t bits, unsigned long n, unsigned long way);

int
xray__cache_init(struct xray__cache *c)
{
  unsigned long w;

  c->sets = c->size / (c->ways * c->line);
  c->setmask = c->sets > 1 && (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : 0;
  for (c->lineshift = 0; (1UL << c->lineshift) < c->line && c->lineshift < 63; c->lineshift++)
    ;
  if ((1UL << c->lineshift) != c->line)
    c->lineshift = -1;
  for (c->leaves = 1; c->leaves < c->ways; c->leaves <<= 1)
    ;
  c->fpw = (c->ways + 15) / 16 * 16;
  c->tag = malloc(c->sets * c->ways * sizeof *c->tag);
  c->fp = malloc(c->sets * c->fpw);
  c->age = malloc(c->sets * sizeof *c->age);
  c->ring = malloc(c->sets * sizeof *c->ring);
  if (!c->tag || !c->fp || !c->age || !c->ring) {
    xray__cache_free(c);
    return -1;
  }
  c->rng = 0x9e3779b97f4a7c15u;
  /* A touch from all bits clear sets those that point right of the way;
   * from all set, it clears those that point left.  Only tree-PLRU uses
   * them, and only its tree (ways <= 64, as the spec checks) fits the
   * 64 bits: another policy's more ways would shift past them. */
  for (w = 0; c->policy == XRAY__POL_PLRU && w < c->ways && w < 64; w++) {
    c->right[w] = plru_touch(0, c->leaves, w);
    c->path[w] = ~plru_touch(~UINT64_C(0), c->leaves, w) | c->right[w];
  }
  xray__cache_reset(c);
  return 0;
}

/* Tree-PLRU over n leaves, the power of two >= ways (c->leaves); node k
 * of the tree is bit k of one 64-bit word per set (ways <= 64).  A set
 * bit means the right half was used last, so the victim search goes
 * left; leaves beyond `ways` are never chosen. */
static unsigned long
plru_victim(uint64_t bits, unsigned long ways, unsigned long n)
{
  unsigned long node = 1, lo = 0, span;

  /* Without branches: the bits are random to the host's predictor. */
  for (span = n; span > 1;) {
    unsigned long right;
    span >>= 1;
    right = (unsigned long) (!((bits >> node) & 1)) & (unsigned long) (lo + span < ways);
    lo += right * span;
    node = 2 * node + right;
  }
  return lo;
}

static uint64_t
plru_touch(uint64_t bits, unsigned long n, unsigned long way)
{
  unsigned long node = 1, lo = 0, span;

  for (span = n; span > 1;) {
    span >>= 1;
    if (way >= lo + span) {
      bits |= UINT64_C(1) << node;
      lo += span;
      node = 2 * node + 1;
    } else {
      bits &= ~(UINT64_C(1) << node);
      node = 2 * node;
    }
  }
  return bits;
}

/* LRU: a set keeps its valid tags in a ring, from the most to the least
 * recently used: logical position k is way (head + k) % ways, the n valid
 * tags come first and the invalid ways (~0) after them.  Only the order of
 * the valid tags matters under LRU (which way holds a line never does), so
 * this is the policy of age stamps without their second array and second
 * scan.  A miss steps the head back one way: onto an invalid way, or onto
 * the least recently used tag, which it displaces; no tag moves.  A hit
 * moves its tag to the front by shifting the tags on the shorter side of
 * it, so a set swept cyclically (each hit on the least recently used) is
 * as cheap as a miss.  head and n are the set's c->ring entry, apart
 * from its tags and small, so that the host's caches keep them. */
static unsigned long
ring(unsigned long x, unsigned long ways)
{
  return x < ways ? x : x - ways;
}

/* Remove the tag at logical position k by shifting the less recent ones
 * forward; the way left at the end is invalid.  Each tag's fingerprint
 * moves with it. */
static void
lru_close(unsigned long *tag, unsigned char *fp, unsigned long ways, unsigned long head,
          unsigned long n, unsigned long k)
{
  for (; k + 1 < n; k++) {
    unsigned long to = ring(head + k, ways), from = ring(head + k + 1, ways);
    tag[to] = tag[from];
    fp[to] = fp[from];
  }
  tag[ring(head + n - 1, ways)] = ~0UL;
  fp[ring(head + n - 1, ways)] = fp_of(~0UL);
}

static int
lru_access(unsigned long *tag, unsigned char *fp, struct xray__ring *r, unsigned long ways,
           unsigned long w, unsigned long lineaddr, unsigned long *evicted)
{
  unsigned long head = r->head, n = r->n, k;

  if (w < ways) {
    k = ring(w + ways - head, ways);
    if (2 * k < n) {
      for (; k > 0; k--) {
        unsigned long to = ring(head + k, ways), from = ring(head + k - 1, ways);
        tag[to] = tag[from];
        fp[to] = fp[from];
      }
      tag[head] = lineaddr;
      fp[head] = fp_of(lineaddr);
      return 0;
    }
    lru_close(tag, fp, ways, head, n, k);
    n--;
  }
  head = head ? head - 1 : ways - 1;
  if (n == ways) {
    if (evicted)
      *evicted = tag[head];
  } else
    n++;
  tag[head] = lineaddr;
  fp[head] = fp_of(lineaddr);
  r->head = (uint32_t) head;
  r->n = (uint32_t) n;
  return w == ways;
}

/* The ways of the 16 fingerprints at f equal to h, as bits. */
static unsigned
fp_match(const unsigned char *f, unsigned char h)
{
#if defined(__SSE2__)
  return (unsigned) _mm_movemask_epi8(
      _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *) (const void *) f), _mm_set1_epi8((char) h)));
#else
  unsigned m = 0, i;

  for (i = 0; i < 16; i++)
    m |= (unsigned) (f[i] == h) << i;
  return m;
#endif
}

/* The lowest bit set in m (not 0). */
static unsigned long
lowest(unsigned m)
{
#if defined(__GNUC__)
  return (unsigned long) __builtin_ctz(m);
#else
  unsigned long i = 0;

  while (!(m & 1u << i))
    i++;
  return i;
#endif
}

/* The way that holds lineaddr, or ways (a line is in a set at most
 * once): only the ways whose fingerprint matches are compared, 16
 * fingerprints at a time. */
static inline unsigned long
find(const unsigned long *tag, const unsigned char *fp, unsigned long ways, unsigned long lineaddr)
{
  unsigned char h = fp_of(lineaddr);
  unsigned long base;

  for (base = 0; base < ways; base += 16) {
    unsigned m = fp_match(fp + base, h);
    if (ways - base < 16)
      m &= (1u << (ways - base)) - 1;
    for (; m; m &= m - 1) {
      unsigned long w = base + lowest(m);
      if (tag[w] == lineaddr)
        return w;
    }
  }
  return ways;
}

/* Access one line address; returns 1 on a miss (the line is then
 * allocated), and in *evicted (if not NULL) the line it displaced, or ~0.
 * LRU keeps its ring (above); tree-PLRU and random replacement choose a
 * way, and keep the ways in place: a set's ring entry then counts its
 * valid ways, so that a miss looks for an invalid way (the first) only
 * in a set that has one. */
int
xray__cache_access(struct xray__cache *c, unsigned long lineaddr, unsigned long *evicted)
{
  unsigned long set = xray__cache_set(c, lineaddr), victim;
  unsigned long *tag = c->tag + set * c->ways;
  unsigned char *fp = c->fp + set * c->fpw;
  unsigned long w = find(tag, fp, c->ways, lineaddr);
  struct xray__ring *r = &c->ring[set];

  if (evicted)
    *evicted = ~0UL;
  if (c->policy == XRAY__POL_LRU)
    return lru_access(tag, fp, r, c->ways, w, lineaddr, evicted);
  if (w < c->ways) {
    if (c->policy == XRAY__POL_PLRU)
      c->age[set] = (c->age[set] & ~c->path[w]) | c->right[w];
    return 0;
  }
  if (r->n < c->ways) {
    for (victim = 0; tag[victim] != ~0UL; victim++)
      ;
    r->n++;
  } else if (c->policy == XRAY__POL_PLRU)
    victim = plru_victim(c->age[set], c->ways, c->leaves);
  else
    victim = xray__rand(&c->rng) % c->ways;
  if (evicted)
    *evicted = tag[victim];
  tag[victim] = lineaddr;
  fp[victim] = fp_of(lineaddr);
  if (c->policy == XRAY__POL_PLRU)
    c->age[set] = (c->age[set] & ~c->path[victim]) | c->right[victim];
  return 1;
}

void
xray__cache_invalidate(struct xray__cache *c, unsigned long lineaddr)
{
  unsigned long set = xray__cache_set(c, lineaddr), w;
  unsigned long *tag = c->tag + set * c->ways;
  unsigned char *fp = c->fp + set * c->fpw;
  struct xray__ring *r = &c->ring[set];

  if (lineaddr == ~0UL)
    return;                     /* no line: nothing to invalidate */
  if ((w = find(tag, fp, c->ways, lineaddr)) == c->ways)
    return;
  if (c->policy == XRAY__POL_LRU) {
    lru_close(tag, fp, c->ways, r->head, r->n, ring(w + c->ways - r->head, c->ways));
    r->n--;
    return;
  }
  tag[w] = ~0UL;
  fp[w] = fp_of(~0UL);
  r->n--;
}

/* Misses per pass of a loop that sweeps lines [first, last] cyclically. */
double
xray__cache_sweep_misses(struct xray__cache *c, unsigned long first, unsigned long last)
{
  unsigned long a, misses = 0;
  int pass;

  xray__cache_reset(c);
  for (pass = 0; pass < 5; pass++)
    for (a = first; a <= last; a++) {
      int m = xray__cache_access(c, a, NULL);
      if (pass >= 2)
        misses += (unsigned long) m;
    }
  return misses / 3.0;
}

void
xray__cache_free(struct xray__cache *c)
{
  free(c->tag);
  free(c->fp);
  free(c->age);
  free(c->ring);
  c->tag = NULL;
  c->fp = NULL;
  c->age = NULL;
  c->ring = NULL;
}
