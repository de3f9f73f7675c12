/* The chases probes ask for: a layout of lines, shuffled into one cycle,
 * timed on whatever machine the probe has, and traced under a label that
 * names the layout (so that a recording answers only like with like). */
#include "machine/machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double
xray__chase_time(xray_machine *m, uint64_t *off, size_t n, enum xray__arena_kind arena,
                 uint64_t *rng, const char *probe, const char *layout)
{
  /* A machine that answers by key (a recording) times no layout: the
   * shuffle would only move the generator, which is moved past the
   * draws it would take instead, so that every later draw is the same. */
  const struct xray__rand_jumps *j = xray__machine_jumps(m);

  if (j)
    xray__rand_skip(j, rng, n > 1 ? (uint64_t) n - 1 : 0);
  else
    xray__shuffle(off, n, rng);
  return xray__chase_ordered(m, off, n, arena, probe, layout);
}

double
xray__chase_ordered(xray_machine *m, const uint64_t *off, size_t n, enum xray__arena_kind arena,
                    const char *probe, const char *layout)
{
  struct xray__chase c;
  struct xray__ask a = { .kind = XRAY__ASK_CHASE, .chase = &c };
  char kernel[96];

  c.off = off;
  c.n = n;
  c.arena = arena;
  c.quick = 0;
  snprintf(kernel, sizeof kernel, "%s/%s", arena == XRAY__ARENA_HUGE ? "chase" : "chase-4k",
           layout);
  return xray__machine_measure(m, probe, kernel, (double) n, &a).y;
}

/* Lines spread over every L1 set: line i at offset (i mod lines-per-page)
 * times 64 of page p(i).  With p(i) = shift + i stride the chain touches n
 * pages, and then fill more past them whose distances from the first are
 * not multiples of 16; with p(i) = i / lines-per-page (stride 0), the
 * fewest pages that hold the same lines. */
static size_t
spread(uint64_t *off, size_t n, size_t fill, size_t page, size_t stride, size_t shift)
{
  size_t i, k, per = page / 64;

  for (i = 0, k = 1; i < n + fill; i++) {
    uint64_t pg =
        !stride ? i / per : shift + (i < n ? (uint64_t) i * stride : (uint64_t) n * stride + k);
    off[i] = pg * page + (i % per) * 64;
    if (stride && i >= n)
      k += k % 16 == 15 ? 2 : 1;
  }
  return n + fill;
}

/* The packed chains are the data caches' share of a translation cost:
 * the same lines in the fewest pages, whatever the strided chain beside
 * them.  Their layout depends on the line count alone, so a probe that
 * asks for one count many times (every pass of a ramp) gets the least
 * of its first draws, each a chase like any other (disturbance only
 * adds time), instead of a chase each time. */
static struct xray__packed_count *
packed_of(struct xray__packed *memo, size_t lines, enum xray__arena_kind arena)
{
  size_t i;

  for (i = 0; i < memo->n; i++)
    if (memo->c[i].lines == lines && memo->c[i].arena == arena)
      return &memo->c[i];
  if (memo->n == memo->cap) {
    size_t cap = memo->cap ? 2 * memo->cap : 64;
    struct xray__packed_count *c = realloc(memo->c, cap * sizeof *c);
    if (!c)
      return NULL;
    memo->c = c;
    memo->cap = cap;
  }
  memo->c[memo->n].lines = lines;
  memo->c[memo->n].arena = arena;
  memo->c[memo->n].draws = 0;
  memo->c[memo->n].best = HUGE_VAL;
  return &memo->c[memo->n++];
}

void
xray__packed_free(struct xray__packed *memo)
{
  free(memo->c);
  memset(memo, 0, sizeof *memo);
}

double
xray__tlb_cost(xray_machine *m, uint64_t *off, size_t n, size_t fill, size_t stride, size_t shift,
               enum xray__arena_kind arena, uint64_t *rng, const char *probe,
               struct xray__packed *memo, double *base)
{
  size_t page = m->page ? m->page : 4096;
  struct xray__packed_count *pc = memo ? packed_of(memo, n + fill, arena) : NULL;
  char layout[64];
  double t, r;

  if (shift)
    snprintf(layout, sizeof layout, "s%zu+%zu@%zu", stride, fill, shift);
  else
    snprintf(layout, sizeof layout, "s%zu+%zu", stride, fill);
  t = xray__chase_time(m, off, spread(off, n, fill, page, stride, shift), arena, rng, probe,
                       layout);
  if (pc && pc->draws >= XRAY__PACKED_DRAWS)
    r = pc->best;
  else {
    r = xray__chase_time(m, off, spread(off, n, fill, page, 0, 0), arena, rng, probe, "packed");
    if (pc && r > 0) {
      pc->draws++;
      pc->best = r < pc->best ? r : pc->best;
    }
  }
  if (base)
    *base = r;
  return t - r;
}
