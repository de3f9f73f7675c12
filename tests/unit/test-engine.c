/* Unit tests of the engine's pieces on synthetic data: smoothing, step
 * detection, edge refinement, consensus, the simulated machine's spec
 * parser, the report formats, the generators, the chains of code. */
#include "xray-internal.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>

/* The simulated machine's truth: its OS view. */
static int
sim_truth(const xray_machine *m, const char *name, double *v)
{
  char src[48];

  return xray__os_view(m, name, v, src, sizeof src);
}

/* Synthetic curves for refine_edge. */
struct curve_fn {
  double c, a, lo, hi;          /* capacity, ways (0: sharp), levels */
  int calls;
};

static double
fn(void *p, double x)
{
  struct curve_fn *f = p;
  double phi;

  f->calls++;
  if (f->a == 0)
    phi = x <= f->c ? 0 : 1;
  else {
    phi = x <= f->c ? 0 : (f->a + 1) * (x - f->c) / x;
    if (phi > 1)
      phi = 1;
  }
  return f->lo + phi * (f->hi - f->lo);
}

static void
test_smooth(void)
{
  double y[] = { 1, 1, 5, 1, 1, 2, 2, 2 }, s[8];

  xray__smooth(y, s, 8);
  tap_ok(s[2] == 1, "median-of-3 removes an isolated spike (got %g)", s[2]);
  tap_ok(s[4] == 1 && s[5] == 2, "and does not shift an edge (got %g %g)", s[4], s[5]);
  tap_ok(xray__median(y, 8) == 1.5, "median of 8 values (got %g)", xray__median(y, 8));
  xray__smooth_min(y, s, 8, 5);
  tap_ok(s[2] == 1 && s[6] == 1 && s[7] == 2,
         "the paper's minimum over 5 removes the spike but moves the edge by 2 (got %g %g %g)",
         s[2], s[6], s[7]);
}

static void
add_points(struct xray__curve *c, const double *y, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    xray__curve_add(c, 1000.0 * (i + 1), y[i]);
}

static void
test_steps(void)
{
  double one[] = { 1, 1.01, 0.99, 1, 1, 1.02, 2, 2.01, 1.98, 2, 2, 2 };
  double spike[] = { 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1 };
  double two[] = { 1, 1, 1, 1, 1.5, 1.5, 1.5, 1.5, 3, 3, 3, 3, 3 };
  double bump[] = { 1, 1, 1, 1, 1.3, 1.3, 1.4, 1, 1, 1, 1, 4, 4, 4, 4 };
  struct xray__curve c = { 0 };
  struct xray__step st[4];
  size_t n;

  add_points(&c, one, sizeof one / sizeof *one);
  n = xray__find_steps(&c, 0.25, st, 4);
  tap_ok(n == 1 && st[0].last_low == 5 && st[0].first_high == 6,
         "one step: found %zu, last low %zu, first high %zu", n, n ? st[0].last_low : 0,
         n ? st[0].first_high : 0);
  tap_ok(n == 1 && fabs(st[0].lo - 1) < 0.02 && fabs(st[0].hi - 2) < 0.02,
         "plateau levels: %g and %g", n ? st[0].lo : 0, n ? st[0].hi : 0);
  xray__curve_free(&c);

  add_points(&c, spike, sizeof spike / sizeof *spike);
  n = xray__find_steps(&c, 0.25, st, 4);
  tap_ok(n == 0, "an isolated spike is not a step (found %zu)", n);
  xray__curve_free(&c);

  add_points(&c, two, sizeof two / sizeof *two);
  n = xray__find_steps(&c, 0.25, st, 4);
  tap_ok(n == 2 && st[0].first_high == 4 && st[1].first_high == 8,
         "two steps: found %zu at %zu and %zu", n, n ? st[0].first_high : 0,
         n > 1 ? st[1].first_high : 0);
  xray__curve_free(&c);

  add_points(&c, bump, sizeof bump / sizeof *bump);
  n = xray__find_steps(&c, 0.25, st, 4);
  tap_ok(n == 1 && st[0].first_high == 11 && fabs(st[0].lo - 1) < 0.02,
         "a rise that falls back is not a step: found %zu, first at %zu, from %g", n,
         n ? st[0].first_high : 0, n ? st[0].lo : 0);
  xray__curve_free(&c);
}

