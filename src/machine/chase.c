/* The chases probes ask for: a layout of lines, shuffled into one cycle,
 * timed on whatever machine the probe has, and traced under a label that
 * names the layout (so that a recording answers only like with like). */
#include "machine/machine.h"

#include <stdio.h>

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

double
xray__tlb_cost(xray_machine *m, uint64_t *off, size_t n, size_t fill, size_t stride, size_t shift,
               enum xray__arena_kind arena, uint64_t *rng, const char *probe, double *base)
{
  size_t page = m->page ? m->page : 4096;
  char layout[64];
  double t, r;

  if (shift)
    snprintf(layout, sizeof layout, "s%zu+%zu@%zu", stride, fill, shift);
  else
    snprintf(layout, sizeof layout, "s%zu+%zu", stride, fill);
  t = xray__chase_time(m, off, spread(off, n, fill, page, stride, shift), arena, rng, probe,
                       layout);
  r = xray__chase_time(m, off, spread(off, n, fill, page, 0, 0), arena, rng, probe, "packed");
  if (base)
    *base = r;
  return t - r;
}
