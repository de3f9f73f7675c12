/* Hit and miss totals of a static cache simulation along a path (see
 * icsim.h), and of a trace-driven one to check them against.
 *
 * Both walk the same path through the instance graph: a block with two
 * successors takes the one its pattern names at each execution.  Every
 * instruction references each program line it touches.  The trace feeds
 * each reference to model/'s LRU cache.  The static count feeds it only
 * the references to crowded sets, those that more program lines map to
 * than they have ways; a line of any other set is never evicted once
 * loaded, so it misses once, on the first run of a block that touches it,
 * and the rest follows from how often each block ran (the paper's
 * frequency counters). */
#include "icsim/private.h"
#include "model/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk {
  const struct xray__icsim *s;
  const struct xray__icpath *path;
  uint64_t *execs; /* per block: executions so far */
  uint64_t *runs; /* per loop: its header's runs since control entered it */
  uint64_t max;
};

/* With iterations given: count a run of each loop whose header node n is,
 * a first one where control comes from outside the loop (from prev). */
static void
count_header(struct walk *w, size_t prev, size_t n)
{
  const struct xray__icsim *s = w->s;
  size_t l;

  for (l = 0; l < s->nloops; l++)
    if (s->loop[l].header == n)
      w->runs[l] = prev != (size_t) -1 && bit(s->loop[l].nodes, prev) ? w->runs[l] + 1 : 1;
}

/* With iterations given: of two successors, the one that stays in the
 * innermost loop holding n that only one of them stays in, while its
 * header has run fewer than that many times since control entered it;
 * else the one that leaves; where neither or both stay, the first. */
static size_t
by_iterations(const struct walk *w, size_t n, const size_t succ[2])
{
  const struct xray__icsim *s = w->s;
  int l;

  for (l = s->node_loop[n]; l >= 0; l = s->loop[l].parent) {
    int in0 = bit(s->loop[l].nodes, succ[0]), in1 = bit(s->loop[l].nodes, succ[1]);
    if (in0 != in1)
      return (w->runs[l] < w->path->iterations) == in0 ? succ[0] : succ[1];
  }
  return succ[0];
}

/* The next node after n, or (size_t) -1 at the end; -1 with why. */
static int
choose(struct walk *w, size_t n, size_t *out, char *err, size_t errlen)
{
  const struct xray__icsim *s = w->s;
  size_t b = s->node_block[n], succ[2];
  int c = xray__icsim_successors(s, n, succ);
  const char *pat = w->path && w->path->pattern ? w->path->pattern[b] : NULL;
  uint64_t k = w->execs[b]++;

  if (c == 0) {
    *out = (size_t) -1;
    return 0;
  }
  if (c == 1) {
    *out = succ[0];
    return 0;
  }
  if (w->path && w->path->iterations) {
    *out = by_iterations(w, n, succ);
    return 0;
  }
  if (!pat || !*pat || strspn(pat, "01") != strlen(pat)) {
    snprintf(err, errlen, "block %zu branches both ways: its pattern must be 0s and 1s", b);
    return -1;
  }
  *out = succ[pat[k % strlen(pat)] - '0'];
  return 0;
}

static int
next(struct walk *w, size_t n, size_t *out, char *err, size_t errlen)
{
  int rc = choose(w, n, out, err, errlen);

  if (rc == 0 && *out != (size_t) -1 && w->path && w->path->iterations)
    count_header(w, n, *out);
  return rc;
}

static int
walk_init(struct walk *w, const struct xray__icsim *s, const struct xray__icpath *path)
{
  w->s = s;
  w->path = path;
  w->max = path && path->max_refs ? path->max_refs : UINT64_C(1000000000);
  w->execs = calloc(s->p->nb + 1, sizeof *w->execs);
  w->runs = calloc(s->nloops + 1, sizeof *w->runs);
  if (w->runs && path && path->iterations)
    count_header(w, (size_t) -1, 0);
  return w->execs && w->runs ? 0 : -1;
}

/* Instruction references of node n (lines touched, summed). */
static uint64_t
node_refs(const struct xray__icsim *s, size_t n)
{
  size_t r;
  uint64_t k = 0;

  for (r = s->node_ref[n]; r < s->node_ref[n + 1]; r++)
    k += s->ref[r].insns;
  return k;
}

static int
cache_for(const struct xray__icsim *s, struct xray__cache *c)
{
  memset(c, 0, sizeof *c);
  c->size = s->size;
  c->ways = s->ways;
  c->line = s->line;
  c->policy = XRAY__POL_LRU;
  return xray__cache_init(c);
}

