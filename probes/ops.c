/* Operations: latency and initiation interval of C operators on C and
 * vector types, and the fused multiply-add (X-Ray Sec. 3.2-3.4).
 *
 * The kernels are the paper's configurations compiled with the user's
 * compiler and flags, all of a probe's kernels in one compile, in barrier
 * form (src/kernels/generate.c), which keeps each statement whole:
 *
 *   latency      <p0 = p0 OP p1, T, 2>: one dependent chain;
 *   throughput   <p0 = p0 OP pK | ... | p(K-1) = p(K-1) OP pK, T, K+1> for
 *                K = 4, 8, 12 independent chains, the fastest K (enough
 *                chains to hide the latency, few enough not to spill),
 *                each unrolled to N = 48 and 2N statements a loop: the
 *                loop's own instructions (its counter and branch, which
 *                take ALU slots too) cost the same per iteration, so
 *                2N statements take 2N II + L cycles and N take N II + L,
 *                and II = 2 t(2N) - t(N) per statement leaves them out;
 *   fma          a*b+c as written, against the same with a barrier between
 *                the multiply and the add (no compiler can fuse across it):
 *                the compiler fuses when the first is clearly faster.  The
 *                instruction itself is run from machine code (ops->fma).
 *
 * Each kernel is timed in five rounds, interleaved; the value is the
 * median, and a kernel whose middle three rounds are more than 5 % apart
 * is timed again, and left unconfirmed if they still are. */
#include "xray-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 5
#define MAX_OPS 32
#define MAX_K (MAX_OPS * 6)
#define DEFAULT_OPS "long:+,long:*,long:/,double:+,double:*,double:/,double:fma"

static const int chains[3] = { 4, 8, 12 };
#define THRU_UNROLL 48
/* How far below t(2N) the difference may fall: the loop's share of a
 * 2N-statement iteration, at most 4 instructions in 96 on the fastest
 * core (6 ALUs).  A difference farther below is noise in one of the two
 * times (their difference doubles it), and then t(2N) stands. */
#define LOOP_SHARE 0.25

/* The median of ROUNDS times, and whether the middle three agree within
 * 5 %.  Not the smallest: a round can read fast as well as slow here (a
 * 13.5-cycle divide read 12.7 in one round of 12). */
static void
summarise(const double *t, struct xray__timed *out)
{
  double v[ROUNDS];
  int a, b;

  for (a = 0; a < ROUNDS; a++) {   /* insertion sort, NANs last */
    double x = t[a];
    for (b = a; b > 0 && (isnan(v[b - 1]) || v[b - 1] > x); b--)
      v[b] = v[b - 1];
    v[b] = x;
  }
  out->t = v[ROUNDS / 2];
  out->agree = v[ROUNDS / 2 + 1] <= v[ROUNDS / 2 - 1] * 1.05;
}

int
xray__time_set(xray_machine *m, const struct xray_cspec *k, size_t n, struct xray__timed *out)
{
  double (*t)[ROUNDS] = calloc(n, sizeof *t);
  char label[512];
  size_t i;
  int r, again;

  if (!t) {
    snprintf(m->error, sizeof m->error, "out of memory");
    return -1;
  }
  if (m->ops->kbuild(m, k, n)) {
    free(t);
    return -1;
  }
  /* Rounds interleave the kernels, so that a disturbance of some
   * milliseconds spoils one round of many kernels, not all rounds of one.
   * Kernels whose rounds disagree are timed once more. */
  for (again = 0; again < 2; again++) {
    for (r = 0; r < ROUNDS; r++)
      for (i = 0; i < n; i++) {
        if (again && out[i].agree)
          continue;
        snprintf(label, sizeof label, "%s/u%d:%s", k[i].type, k[i].unroll, k[i].stmts);
        t[i][r] = xray__point(m, "ops", label, (double) k[i].nvars,
                              m->ops->ktime(m, i, &out[i].avail, &out[i].stack));
      }
    for (i = 0; i < n; i++)
      if (!again || !out[i].agree)
        summarise(t[i], &out[i]);
  }
  free(t);
  return 0;
}

/* "p0 = p0 * p1 + p2" or "p0 = p0 OP p1" over chains 0..k-1 sharing the
 * operands pk (and pk+1). */
