/* icsim-check FILE FUNCTION...: for each function of a real object or
 * executable, read by Capstone and libelf, and each of eight caches
 * (direct-mapped to 16-way, 32- to 128-byte lines): random paths through
 * it (each two-way branch taken by a random pattern), static totals
 * against the trace-driven ones, and every category against the trace.
 * One line per function: "ok TEXT" or "fail TEXT", for tests/icsim.test.
 * Exit status 77 if xray cannot read machine code here. */
#include "icsim/icsim.h"
#include "measure/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned long caches[][3] = { { 1024, 1, 32 }, { 2048, 2, 64 },   { 4096, 4, 64 },
                                           { 8192, 8, 64 }, { 16384, 16, 64 }, { 4096, 1, 128 },
                                           { 3072, 3, 64 }, { 2560, 5, 32 } };

/* Random patterns for blocks with two successors (others NULL). */
static char **
patterns(const struct xray__icread *r, uint64_t *rng)
{
  char **pat = calloc(r->nb + 1, sizeof *pat);
  size_t b, k, n;

  for (b = 0; pat && b < r->nb; b++)
    if (r->b[b].succ[0] >= 0 && r->b[b].succ[1] >= 0 && (pat[b] = malloc(9))) {
      n = 1 + xray__rand(rng) % 8;
      for (k = 0; k < n; k++)
        pat[b][k] = (char) ('0' + (xray__rand(rng) & 1));
      pat[b][n] = 0;
    }
  return pat;
}

static int
check(const char *file, const char *func, uint64_t *rng)
{
  struct xray__icread r;
  char err[400], why[300] = "";
  size_t c, b;
  uint64_t refs = 0, misses = 0;
  int good = 1;

  if (xray__icsim_read(file, func, &r, err, sizeof err)) {
    printf("fail %s %s: %s\n", file, func, err);
    return strstr(err, "without Capstone") ? 77 : 1;
  }
  for (c = 0; c < sizeof caches / sizeof *caches; c++) {
    char **pat = patterns(&r, rng);
    struct xray__icpath path = { (const char *const *) pat, 200000, 0 };
    struct xray__icsim s;
    struct xray__ictotals st, tr = { 0 };
    uint64_t *rm = NULL;
    if (!pat || xray__icsim_analyse(&s, &r.prog, caches[c][0], caches[c][1], caches[c][2])) {
      snprintf(why, sizeof why, "%s", pat ? s.error : "out of memory");
      good = 0;
    } else {
      size_t i;
      rm = calloc(s.nrefs + 1, sizeof *rm);
      tr.ref_misses = rm;
      if (!rm || xray__icsim_static(&s, &path, &st) || xray__icsim_trace(&s, &path, &tr)) {
        snprintf(why, sizeof why, "%s", s.error);
        good = 0;
      } else {
        if (st.misses != tr.misses || st.refs != tr.refs)
          good = 0,
          snprintf(why, sizeof why, "%lu:%lu:%lu static %llu, trace %llu misses", caches[c][0],
                   caches[c][1], caches[c][2], (unsigned long long) st.misses,
                   (unsigned long long) tr.misses);
        if (tr.by_cat[XRAY__IC_HIT][1] || tr.by_cat[XRAY__IC_MISS][0])
          good = 0,
          snprintf(why, sizeof why, "%lu:%lu:%lu a category failed", caches[c][0], caches[c][1],
                   caches[c][2]);
        for (i = 0; i < s.nrefs; i++)
          if (s.ref[i].global == XRAY__IC_FIRST && rm[i] > 1)
            good = 0,
            snprintf(why, sizeof why, "a first-miss missed %llu times", (unsigned long long) rm[i]);
        refs += tr.refs;
        misses += tr.misses;
      }
      xray__icsim_free(&s);
    }
    free(rm);
    for (b = 0; pat && b < r.nb; b++)
      free(pat[b]);
    free(pat);
  }
  printf("%s %s %s: %zu blocks in %zu functions; on %zu caches the static totals equal the "
         "trace's and every category holds (%llu references, %llu misses) %s\n",
         good ? "ok" : "fail", file, func, r.nb, r.nf, sizeof caches / sizeof *caches,
         (unsigned long long) refs, (unsigned long long) misses, why);
  xray__icsim_read_free(&r);
  return good ? 0 : 1;
}

int
main(int argc, char **argv)
{
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  int i, rc = 0;

  if (argc < 3) {
    fprintf(stderr, "usage: icsim-check FILE FUNCTION...\n");
    return 2;
  }
  for (i = 2; i < argc; i++) {
    int r = check(argv[1], argv[i], &rng);
    if (r == 77)
      return 77;
    rc |= r;
  }
  return rc;
}