int
xray__icsim_trace(struct xray__icsim *s, const struct xray__icpath *path, struct xray__ictotals *t)
{
  struct walk w;
  struct xray__cache c;
  size_t n = 0, r;
  uint64_t *ref_misses = t->ref_misses;
  int rc = 0;

  memset(t, 0, sizeof *t);
  t->ref_misses = ref_misses;
  if (walk_init(&w, s, path) || cache_for(s, &c)) {
    free(w.execs);
    free(w.runs);
    snprintf(s->error, sizeof s->error, "out of memory");
    return -1;
  }
  while (n != (size_t) -1 && rc == 0) {
    if (t->refs >= w.max) {
      t->truncated = 1;
      break;
    }
    for (r = s->node_ref[n]; r < s->node_ref[n + 1]; r++) {
      const struct xray__icref *ref = &s->ref[r];
      int miss = xray__cache_access(&c, (unsigned long) s->line_addr[ref->line], NULL);
      t->by_cat[ref->global][miss]++;
      t->by_cat[XRAY__IC_HIT][0] += ref->insns - 1;
      if (ref_misses)
        ref_misses[r] += (uint64_t) miss;
      t->misses += (uint64_t) miss;
      t->refs += ref->insns;
    }
    rc = next(&w, n, &n, s->error, sizeof s->error);
  }
  t->hits = t->refs - t->misses;
  xray__cache_free(&c);
  free(w.execs);
  free(w.runs);
  return rc;
}

/* Sets that more program lines map to than they have ways: 1 each. */
static unsigned char *
crowded_sets(const struct xray__icsim *s)
{
  size_t *count = calloc(s->sets, sizeof *count), l;
  unsigned char *crowded = calloc(s->sets, 1);

  if (!count || !crowded) {
    free(count);
    free(crowded);
    return NULL;
  }
  for (l = 0; l < s->nlines; l++)
    crowded[s->line_addr[l] % s->sets] |= ++count[s->line_addr[l] % s->sets] > s->ways;
  free(count);
  return crowded;
}

/* The references to crowded sets, grouped by node: cr[first[n]..first[n+1]). */
static int
crowded_refs(const struct xray__icsim *s, const unsigned char *crowded, size_t **first, size_t **cr)
{
  size_t n, r, k = 0;

  *first = malloc((s->nnodes + 1) * sizeof **first);
  *cr = malloc((s->nrefs + 1) * sizeof **cr);
  if (!*first || !*cr)
    return -1;
  for (n = 0; n < s->nnodes; n++) {
    (*first)[n] = k;
    for (r = s->node_ref[n]; r < s->node_ref[n + 1]; r++)
      if (crowded[s->line_addr[s->ref[r].line] % s->sets])
        (*cr)[k++] = r;
  }
  (*first)[s->nnodes] = k;
  return 0;
}

/* Misses of the lines of sets that are not crowded: one for each such
 * line a block that ran touches. */
static uint64_t
cold_misses(const struct xray__icsim *s, const unsigned char *crowded, const uint64_t *freq,
            unsigned char *seen)
{
  size_t n, r;
  uint64_t k = 0;

  for (n = 0; n < s->nnodes; n++)
    for (r = s->node_ref[n]; freq[n] && r < s->node_ref[n + 1]; r++) {
      size_t l = s->ref[r].line;
      if (!crowded[s->line_addr[l] % s->sets] && !seen[l])
        seen[l] = 1, k++;
    }
  return k;
}

int
xray__icsim_static(struct xray__icsim *s, const struct xray__icpath *path, struct xray__ictotals *t)
{
  struct walk w = { 0 };
  struct xray__cache c = { 0 };
  unsigned char *crowded = crowded_sets(s), *seen = calloc(s->nlines + 1, 1);
  uint64_t *freq = calloc(s->nnodes + 1, sizeof *freq), *nr = calloc(s->nnodes + 1, sizeof *nr);
  size_t *first = NULL, *cr = NULL, n = 0, i;
  int rc = -1;

  memset(t, 0, sizeof *t);
  if (!crowded || !seen || !freq || !nr || crowded_refs(s, crowded, &first, &cr)
      || walk_init(&w, s, path) || cache_for(s, &c)) {
    snprintf(s->error, sizeof s->error, "out of memory");
    goto out;
  }
  for (n = 0; n < s->nnodes; n++)
    nr[n] = node_refs(s, n);
  rc = 0;
  for (n = 0; n != (size_t) -1 && rc == 0;) {
    if (t->refs >= w.max) {
      t->truncated = 1;
      break;
    }
    freq[n]++;
    t->refs += nr[n];
    for (i = first[n]; i < first[n + 1]; i++)
      t->misses +=
          (uint64_t) xray__cache_access(&c, (unsigned long) s->line_addr[s->ref[cr[i]].line], NULL);
    rc = next(&w, n, &n, s->error, sizeof s->error);
  }
  t->misses += cold_misses(s, crowded, freq, seen);
  t->hits = t->refs - t->misses;
out:
  xray__cache_free(&c);
  free(w.execs);
  free(w.runs);
  free(crowded);
  free(seen);
  free(freq);
  free(nr);
  free(first);
  free(cr);
  return rc;
}