static void
chain_spec(struct xray_cspec *c, char *buf, size_t len, const char *type, const char *op,
           int k, int unroll)
{
  size_t o = 0;
  int j, fma = strcmp(op, "fma") == 0;

  for (j = 0; j < k && o < len; j++) {
    if (fma)
      o += (size_t) snprintf(buf + o, len - o, "%sp%d = p%d * p%d + p%d", j ? "|" : "", j, j,
                             k, k + 1);
    else
      o += (size_t) snprintf(buf + o, len - o, "%sp%d = p%d %s p%d", j ? "|" : "", j, j, op,
                             k);
  }
  c->stmts = buf;
  c->type = type;
  c->nvars = k + 1 + fma;
  c->unroll = unroll;
  c->style = XRAY_STYLE_BARRIER;
}

static void
describe_how(xray_machine *m, char *out, size_t len, const char *what, double stack)
{
  if (stack < 0)
    snprintf(out, len, "%s; %s %s", what, m->cc, m->cflags);
  else
    snprintf(out, len, "%s; %s %s; static check: %.2g spill instructions per statement", what,
             m->cc, m->cflags, stack);
}

static void
set_ns(xray_machine *m, xray_value *v, double cycles)
{
  if (m->core_hz > 0)
    v->ns = cycles / m->core_hz * 1e9;
}

static int
run_ops(xray_machine *m, xray_report *r, int throughput)
{
  struct xray__op ops[MAX_OPS];
  struct xray_cspec k[MAX_K];
  static char text[MAX_K][600];
  struct xray__timed t[MAX_K];
  size_t n, i, nk = 0;
  char err[200];
  int built;

  if (xray__parse_ops(m->oplist[0] ? m->oplist : DEFAULT_OPS, ops, MAX_OPS, &n, err, sizeof err)) {
    snprintf(m->error, sizeof m->error, "%s", err);
    return -1;
  }
  for (i = 0; i < n; i++) {
    int c;
    if (!throughput) {
      chain_spec(&k[nk], text[nk], sizeof text[nk], ops[i].type, ops[i].op, 1, 32);
      nk++;
    } else
      for (c = 0; c < 6; c++, nk++)
        chain_spec(&k[nk], text[nk], sizeof text[nk], ops[i].type, ops[i].op, chains[c % 3],
                   c < 3 ? THRU_UNROLL : 2 * THRU_UNROLL);
  }
  built = xray__time_set(m, k, nk, t) == 0;
  for (i = 0; i < n; i++) {
    char name[64], desc[96], how[200];
    xray_value *v;
    struct xray__timed *b = &t[throughput ? i * 6 : i];
    double ii = NAN;
    int c, best = 0;

    xray__define_name(name, sizeof name, throughput ? "II" : "LAT", ops[i].type, ops[i].op);
    snprintf(desc, sizeof desc, "%s of %s %s", throughput ? "initiation interval" : "latency",
             ops[i].type, ops[i].op);
    if (!(v = xray_report_add(r, name, desc, throughput ? "cycles per op" : "cycles")))
      return -1;
    if (!built) {
      xray__value_unknown(v, m->error);
      continue;
    }
    if (!b->avail) {
      snprintf(how, sizeof how, "%s %s does not offer %s at these flags", m->cc, m->cflags,
               ops[i].type);
      xray__value_unknown(v, how);
      continue;
    }
    /* The fastest K at 2N statements a loop. */
    if (throughput)
      for (best = 3, c = 4; c < 6; c++)
        if (b[c].t < b[best].t)
          best = c;
    if (isnan(b[best].t)) {
      xray__value_unknown(v, m->error);
      continue;
    }
    ii = b[best].t;
    if (throughput && !isnan(b[best - 3].t)) {
      double d = 2 * b[best].t - b[best - 3].t;
      ii = fmin(ii, fmax(d, (1 - LOOP_SHARE) * ii));
    }
    {
      char what[160];
      const char *s = k[throughput ? i * 6 + best : i].stmts;
      int len = (int) strcspn(s, "|");
      if (throughput)
        snprintf(what, sizeof what, "%d independent chains like %.*s, 2 t(%d) - t(%d) per "
                 "statement (%.3g, %.3g)", chains[best % 3], len, s, 2 * THRU_UNROLL,
                 THRU_UNROLL, b[best].t, b[best - 3].t);
      else
        snprintf(what, sizeof what, "dependent chain %.*s", len, s);
      describe_how(m, how, sizeof how, what, b[best].stack);
    }
    xray__value_measured(v, xray__quantize(ii), how);
    v->exact = ii;
    v->unconfirmed = !b[best].agree || (throughput && !b[best - 3].agree);
    set_ns(m, v, ii);
  }
  return 0;
}

static int
run_latency(xray_machine *m, xray_report *r)
{
  return run_ops(m, r, 0);
}

