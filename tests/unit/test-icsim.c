/* The static I-cache simulator (src/icsim/) on programs with known
 * answers and on random ones, direct-mapped to 16-way, 32- to 128-byte
 * lines.  For every program and cache: the static totals equal the
 * trace-driven simulation's, and every category holds in the trace
 * (always-hit never misses, always-miss never hits, a first-miss misses
 * at most once).  With an argument N, it also times both on a path of N
 * million references and prints the ratio (a diagnostic, not a test). */
#include "icsim/icsim.h"
#include "measure/measure.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>

#define MAXB 64
#define MAXI 4096

/* A program under construction: blocks of fixed-size instructions. */
struct build {
  struct xray__icblock b[MAXB];
  struct xray__icfunc f[8];
  const char *pat[MAXB];
  uint64_t insn[MAXI];
  size_t nb, nf, ni;
};

/* Block of n instructions of len bytes at addr; successors and call. */
static int
block(struct build *g, uint64_t addr, size_t n, unsigned len, int s0, int s1, int call,
      const char *pat)
{
  struct xray__icblock *b = &g->b[g->nb];
  size_t i;

  b->insn = g->insn + g->ni;
  b->ninsn = n;
  for (i = 0; i < n; i++)
    g->insn[g->ni++] = addr + i * len;
  b->end = addr + n * len;
  b->succ[0] = s0;
  b->succ[1] = s1;
  b->call = call;
  g->pat[g->nb] = pat;
  return (int) g->nb++;
}

static void
func(struct build *g, const char *name, size_t first)
{
  g->f[g->nf].name = name;
  g->f[g->nf].first = first;
  g->f[g->nf].n = g->nb - first;
  g->nf++;
}

struct result {
  struct xray__ictotals st, tr;
  int sound;
  char why[160];
};

/* Both totals, and whether every category held in the trace; the
 * analysis in *keep if not NULL (its program is run()'s own: set its p
 * again before walking it). */
static int
run(struct build *g, unsigned long size, unsigned long ways, unsigned long line, struct result *out,
    struct xray__icsim *keep)
{
  struct xray__icprog p = { g->b, g->nb, g->f, g->nf, 0 };
  struct xray__icpath path = { g->pat, 0, 0 };
  struct xray__icsim s;
  uint64_t *misses;
  size_t r;

  memset(out, 0, sizeof *out);
  if (xray__icsim_analyse(&s, &p, size, ways, line)) {
    snprintf(out->why, sizeof out->why, "%s", s.error);
    return -1;
  }
  misses = calloc(s.nrefs + 1, sizeof *misses);
  out->tr.ref_misses = misses;
  if (xray__icsim_trace(&s, &path, &out->tr) || xray__icsim_static(&s, &path, &out->st)) {
    snprintf(out->why, sizeof out->why, "%s", s.error);
    free(misses);
    xray__icsim_free(&s);
    return -1;
  }
  out->sound = out->tr.by_cat[XRAY__IC_HIT][1] == 0 && out->tr.by_cat[XRAY__IC_MISS][0] == 0;
  for (r = 0; r < s.nrefs; r++)
    if (s.ref[r].global == XRAY__IC_FIRST && misses[r] > 1)
      out->sound = 0;
  snprintf(out->why, sizeof out->why, "always-hit missed %llu, always-miss hit %llu",
           (unsigned long long) out->tr.by_cat[XRAY__IC_HIT][1],
           (unsigned long long) out->tr.by_cat[XRAY__IC_MISS][0]);
  free(misses);
  out->tr.ref_misses = NULL;
  if (keep)
    *keep = s;
  else
    xray__icsim_free(&s);
  return 0;
}

static const struct {
  unsigned long size, ways, line;
} caches[] = { { 1024, 1, 32 },  { 1024, 2, 64 },  { 2048, 4, 64 }, { 4096, 8, 64 },
               { 4096, 16, 64 }, { 8192, 2, 128 }, { 3072, 3, 64 }, { 2560, 5, 32 } };
#define NCACHES (sizeof caches / sizeof *caches)

/* Every cache: static totals equal the trace's, and categories hold. */
static void
all_caches(struct build *g, const char *name)
{
  size_t c;
  int equal = 1, sound = 1;
  char why[200] = "";

  for (c = 0; c < NCACHES; c++) {
    struct result res;
    if (run(g, caches[c].size, caches[c].ways, caches[c].line, &res, NULL)) {
      tap_ok(0, "%s: %s", name, res.why);
      tap_ok(0, "%s: not analysed", name);
      return;
    }
    if (res.st.misses != res.tr.misses || res.st.refs != res.tr.refs) {
      equal = 0;
      snprintf(why, sizeof why, "%lu:%lu:%lu static %llu/%llu, trace %llu/%llu misses/refs",
               caches[c].size, caches[c].ways, caches[c].line, (unsigned long long) res.st.misses,
               (unsigned long long) res.st.refs, (unsigned long long) res.tr.misses,
               (unsigned long long) res.tr.refs);
    }
    if (!res.sound) {
      sound = 0;
      snprintf(why, sizeof why, "%lu:%lu:%lu %s", caches[c].size, caches[c].ways, caches[c].line,
               res.why);
    }
  }
  tap_ok(equal, "%s: static totals equal the trace's on %zu caches %s", name, NCACHES, why);
  tap_ok(sound, "%s: every category holds in the trace %s", name, why);
}