static void
test_refine(void)
{
  struct curve_fn sharp = { 40960, 0, 0.25, 0.5, 0 };
  struct curve_fn lru3 = { 24576, 3, 0.25, 0.5, 0 };
  struct curve_fn lru12 = { 49152, 12, 0.17, 0.5, 0 };
  int gradual;
  double x;

  x = xray__refine_edge(30000, 60000, 0.25, 0.5, 64, fn, &sharp, &gradual);
  tap_ok(!gradual && x <= 40960 && x > 40960 - 64,
         "sharp edge at 40960 narrowed to one 64-byte block: %g", x);
  x = xray__refine_edge(20000, 34000, 0.25, 0.5, 64, fn, &lru3, &gradual);
  tap_ok(gradual, "3-way LRU transition recognised");
  tap_near(x, 24576, 0.005, "3-way LRU onset fitted (a midpoint rule gives +17%)");
  x = xray__refine_edge(45000, 56000, 0.17, 0.5, 64, fn, &lru12, &gradual);
  tap_near(x, 49152, 0.005, "12-way LRU onset fitted");
  x = xray__refine_edge(50000, 70000, 0.25, 0.5, 64, fn, &sharp, &gradual);
  tap_ok(x <= 40960 && x > 40960 - 64, "an edge below the bracket is still found: %g", x);
}

/* Skipping n numbers of the generator leaves the state n calls leave. */
static void
test_rand_skip(void)
{
  static const uint64_t seeds[] = { 1, UINT64_C(0x13198a2e03707344), UINT64_C(0xffffffffffffffff) };
  static const uint64_t ns[] = { 0, 1, 2, 63, 64, 1023, 4096, 100003 };
  struct xray__rand_jumps *j = malloc(sizeof *j);
  int bad = 0;
  size_t a, b;

  if (!j) {
    tap_ok(0, "the generator's skip: out of memory");
    return;
  }
  xray__rand_jumps(j);
  for (a = 0; a < sizeof seeds / sizeof *seeds; a++)
    for (b = 0; b < sizeof ns / sizeof *ns; b++) {
      uint64_t s = seeds[a], t = seeds[a], i;
      for (i = 0; i < ns[b]; i++)
        (void) xray__rand(&s);
      xray__rand_skip(j, &t, ns[b]);
      bad += s != t;
    }
  free(j);
  tap_ok(bad == 0, "skipping n numbers leaves the state of n calls (%d of 24 differ)", bad);
}

static void
test_consensus(void)
{
  double agree[] = { 32768, 16000, 32704 }, disagree[] = { 32768, 16000, 64000 };
  double none[] = { NAN, NAN }, zero[] = { 0, 0 }, mode[] = { 4112, 4096, 1056, 4096 }, c = 0;

  tap_ok(xray__consensus(agree, 3, 2, 0.03, &c) && c == 32768, "two of three agree: %g", c);
  tap_ok(!xray__consensus(agree, 3, 3, 0.03, &c), "but not three of three");
  tap_ok(!xray__consensus(disagree, 3, 2, 0.03, &c), "no two agree within 3%%");
  tap_ok(!xray__consensus(none, 2, 2, 0.03, &c), "NaN never agrees");
  tap_ok(xray__consensus(zero, 2, 2, 0.03, &c) && c == 0, "zero agrees with zero");
  tap_ok(xray__consensus(mode, 4, 3, 0.03, &c) && c == 4096,
         "the most frequent of the agreeing values: %g", c);
}

static void
bad_spec(const char *spec, const char *needle)
{
  char err[256] = "";
  xray_machine *m = xray_machine_simulated(spec, err, sizeof err);

  tap_ok(!m && strstr(err, needle), "spec '%s' rejected: %s", spec, err);
  xray_machine_free(m);
}

static void
test_spec(void)
{
  char err[256] = "";
  xray_machine *m = xray_machine_simulated("l1i=48K:12:64,uop=4K,noise=0", err, sizeof err);
  double v = 0;

  tap_ok(m && sim_truth(m, "XRAY_L1I_SIZE", &v) == 0 && v == 49152,
         "l1i=48K:12:64 parsed: %g (%s)", v, err);
  tap_ok(m && sim_truth(m, "XRAY_UOP_CACHE_OPS", &v) == 0 && v == 4096,
         "uop=4K parsed: %g", v);
  xray_machine_free(m);
  bad_spec("", "needs an l1i");
  bad_spec("l1i=32K:8", "SIZE:WAYS:LINE");
  bad_spec("l1i=32Q:8:64", "not a positive number");
  bad_spec("l1i=1000:8:64", "not a multiple");
  bad_spec("l1i=32K:8:48", "power of two");
  bad_spec("l1i=32K:0:64", "not a positive number");
  bad_spec("l1i=32K:8:64:fifo", "unknown replacement policy");
  bad_spec("l1q=32K:8:64", "unknown simulated level");
  bad_spec("l1i=32K:8:64,l1i=16K:4:64", "given twice");
  bad_spec("l1i=32K:8:64,noise=abc", "not a percentage");
  bad_spec("l1i", "LEVEL=VALUE");
  bad_spec("l1i=32K:8:64,uop=4K:8:both", "not incl or excl");
  bad_spec("l1i=32K:8:64,uop=64:128", "more than the 64 ops it holds");
  bad_spec("l1i=32K:8:64,fetch=6:4:32", "OC:DECODE:BYTES:TAKEN");
  bad_spec("l1i=32K:8:64,fetch=6:0:32:1", "OC:DECODE:BYTES:TAKEN");
}