static int
run_throughput(xray_machine *m, xray_report *r)
{
  return run_ops(m, r, 1);
}

const xray_probe xray__probe_latency = { "latency",
                                         "latency of C operators (--ops=TYPE:OP,...), cycles",
                                         run_latency };
const xray_probe xray__probe_throughput = {
  "throughput", "initiation interval of C operators (--ops=TYPE:OP,...), cycles per op",
  run_throughput
};

/* --- fused multiply-add ------------------------------------------------- */

/* Fused if a*b+c as written is this much faster than across a barrier. */
#define FUSED 0.85

static int
run_fma(xray_machine *m, xray_report *r)
{
  static const struct xray_cspec k[2] = {
    { "p0 = p0 * p1 + p2", "double", 3, 32, XRAY_STYLE_BARRIER },
    { "p3 = p0 * p1|p0 = p3 + p2", "double", 4, 32, XRAY_STYLE_BARRIER },
  };
  struct xray__timed t[2];
  xray_value *have = xray_report_add(r, "XRAY_HAVE_FMA",
                                     "the compiler fuses a+b*c at these flags", "boolean");
  xray_value *isa = xray_report_add(r, "XRAY_HAVE_FMA_ISA",
                                    "the processor executes a fused multiply-add", "boolean");
  xray_value *lat = xray_report_add(r, "XRAY_FMA_LATENCY", "fused multiply-add latency",
                                    "cycles");
  xray_value *per = xray_report_add(r, "XRAY_FMA_PER_CYCLE",
                                    "fused multiply-adds started per cycle", "ops");
  char how[200], err[200];
  double l1, l12;
  int fused = -1;

  if (!have || !isa || !lat || !per)
    return -1;
  /* The compiler. */
  if (xray__time_set(m, k, 2, t) == 0 && !isnan(t[0].t) && !isnan(t[1].t)) {
    double ratio = t[0].t / (2 * t[1].t);
    fused = ratio < FUSED;
    snprintf(how, sizeof how, "double a*b+c %.2f cycles as written, %.2f with a barrier "
             "between * and + (ratio %.2f, fused below %.2f); %s %s",
             t[0].t, 2 * t[1].t, ratio, FUSED, m->cc, m->cflags);
    xray__value_measured(have, fused, how);
    have->exact = ratio;
    have->unconfirmed = !t[0].agree || !t[1].agree;
  } else
    xray__value_unknown(have, m->error);
  /* The processor. */
  m->error[0] = 0;
  l1 = m->ops->fma(m, 1);
  if (isnan(l1)) {
    snprintf(err, sizeof err, "%s", m->error);
    if (strstr(err, "does not execute") || strstr(err, "has no FMA")) {
      xray__value_measured(isa, 0, err);
      xray__value_unknown(lat, err);
      xray__value_unknown(per, err);
    } else {
      xray__value_unknown(isa, err);
      /* The compiler's fused form still has a latency. */
      if (fused == 1) {
        xray__value_measured(lat, xray__quantize(t[0].t), "the compiler's fused a*b+c chain");
        lat->exact = t[0].t;
        set_ns(m, lat, t[0].t);
      } else
        xray__value_unknown(lat, err);
      xray__value_unknown(per, err);
    }
    return 0;
  }
  {
    double a = l1, b = m->ops->fma(m, 1), c = m->ops->fma(m, 1);
    double v[3] = { a, b, c };
    l1 = xray__median(v, 3);
    lat->unconfirmed = fmax(a, fmax(b, c)) > 1.05 * fmin(a, fmin(b, c));
  }
  {
    double v[3];
    int i;
    for (i = 0; i < 3; i++)
      v[i] = m->ops->fma(m, 12);
    l12 = xray__median(v, 3);
    per->unconfirmed = fmax(v[0], fmax(v[1], v[2])) > 1.05 * fmin(v[0], fmin(v[1], v[2]));
  }
  xray__value_measured(isa, 1, "ran a fused multiply-add instruction");
  xray__value_measured(lat, xray__quantize(l1), "dependent chain of the machine instruction");
  lat->exact = l1;
  set_ns(m, lat, l1);
  if (l12 > 0) {
    double ii = xray__quantize(l12);
    xray__value_measured(per, floor(1 / ii + 0.5) >= 1 ? floor(1 / ii + 0.5) : 1 / ii,
                         "12 independent chains of the machine instruction");
    per->exact = 1 / l12;
  } else
    xray__value_unknown(per, m->error);
  return 0;
}