static char loop100[101], loop10[11], loop50[51];

static void
init_patterns(void)
{
  memset(loop100, '1', 99);
  loop100[99] = '0';
  memset(loop10, '1', 9);
  loop10[9] = '0';
  memset(loop50, '1', 49);
  loop50[49] = '0';
}

/* Every reference of node range [from, to) at its innermost loop (or
 * globally, outside loops) in one of the categories allowed (a mask). */
static int
refs_are(const struct xray__icsim *s, size_t from, size_t to, unsigned mask)
{
  size_t r;

  for (r = 0; r < s->nrefs; r++)
    if (s->ref[r].node >= from && s->ref[r].node < to) {
      unsigned c = s->node_loop[s->ref[r].node] >= 0 ? s->ref[r].level[0] : s->ref[r].global;
      if (!(mask & (1u << c)))
        return 0;
    }
  return 1;
}

#define H (1u << XRAY__IC_HIT)
#define M (1u << XRAY__IC_MISS)
#define F (1u << XRAY__IC_FIRST)
#define C (1u << XRAY__IC_CONFLICT)

static void
known_answers(void)
{
  struct build g;
  struct result res;
  struct xray__icsim s;

  /* Straight line: 100 4-byte instructions, 7 lines, each missed once. */
  memset(&g, 0, sizeof g);
  block(&g, 0x10000, 100, 4, -1, -1, -1, NULL);
  func(&g, "main", 0);
  run(&g, 1024, 1, 64, &res, &s);
  tap_ok(res.tr.misses == 7 && res.st.misses == 7 && res.tr.refs == 100
             && refs_are(&s, 0, s.nnodes, M),
         "straight line: 7 always-misses of 100 references (trace %llu, static %llu)",
         (unsigned long long) res.tr.misses, (unsigned long long) res.st.misses);
  xray__icsim_free(&s);
  all_caches(&g, "straight line");

  /* A loop that fits: its lines miss once, in its first iteration. */
  memset(&g, 0, sizeof g);
  block(&g, 0x10000, 4, 4, 1, -1, -1, NULL);
  block(&g, 0x10010, 40, 4, 2, 1, -1, loop100);
  block(&g, 0x100b0, 4, 4, -1, -1, -1, NULL);
  func(&g, "main", 0);
  run(&g, 1024, 1, 64, &res, &s);
  tap_ok(res.tr.misses == 3 && res.st.misses == 3 && s.nloops == 1 && refs_are(&s, 1, 2, H | F),
         "a loop that fits: 3 lines missed once, the loop's references hit or first-miss "
         "(%llu misses, %zu loops)",
         (unsigned long long) res.tr.misses, s.nloops);
  {
    /* The same path given by loop iteration counts: the header runs 100
     * times per entry. */
    struct xray__icpath by_count = { NULL, 0, 100 };
    struct xray__icprog prog = { g.b, g.nb, g.f, g.nf, 0 };
    struct xray__ictotals t;
    s.p = &prog; /* run()'s was its own */
    tap_ok(xray__icsim_static(&s, &by_count, &t) == 0 && t.misses == 3 && t.refs == res.tr.refs,
           "the loop that fits, run 100 times by iteration count: %llu references, %llu misses "
           "(the pattern's: %llu, 3)",
           (unsigned long long) t.refs, (unsigned long long) t.misses,
           (unsigned long long) res.tr.refs);
  }
  xray__icsim_free(&s);
  all_caches(&g, "loop that fits");

  /* A loop twice the size of a direct-mapped cache: every line misses on
   * every iteration. */
  memset(&g, 0, sizeof g);
  block(&g, 0x10000, 4, 4, 1, -1, -1, NULL);
  block(&g, 0x10040, 512, 4, 2, 1, -1, loop10);
  block(&g, 0x10840, 4, 4, -1, -1, -1, NULL);
  func(&g, "main", 0);
  run(&g, 1024, 1, 64, &res, &s);
  tap_ok(res.tr.misses == 1 + 32 * 10 + 1 && refs_are(&s, 1, 2, M),
         "a loop of 2 KB in 1 KB: always-miss, %llu misses", (unsigned long long) res.tr.misses);
  xray__icsim_free(&s);
  all_caches(&g, "loop larger than the cache");
}