static char *
render(const xray_report *r, xray_format fmt)
{
  static char buf[8192];
  FILE *f = fmemopen(buf, sizeof buf, "w");

  xray_report_write(r, f, fmt);
  fclose(f);
  return buf;
}

static void
test_report(void)
{
  static xray_report r;
  xray_value *v;
  xray_format fmt;

  xray__report_init(&r);
  snprintf(r.machine, sizeof r.machine, "a \"quoted\" machine");
  v = xray__report_add(&r, "XRAY_A", "first", "bytes");
  v->value = 32768;
  v->source = XRAY_SOURCE_MEASURED;
  v->have_os = 1;
  v->os_value = 32768;
  snprintf(v->os_source, sizeof v->os_source, "sysfs");
  v = xray__report_add(&r, "XRAY_B", "second", "ops");
  snprintf(v->reason, sizeof v->reason, "no edge");
  tap_ok(strstr(render(&r, XRAY_FORMAT_JSON), "a \\\"quoted\\\" machine") != NULL,
         "JSON escapes quotes");
  tap_ok(strstr(render(&r, XRAY_FORMAT_JSON), "\"value\": null") != NULL,
         "JSON gives an unknown value as null");
  tap_ok(strstr(render(&r, XRAY_FORMAT_JSON), "\"source\": \"measured\"") != NULL,
         "JSON gives the source");
  tap_ok(strstr(render(&r, XRAY_FORMAT_SHELL), "\nXRAY_A=32768\n") != NULL
             && strstr(render(&r, XRAY_FORMAT_SHELL), "# XRAY_B unknown: no edge") != NULL,
         "shell: NAME=VALUE, unknown as a comment");
  tap_ok(strstr(render(&r, XRAY_FORMAT_HEADER), "#define XRAY_A 32768") != NULL
             && strstr(render(&r, XRAY_FORMAT_HEADER), "/* #undef XRAY_B */") != NULL,
         "header: #define, unknown as #undef");
  r.v[0].unconfirmed = 1;
  tap_ok(strstr(render(&r, XRAY_FORMAT_SHELL), "# XRAY_A unconfirmed: ") != NULL
             && strstr(render(&r, XRAY_FORMAT_JSON), "\"confirmed\": false") != NULL,
         "an unconfirmed value is flagged in shell and JSON");
  tap_ok(xray_format_parse("json", &fmt) == 0 && fmt == XRAY_FORMAT_JSON
             && xray_format_parse("xml", &fmt) != 0,
         "format names parsed, unknown rejected");
}

static void
test_gen(void)
{
  struct xray_cspec c = { "p0 = p0 + p1", "double", 2, 8, XRAY__STYLE_BARRIER };
  char err[256] = "", buf[16384];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  unsigned char *bytes;
  size_t len, adds = 0;
  const struct xray_stmt *s = xray__stmt_find("nop8");
  const char *p;

  tap_ok(xray__gen_c(f, &c, err, sizeof err) == 0, "C kernel generated");
  fclose(f);
  for (p = buf; (p = strstr(p, "p0 = p0 + p1;")); p++)
    adds++;
  tap_ok(adds == 8, "unroll 8 gives 8 statements (got %zu)", adds);
  tap_ok(strstr(buf, "__asm__ __volatile__(XRAY__MARK(\"k s1\") : XRAY__FREG(p0))") != NULL,
         "a register barrier names the written variable and carries its marker");
  c.stmts = "p0 == p1";
  tap_ok(xray__gen_c(stdout, &c, err, sizeof err) != 0 && strstr(err, "assigns none"),
         "a statement without assignment is rejected: %s", err);
  c.stmts = "p0 = p5";
  c.nvars = 49;
  tap_ok(xray__gen_c(stdout, &c, err, sizeof err) != 0 && strstr(err, "nvars"),
         "too many variables rejected: %s", err);

  tap_ok(s && xray__machine_code_bytes(s, 100, &bytes, &len) == 0, "machine code for 100 x nop8");
  tap_ok((len - XRAY__LOOP_TAIL_BYTES) % 64 == 0, "the loop tail starts on a 64-byte boundary");
  tap_ok(memcmp(bytes + len - XRAY__LOOP_TAIL_BYTES - 8, s->bytes, 8) == 0
             && bytes[len - 1] == 0xc3,
         "the body ends with the statement, the kernel with ret");
  free(bytes);
}