const xray_probe xray__probe_fma = { "fma",
                                     "fused multiply-add: compiler, processor, latency, rate",
                                     run_fma };

/* --- registers ------------------------------------------------------------ *
 *
 * X-Ray Sec. 3.6 with independent chains: <p1 += p0 | ... | p(n-1) += p0,
 * T, n> keeps n variables live.  While they fit in registers the loop runs
 * at the adders' rate; a spilled variable's chain goes through memory and
 * the time per statement jumps.  On cores with cheap spills (integers on
 * Zen 3) there is no jump, so the compiler's own code decides where it can
 * be read: the stack operands between the first and the last barrier of
 * the timed loop.  A coarse pass (n = 4, 8, ..., 40) brackets the first
 * spill; a fine pass times and checks every n around it. */

#define REG_MAX 40
#define REG_STEP 4
#define JUMP 1.15               /* time per statement that counts as a step */

struct regclass {
  const char *name;             /* INT, FP, VEC */
  const char *desc;
};

static const struct regclass classes[3] = {
  { "XRAY_NUM_INT_REGS", "integer registers usable for variables" },
  { "XRAY_NUM_FP_REGS", "floating-point registers usable for variables" },
  { "XRAY_NUM_VEC_REGS", "vector registers usable for variables" },
};

static void
reg_spec(struct xray_cspec *c, char *buf, size_t len, const char *type, int n, int unroll)
{
  size_t o = 0;
  int j;

  for (j = 1; j < n && o < len; j++)
    o += (size_t) snprintf(buf + o, len - o, "%sp%d += p0", j > 1 ? "|" : "", j);
  c->stmts = buf;
  c->type = type;
  c->nvars = n;
  c->unroll = unroll;
  c->style = XRAY_STYLE_BARRIER;
}

#define COARSE (REG_MAX / REG_STEP)
#define FINE 9