/* main calls foo once, then in a loop; f and g a way apart, both in a
 * loop. */
static void
calls(void)
{
  struct build g;
  struct result res;
  struct xray__icsim s;
  size_t i, inst2 = 0;

  /* main: B0 calls foo -> B1 calls foo -> B2 loops to B1 or goes to B3. */
  memset(&g, 0, sizeof g);
  block(&g, 0x10000, 4, 4, 1, -1, 1, NULL);
  block(&g, 0x10010, 4, 4, 2, -1, 1, NULL);
  block(&g, 0x10020, 4, 4, 3, 1, -1, loop10);
  block(&g, 0x10030, 4, 4, -1, -1, -1, NULL);
  func(&g, "main", 0);
  block(&g, 0x12000, 24, 4, -1, -1, -1, NULL);
  func(&g, "foo", 4);
  run(&g, 4096, 2, 64, &res, &s);
  for (i = 1; i < s.ninst; i++)
    if (s.inst[i].site == 1)
      inst2 = s.inst[i].base;
  tap_ok(s.ninst == 3 && inst2 && refs_are(&s, inst2, inst2 + 1, H)
             && refs_are(&s, s.inst[1].base, s.inst[1].base + 1, M),
         "foo called once and then in a loop: two instances; the first always misses, the "
         "one in the loop always hits (%zu instances)",
         s.ninst);
  xray__icsim_free(&s);
  all_caches(&g, "calls in a loop");

  /* A loop in a function that is not the first: its blocks are numbered
   * after main's. */
  memset(&g, 0, sizeof g);
  block(&g, 0x10000, 4, 4, 1, -1, 1, NULL);
  block(&g, 0x10010, 4, 4, -1, -1, -1, NULL);
  func(&g, "main", 0);
  block(&g, 0x14000, 4, 4, 3, -1, -1, NULL);
  block(&g, 0x14010, 30, 4, 4, 3, -1, loop10);
  block(&g, 0x14088, 4, 4, -1, -1, -1, NULL);
  func(&g, "foo", 2);
  run(&g, 4096, 2, 64, &res, &s);
  tap_ok(s.nloops == 1 && s.loop[0].header == s.inst[1].base + 1
             && refs_are(&s, s.inst[1].base + 1, s.inst[1].base + 2, H | F),
         "a loop in a called function: found (%zu loops), its references hit or first-miss",
         s.nloops);
  xray__icsim_free(&s);
  all_caches(&g, "a loop in a callee");

  /* f and g a way (1 KB) apart, called in turn 50 times; main's line in
   * another set. */
  memset(&g, 0, sizeof g);
  block(&g, 0x10080, 4, 4, 1, -1, 1, NULL);
  block(&g, 0x10090, 4, 4, 2, -1, 2, NULL);
  block(&g, 0x100a0, 4, 4, 3, 0, -1, loop50);
  block(&g, 0x100b0, 4, 4, -1, -1, -1, NULL);
  func(&g, "main", 0);
  block(&g, 0x20000, 32, 4, -1, -1, -1, NULL);
  func(&g, "f", 4);
  block(&g, 0x20400, 32, 4, -1, -1, -1, NULL);
  func(&g, "g", 5);
  run(&g, 1024, 1, 64, &res, &s);
  tap_ok(refs_are(&s, s.inst[1].base, s.inst[1].base + 1, M) && res.tr.misses == 1 + 50 * 4,
         "f and g a way apart, direct-mapped: they evict each other, always-miss (%llu "
         "misses)",
         (unsigned long long) res.tr.misses);
  xray__icsim_free(&s);
  run(&g, 2048, 2, 64, &res, &s);
  tap_ok(refs_are(&s, s.inst[1].base, s.inst[1].base + 1, F) && res.tr.misses == 1 + 4,
         "the same in a 2-way cache of that way size: first-miss (%llu misses)",
         (unsigned long long) res.tr.misses);
  xray__icsim_free(&s);
  all_caches(&g, "functions a way apart");
}

/* A random program: up to 4 functions of up to 8 blocks, instructions of
 * 1 to 15 bytes (some across lines), fall-throughs, loops back, branches
 * forward, calls to later functions only. */