/* A chain's bytes, read back: each piece's statements, then a jump to the
 * next piece; the last ends the loop (dec, jnz to the first, ret).  On
 * x86-64 the chain also runs. */
static int32_t
rel32(const unsigned char *p)
{
  int32_t r;

  memcpy(&r, p, 4);
  return r;
}

/* The chain runs 1000 times and returns, where this ISA runs machine code. */
static void
chain_runs(const struct xray_stmt *s, const struct xray__piece *p, size_t n, int link,
           const char *what)
{
  char err[200] = "";
  struct xray__machine_code *k;

  if (!xray__machine_code_isa()) {
    tap_ok(1, "# SKIP no machine-code backend for this ISA");
    return;
  }
  if ((k = xray__chain_new(s, p, n, link, err, sizeof err)))
    xray__chain_run(k, 1000);
  tap_ok(k != NULL, "%s runs 1000 times and returns: %s", what, k ? "yes" : err);
  xray__machine_code_free(k);
}

static void
test_chain(void)
{
  const struct xray_stmt *s = xray__stmt_find("j16");
  const struct xray__piece p[] = { { 8192, 40 }, { 64, 16 }, { 70000, 0 }, { 4096, 33 } };
  unsigned char *b = NULL;
  size_t len = 0, i, at;
  char err[200] = "";
  int good = 1;

  tap_ok(xray__chain_bytes(s, p, 4, XRAY__LINK_JUMP, &b, &len, err, sizeof err) == 0, "a chain of 4 pieces: %s",
         err[0] ? err : "encoded");
  for (i = 0; b && i < 4; i++) {
    at = (size_t) p[i].off + p[i].len / s->len * s->len;
    good &= memcmp(b + p[i].off, s->bytes, p[i].len >= s->len ? s->len : 0) == 0;
    if (i < 3)
      good &= b[at] == 0xe9 && (int64_t) at + 5 + rel32(b + at + 1) == (int64_t) p[i + 1].off;
    else
      good &= memcmp(b + at, "\x48\xff\xcf\x0f\x85", 5) == 0
          && (int64_t) at + 9 + rel32(b + at + 5) == (int64_t) p[0].off && b[at + 9] == 0xc3;
  }
  /* The buffer ends with the piece that ends last: the third's jump. */
  good &= len == 70000 + XRAY__PIECE_JUMP_BYTES;
  tap_ok(b && good,
         "each piece's whole statements, then a jump to the next; the last loops to "
         "the first");
  free(b);
  {
    const struct xray__piece q[] = { { 0, 64 }, { 64, 16 }, { 60, 0 } };
    tap_ok(xray__chain_bytes(s, q, 3, XRAY__LINK_JUMP, &b, &len, err, sizeof err) != 0 && strstr(err, "overlap"),
           "overlapping pieces are refused: %s", err);
  }
  {
    /* Piece 0 spans piece 2, which lies past piece 1 in the chain and
     * before it in memory: not a neighbour in either order. */
    const struct xray__piece q[] = { { 0, 4000 }, { 9000, 16 }, { 2000, 16 }, { 6000, 16 } };
    err[0] = 0;
    tap_ok(xray__chain_bytes(s, q, 4, XRAY__LINK_JUMP, &b, &len, err, sizeof err) != 0
               && strstr(err, "pieces 0 and 2 overlap"),
           "a piece inside a long one is refused, the two named: %s", err);
  }
  chain_runs(s, p, 4, XRAY__LINK_JUMP, "the chain");
}

/* A piece's return link: call over the capture loop, lea of the next
 * piece, its address over the return address, ret; the last piece counts
 * down first and returns to the caller at the end. */
static int
return_link_at(const unsigned char *b, size_t at, size_t to)
{
  static const unsigned char head[] = { 0xe8, 7, 0, 0, 0, 0xf3, 0x90, 0x0f, 0xae, 0xe8, 0xeb, 0xf9,
                                        0x48, 0x8d, 0x05 };

  return memcmp(b + at, head, sizeof head) == 0
         && (int64_t) at + 19 + rel32(b + at + 15) == (int64_t) to
         && memcmp(b + at + 19, "\x48\x89\x04\x24\xc3", 5) == 0;
}