static int
run_registers(xray_machine *m, xray_report *r)
{
  static const char *const vec_candidates[] = { "__m512d", "__m256d", "__m128d",
                                                "float64x2_t" };
  static char text[3 * (COARSE + FINE)][400];
  const char *type[3] = { NULL, NULL, NULL };
  struct xray_cspec k[3 * (COARSE + FINE)];
  struct xray__timed t[3 * (COARSE + FINE)];
  xray_value *v[3] = { NULL, NULL, NULL };
  int first_spill[3], lo[3], c, j;
  size_t nk;

  if (m->types[0]) {
    char buf[256], *s, *save = NULL;
    snprintf(buf, sizeof buf, "%s", m->types);
    for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
      static char given[3][32];
      c = xray__type_class(s);
      if (type[c]) {
        snprintf(m->error, sizeof m->error, "registers: '%s' and '%s' are both %s types",
                 type[c], s, c == 0 ? "integer" : c == 1 ? "floating" : "vector");
        return -1;
      }
      snprintf(given[c], sizeof given[c], "%s", s);
      type[c] = given[c];
    }
  } else {
    /* The widest vector type the compiler offers at these flags. */
    struct xray_cspec probe[4];
    struct xray__timed a[4];
    type[0] = "long";
    type[1] = "double";
    for (j = 0; j < 4; j++) {
      probe[j].stmts = "p0 = p0 + p1";
      probe[j].type = vec_candidates[j];
      probe[j].nvars = 2;
      probe[j].unroll = 1;
      probe[j].style = XRAY_STYLE_BARRIER;
    }
    if (m->ops->kbuild(m, probe, 4) == 0) {
      for (j = 0; j < 4 && !type[2]; j++) {
        a[j].avail = m->ops->kinfo(m, (size_t) j, &a[j].stack);
        if (a[j].avail)
          type[2] = vec_candidates[j];
      }
      if (!type[2])
        snprintf(m->error, sizeof m->error, "%s %s offers none of __m512d, __m256d, "
                 "__m128d, float64x2_t", m->cc, m->cflags);
    }
    if (!type[2]) {
      xray_value *x = xray_report_add(r, classes[2].name, classes[2].desc, "registers");
      if (!x)
        return -1;
      xray__value_unknown(x, m->error);
    }
  }
  for (c = 0; c < 3; c++)
    if (type[c] && !(v[c] = xray_report_add(r, classes[c].name, classes[c].desc, "registers")))
      return -1;

  /* Coarse pass: static check only (timing too where it cannot be read). */
  for (c = 0, nk = 0; c < 3; c++)
    for (j = 0; j < COARSE; j++, nk++)
      /* Classes not asked for keep their slots with a one-statement kernel. */
      reg_spec(&k[nk], text[nk], sizeof text[nk], type[c] ? type[c] : "long",
               type[c] ? (j + 1) * REG_STEP : 2, type[c] ? (j + 1) * REG_STEP - 1 : 1);
  if (m->ops->kbuild(m, k, nk)) {
    for (c = 0; c < 3; c++)
      xray__value_unknown(v[c], m->error);
    return 0;
  }
  for (c = 0; c < 3; c++) {
    first_spill[c] = 0;
    lo[c] = 2;
    if (!type[c])
      continue;
    for (j = 0; j < COARSE; j++) {
      struct xray__timed *x = &t[c * COARSE + j];
      x->avail = m->ops->kinfo(m, (size_t) (c * COARSE + j), &x->stack);
      if (x->avail && x->stack < 0)
        x->t = m->ops->ktime(m, (size_t) (c * COARSE + j), &x->avail, &x->stack);
      if (!x->avail)
        break;
      if (x->stack > 0 && !first_spill[c])
        first_spill[c] = (j + 1) * REG_STEP;
      if (x->stack < 0 && j > 0 && !first_spill[c] && x->t > JUMP * t[c * COARSE + j - 1].t)
        first_spill[c] = (j + 1) * REG_STEP;
    }
    if (!t[c * COARSE].avail) {
      char why[200];
      snprintf(why, sizeof why, "%s %s does not offer %s at these flags", m->cc, m->cflags,
               type[c]);
      xray__value_unknown(v[c], why);
      type[c] = NULL;
      v[c] = NULL;
      continue;
    }
    if (!first_spill[c]) {
      char why[200];
      snprintf(why, sizeof why, "no spill of %s up to %d live variables", type[c], REG_MAX);
      xray__value_unknown(v[c], why);
      type[c] = NULL;
      v[c] = NULL;
      continue;
    }
    lo[c] = first_spill[c] - REG_STEP - 2;
    if (lo[c] < 2)
      lo[c] = 2;
  }

  /* Fine pass: every n from lo to lo + FINE - 1, timed and checked. */
  for (c = 0, nk = 0; c < 3; c++)
    for (j = 0; j < FINE; j++, nk++)
      reg_spec(&k[nk], text[nk], sizeof text[nk], type[c] ? type[c] : "long",
               type[c] ? lo[c] + j : 2, !type[c] ? 1 : 24 > lo[c] + j - 1 ? 24 : lo[c] + j - 1);
  for (c = 0; c < 3 && !type[c]; c++)
    ;
  if (c == 3)
    return 0;
  if (xray__time_set(m, k, nk, t)) {
    for (c = 0; c < 3; c++)
      xray__value_unknown(v[c], m->error);
    return 0;
  }
  for (c = 0; c < 3; c++) {
    struct xray__timed *x = &t[c * FINE];
    int stat = -1, timed = -1, agree = 1;
    char how[200];

    if (!type[c])
      continue;
    for (j = 0; j < FINE; j++) {
      agree &= x[j].agree;
      if (stat < 0 && x[j].stack > 0)
        stat = lo[c] + j - 1;
      if (timed < 0 && j > 0 && x[j].t > JUMP * x[j - 1].t)
        timed = lo[c] + j - 1;
    }
    if (x[0].stack > 0 || (stat < 0 && x[FINE - 1].stack == 0)) {
      /* The fine window missed the first spill: the code is not monotonic. */
      stat = -2;
    }
    if (stat >= 0) {
      char tim[64];
      if (timed == stat)
        snprintf(tim, sizeof tim, "timing agrees");
      else if (timed < 0)
        snprintf(tim, sizeof tim, "timing shows no step (spills are cheap here)");
      else
        snprintf(tim, sizeof tim, "timing shows a step at %d live", timed + 1);
      snprintf(how, sizeof how, "static check of %s's code (spills from %d live %s); %s", m->cc,
               stat + 1, type[c], tim);
      xray__value_measured(v[c], stat, how);
    } else if (timed >= 0 && stat == -1) {
      snprintf(how, sizeof how, "timing: step at %d live %s (the code cannot be read)",
               timed + 1, type[c]);
      xray__value_measured(v[c], timed, how);
      v[c]->unconfirmed = !agree;
    } else
      xray__value_unknown(v[c], stat == -2 ? "the compiler's spills do not grow with the "
                                             "variables" : "no step in the time per statement");
  }
  return 0;
}

const xray_probe xray__probe_registers = {
  "registers", "registers the compiler can use at these flags (--types=TYPE,...)",
  run_registers
};