static void
random_program(struct build *g, uint64_t *rng)
{
  static char pats[MAXB][8];
  size_t nf = 1 + xray__rand(rng) % 4, f, i;

  memset(g, 0, sizeof *g);
  for (f = 0; f < nf; f++) {
    size_t nb = 1 + xray__rand(rng) % 8, first = g->nb;
    uint64_t addr = 0x10000 + (xray__rand(rng) % 4096) * 4;
    for (i = 0; i < nb; i++) {
      size_t n = 1 + xray__rand(rng) % 30;
      unsigned len = 1 + (unsigned) (xray__rand(rng) % 15);
      int s0 = i + 1 < nb ? (int) (first + i + 1) : -1, s1 = -1, call = -1;
      unsigned r = (unsigned) (xray__rand(rng) % 10), k;
      char *pat = pats[g->nb];
      if (s0 >= 0 && r < 3) {
        s1 = (int) (first + xray__rand(rng) % (i + 1)); /* a loop back */
        for (k = 0; k < 1 + xray__rand(rng) % 6; k++)
          pat[k] = '1';
        pat[k] = '0', pat[k + 1] = 0;
      } else if (s0 >= 0 && r < 5 && i + 2 < nb) {
        s1 = (int) (first + i + 2); /* skip a block */
        strcpy(pat, xray__rand(rng) & 1 ? "01" : "001");
      }
      if (s0 >= 0 && s1 < 0 && f + 1 < nf && xray__rand(rng) % 4 == 0)
        call = (int) (f + 1 + xray__rand(rng) % (nf - f - 1));
      block(g, addr, n, len, s0, s1, call, s1 >= 0 ? pat : NULL);
      addr += n * len + (xray__rand(rng) % 3 == 0 ? xray__rand(rng) % 512 : 0);
    }
    func(g, "f", first);
  }
}

static void
random_programs(void)
{
  uint64_t rng = 0x1234567890abcdefULL;
  int k, equal = 0, sound = 0, analysed = 0, n = 300;
  char why[200] = "";

  for (k = 0; k < n; k++) {
    struct build g;
    size_t c = (size_t) k % NCACHES;
    struct result res;
    random_program(&g, &rng);
    if (run(&g, caches[c].size, caches[c].ways, caches[c].line, &res, NULL)) {
      snprintf(why, sizeof why, "program %d: %s", k, res.why);
      continue;
    }
    analysed++;
    if (res.st.misses == res.tr.misses && res.st.refs == res.tr.refs)
      equal++;
    else
      snprintf(why, sizeof why, "program %d: static %llu, trace %llu misses", k,
               (unsigned long long) res.st.misses, (unsigned long long) res.tr.misses);
    if (res.sound)
      sound++;
    else
      snprintf(why, sizeof why, "program %d: %s", k, res.why);
  }
  tap_ok(analysed == n, "%d random programs analysed %s", analysed, why);
  tap_ok(equal == n, "%d of %d random programs: static totals equal the trace's %s", equal, n, why);
  tap_ok(sound == n, "%d of %d random programs: every category holds in the trace %s", sound, n,
         why);
}

/* Time both on a loop nest of about m million references, in a cache it
 * fits (the static count only counts) and in one it crowds (both
 * simulate the crowded sets). */
static void
speed(double m)
{
  static const unsigned long geo[][3] = { { 32768, 8, 64 }, { 2048, 2, 64 } };
  struct build g;
  struct xray__icprog p;
  struct xray__icpath path;
  static char outer[1001];
  size_t c;

  memset(&g, 0, sizeof g);
  memset(outer, '1', sizeof outer - 2);
  block(&g, 0x10000, 8, 4, 1, -1, -1, NULL);
  block(&g, 0x10020, 300, 4, 2, 1, -1, loop100);
  block(&g, 0x10500, 200, 5, 3, 0, -1, outer);
  block(&g, 0x10900, 4, 4, -1, -1, -1, NULL);
  func(&g, "main", 0);
  p = (struct xray__icprog){ g.b, g.nb, g.f, g.nf, 0 };
  path = (struct xray__icpath){ g.pat, (uint64_t) (m * 1e6), 0 };
  for (c = 0; c < 2; c++) {
    struct xray__icsim s;
    struct xray__ictotals a, b;
    double t0, t1, t2;
    xray__icsim_analyse(&s, &p, geo[c][0], geo[c][1], geo[c][2]);
    t0 = xray__now();
    xray__icsim_static(&s, &path, &a);
    t1 = xray__now();
    xray__icsim_trace(&s, &path, &b);
    t2 = xray__now();
    printf("# %lu:%lu:%lu: %llu references, %llu misses (trace %llu): static %.3f s, trace "
           "%.3f s, %.1fx faster\n",
           geo[c][0], geo[c][1], geo[c][2], (unsigned long long) a.refs,
           (unsigned long long) a.misses, (unsigned long long) b.misses, t1 - t0, t2 - t1,
           (t2 - t1) / (t1 - t0));
    xray__icsim_free(&s);
  }
}

int
main(int argc, char **argv)
{
  init_patterns();
  if (argc > 1) {
    speed(atof(argv[1]));
    return 0;
  }
  tap_plan(3 * 3 + 1 + 3 + 3 + 4 + 3);
  known_answers();
  calls();
  random_programs();
  return tap_done();
}