static void
test_return_chain(void)
{
  const struct xray_stmt *s = xray__stmt_find("nop4");
  const struct xray__piece p[] = { { 512, 226 }, { 0, 226 }, { 256, 226 } };
  unsigned char *b = NULL;
  size_t len = 0, i, at;
  char err[200] = "";
  int good = 1;

  tap_ok(xray__chain_bytes(s, p, 3, XRAY__LINK_RETURN, &b, &len, err, sizeof err) == 0,
         "a chain of 3 pieces left by returns: %s", err[0] ? err : "encoded");
  for (i = 0; b && i < 3; i++) {
    at = (size_t) p[i].off + p[i].len / s->len * s->len;
    if (i < 2)
      good &= return_link_at(b, at, (size_t) p[i + 1].off);
    else
      good &= memcmp(b + at, "\x48\xff\xcf\x74\x18", 5) == 0
          && return_link_at(b, at + 5, (size_t) p[0].off) && b[at + 29] == 0xc3;
  }
  /* The buffer ends with the first piece, the one at 512. */
  good &= len == 512 + 224 + XRAY__PIECE_RET_BYTES;
  tap_ok(b && good, "each piece's statements, then a return to the next; the last counts down, "
         "returns to the first and at the end to the caller");
  free(b);
  chain_runs(s, p, 3, XRAY__LINK_RETURN, "the chain of returns");
}

/* A probe of the test's own that "measures" what no machine can have, as
 * a disturbed run or an emulator would: each such value must come out
 * unknown, with a reason, and the possible ones stay. */
static const struct {
  const char *name;
  double v;
  int possible;
} odd[] = {
  { "XRAY_L1D_SIZE", 49152, 1 },       { "XRAY_L1D_LATENCY", 0.4, 0 },
  { "XRAY_L2_SIZE", 32768, 0 },        { "XRAY_L2_LATENCY", 14, 1 },
  { "XRAY_L3_SIZE", 8388608, 1 },      { "XRAY_L3_LATENCY", 11, 0 },
  { "XRAY_MEM_LATENCY", 12, 0 },       { "XRAY_DTLB_MISS_LATENCY", 7, 1 },
  { "XRAY_TLB_MISS_LATENCY", 6.5, 0 }, { "XRAY_DTLB_ENTRIES", 96, 1 },
  { "XRAY_L2TLB_ENTRIES", 64, 0 },     { "XRAY_LAT_LONG_ADD", 0, 0 },
  { "XRAY_II_LONG_ADD", 0.2, 1 },
};

static int
odd_run(xray_machine *m, xray_report *r)
{
  size_t i;

  (void) m;
  for (i = 0; i < sizeof odd / sizeof *odd; i++) {
    xray_value *v = xray__report_add(r, odd[i].name, "a value", "units");
    v->value = odd[i].v;
    v->source = XRAY_SOURCE_MEASURED;
  }
  return 0;
}

static void
test_invariants(void)
{
  char err[256] = "";
  xray_machine *m = xray_machine_simulated("l1i=32K:8:64", err, sizeof err);
  static const xray_probe p = { "odd", "impossible values", odd_run };
  static xray_report r;
  size_t i, wrong = 0;

  if (!m) {
    tap_ok(0, "a simulated machine for the invariants: %s", err);
    return;
  }
  xray__report_init(&r);
  xray_probe_run(&p, m, &r);
  for (i = 0; i < sizeof odd / sizeof *odd; i++) {
    const xray_value *v = xray_report_get(&r, odd[i].name);
    int known = v->source == XRAY_SOURCE_MEASURED;
    if (known != odd[i].possible || (!known && !v->reason[0])) {
      printf("# %s %g: %s (%s)\n", odd[i].name, odd[i].v, known ? "kept" : "unknown", v->reason);
      wrong++;
    }
  }
  tap_ok(wrong == 0,
         "values no machine can have become unknown with the reason, the rest "
         "stay (%zu wrong of %zu)",
         wrong, sizeof odd / sizeof *odd);
  xray_machine_free(m);
}

int
main(void)
{
  tap_plan(62);
  test_rand_skip();
  test_smooth();
  test_steps();
  test_refine();
  test_consensus();
  test_spec();
  test_report();
  test_gen();
  test_chain();
  test_return_chain();
  test_invariants();
  return tap_done();
}
